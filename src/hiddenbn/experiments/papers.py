"""The papers this project reproduces, and where each one lives: the only list of them.

A paper has one name, its authors and year (``chickering_heckerman1996``), and that name is
everything a newcomer needs to find it:

========================  ===================================================
experiment module         ``src/hiddenbn/experiments/<name>.py``
rule file                 ``workflow/rules/<name>.smk``
config section            ``<name>:`` in ``config/config.yaml``
results folder            ``<results_dir>/<name>/``
printed numbers           ``workflow/resources/<name>/`` (every number the paper prints
                          that a comparison uses)
report captions           ``workflow/report/<name>/``
========================  ===================================================

The key (``"003"``) is the paper's number in the reproduction report (``REPRODUCTION.md``)
and in the Snakemake report's categories. The gold standard is this project's own study beside
the papers; it has the same layout.

An experiment module is called by name, by the workflow and by ``hiddenbn check-config``, in two
ways, written down here as protocols: :class:`ChecksItsSection` (a paper whose config section
needs checks beyond the schema's) and :class:`WritesDimensionResults` (a paper whose dimension
results the shared rule script ``workflow/scripts/dimension.py`` writes). Everything else a
paper's rules call is its own: a paper's experiments share no protocol beyond these.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Protocol, runtime_checkable

from hiddenbn.errors import HiddenbnError


@runtime_checkable
class ChecksItsSection(Protocol):
    """An experiment module whose config section has checks a JSON schema cannot make
    (references between keys, readable spec files, sizes against each other)."""

    def check_config(self, section: dict, *read: dict | None) -> None:
        """Check ``section``, the paper's section of a config that fits the schema, and the
        sections of the other papers it reads (:attr:`Paper.reads`, ``None`` where absent).

        Raises
        ------
        HiddenbnError
            One line naming the offending key and what to write there.
        """


@runtime_checkable
class WritesDimensionResults(Protocol):
    """An experiment module whose dimension results (tables, figures, ``comparison.md``,
    ``verdicts.csv``) one rule writes through ``workflow/scripts/dimension.py``."""

    def write_dimension_results(self, section: dict, seed: int, printed, directory) -> None:
        """Write the paper's dimension results into ``directory``: from its config
        ``section``, the job's ``seed`` and the file of its ``printed`` numbers
        (``workflow/resources/<name>/``)."""


@dataclass(frozen=True)
class Paper:
    """One paper: its key, its one name, its authors and year, its title."""

    key: str
    name: str
    authors: str
    title: str
    #: The other papers whose config sections its check reads (:class:`ChecksItsSection`).
    reads: tuple[str, ...] = ()

    @property
    def module(self) -> str:
        """The experiment module, ``hiddenbn.experiments.<name>``."""
        return f"hiddenbn.experiments.{self.name}"

    def experiment(self) -> ModuleType:
        """The experiment module, imported (importing one costs a second: only when asked)."""
        return importlib.import_module(self.module)

    @property
    def rule_file(self) -> str:
        """The rule file, relative to ``workflow/``."""
        return f"rules/{self.name}.smk"

    @property
    def resources(self) -> str:
        """The folder of the paper's printed numbers, relative to ``workflow/``."""
        return f"resources/{self.name}"

    def results_folder(self, results_dir: str) -> str:
        """Where the paper's outputs go."""
        return f"{results_dir}/{self.name}"

    @property
    def label(self) -> str:
        """``Paper 003 Chickering & Heckerman (1996)``, the gold standard by its name alone: a
        paper's heading in REPRODUCTION.md and its category in the Snakemake report (no colon:
        the report turns categories into reStructuredText link targets)."""
        return self.authors if self.key == self.name else f"Paper {self.key} {self.authors}"


#: Paper key -> paper, in the order of the reports (and of the rule files: the gold standard's
#: rules use paper 003's data sets, so its rule file comes after paper 003's).
PAPERS = {paper.key: paper for paper in (
    Paper("000", "geiger_heckerman_meek1996", "Geiger, Heckerman & Meek (1996)",
          "Asymptotic Model Selection for Directed Networks with Hidden Variables"),
    Paper("001", "heckerman_meek1997", "Heckerman & Meek (1997)",
          "Embedded Bayesian Network Classifiers"),
    Paper("002", "kocka_zhang2002", "Kočka & Zhang (2002)",
          "Dimension Correction for Hierarchical Latent Class Models"),
    Paper("003", "chickering_heckerman1996", "Chickering & Heckerman (1996)",
          "Efficient Approximations for the Marginal Likelihood of Incomplete Data Given a "
          "Bayesian Network"),
    Paper("004", "meek_heckerman1997", "Meek & Heckerman (1997)",
          "Structure and Parameter Learning for Causal Independence and Causal Interaction "
          "Models"),
    Paper("gold_standard", "gold_standard", "Gold standard for the marginal likelihood",
          "exact and sequential Monte-Carlo values against every approximation (beyond the "
          "papers)", reads=("chickering_heckerman1996",)),
)}
#: Paper name -> paper.
BY_NAME = {paper.name: paper for paper in PAPERS.values()}


def paper(key: str) -> Paper:
    """The paper with ``key`` (``"003"``) or name (``"chickering_heckerman1996"``)."""
    found = PAPERS.get(key) or BY_NAME.get(key)
    if found is None:
        raise HiddenbnError(f"unknown paper {key!r}; use one of {', '.join(PAPERS)}")
    return found
