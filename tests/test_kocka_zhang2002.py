"""Paper 002 experiments: deterministic generators, selection, Table 2 and the quick
configuration's content (KL >= 0 and falling with N, selections within the regular range). The
hill-climb and the KL are tested in test_hlc.py."""

import copy
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy.stats import t as student_t

from hiddenbn.dimension import is_regular_hlc
from hiddenbn.errors import HiddenbnError
from hiddenbn.experiments import kocka_zhang2002 as kz
from hiddenbn.hlc import all_binary
from hiddenbn.inference import latent_class_design, latent_class_statistics, state_offsets
from hiddenbn.models import latent_class, observed_distribution, random_parameters
from hiddenbn.spec import parse_spec

REPO = Path(__file__).resolve().parents[1]
QUICK = yaml.safe_load((REPO / "config" / "quick.yaml").read_text())["kocka_zhang2002"]
DEFAULT = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["kocka_zhang2002"]


def test_deterministic_children_encode_the_hidden_state_in_binary():
    network = latent_class(8, [2, 2, 2, 2])
    cpts = kz.deterministic_parameters(network, random_parameters(network,
                                                                  np.random.default_rng(2)), 3)
    joint = observed_distribution(network, cpts)  # axes O1..O4
    marginal = joint.sum(axis=3)
    for h in range(8):
        bits = (h & 1, (h >> 1) & 1, (h >> 2) & 1)
        assert marginal[bits] == pytest.approx(cpts[0][0, h], rel=1e-12)
    assert np.array_equal(cpts[4], random_parameters(network, np.random.default_rng(2))[4])


def _with(start, cards):
    for name, c in zip(("H1", "H2", "H3"), cards):
        start = start.with_cardinality(name, c)
    return start


def test_selection_takes_the_best_score_and_the_fewest_states_on_ties():
    models = pd.DataFrame({"generator": "k3", "parametrisation": 1, "cases": 100,
                           "states": [1, 2, 3], "BIC": [-5.0, -1.0, -1.0],
                           "CS": [-1.0, -2.0, -3.0], "kl_bits": [0.3, 0.2, 0.1]})
    chosen = kz.lc_selections(models, ["BIC", "CS"]).set_index("score")
    assert chosen.loc["BIC", "states"] == 2 and chosen.loc["BIC", "kl_bits"] == 0.2
    assert chosen.loc["CS", "states"] == 1


def test_table2_bold_follows_a_paired_t_test_against_the_lowest_mean():
    rng = np.random.default_rng(3)
    base = rng.uniform(1e-3, 2e-3, 20)
    frame = pd.concat([pd.DataFrame({"parametrisation": range(20), "cases": 1000, "score": s,
                                     "kl_bits": v})
                       for s, v in (("A", base), ("B", base + 1e-3 + rng.normal(0, 1e-5, 20)),
                                    ("C", base), ("D", base + rng.normal(0, 1e-3, 20)))])
    row = kz.table2(frame, ["A", "B", "C", "D"]).iloc[0]
    values = {s: frame[frame.score == s].kl_bits.to_numpy() * 1e3 for s in "ABCD"}
    best = min(values, key=lambda s: values[s].mean())
    assert row["best"] == best
    assert row["A bold"] and row["C bold"] and not row["B bold"]
    for score in "BD":  # an independent paired t-test: mean difference over its standard error
        difference = values[score] - values[best]
        statistic = difference.mean() / (difference.std(ddof=1) / math.sqrt(len(difference)))
        assert row[f"{score} p"] == pytest.approx(2 * student_t.sf(abs(statistic), 19),
                                                  rel=1e-9)
        assert row[f"{score} bold"] == (row[f"{score} p"] >= 0.05)
    assert row["A mean"] == pytest.approx(base.mean() * 1e3)


def test_design_e_step_counts_stay_nonnegative_near_the_boundary():
    """A last-state probability of 2e-16 made the subtraction in the BLAS path negative."""
    cards = np.array([2, 2, 2, 2])
    offsets = state_offsets(cards)
    patterns = np.array([[a, b, c, d] for a in (0, 1) for b in (0, 1) for c in (0, 1)
                         for d in (0, 1)], dtype=np.int32)
    counts = np.arange(1, 17, dtype=float) * 100
    weights = np.array([0.2, 0.3, 0.5])
    table = np.array([[0.6, 0.9, 0.3], [0.4, 0.1, 0.7], [0.02, 1 - 2e-16, 0.2],
                      [0.98, 2e-16, 0.8], [3e-5, 0.9, 0.9], [1 - 3e-5, 0.1, 0.1],
                      [0.5, 0.8, 0.25], [0.5, 0.2, 0.75]])
    by_design = latent_class_statistics(patterns, counts, weights, table, offsets,
                                         latent_class_design(patterns, cards))
    by_groups = latent_class_statistics(patterns, counts, weights, table, offsets)
    assert np.all(by_design[1] >= 0)
    np.testing.assert_allclose(by_design[1], by_groups[1], rtol=1e-9, atol=1e-9)


def test_check_config_accepts_the_configs_and_names_bad_keys():
    kz.check_config(QUICK)
    kz.check_config(DEFAULT)
    assert kz.lc_generators(DEFAULT) == ["k2", "k3", "k4", "k5", "k6", "k7", "k8", "k8det"]
    bad = copy.deepcopy(QUICK)
    bad["latent_class"]["test_states"] = {"min": 1, "max": 9}
    with pytest.raises(HiddenbnError, match="test_states: 9 hidden states is not regular"):
        kz.check_config(bad)
    bad = copy.deepcopy(QUICK)
    bad["hierarchical"]["spec"] = "3(2,2)"
    with pytest.raises(HiddenbnError, match="is not a regular HLC model"):
        kz.check_config(bad)


@pytest.fixture(scope="module")
def quick_results():
    seed = 20020101
    lc = pd.concat([kz.lc_experiment(g, QUICK, seed, points=2)
                    for g in kz.lc_generators(QUICK)], ignore_index=True)
    hlc = pd.concat([kz.hlc_experiment(n, QUICK, seed, points=2)
                     for n in QUICK["hierarchical"]["sample_sizes"]], ignore_index=True)
    return lc, hlc


def test_quick_content(quick_results):
    lc, hlc = quick_results
    tests = QUICK["latent_class"]["test_states"]
    selections = kz.lc_selections(lc, list(kz.SCORE_KEYS))
    assert (lc.kl_bits >= 0).all() and (hlc.kl_bits >= 0).all()
    assert selections.states.between(tests["min"], tests["max"]).all()
    for frame in (selections, hlc):
        means = frame.groupby(["score", "cases"]).kl_bits.mean().unstack("cases")
        assert (means.diff(axis=1).iloc[:, 1:] < 0).all().all(), means
    # de never exceeds ds, and the scores order as their penalties say
    assert (lc.de <= lc.ds).all()
    np.testing.assert_allclose(lc["BIC+"] - lc["BIC"], (lc.ds - lc.de) / 2 * np.log(lc.cases))
    np.testing.assert_allclose(lc["CS+"] - lc["CS"], (lc.ds - lc.de) / 2 * np.log(lc.cases))
    for cards in hlc.cardinalities:
        network = _with(parse_spec(QUICK["hierarchical"]["spec"]),
                        [int(c) for c in cards.split(",")])
        assert is_regular_hlc(network)


def test_quick_report_writes_every_output(quick_results, tmp_path):
    lc, hlc = quick_results
    printed = pd.read_csv(REPO / "workflow/resources/kocka_zhang2002/paper_table2.csv")
    kz.write_report(lc, hlc, printed, QUICK, tmp_path)
    text = (tmp_path / "comparison.md").read_text()
    assert "## Verdicts" in text and "paired t-test" in text
    for name in ("figure4", "figure4_supplementary", "figure5"):
        assert (tmp_path / "figures" / f"{name}.png").stat().st_size > 0
    table = pd.read_csv(tmp_path / "tables" / "table2.csv")
    assert list(table.cases) == QUICK["hierarchical"]["sample_sizes"]


def test_deterministic_claim_compares_where_the_plus_scores_start_to_win():
    rows = []
    for generator, wins_from in (("k8", 3000), ("k8det", 1000)):
        for cases in (1000, 3000):
            for score in kz.SCORE_KEYS:
                plus = score.endswith("+")
                kl = 1.0 if (plus and cases >= wins_from) else 2.0 if plus else 1.5
                rows.append({"generator": generator, "parametrisation": 1, "cases": cases,
                             "score": score, "states": 2, "kl_bits": kl})
    selections = pd.DataFrame(rows)
    claim, verdict, evidence = kz.deterministic_claim(selections, "k8", "k8det")
    assert verdict == "supported" and "8:2,2,2,2 3000" in evidence
    claim, verdict, evidence = kz.deterministic_claim(selections, "k8det", "k8")
    assert verdict == "not supported"


def test_tie_generator_is_the_first_generator_whose_test_model_saturates_de():
    de = {1: 4, 2: 9, 3: 13, 4: 15, 5: 15, 6: 15}
    models = pd.DataFrame({"states": list(de), "de": list(de.values())})
    assert kz.tie_generator(models, [2, 3, 4, 5]) == "k4"
    assert kz.tie_generator(models, [2, 3]) is None  # no generator at the saturation point
    assert kz.tie_generator(models[models.states <= 4], [2, 3, 4]) is None  # nothing to tie


def test_the_score_order_claims_explain_cs_plus_out_picking_bic_plus():
    states = pd.Series({"BIC": 2.7, "BIC+": 5.0, "CS": 3.0, "CS+": 8.0})
    (why,) = kz._cs_plus_most_explanation(states)
    assert "CS+ - BIC+ = CS - BIC" in why
    assert kz._cs_plus_most_explanation(states.replace({8.0: 4.0})) == ()


def test_table2_claims_and_cells_hold_on_the_paper_s_own_table():
    """Each Table 2 check is a function of a Table 2; on the paper's it must agree with it."""
    printed = pd.read_csv(Path(__file__).resolve().parents[1]
                          / "workflow/resources/kocka_zhang2002/paper_table2.csv", dtype=str)
    table = kz.parse_printed_table2(printed)
    assert table.loc[table.cases == 9000, "CS+ mean"].item() == 0.69
    for claim, check in kz.TABLE2_CLAIMS:
        assert check(table)[0] == "supported", claim
    rows = kz.table2_cell_rows(table, printed)
    assert len(rows) == 24 and {r["verdict"] for r in rows} == {"reproduced"}
    worse = table.assign(**{"CS+ mean": table["CS+ mean"] + 1.0})
    assert kz.claim_cs_plus_score_of_choice(worse)[0] == "not supported"
    assert sum(r["verdict"] == "not reproduced" for r in kz.table2_cell_rows(worse, printed)) >= 4


def test_cases_to_reach_interpolates_in_log_log():
    sizes, kl = [1000, 4000], [0.02, 0.005]  # KL proportional to 1/N
    assert kz.cases_to_reach(sizes, kl, 0.01) == pytest.approx(2000)
    assert kz.cases_to_reach(sizes, kl, 0.03) == 1000
    assert np.isnan(kz.cases_to_reach(sizes, kl, 0.001))


def synthetic_lc(plus_factor, parametrisations=6, sizes=(1000, 2000, 4000, 8000), seed=0):
    """Selections where the plain scores' KL is 1/N and the plus scores' KL at N equals the
    plain scores' at ``plus_factor`` N, with noise per parametrisation."""
    rng = np.random.default_rng(seed)
    rows = []
    for p in range(1, parametrisations + 1):
        for n in sizes:
            noise = np.exp(rng.normal(0, 0.02))
            for score in kz.SCORE_KEYS:
                factor = plus_factor if score.endswith("+") else 1.0
                rows.append({"generator": "k8det", "parametrisation": p, "cases": n,
                             "score": score, "states": 8, "kl_bits": noise / (factor * n)})
    return pd.DataFrame(rows)


def test_half_the_data_claim_measures_the_data_factor():
    assert kz.half_the_data_claim(synthetic_lc(2.2), "k8det")[1] == "supported"
    claim = kz.half_the_data_claim(synthetic_lc(1.3), "k8det")
    assert claim[1] == "not supported"
    assert "N = 1000: 1.3" in claim[3] and "Below 2 beyond variance" in claim[3]
    factors = kz.data_factors(np.array([1000, 2000, 4000]),
                              np.array([[4e-3, 2e-3, 4e-3, 2e-3], [2e-3, 1e-3, 2e-3, 1e-3],
                                        [1e-3, 5e-4, 1e-3, 5e-4]]))
    np.testing.assert_allclose(factors[:2], [2.0, 2.0])
    assert np.isnan(factors[2])  # the plain curve never gets that low


def test_ties_and_underfit_explanations():
    models = pd.DataFrame([{"generator": "k4", "parametrisation": 1, "cases": n, "states": k,
                            "de": min(4 * k, 15), "loglik": -100.0 - 0.5 * k}
                           for n in (1000, 9000) for k in range(1, 7)])
    selections = pd.DataFrame([
        {"generator": "k4", "parametrisation": 1, "cases": n, "score": s, "states": k,
         "kl_bits": kl}
        for n, picks in ((1000, {"BIC": (2, 3e-3), "BIC+": (2, 3e-3), "CS": (2, 3e-3),
                                 "CS+": (6, 1e-3)}),
                         (9000, {"BIC": (3, 2e-3), "BIC+": (5, 1e-3), "CS": (3, 2e-3),
                                 "CS+": (6, 1e-3)}))
        for s, (k, kl) in picks.items()])
    why = kz.ties_explanation(models, selections, "k4")
    assert "4-6-state models (de = 15; N = 9000)" in why and "5 states (1)" in why
    assert "median 1 nats" in why
    underfit = kz._underfit_explanation(selections, "k4", [1000, 9000])
    assert "worst BIC (2.0 states)" in underfit and "fewer states than the generating" in underfit


def test_hlc_explanations_name_the_rows_and_the_effective_dimensions():
    printed = pd.read_csv(Path(__file__).resolve().parents[1]
                          / "workflow/resources/kocka_zhang2002/paper_table2.csv", dtype=str)
    paper = kz.parse_printed_table2(printed)
    ours = paper.assign(**{"CS+ mean": paper["CS+ mean"] * 1.15,
                           "CS+ se": paper["CS+ se"] * 0.5})
    assert kz.claim_cs_plus_score_of_choice(ours)[0] != "supported"
    why = kz.cs_plus_choice_explanation(ours, paper)
    assert "CS+ " in why and "(paper: none)" in why and "N = 1000: CS+" in why
    network = all_binary(parse_spec("5(3(2,2),3(2,2),2)"))
    results = pd.DataFrame({"cases": 1000, "score": "BIC+",
                            "cardinalities": ["4,2,2", "4,2,2", "2,3,3", "3,3,3"]})
    why = kz.frequent_models_explanation(results, network, ("2,2,2", "2,3,2"))
    assert "2,2,2: 15" in why and "4,2,2: 15" in why and "3,3,3: 23" in why
    assert "differ in de" in why
    same = kz.frequent_models_explanation(results.head(3), network, ("2,2,2", "2,3,2"))
    assert "All have the same de" in same
