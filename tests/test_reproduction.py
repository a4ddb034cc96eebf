"""REPRODUCTION.md: verdict rows, their files, and the document assembled from them."""

import pandas as pd
import pytest

from hiddenbn.errors import HiddenbnError
from hiddenbn.experiments import reproduction as rp


def test_compared_judges_a_printed_value_by_equality_and_keeps_the_reason_only_if_it_differs():
    same = rp.compared("Table 1", "de of 3:2,2,2,2", 13.0, 13, "never shown")
    assert (same["paper"], same["ours"], same["verdict"], same["explanation"]) == \
        ("13", "13", "reproduced", "")
    differs = rp.compared("Table 1", "F2", (7, 9), (8, 9), "F2 is reconstructed")
    assert (differs["paper"], differs["ours"], differs["verdict"], differs["explanation"]) == \
        ("7, 9", "8, 9", "not reproduced", "F2 is reconstructed")


def test_a_value_made_from_the_printed_one_is_consistent_by_construction_not_reproduced():
    made = rp.compared("Fig. 4", "parameters of F2", 9, 9, "F2 drawn to have 9",
                       by_construction=True)
    assert (made["verdict"], made["explanation"]) == (rp.CONSTRUCTED, "F2 drawn to have 9")
    # a reconstruction that misses its target is still a disagreement
    missed = rp.compared("Fig. 4", "parameters of F2", 9, 8, "F2 drawn to have 9",
                         by_construction=True)
    assert missed["verdict"] == "not reproduced"
    repeat = rp.compared("Sec. 5", "Theorem 2 at n = 3", 7, 7, derived_from="rank, n = 3")
    assert (repeat["verdict"], repeat["derived_from"]) == ("reproduced", "rank, n = 3")


def test_claim_rows_translate_the_claim_tables_words():
    rows = rp.claim_rows("Sec. 4", [("A", "supported", "a"), ("B", "partly supported", "b"),
                                    ("C", "not supported", "c", "because")])
    assert [r["verdict"] for r in rows] == ["reproduced", "partly reproduced", "not reproduced"]
    assert [(r["item"], r["paper"], r["ours"]) for r in rows][0] == ("A", "", "a")
    assert [r["explanation"] for r in rows] == ["", "", "because"]
    derived = rp.claim_rows("Sec. 4", [("D", rp.CONSTRUCTED, "d", "made so", "", "A")])[0]
    assert (derived["verdict"], derived["derived_from"]) == (rp.CONSTRUCTED, "A")
    with pytest.raises(HiddenbnError, match="verdict 'maybe'"):
        rp.verdict_row("Sec. 1", "x", 1, 1, "maybe")


def test_read_verdicts_names_a_file_that_is_not_one(tmp_path):
    wrong = tmp_path / "verdicts.csv"
    pd.DataFrame({"claim": ["x"], "verdict": ["supported"]}).to_csv(wrong, index=False)
    with pytest.raises(HiddenbnError, match="expected the columns where, item"):
        rp.read_verdicts(wrong)
    rows = [dict(zip(rp.COLUMNS, ("Sec. 1", "x", "1", "1", "fine", "", "", "")))]
    pd.DataFrame(rows).to_csv(wrong, index=False)
    with pytest.raises(HiddenbnError, match="unknown verdict 'fine'"):
        rp.read_verdicts(wrong)


@pytest.fixture
def sections(tmp_path):
    """Two papers with verdicts and comparisons, and the gold standard with findings only."""
    def paper(folder, title, rows):
        directory = tmp_path / folder
        directory.mkdir()
        (directory / "comparison.md").write_text(f"# {title}\n\n## Table 1\n\nbody of {title}\n"
                                                 "```\n# not a heading\n```\n")
        rp.write_verdicts(rows, directory / "verdicts.csv")
        return {"paper": folder, "documents": [str(directory / "comparison.md")],
                "verdicts": [str(directory / "verdicts.csv")]}

    first = paper("000", "Dimensions", [
        rp.compared("Sec. 5", "rank, n = 3", 7, 7),
        rp.compared("Secs. 7-8", "Gaussian W (|H| = 2)", 12, 11, "the structure bounds it",
                    choices="the W structure's linear-Gaussian nodes (variants: none)"),
        rp.compared("Secs. 7-8", "parameters of the Gaussian W", 14, 14, "drawn to have 14",
                    by_construction=True),
        rp.compared("Sec. 5", "conjecture 2n + 1 at n = 3", 7, 7, derived_from="rank, n = 3"),
    ])
    second = paper("003", "Approximations", rp.claim_rows("Secs. 4-5", [
        ("BIC is the least accurate.", "supported", "mean |Δc| BIC 1.2"),
        ("Draper and CS are the most accurate.", "partly supported", "mean |Δc| CS 0.4"),
        ("For large c, Draper does better than CS.", rp.UNDECIDED, "+2.60 (s.e. 2.36)"),
    ]) + [rp.verdict_row("Sec. 5", "random parameters", "", "", "not checked", "not run")])
    gold = tmp_path / "gold_standard"
    gold.mkdir()
    (gold / "findings.md").write_text("# Findings\n\nCS+ is closer.\n")
    return [first, second, {"paper": "gold_standard", "documents": [str(gold / "findings.md")],
                            "verdicts": []}]


def test_document_has_a_summary_the_disagreements_and_every_paper_in_full(sections, tmp_path):
    path = tmp_path / "REPRODUCTION.md"
    rp.write_reproduction(sections, path)
    text = path.read_text()
    summary = text[text.index("## Summary"):text.index("## Known disagreements")]
    # distinct checks: the derived row is counted apart, the constructed one in its own column
    # a check computed and within noise (not decided) is counted apart from one nothing was
    # computed for (not checked)
    assert "| reproduced | partly reproduced | not reproduced | consistent by construction | " \
        "not decided | not checked | rest on reconstruction choices | derived (not counted) |" \
        in summary
    assert "| Paper 000 Geiger, Heckerman & Meek (1996) | Sec. 5; Secs. 7-8 | 1 | 0 | 1 | 1 | 0 " \
        "| 0 | 1 | 1 |" in summary
    assert "| Paper 003 Chickering & Heckerman (1996) | Secs. 4-5; Sec. 5 | 1 | 1 | 0 | 0 | 1 " \
        "| 1 | 0 | 0 |" in summary
    assert "*not decided* marks a check that was computed" in summary
    assert "| Gold standard for the marginal likelihood | no printed numbers" in summary
    assert "[`000/comparison.md`](000/comparison.md)" in summary
    known = text[text.index("## Known disagreements"):text.index("## Paper 000")]
    assert "| 000 | Secs. 7-8 | Gaussian W (\\|H\\| = 2) | 12 | 11 | not reproduced | the " \
        "structure bounds it | the W structure's linear-Gaussian nodes (variants: none) |" in known
    # a disagreement without a computed explanation says what is and is not known
    assert "| Draper and CS are the most accurate. | — | mean \\|Δc\\| CS 0.4 | partly " \
        f"reproduced | {rp.UNEXPLAINED} | — |" in known
    assert "none recorded" not in text
    assert "rank, n = 3" not in known and "random parameters" not in known
    assert "derived from" not in known  # no disagreement is derived
    assert ("| Sec. 5 | conjecture 2n + 1 at n = 3 | 7 | 7 | reproduced | — | — "
            "| rank, n = 3 |" in text)
    for heading in ("## Paper 000 Geiger", "## Paper 003 Chickering", "## Gold standard"):
        assert heading in text
    # every verdict row appears in its paper's section
    for item in ("rank, n = 3", "BIC is the least accurate.", "random parameters"):
        assert f"| {item} |" in text
    # comparisons embedded with their headings two levels down, code blocks untouched
    assert "### Dimensions\n\n*From [`000/comparison.md`]" in text
    assert "#### Table 1" in text and "body of Approximations" in text
    assert "```\n# not a heading\n```" in text
    assert "### Findings" in text and "CS+ is closer." in text
    # the verdicts that rest on reconstruction choices, per paper
    choices = text[text.index("## Verdicts that rest on reconstruction choices"):
                   text.index("\n## Paper 000")]
    assert "| Secs. 7-8 | Gaussian W (\\|H\\| = 2) | not reproduced | the W structure's " \
        "linear-Gaussian nodes (variants: none) |" in choices
    assert "No verdict here names a reconstruction choice" in choices
    assert "Quick sizes" not in text


def test_a_quick_run_says_at_its_top_that_nothing_is_judged(sections, tmp_path):
    """quick_sizes: the banner comes first, and no disagreement reads as a finding."""
    text = rp.reproduction_markdown(sections, tmp_path, quick_sizes=True)
    assert text.split("\n")[2] == rp.QUICK_BANNER
    summary = text[text.index("## Summary"):text.index("## Disagreements")]
    assert "| reproduced | not checked (quick sizes) | consistent by construction | not decided " \
        "| not checked |" in summary
    assert "| Paper 000 Geiger, Heckerman & Meek (1996) | Sec. 5; Secs. 7-8 | 1 | 1 | 1 | 0 " \
        "| 0 | 1 | 1 |" in summary
    for verdict in rp.DISAGREEMENTS:
        assert f"| {verdict} |" not in text
    # the summary header, two rows in the disagreements and in their papers, one in the choices
    assert text.count(f"| {rp.QUICK_VERDICT} |") == 6
    assert "none recorded" not in text and rp.UNEXPLAINED in text


def test_a_derived_row_must_name_an_item_of_its_paper(sections, tmp_path):
    path = sections[1]["verdicts"][0]
    rows = rp.read_verdicts(path).to_dict("records")
    rows[0]["derived_from"] = "no such item"
    rp.write_verdicts(rows, path)
    with pytest.raises(HiddenbnError, match="verdicts of paper 003: derived_from 'no such item'"):
        rp.reproduction_markdown(sections, tmp_path)


def test_a_missing_input_or_unknown_paper_is_named(sections, tmp_path):
    sections[0]["verdicts"].append(str(tmp_path / "nowhere.csv"))
    with pytest.raises(HiddenbnError, match="nowhere.csv: missing"):
        rp.reproduction_markdown(sections, tmp_path)
    with pytest.raises(HiddenbnError, match="unknown paper '007'"):
        rp.reproduction_markdown([{"paper": "007", "documents": [], "verdicts": []}], tmp_path)


def test_the_studies_follow_the_papers_with_their_figures_and_summaries(sections, tmp_path):
    folder = tmp_path / "studies" / "demo"
    (folder / "figures").mkdir(parents=True)
    (folder / "figures" / "selection.png").write_bytes(b"png")
    (folder / "summary.md").write_text("# Study demo\n\n## Figure: `figures/selection.png`\n\n"
                                       "* g: the mean KL falls for every score.\n")
    study = {"name": "demo", "summary": str(folder / "summary.md"),
             "figures": [str(folder / "figures" / "selection.png")]}
    text = rp.reproduction_markdown(sections, tmp_path, studies=[study])
    studies = text[text.index("## Studies (beyond the papers)"):]
    assert text.index("## Gold standard") < text.index("## Studies (beyond the papers)")
    assert "### Study demo\n\n*From [`studies/demo/summary.md`]" in studies
    assert "Figures: [`studies/demo/figures/selection.png`](studies/demo/figures/selection.png)" \
        in studies
    assert "#### Figure: `figures/selection.png`" in studies and "falls for every score" in studies
    assert "## Studies" not in rp.reproduction_markdown(sections, tmp_path)
    (folder / "figures" / "selection.png").unlink()
    with pytest.raises(HiddenbnError, match="selection.png: missing"):
        rp.reproduction_markdown(sections, tmp_path, studies=[study])
