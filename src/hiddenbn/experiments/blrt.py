"""The bootstrap likelihood-ratio test of ``select --blrt B`` as workflow jobs: the config's
``blrt:`` section, run by workflow/rules/blrt.smk.

A test of the section names a data file (read with the options of the command line:
``columns``, ``dictionary``, ``missing_values``, ``missing``), its ``classes``, ``replicates``
(``B``), ``seed``, ``em`` options and ``chunks``; its jobs are

1. the plan (:func:`write_plan`): the fits the tests compare, as ``select`` makes them
   (:func:`hiddenbn.commands.blrt_plan`), written once;
2. one job per chunk (:func:`write_chunk`): the replicates of :func:`chunk_range`, ``b`` from
   ``chunk * B // chunks`` to ``(chunk + 1) * B // chunks - 1``, of every test, so a large ``B``
   spreads over as many SLURM jobs as there are chunks;
3. the combination (:func:`write_report`): the report of :func:`hiddenbn.learning.blrt.report`,
   the ``blrt`` of ``select --blrt B --json`` with the same data, options and seed, to the bit,
   and its text (but for a note naming an option: a job, run from Python, names it by its
   keyword, which is the config's key, ``restarts=``; the command by its flag).

A replicate is the same wherever it runs (its own random streams,
:mod:`hiddenbn.learning.blrt`), so the chunking changes nothing in the result. **Stopping
early.** Besag & Clifford's sequential rule reads the replicates in the order of ``b``; the
combination applies it to all of them, so the p-value and the replicates it counts are the
command's. A chunk stops by itself once its own replicates hold ``h`` exceedances (the rule's
limit, :func:`hiddenbn.learning.blrt.exceedance_limit`): the rule has then stopped at or before
that replicate, whatever the chunks before hold. Chunks that run at once know nothing of each
other, so those past the rule's stopping point do work that is never read. ``chunks_per_wave``
bounds that: the chunks run in waves of that many, and after each wave a job
(:func:`write_wave`, a Snakemake checkpoint) lists the tests the rule has not decided; the
next wave runs only those, and none runs once every test is decided (:func:`chunks_to_combine`).
By default all chunks form one wave: the most parallel, the most waste.

The section is checked before any job, its data files read (:func:`check_config`: one line
naming the key).
"""

from __future__ import annotations

import json
from pathlib import Path

from hiddenbn import commands
from hiddenbn.errors import HiddenbnError
from hiddenbn.learning import blrt, selection
from hiddenbn.reports.blrt import format_blrt
from hiddenbn.reports.results import strict_json
from hiddenbn.util.defaults import DEFAULT_MISSING_VALUES
from hiddenbn.util.files import atomic_write_text

#: The command line's default of every optional key of a test but ``em``
#: (:func:`hiddenbn.commands.select`'s keywords).
DEFAULTS = {"columns": None, "dictionary": None, "missing_values": list(DEFAULT_MISSING_VALUES),
            "missing": "model", "seed": 0, "chunks": 1, "chunks_per_wave": None, "em": {}}


def check_config(section: dict, base_dir) -> dict:
    """Check every test of the ``blrt:`` section (it has passed the config schema), reading its
    data as the plan job will, so that a missing file, column or state stops the run before
    any job; return the tests as :func:`tests` does.

    Raises
    ------
    HiddenbnError
        The first problem, naming its key (``config blrt.<name>.<key>: ...; <the fix>``).
    """
    checked = tests(section, base_dir)
    for name, test in checked.items():
        try:
            table = commands.data_table(test["data"], test["dictionary"],
                                        test["missing_values"], test["missing"])
            table.data_file(table.names if test["columns"] is None else test["columns"])
        except HiddenbnError as err:
            raise HiddenbnError(f"config blrt.{name}: {err}") from None
    return checked


def tests(section: dict, base_dir) -> dict:
    """The tests of the ``blrt:`` section normalised: defaults filled in, file names absolute
    (a relative one is read from ``base_dir``, the config file's folder), ``classes`` a sorted
    list; one line naming the key if the classes have no test or the chunks outnumber the
    replicates. The workflow's rules read them so (the data were read by
    :func:`check_config` before)."""
    return {name: _test(name, test, Path(base_dir)) for name, test in section.items()}


def _test(name: str, test: dict, base_dir: Path) -> dict:
    """One test of :func:`tests`."""
    where = f"config blrt.{name}"
    test = {**DEFAULTS, **test}
    for key in ("data", "dictionary"):
        if test[key] is not None:
            test[key] = str(base_dir / test[key])
    try:
        classes = selection.parse_classes(_classes_text(test["classes"]))
        blrt.tested_states(classes)
    except HiddenbnError as err:
        shown = err.command_line_message().removeprefix("--classes ")  # the key names it
        raise HiddenbnError(f"{where}.classes: {shown}") from None
    if test["chunks"] > test["replicates"]:
        raise HiddenbnError(f"{where}.chunks: {test['chunks']} chunks of {test['replicates']} "
                            "replicates would leave some empty; give at most as many chunks as "
                            "replicates")
    per_wave = test["chunks_per_wave"] or test["chunks"]
    if per_wave > test["chunks"]:
        raise HiddenbnError(f"{where}.chunks_per_wave: {per_wave} is more than the "
                            f"{test['chunks']} chunks; give at most chunks")
    return {**test, "classes": classes, "chunks_per_wave": per_wave, "em": dict(test["em"])}


def _classes_text(classes) -> str:
    """The classes of a test as ``--classes`` takes them: a text as it is, a number or a list
    of numbers written as one."""
    if isinstance(classes, str):
        return classes
    return str(classes) if isinstance(classes, int) else ",".join(map(str, classes))


def chunk_range(replicates: int, chunks: int, chunk: int) -> tuple:
    """The replicates ``(start, stop)`` of chunk ``chunk`` of ``chunks``: ``B`` replicates in
    chunks whose sizes differ by at most one."""
    return chunk * replicates // chunks, (chunk + 1) * replicates // chunks


def plan(test: dict) -> blrt.Plan:
    """The plan of a test of :func:`tests`: ``select``'s fits of its data."""
    return commands.blrt_plan(test["data"], test["classes"], test["replicates"],
                              columns=test["columns"], dictionary=test["dictionary"],
                              missing_values=test["missing_values"], missing=test["missing"],
                              seed=test["seed"], **test["em"])


def write_plan(test: dict, path) -> None:
    """The plan job: the plan of a checked test, written to ``path``."""
    blrt.write_plan(path, plan(test))


def wave_of(test: dict, chunk: int) -> int:
    """The wave of chunk ``chunk`` of a test of :func:`tests`."""
    return chunk // test["chunks_per_wave"]


def chunks_to_combine(test: dict, folder: str, wave_file) -> list:
    """The chunk files ``<folder>/chunks/<chunk>.json`` the combination of a test of
    :func:`tests` reads: wave by wave, up to the first after which no test is undecided.
    ``wave_file(wave)`` is the file :func:`write_wave` wrote after that wave (the workflow's
    checkpoint; the last wave needs none: every test is decided after all ``B``)."""
    paths = []
    for chunk in range(test["chunks"]):
        paths.append(f"{folder}/chunks/{chunk}.json")
        wave = wave_of(test, chunk)
        if chunk + 1 < test["chunks"] and wave_of(test, chunk + 1) > wave \
                and not undecided(wave_file(wave)):
            break
    return paths


def run_chunk(plan_: blrt.Plan, chunks: int, chunk: int, states=None) -> list:
    """The replicates of chunk ``chunk`` of the tests of ``states`` classes (default: every
    test of ``plan_``; :func:`hiddenbn.learning.blrt.run_replicate`'s results), each test's
    stopped once they hold the sequential rule's ``h`` exceedances (see the module
    docstring)."""
    start, stop = chunk_range(plan_.replicates, chunks, chunk)
    limit = blrt.exceedance_limit(plan_.replicates, plan_.level)
    results = []
    for test in plan_.tests:
        if states is not None and test.states not in states:
            continue
        exceedances = 0
        for replicate in range(start, stop):
            result = blrt.run_replicate(plan_, test.states, replicate)
            results.append(result)
            exceedances += result["statistic"] >= test.statistic
            if exceedances == limit:
                break
    return results


def write_chunk(plan_path, chunks: int, chunk: int, path, wave_path=None) -> None:
    """A chunk's job: its replicates (:func:`run_chunk`) of the plan in ``plan_path``, as a
    JSON list in ``path`` (floats written exactly); of the tests the wave before left
    undecided (its file ``wave_path``, :func:`write_wave`) if given, else of every test."""
    states = None if wave_path is None else undecided(wave_path)
    atomic_write_text(path, json.dumps(run_chunk(blrt.read_plan(plan_path), chunks, chunk,
                                                 states)))


def read_chunks(chunk_paths) -> list:
    """The replicates of the chunk files ``chunk_paths``, together."""
    results = []
    for path in chunk_paths:
        with open(path, encoding="utf-8") as handle:
            results += json.load(handle)
    return results


def write_wave(plan_path, chunk_paths, path) -> None:
    """The job after a wave: ``{"undecided": [k, ...]}``, the tests (by their ``k``) the
    sequential rule has not decided from the replicates of ``chunk_paths`` (every chunk so
    far; :func:`hiddenbn.learning.blrt.is_decided`), into ``path``."""
    plan_ = blrt.read_plan(plan_path)
    results = read_chunks(chunk_paths)
    atomic_write_text(path, json.dumps({"undecided": [
        test.states for test in plan_.tests if not blrt.is_decided(plan_, test.states,
                                                                    results)]}))


def undecided(wave_path) -> list:
    """The tests a wave's file (:func:`write_wave`) lists as undecided."""
    with open(wave_path, encoding="utf-8") as handle:
        return json.load(handle)["undecided"]


def combine(plan_path, chunk_paths) -> dict:
    """The report of the tests (:func:`hiddenbn.learning.blrt.combine_all`) from the plan and
    every chunk's replicates: ``select --blrt``'s ``blrt``."""
    return strict_json(blrt.combine_all(blrt.read_plan(plan_path), read_chunks(chunk_paths)))


def write_report(plan_path, chunk_paths, json_path, text_path) -> None:
    """The combination job: the report (:func:`combine`) as JSON, as ``select --json`` prints
    its ``blrt``, and as the text ``select`` prints below its table."""
    report = combine(plan_path, chunk_paths)
    atomic_write_text(json_path, json.dumps(report, indent=1) + "\n")
    atomic_write_text(text_path, format_blrt(report) + "\n")
