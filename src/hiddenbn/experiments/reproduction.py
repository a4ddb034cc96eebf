"""``REPRODUCTION.md``: every per-paper comparison in one document, with a verdict per check.

Each paper's report function writes, beside its ``comparison.md``, a ``verdicts.csv`` with one
row per printed number or claim it checks (:data:`COLUMNS`), judged in the shared vocabulary
:data:`VERDICTS` (:func:`compared`, :func:`claim_rows`, :func:`write_verdicts`). Two marks keep a
check that is no evidence out of the counts: the verdict :data:`CONSTRUCTED` for a check that
cannot fail because our reconstruction was made from the printed value or the result follows
from how the check is built (an implementation check), and the column
``derived_from`` for a row that repeats another row's check (the same printed number again, or a
direct consequence of it). The summary counts distinct checks: a derived row is shown in its
paper's verdicts but not counted. A check that was computed and found within noise reads
:data:`UNDECIDED`, counted apart from *not checked* (nothing computed).
:func:`write_reproduction` reads those files and the comparison documents of every paper the
config runs and assembles one Markdown document: a summary table, the known disagreements with
their explanations (or what is and is not known, :data:`UNEXPLAINED`), the verdicts that rest on
reconstruction choices with where their variants are shown, then each paper's verdicts and its
comparison in full, and last the config's studies (their summaries, which say what their
figures show). A run of the quick config (``quick_sizes: true``) says at its top that its
sizes are too small to judge, and its disagreements read :data:`QUICK_VERDICT`. Nothing here
computes a result: every number in the document comes from the files it reads.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from hiddenbn.errors import HiddenbnError
from hiddenbn.experiments.papers import paper
from hiddenbn.util.files import atomic_output, atomic_write_text
from hiddenbn.util.markdown import pipe_table

#: Columns of a ``verdicts.csv``: where in the paper, what is checked, the paper's value (empty
#: for a claim), ours (a number or the evidence), the verdict, why it disagrees where known, the
#: reconstruction choices (settings the paper does not state) the verdict rests on, with where
#: their variants are shown (empty: it rests on none), and ``derived_from``: the ``item`` of the
#: row of the same paper whose check this row repeats (empty: an independent check).
COLUMNS = ("where", "item", "paper", "ours", "verdict", "explanation", "choices", "derived_from")
#: The verdict of a check that cannot fail: our side was reconstructed from the printed value
#: (a lost network drawn so that its parameter count is the printed one, a size chosen so that
#: a printed formula gives the printed number), or the result follows from how the check is
#: built (a nested model with the smaller penalty winning; random points missing a set of
#: probability 0), which makes it an implementation check. It is shown, never counted as a
#: reproduction.
CONSTRUCTED = "consistent by construction"
#: The verdict of a check that was computed but that the data cannot decide: every difference
#: it weighs lies within noise (or its interval reaches both answers). *not checked* is kept
#: for a check nothing was computed for (an experiment not in the config, a premise that
#: fails, a printed value whose rounding or implementation leaves nothing to compare).
UNDECIDED = "not decided"
#: The verdicts, in the order of the summary table's columns.
VERDICTS = ("reproduced", "partly reproduced", "not reproduced", CONSTRUCTED, UNDECIDED,
            "not checked")
#: Verdicts listed among the known disagreements.
DISAGREEMENTS = ("not reproduced", "partly reproduced")
#: The words of the per-paper claim tables (``| claim | verdict | evidence |``) as verdicts.
CLAIM_VERDICTS = {"supported": "reproduced", "partly supported": "partly reproduced",
                  "not supported": "not reproduced", CONSTRUCTED: CONSTRUCTED,
                  UNDECIDED: UNDECIDED, "not checked": "not checked"}
#: What a disagreement reads as in a report of the quick config (``quick_sizes: true``): its
#: sizes are too small for any verdict to be judged.
QUICK_VERDICT = "not checked (quick sizes)"
#: The explanation of a disagreement whose comparison computes none: what is and is not known.
UNEXPLAINED = ("cause not known: the comparison computes no explanation for this disagreement; "
               "what is known is the paper's value and ours, and the evidence under *ours*")

def paper_label(key: str) -> str:
    """The heading of paper ``key`` here and its category in the Snakemake report
    (:attr:`hiddenbn.experiments.papers.Paper.label`)."""
    return paper(key).label


# --- writing verdicts (called by each paper's report function) --------------------------------
def verdict_row(where: str, item: str, paper, ours, verdict: str, explanation: str = "", *,
                choices: str = "", derived_from: str = "") -> dict:
    """One row of a ``verdicts.csv``; ``verdict`` must be one of :data:`VERDICTS`; ``choices``
    names the reconstruction choices the verdict rests on and where their variants are shown;
    ``derived_from`` is the ``item`` of the row whose check this one repeats (the row is then
    shown but not counted in the summary)."""
    if verdict not in VERDICTS:
        raise HiddenbnError(f"verdict {verdict!r} of {item!r}: use one of {', '.join(VERDICTS)}")
    return dict(zip(COLUMNS, (where, item, _text(paper), _text(ours), verdict, explanation,
                              choices, derived_from)))


def compared(where: str, item: str, paper, ours, explanation: str = "", *,
             choices: str = "", derived_from: str = "", by_construction: bool = False) -> dict:
    """A printed value beside ours: reproduced when they are equal, else not reproduced with
    ``explanation`` (why they differ, where that is known).

    ``by_construction``: ours was reconstructed from the printed value, so equality is
    :data:`CONSTRUCTED` (no evidence); a difference is still *not reproduced* (the
    reconstruction missed its target). ``explanation`` then says how ours was made from it.
    """
    same = _text(paper) == _text(ours)
    verdict = ((CONSTRUCTED if by_construction else "reproduced") if same
               else "not reproduced")
    return verdict_row(where, item, paper, ours, verdict,
                       explanation if by_construction or not same else "",
                       choices=choices, derived_from=derived_from)


def claim_rows(where: str, claims) -> list[dict]:
    """Rows from the ``(claim, verdict, evidence[, explanation[, choices[, derived_from]]])``
    tuples of a comparison's claim table (``verdict`` a key of :data:`CLAIM_VERDICTS`); the
    evidence is our side, the paper's side is the claim itself."""
    return [verdict_row(where, claim, "", evidence, CLAIM_VERDICTS[verdict], *rest[:1],
                        choices=rest[1] if len(rest) > 1 else "",
                        derived_from=rest[2] if len(rest) > 2 else "")
            for claim, verdict, evidence, *rest in claims]


def write_verdicts(rows: list[dict], path) -> None:
    """Write ``rows`` (from :func:`verdict_row`) as ``path``, a CSV with :data:`COLUMNS`."""
    with atomic_output(path) as temporary:
        pd.DataFrame(rows, columns=list(COLUMNS)).to_csv(temporary, index=False)


def _text(value) -> str:
    """A cell as text: integers without a trailing ``.0``, missing values empty, a tuple as its
    items separated by commas."""
    if isinstance(value, tuple):
        return ", ".join(_text(v) for v in value)
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def read_verdicts(path) -> pd.DataFrame:
    """A ``verdicts.csv`` as text columns; one clear error if it is not one."""
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    if tuple(frame.columns) != COLUMNS:
        raise HiddenbnError(f"{path}: expected the columns {', '.join(COLUMNS)}, found "
                            f"{', '.join(frame.columns)}; rerun the rule that writes it")
    unknown = sorted(set(frame.verdict) - set(VERDICTS))
    if unknown:
        raise HiddenbnError(f"{path}: unknown verdict {unknown[0]!r}; use one of "
                            f"{', '.join(VERDICTS)}")
    return frame


# --- assembling REPRODUCTION.md ----------------------------------------------------------------
def _cell(value: str) -> str:
    """Markdown table cell: '|' would split the column, a newline the row."""
    return str(value).replace("|", "\\|").replace("\n", " ") or "—"


def _table(frame: pd.DataFrame) -> str:
    return pipe_table(frame, _cell)


def _link(path, base: Path) -> str:
    relative = Path(os.path.relpath(path, base)).as_posix()
    return f"[`{relative}`]({relative})"


def _embedded(path, base: Path, depth: int) -> list[str]:
    """A comparison document with its headings moved ``depth`` levels down, and a line saying
    where it comes from (its file names are relative to its own folder)."""
    lines, fenced = [], False
    for line in Path(path).read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        lines.append("#" * depth + line if line.startswith("#") and not fenced else line)
    source = f"*From {_link(path, base)}; file names in it are relative to its folder.*"
    if lines and lines[0].startswith("#"):
        return [lines[0], "", source, *lines[1:]]
    return [source, "", *lines]


def _check_derived(key: str, rows: pd.DataFrame) -> None:
    """Every ``derived_from`` of paper ``key``'s verdicts names an ``item`` of that paper."""
    unknown = sorted(set(rows.derived_from[rows.derived_from != ""]) - set(rows["item"]))
    if unknown:
        raise HiddenbnError(f"verdicts of paper {key}: derived_from {unknown[0]!r} is no item of "
                            "that paper's verdicts; name the item of the row it repeats")


def _check_sections(sections, studies) -> None:
    for section in sections:
        paper(section["paper"])
    paths = [path for section in sections for path in [*section["documents"],
                                                        *section["verdicts"]]]
    for path in paths + [path for study in studies for path in [study["summary"],
                                                               *study["figures"]]]:
        if not Path(path).is_file():
            raise HiddenbnError(f"{path}: missing; run the rule that makes it before "
                                "assembling REPRODUCTION.md")


def _study_lines(studies, base: Path) -> list[str]:
    """The config's studies, after the papers: per study its figures and its summary.md (which
    says what each figure shows, computed from the study's tables) in full."""
    lines = ["## Studies (beyond the papers)", "",
             "The config's own studies (its `studies:` section) check no printed number and "
             "have no verdicts. Each study's summary is reproduced in full below; its figure "
             "section says what the figure shows, from the study's own means.", ""]
    for study in studies:
        embedded = _embedded(study["summary"], base, 2)
        figures = ("Figures: " + ", ".join(_link(f, base) for f in study["figures"]) + "."
                   if study["figures"] else "No figure: the study's metrics draw none.")
        lines += [*embedded[:3], "", figures, *embedded[3:], ""]
    return lines


#: The top of a report of the quick config, before anything else.
QUICK_BANNER = (
    "**Quick sizes: too small to judge.** This run used a config with `quick_sizes: true` "
    "(`config/quick.yaml`): its sample sizes, data sets, EM starts and parameter points are cut so "
    "that the whole pipeline runs in minutes. No verdict here can be judged at these sizes: every "
    f"disagreement reads *{QUICK_VERDICT}*, and a *reproduced* is no evidence either. Run the "
    "default config (`make reproduce`) to judge the papers.")


def reported_verdicts(frame: pd.DataFrame, quick_sizes: bool) -> pd.DataFrame:
    """The verdicts as the report shows them: with ``quick_sizes`` every disagreement becomes
    :data:`QUICK_VERDICT`; a disagreement without an explanation gets :data:`UNEXPLAINED`."""
    frame = frame.copy()
    disagrees = frame.verdict.isin(DISAGREEMENTS)
    frame.loc[disagrees & (frame.explanation == ""), "explanation"] = UNEXPLAINED
    if quick_sizes:
        frame.loc[disagrees, "verdict"] = QUICK_VERDICT
    return frame


def _reconstruction_lines(sections, verdicts) -> list[str]:
    """Per paper, the verdicts that rest on reconstruction choices and where the variants are."""
    lines = ["## Verdicts that rest on reconstruction choices", "",
             "Settings a paper does not state (structures of lost figures, generating parameters, "
             "sample sizes, priors) are reconstructed as docs/RECONSTRUCTIONS.md describes. Per "
             "paper, every verdict whose `verdicts.csv` names the choices it rests on, with where "
             "the variants are shown.", ""]
    for section in sections:
        rows = verdicts[section["paper"]]
        rows = rows[(rows.choices != "") & (rows.derived_from == "")]
        lines += [f"### {paper_label(section['paper'])}", ""]
        if rows.empty:
            lines += ["No verdict here names a reconstruction choice in its `verdicts.csv`."
                      if len(verdicts[section["paper"]]) else "No verdicts (findings only).", ""]
            continue
        lines += [_table(rows[["where", "item", "verdict", "choices"]].rename(
            columns={"choices": "rests on (and where the variants are)"})), ""]
    return lines


def reproduction_markdown(sections: list[dict], base, quick_sizes: bool = False,
                          studies: list[dict] = ()) -> str:
    """The text of ``REPRODUCTION.md``.

    Parameters
    ----------
    sections : list of dict
        One per paper, in the order of the document: ``paper`` (a key of
        :data:`hiddenbn.experiments.papers.PAPERS`), ``documents`` (its comparison or findings
        files, embedded in full) and ``verdicts`` (its ``verdicts.csv`` files).
    base : path
        The folder of ``REPRODUCTION.md``: links are relative to it.
    quick_sizes : bool
        The config's ``quick_sizes``: the run's sizes are too small to judge, which the
        document says at its top (:data:`QUICK_BANNER`), and every disagreement reads
        :data:`QUICK_VERDICT`.
    studies : list of dict
        The config's studies, after the papers: ``name``, ``summary`` (its summary.md,
        embedded in full) and ``figures`` (its PNG figures, linked).

    Returns
    -------
    str
        Markdown: summary table, known disagreements, the verdicts that rest on reconstruction
        choices, each paper's verdicts and comparisons, then the studies.
    """
    _check_sections(sections, studies)
    base = Path(base)
    verdicts = {s["paper"]: reported_verdicts(pd.concat(
        [read_verdicts(p) for p in s["verdicts"]], ignore_index=True), quick_sizes)
        if s["verdicts"] else pd.DataFrame(columns=list(COLUMNS)) for s in sections}
    for key, rows in verdicts.items():
        _check_derived(key, rows)
    shown = [v for v in VERDICTS if not (quick_sizes and v in DISAGREEMENTS)]
    if quick_sizes:
        shown.insert(1, QUICK_VERDICT)
    summary = []
    for section in sections:
        rows = verdicts[section["paper"]]
        where = "; ".join(dict.fromkeys(rows["where"])) or "no printed numbers (findings only)"
        distinct = rows[rows.derived_from == ""]
        summary.append({"paper": paper_label(section["paper"]),
                        "what was compared": where,
                        **{v: str(int((distinct.verdict == v).sum())) for v in shown},
                        "rest on reconstruction choices": str(int((distinct.choices != "").sum())),
                        "derived (not counted)": str(len(rows) - len(distinct)),
                        "full comparison": "<br>".join(_link(p, base)
                                                       for p in section["documents"])})
    lines = ["# Reproduction of the five papers: every comparison in one document", ""]
    if quick_sizes:
        lines += [QUICK_BANNER, ""]
    lines += ["Generated by `hiddenbn.experiments.reproduction` from the files this run wrote "
              "(the config in force): each paper's `verdicts.csv` (one row per printed number or "
              "claim checked, with the paper's value, ours, a verdict, and the reconstruction "
              "choices it rests on) and its comparison, which is reproduced in full below. "
              "Verdicts: " + ", ".join(f"*{v}*" for v in shown) + ". Structures and settings the "
              "papers do not give are reconstructed as docs/RECONSTRUCTIONS.md describes and "
              "flagged in the comparisons."
              + (" The config's studies follow the papers: beyond them, with no verdicts."
                 if studies else ""), "", "## Summary", "",
              "Counts of distinct checks. *" + CONSTRUCTED + "* marks a check that cannot fail: "
              "our side was reconstructed from the printed value, or the result follows from "
              "how the check is built (an implementation check), so its agreement is no "
              f"evidence. *{UNDECIDED}* marks a check that was computed and whose data "
              "cannot decide it (every difference it weighs within noise); *not checked*, one "
              "for which nothing was computed (not in the config, not applicable, or a printed "
              "value that rounding or an implementation leaves nothing to compare with). "
              "A row derived from another (the same printed number checked again, or "
              "a direct consequence of another row's check; its `derived_from` names that row) "
              "is shown in its paper's verdicts but counted only under *derived (not counted)*.",
              "", _table(pd.DataFrame(summary)), ""]
    known = pd.concat([verdicts[s["paper"]].assign(paper_key=s["paper"]) for s in sections],
                      ignore_index=True)
    known = known[known.verdict.isin([*DISAGREEMENTS, QUICK_VERDICT])]
    if quick_sizes:
        lines += ["## Disagreements, not checked (quick sizes)", "",
                  "Every check that disagrees with the paper at these sizes. The sizes are too "
                  f"small to judge them, so each reads *{QUICK_VERDICT}*; the explanation is the "
                  "one its comparison computes at these sizes.", ""]
    else:
        lines += ["## Known disagreements", "",
                  f"Every check whose verdict is *{DISAGREEMENTS[0]}* or *{DISAGREEMENTS[1]}*, "
                  "with the explanation its comparison gives, or what is and is not known where "
                  "it gives none.", ""]
    if known.empty:
        lines += [f"None: no check is *{DISAGREEMENTS[0]}* or *{DISAGREEMENTS[1]}*.", ""]
    else:
        table = pd.DataFrame({
            "paper": known.paper_key, "where": known["where"], "item": known["item"],
            "paper's value": known["paper"], "ours": known["ours"], "verdict": known.verdict,
            "explanation": known.explanation, "rests on": known.choices,
            "derived from": known.derived_from})
        if (known.derived_from == "").all():
            table = table.drop(columns="derived from")
        lines += [_table(table), ""]
    lines += _reconstruction_lines(sections, verdicts)
    for section in sections:
        lines += [f"## {paper_label(section['paper'])}", "", f"*{paper(section['paper']).title}*",
                  "", "### Verdicts", ""]
        rows = verdicts[section["paper"]]
        lines += [_table(rows.rename(columns={"paper": "paper's value", "choices": "rests on",
                                              "derived_from": "derived from"})) if len(rows)
                  else "No printed number or claim is checked here; the findings below go "
                       "beyond the paper.", ""]
        for document in section["documents"]:
            lines += [*_embedded(document, base, 2), ""]
    if studies:
        lines += _study_lines(studies, base)
    return "\n".join(lines)


def write_reproduction(sections: list[dict], path, quick_sizes: bool = False,
                       studies: list[dict] = ()) -> None:
    """Write ``REPRODUCTION.md`` at ``path`` (see :func:`reproduction_markdown`)."""
    path = Path(path)
    text = reproduction_markdown(sections, path.parent, quick_sizes, studies)
    atomic_write_text(path, text)
