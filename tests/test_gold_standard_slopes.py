"""The slope experiment's judgement: the ML fit it takes log p(D|theta_ML) from (against an
independent optimiser), EM's shortfall, Drton & Plummer's bound for a model with surplus
classes, and the comparison scaled by the regular control with the control's uncertainty."""

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize
from scipy.special import expit, log_expit, logsumexp

from hiddenbn.data import Dataset
from hiddenbn.data.sampling import forward_sample
from hiddenbn.experiments import gold_standard as gs
from hiddenbn.learning.em import fit, run_em
from hiddenbn.models.network import random_parameters
from hiddenbn.models.spec import parse_spec
from hiddenbn.util import seeding

from test_gold_standard import synthetic_slopes

#: A data set on which paper 003's EM (halving, relative tolerance 1e-6) stops over 3 nats
#: short of the ML optimum: the regular control's second replicate at N = 3200.
SEED, CASES = seeding.job_seed(20261125, "gold_standard", "slope", "regular", 2), 3200


def peer_maximum(counts, patterns, starts=8):
    """The largest log-likelihood of the two-class latent class model over binary items that
    BFGS finds from ``starts`` random points (its own likelihood and gradient, written here)."""
    def negative(v):
        weights = np.array([0.0, v[0]])
        log_weights = weights - logsumexp(weights)
        logits = v[1:].reshape(2, -1)
        joint = (patterns @ log_expit(logits).T + (1 - patterns) @ log_expit(-logits).T
                 + log_weights)
        total = logsumexp(joint, axis=1)
        weighted = np.exp(joint - total[:, None]) * counts[:, None]
        gradient_weight = weighted[:, 1].sum() - counts.sum() * np.exp(log_weights[1])
        gradient_logits = weighted.T @ patterns - weighted.sum(0)[:, None] * expit(logits)
        return -counts @ total, -np.concatenate([[gradient_weight], gradient_logits.ravel()])

    rng = np.random.default_rng(0)
    return -min(minimize(negative, rng.normal(0, 2, 1 + 2 * patterns.shape[1]), jac=True,
                         method="BFGS", options={"gtol": 1e-8}).fun for _ in range(starts))


def test_the_ml_fit_reaches_an_independent_optimum_where_paper_003s_em_stops_short():
    model = parse_spec("2:2,2,2,2")
    rng = seeding.rng(SEED, "data")
    sample = forward_sample(model, random_parameters(model, rng, 1.0), CASES, rng)
    data = Dataset.from_rows(model.observed_names, sample, model.observed_cardinalities)
    loose = fit(model, data, seeding.rng(SEED, "em", CASES), 1.0, 16, 500, 1e-6, "halving",
                convergence="relative", acceleration="none")
    best, start = gs.ml_fit(model, data, seeding.rng(SEED, "em", CASES), 1.0, 16,
                            {"tolerance": 1e-8, "max_iterations": 20000})
    patterns = np.array([[int(bit) for bit in f"{i:04b}"] for i in range(16)])
    counts = np.array([np.all(sample == pattern, axis=1).sum() for pattern in patterns], float)
    peer = peer_maximum(counts, patterns)
    assert start == "restarts" and best.converged
    # the optimum lies on the boundary (an item probability 0), which EM approaches slowly:
    # within a hundredth of a nat, against log(N) / 2 = 4 per parameter
    assert best.log_likelihood == pytest.approx(peer, abs=0.01)
    # the counterfactual: paper 003's stopping rule fails the same check, by nats
    assert peer - loose.log_likelihood > 1.0


def test_ml_fit_starts_from_the_truth_where_it_does_better():
    """The autoclass setting's first replicate at N = 12800: EM from the true parameters ends
    higher than every restart; without them the restarts' best is kept."""
    seed = seeding.job_seed(20261125, "gold_standard", "slope", "autoclass", 1)
    model = parse_spec("3:2,2,2,2")
    rng = seeding.rng(seed, "data")
    truth = random_parameters(model, rng, 1.0)
    data = Dataset.from_rows(model.observed_names, forward_sample(model, truth, 12800, rng),
                             model.observed_cardinalities)
    ml_em = {"tolerance": 1e-8, "max_iterations": 20000}
    with_truth, start = gs.ml_fit(model, data, seeding.rng(seed, "em", 12800), 1.0, 16, ml_em,
                                  truth)
    alone, start_alone = gs.ml_fit(model, data, seeding.rng(seed, "em", 12800), 1.0, 16, ml_em)
    from_truth = run_em(model, data, truth, 1.0, 20000, 1e-8, convergence="relative")
    assert (start, start_alone) == ("truth", "restarts")
    assert with_truth.log_likelihood == from_truth.log_likelihood > alone.log_likelihood


def shortfall_slopes(gain_per_log_n):
    """ML fits whose penalty grows as 4 log N, and fits at ``em`` that stop
    ``gain_per_log_n * log(N / 100)`` nats short of them (0.3 nats when 0)."""
    slopes = synthetic_slopes(4.0, setting="hlc", sizes=(100, 400, 1600, 6400))
    noise = np.random.default_rng(1).normal(0, 0.02, len(slopes))
    gain = gain_per_log_n * np.log(slopes["cases"] / 100) + 0.3 + noise
    return slopes.assign(em_log_likelihood=slopes["log_likelihood"] - gain, ml_gain=gain)


def test_em_shortfall_that_grows_with_n_is_found_and_a_constant_one_is_not():
    growing = gs.em_shortfall(shortfall_slopes(0.5)).iloc[0]
    assert growing["slope_change"] == pytest.approx(0.5, abs=0.05)
    assert growing["em_slope"] == pytest.approx(3.5, abs=0.15)
    assert growing["largest_N"] == 6400
    text = "\n".join(gs._em_shortfall_lines(shortfall_slopes(0.5)))
    assert "raised by more than 2 SE in 1 of 1 settings (hlc): there EM's shortfall" in text
    assert "| setting | N=100 | N=400 | N=1600 | N=6400 |\n|---|---|---|---|---|\n| hlc | 0.31 (" \
        in text  # the gain per N, median (largest)
    # the counterfactual: a shortfall that does not grow with N leaves the slope alone
    constant = gs.em_shortfall(shortfall_slopes(0.0)).iloc[0]
    assert abs(constant["slope_change"]) < 0.05
    assert "in 0 of 1 settings: EM's shortfall is not what puts" in \
        "\n".join(gs._em_shortfall_lines(shortfall_slopes(0.0)))
    assert gs.em_shortfall(shortfall_slopes(0.5).drop(columns="em_log_likelihood")).empty


@pytest.mark.parametrize("features", [3, 4, 5])
def test_the_latent_class_bound_meets_rusakov_geigers_exact_value(features):
    """Where both apply (one class fitted by two, binary items, uniform prior) Drton &
    Plummer's bound equals Rusakov & Geiger's coefficient, computed independently (exact
    evidence and tempered sampling: tests/test_rusakov_geiger.py)."""
    items = ",".join(["2"] * features)
    truth, model = parse_spec(f"1:{items}"), parse_spec(f"2:{items}")
    bound, note = gs.latent_class_bound(truth, model, 1.0)
    assert bound == gs.rusakov_geiger_coefficient(truth, model, 1.0)[0] == (features + 1) / 2
    # the bound at sBIC's own phi = (d_1 + 1)/2 (the sBIC package's) beside it:
    # (d_1 + min(phi, d_1)) / 2
    phi = (features + 1) / 2
    assert note.endswith(f"an upper bound; {(features + phi) / 2:g} at the sBIC package's phi "
                         f"= {phi:g}")


def test_the_latent_class_bound_of_the_overfit_setting_and_where_it_does_not_apply():
    # 3 classes at a 2-class truth over 4 binary items (d_1 = 4), phi = 1:
    # (2 d_1 + 2 - 1 + 1 phi) / 2 = 5, below de/2 = 6.5 and ds/2 = 7
    bound, note = gs.latent_class_bound(parse_spec("2:2,2,2,2"), parse_spec("3:2,2,2,2"), 1.0)
    assert bound == 5.0 and note.endswith("5.75 at the sBIC package's phi = 2.5")
    lines = "\n".join(gs._latent_class_bound_lines(
        slope_table(0.01).assign(replicates=6), {"overfit": (bound, note)}))
    assert "here at phi = the prior's Dirichlet parameter" in lines
    assert "That is not the phi of sBIC in sections 1, 2 and 5" in lines
    assert "the bound sBIC uses" not in lines
    assert gs.latent_class_bound(parse_spec("2:2,2,2,2"), parse_spec("3:2,2,2,2"), 4.0)[0] == 6.5
    for truth, model, reason in (("3:2,2,2,2", "3:2,2,2,2", "not fewer than the model's 3"),
                                 ("2(2(2,2),2(2,2))", "3:2,2,2,2", "not a latent class model"),
                                 ("2:2,2,2", "3:2,2,2,2", "items are not the model's")):
        bound, why = gs.latent_class_bound(parse_spec(truth), parse_spec(model), 1.0)
        assert bound is None and reason in why


def test_a_slope_above_the_bound_fails_it_and_one_below_passes():
    assert gs.bound_verdict(4.1, 0.1, 5.0) == "at or below Drton-Plummer's bound 5 (2 SE)"
    assert gs.bound_verdict(5.15, 0.1, 5.0).startswith("at or below")  # within 2 SE
    assert gs.bound_verdict(5.5, 0.1, 5.0) == \
        "above Drton-Plummer's bound 5 by more than 2 SE"


def slope_table(control_se, overfit_bound=True):
    """:func:`gs.fitted_slopes`-like rows: a regular control at 0.8 of d/2, a de < ds setting
    at 0.8 de/2 (its slope SE 0.1) and the overfit setting (de < ds; a singular truth where
    its bound is given)."""
    table = pd.DataFrame([
        {"setting": "regular", "slope": 3.6, "slope_se": control_se, "slope_upper": 3.6,
         "slope_upper_se": control_se, "ds_half": 4.5, "de_half": 4.5},
        {"setting": "autoclass", "slope": 0.8 * 6.5, "slope_se": 0.1, "slope_upper": 5.2,
         "slope_upper_se": 0.2, "ds_half": 7.0, "de_half": 6.5},
        {"setting": "hlc", "slope": 0.8 * 5.5, "slope_se": 0.1, "slope_upper": 4.4,
         "slope_upper_se": 0.2, "ds_half": 6.5, "de_half": 5.5},
        {"setting": "overfit", "slope": 4.1, "slope_se": 0.1, "slope_upper": 4.0,
         "slope_upper_se": 0.2, "ds_half": 7.0, "de_half": 6.5}]).assign(upper_from_N=1600)
    if overfit_bound:
        table["latent_class_bound"] = [np.nan, np.nan, np.nan, 5.0]
    return table


def test_the_scaled_comparison_carries_the_controls_uncertainty():
    sharp = gs.scaled_comparison(slope_table(0.01)).set_index("setting")
    assert sharp.loc["hlc", "closer"] == "de/2"
    assert sharp.loc["hlc", "scale"] == pytest.approx(0.8)
    assert sharp.loc["hlc", "scale_se"] == pytest.approx(0.01 / 4.5)
    # autoclass's de/2 and ds/2 differ by 0.5: 0.2 after scaling, within the slope's 2 SE
    assert sharp.loc["autoclass", "closer"] == "cannot tell"
    # the counterfactual: the same slopes with a control of SE 0.5 cannot tell for hlc either
    vague = gs.scaled_comparison(slope_table(0.5)).set_index("setting")
    assert (vague["closer"] == "cannot tell").all()
    lines = "\n".join(gs._control_lines(slope_table(0.5)))
    assert "0.80 ± 0.11 of d/2" in lines and "cannot tell de/2 from ds/2" in lines
    assert "and not of the other) in 0 of 2 settings; cannot tell in 2 (autoclass, hlc)." \
        in lines
    sharp_lines = "\n".join(gs._control_lines(slope_table(0.01)))
    assert "and not of the other) in 1 of 2 settings (hlc: de/2); cannot tell in 1 " \
           "(autoclass)." in sharp_lines
    assert "hlc: slope 4.40 ± 0.10 against scaled de/2 = 4.40 ± 0.01" in sharp_lines
    assert ": closer to de/2, and consistent with it." in sharp_lines


def test_a_slope_below_both_scaled_predictions_does_not_tell_them_apart():
    """A slope far below the scaled de/2 is below their midpoint too, so "closer to de/2"
    cannot fail there: it is counted as below both, not as telling de/2 from ds/2; the same
    setting with its slope at the scaled de/2 (the counterfactual) tells them apart."""
    low = slope_table(0.01).assign(slope=[3.6, 5.2, 3.6, 4.1])
    below = gs.scaled_comparison(low).set_index("setting").loc["hlc"]
    assert below["closer"] == "de/2" and below["told_apart"] == "below both"
    lines = "\n".join(gs._control_lines(low))
    assert "below both by more than 2 combined SE, so \"closer to de/2\" tells nothing" in lines
    assert "in 0 of 2 settings; cannot tell in 1 (autoclass); below both in 1 (hlc)." in lines
    assert gs.scaled_comparison(slope_table(0.01)).set_index("setting").loc[
        "hlc", "told_apart"] == "de/2"


def test_the_combined_standard_error_matches_a_simulation():
    """The midpoint difference's SE against draws of the control's and the setting's slopes."""
    row = gs.scaled_comparison(slope_table(0.3)).set_index("setting").loc["hlc"]
    rng = np.random.default_rng(2)
    control = rng.normal(3.6, 0.3, 200_000)
    setting = rng.normal(4.4, 0.1, 200_000)
    difference = setting - control / 4.5 * (5.5 + 6.5) / 2
    assert row["combined_se"] == pytest.approx(difference.std(), rel=0.01)


def test_the_overfit_setting_leaves_the_de_ds_tally_for_its_bound():
    table = slope_table(0.01)
    assert gs.singular_truths(table).tolist() == [False, False, False, True]
    assert "overfit" not in set(gs.scaled_comparison(table)["setting"])
    figure_lines = "\n".join(gs._slopes_figure_lines(table))
    assert "3 settings" in figure_lines and "agrees with it in 1 of 1 (overfit)" in figure_lines
    assert "overfit at or below Drton-Plummer's bound 5 (2 SE)" in figure_lines
    # above its bound, the overfit setting disagrees with it
    above = table.assign(slope_upper=[3.6, 5.2, 4.4, 6.0])
    assert "agrees with it in 0 of 1 (none)" in "\n".join(gs._slopes_figure_lines(above))
    # the counterfactual: without the bound the overfit setting is judged on de/2 vs ds/2
    unbounded = slope_table(0.01, overfit_bound=False)
    assert "overfit" in set(gs.scaled_comparison(unbounded)["setting"])
    assert "4 settings" in "\n".join(gs._slopes_figure_lines(unbounded))


def test_the_slopes_figure_text_gives_both_fits_at_the_t_tolerance():
    """All N and the larger half of N each get their tally, at the t quantile of the
    replicates (2.57 SE at six), not a fixed 2 SE; a slope at de/2 alone for the larger half
    of N is named as telling de/2 from ds/2, and the counterfactual (all below) names none."""
    table = slope_table(0.01).assign(replicates=6)
    text = "\n".join(gs._slopes_figure_lines(table))
    assert "* Over all N: fitted slope below both ds/2 and de/2 by more than 2.57 SE, t with " \
           "5 df: 3 of 3 settings (regular, autoclass, hlc); consistent with one or both: none." \
           in text
    assert "* For the larger half of N: fitted slope below both ds/2 and de/2 by more than " \
           "2.57 SE, t with 5 df: 3 of 3 settings" in text
    assert "by more than 2 SE" not in text
    assert "for the larger half of N it is still below both in most (3 of 3)" in text
    assert "consistent with one alone: nowhere" in text
    closer = table.assign(slope_upper=[3.6, 6.4, 5.5, 4.0])
    text = "\n".join(gs._slopes_figure_lines(closer))
    assert "consistent with one or both: autoclass (de/2), hlc (de/2)." in text
    assert "for the larger half of N it is below both in 1 of 3, and consistent with one or " \
           "both in 2 (autoclass, hlc)" in text
    assert "consistent with one alone: autoclass (de/2, for the larger half of N), hlc (de/2, " \
           "for the larger half of N)" in text
    # three replicates: the t quantile on 2 df
    assert "by more than 4.30 SE, t with 2 df" in "\n".join(
        gs._slopes_figure_lines(table.assign(replicates=3)))


def test_the_slopes_figure_draws_six_data_sets_alike_in_none(monkeypatch, tmp_path):
    """Six replicates, six looks (shade and marker); three looks would repeat (the
    counterfactual)."""
    import matplotlib.pyplot as plt

    figures = []
    monkeypatch.setattr(gs.plots, "save_figure", lambda figure, path: figures.append(figure))
    slopes = synthetic_slopes(5.0, replicates=6)

    def looks():
        gs.figure_slopes(slopes, gs.fitted_slopes(slopes), tmp_path / "slopes")
        panel = figures[-1].axes[0]
        found = [(container.lines[0].get_color(), container.lines[0].get_marker())
                 for container in panel.containers]
        plt.close(figures[-1])
        return found

    assert len(set(looks())) == 6
    monkeypatch.setattr(gs, "REPLICATE_LOOKS", gs.REPLICATE_LOOKS[:3])
    assert len(set(looks())) == 3


def test_the_slopes_figure_tells_the_two_coefficients_apart_and_titles_both_slopes(
        monkeypatch, tmp_path):
    """Our R-G coefficient and Drton-Plummer's bound, both 2.5 (as in no_effect): the two lines
    coincide, so they differ in more than the dash (width and shade), and each title gives the
    slope over the larger half of N beside the slope over all N; drawn alike (the
    counterfactual) they cannot be told apart."""
    import matplotlib.pyplot as plt

    figures = []
    monkeypatch.setattr(gs.plots, "save_figure", lambda figure, path: figures.append(figure))
    slopes = synthetic_slopes(5.0)
    table = gs.fitted_slopes(slopes).assign(rusakov_geiger=2.5, latent_class_bound=2.5)

    def lines():
        gs.figure_slopes(slopes, table, tmp_path / "slopes")
        panel = figures[-1].axes[0]
        found = {line.get_label(): (line.get_linewidth(), line.get_alpha(), line.get_linestyle())
                 for line in panel.lines if line.get_label().startswith("slope ")}
        title = panel.get_title()
        plt.close(figures[-1])
        return found["slope R-G (ours, by tempering)"], \
            found["slope Drton-Plummer bound"], title

    rusakov_geiger, drton_plummer, title = lines()
    assert rusakov_geiger[:2] != drton_plummer[:2]
    row = table.iloc[0]
    assert f"fitted slope {row.slope:.2f} ± {row.slope_se:.2f}; N ≥ {row.upper_from_N}: " \
           f"{row.slope_upper:.2f} ± {row.slope_upper_se:.2f}" in title
    monkeypatch.setitem(gs.SLOPE_LINES, "latent_class_bound",
                        ("Drton-Plummer bound", {"ls": "-."}))
    rusakov_geiger, drton_plummer, _ = lines()
    assert rusakov_geiger == drton_plummer
