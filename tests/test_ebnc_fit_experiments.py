"""The paper 001 learning study: generating models, the span comparison, one reduced run of
every case end to end, and findings computed from a hand-made result frame."""

import numpy as np
import pandas as pd
import pytest

from hiddenbn.data import Dataset
from hiddenbn.errors import HiddenbnError
from hiddenbn.experiments import heckerman_meek1997 as hm
from hiddenbn.models.spec import parse_spec

SECTION = {"training_sizes": [60, 120], "test_cases": 300, "replicates": 1,
           "study": {"inputs": 5, "prior_sd": 2.0, "max_parents": 2}}


def test_noisy_or_conditional_is_the_noisy_or_formula():
    network = hm.study_network("noisy_or", 5)
    cpts = hm.study_parameters("noisy_or", network, np.random.default_rng(0))
    rows = np.array([[0, 0, 0, 0, 0], [1, 0, 1, 0, 1], [1, 1, 1, 1, 0]])
    test = Dataset(("X1", "X2", "X3", "X4", "X5", "Y"),
                   np.column_stack([rows, np.zeros(3)]).astype(np.int32), np.ones(3, np.int64))
    probabilities = hm.true_conditional(network, cpts, test)[:, 1]
    # recover each link from a single-cause configuration and rebuild the others by hand
    table = cpts[network.index("Y")]
    links = [1 - table[1 << (3 - i), 0] / 0.95 for i in range(4)]
    assert probabilities[0] == pytest.approx(0.05)
    assert probabilities[1] == pytest.approx(1 - 0.95 * (1 - links[0]) * (1 - links[2]))
    assert probabilities[2] == pytest.approx(1 - 0.95 * np.prod([1 - v for v in links]))
    with pytest.raises(HiddenbnError, match="needs at least 5 inputs"):
        hm.study_network("ebnc", 4)


def test_same_ebnc_compares_spans():
    """Markov-equivalent embedded networks give the same EBNC; the v-structure adds X1 & X2."""
    def net(parents):
        return parse_spec({"nodes": {n: {"states": 2, "parents": p} for n, p in parents.items()}})

    inputs = ["X1", "X2"]
    naive = net({"Y": [], "X1": ["Y"], "X2": ["Y"]})
    chain = net({"X1": [], "Y": ["X1"], "X2": ["Y"]})
    full = net({"X1": [], "X2": [], "Y": ["X1", "X2"]})
    assert hm.same_ebnc(naive, chain, inputs)
    assert not hm.same_ebnc(naive, full, inputs)


def test_reduced_study_runs_every_case_and_writes_findings(tmp_path):
    learner_files, selection_files = [], []
    for case in hm.STUDY_CASES:
        for size in SECTION["training_sizes"]:
            learners, selections = (tmp_path / f"{case}{size}_l.csv",
                                    tmp_path / f"{case}{size}_s.csv")
            hm.run_study_case(case, size, SECTION, 7, learners, selections)
            learner_files.append(learners)
            selection_files.append(selections)
        frame = pd.read_csv(learners)
        assert len(frame) == len(hm.LEARNERS) + 1
        assert np.isfinite(frame.log_loss).all() and frame.accuracy.between(0, 1).all()
        chosen = pd.read_csv(selections)
        assert set(chosen.score) == {"laplace", "bic_log_evidence"}
        assert (chosen.held_out_regret >= -1e-12).all()
        assert chosen.network_recovered.isna().all() == (case == "noisy_or")
    paths = [tmp_path / name for name in ("curves.csv", "selection.csv", "findings.md")]
    hm.write_study_report(learner_files, selection_files, *paths, tmp_path / "curves")
    findings = paths[2].read_text()
    for heading in ("## Held-out log-loss", "## Selection", "## Laplace against BIC"):
        assert heading in findings
    assert (tmp_path / "curves.png").exists() and (tmp_path / "curves.pdf").exists()
    curves = pd.read_csv(paths[0])
    assert set(curves.learner) == set(hm.LEARNERS) | {"truth"}


def _study_tables(noise: float = 0.0):
    """Three data sets per case and size: naive Bayes has the lowest mean loss, its loss moved by
    ``noise`` up, down and not at all over the data sets."""
    rows = []
    for case in hm.STUDY_CASES:
        for n in (50, 100):
            for replicate, shift in enumerate((noise, -noise, 0.0)):
                for learner in ("truth",) + hm.LEARNERS:
                    loss = {"truth": 0.1, "true_structure": 0.2, "naive_bayes": 0.3 + shift,
                            "ebnc_laplace": 0.4}.get(learner, 0.5)
                    rows.append({"case": case, "n": n, "replicate": replicate,
                                 "learner": learner, "log_loss": loss + 0.01 * replicate,
                                 "accuracy": 0.8})
    selections = pd.DataFrame([
        {"case": case, "n": n, "replicate": replicate, "score": score, "inputs": "X1",
         "inputs_recovered": score == "laplace", "network_recovered": np.nan, "d": 2,
         "true_d": 4, "search_missed_truth": False,
         "held_out_regret": 0.0 if score == "laplace" else 0.1,
         "spearman_score_vs_held_out": 0.9 if score == "laplace" else 0.1, "models_scored": 9}
        for case in hm.STUDY_CASES for n in (50, 100) for replicate in range(3)
        for score in ("laplace", "bic_log_evidence")])
    return pd.DataFrame(rows), selections


def test_findings_rank_learners_only_where_their_paired_difference_is_significant():
    text = hm.study_findings(*_study_tables())
    assert text.count("lowest mean held-out log-loss without the oracle: naive Bayes "
                      "(generative)") == 6
    assert text.count("It is significantly better than every other learner") == 6
    assert "Laplace 0.90, BIC 0.10" in text
    assert "Laplace minus BIC, paired over data sets: -0.1000 ± 0.0000" in text
    assert "Laplace's choice is better in 100% of data sets, BIC's in 0%" in text
    assert "in 0% of 18 data sets" in text
    # the selection lines name the scores by their labels, not their code names
    assert "(c) noisy-or, N = 100, EBNC selected by BIC: true inputs selected 0%" in text
    assert "EBNC selected by Laplace: true inputs selected 100%" in text
    assert "bic_log_evidence" not in text and "laplace:" not in text
    assert text.count("full table (BD predictive): lower at 2, higher at 0, not significantly "
                      "different at 0; naive Bayes (generative): lower at 0, higher at 2") == 3
    # the same means with naive Bayes's loss spread over the data sets: no ranking
    noisy = hm.study_findings(*_study_tables(noise=0.3))
    assert noisy.count("lowest mean held-out log-loss without the oracle: naive Bayes") == 6
    assert "significantly better than every other" not in noisy
    assert noisy.count("Not separable from it: EBNC selected by Laplace") == 6
    assert "naive Bayes (generative): lower at 0, higher at 0, not significantly different " \
        "at 2" in noisy


def test_learning_curves_draw_bands_for_the_oracle_and_the_two_ebncs_only(tmp_path, monkeypatch):
    import matplotlib.colors
    from matplotlib.collections import PolyCollection

    from hiddenbn.reports import plots

    saved = []
    monkeypatch.setattr(plots, "save_figure", lambda figure, path: saved.append(figure))
    learners = _study_tables(noise=0.3)[0]
    hm.draw_learning_curves(learners, tmp_path / "curves")
    bands = [[c for c in ax.collections if isinstance(c, PolyCollection)]
             for ax in saved[0].axes if ax.lines]
    assert len(bands) == 2 * len(hm.STUDY_CASES)
    assert all(len(panel) == len(hm.BAND_LEARNERS) == 3 for panel in bands)  # not all six
    colours = {tuple(band.get_facecolor()[0][:3]) for band in bands[0]}
    assert colours == {matplotlib.colors.to_rgb(hm.LEARNER_STYLES[learner]["color"])
                       for learner in hm.BAND_LEARNERS}
    text = "\n".join(hm.learning_curve_section(learners))
    assert "with bands of ± s.d. for EBNC selected by Laplace, EBNC selected by BIC, EBNC of " \
        "the true structure (oracle)." in text
    plots.plt.close(saved[0])
