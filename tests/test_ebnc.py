"""EBNCs (paper 001): Eq. 4 against brute-force enumeration, the Sec. 4 and Sec. 6 dimensions
against each other, against closed forms derived below and against the Jacobian rank, and the
basis phi (full column rank, spans every EBNC conditional)."""

import itertools

import numpy as np
import pytest

from hiddenbn.ebnc import model as ebnc
from hiddenbn.errors import DataError, HiddenbnError, SpecError
from hiddenbn.models.network import Network, observed_distribution, random_parameters
from hiddenbn.models.spec import parse_spec
from hiddenbn.reports.dimension import format_ebnc_report


def random_embedded_network(rng, n_nodes, max_states=3, arc_probability=0.45, max_parents=3):
    """A random fully observed DAG (nodes in topological order) with 2..max_states states."""
    parents = []
    for i in range(n_nodes):
        candidates = [j for j in range(i) if rng.random() < arc_probability]
        parents.append(tuple(sorted(rng.permutation(candidates)[:max_parents].tolist())))
    return Network(names=tuple(f"V{i}" for i in range(n_nodes)),
                   cardinalities=tuple(int(c) for c in rng.integers(2, max_states + 1, n_nodes)),
                   parents=tuple(parents), hidden=(False,) * n_nodes,
                   functions=(None,) * n_nodes)


def all_input_configurations(classifier):
    cards = [classifier.network.cardinalities[i] for i in classifier.inputs]
    return np.array(list(itertools.product(*[range(c) for c in cards])), dtype=np.int64)


def brute_force_log_odds(network, cpts, target, configurations):
    """log p(y^k, x) - log p(y^1, x) from the dense joint distribution of the network."""
    joint = observed_distribution(network, cpts)
    y = network.index(target)
    inputs = [i for i in range(network.n_nodes) if i != y]
    out = np.zeros((configurations.shape[0], network.cardinalities[y] - 1))
    for row, x in enumerate(configurations):
        index = [0] * network.n_nodes
        for i, value in zip(inputs, x):
            index[i] = value
        column = []
        for k in range(network.cardinalities[y]):
            index[y] = k
            column.append(joint[tuple(index)])
        out[row] = np.log(column[1:]) - np.log(column[0])
    return out


def downward_closure_counts(classifier):
    """Per-class span dimension from the argument of Sec. 6, independently of the code.

    Per class, the log odds are sums of arbitrary functions of each family's scope. Functions
    of a set S have the corner-point basis prod_{v in T} I(x_v = s_v) (T subset of S, every
    s_v non-reference), and these products are linearly independent across different (T, s);
    so the span has dimension sum over T in the downward closure of the scopes of
    prod_{v in T} (r_v - 1). Returns that total and its split by the last member of T (the
    input whose block of Eq. 18 counts T).
    """
    cards = classifier.network.cardinalities
    closure = {()}
    for family in classifier.families:
        for size in range(1, len(family.scope) + 1):
            closure.update(itertools.combinations(family.scope, size))
    per_block = {}
    for subset in closure:
        if subset:
            size = int(np.prod([cards[v] - 1 for v in subset]))
            per_block[subset[-1]] = per_block.get(subset[-1], 0) + size
    return 1 + sum(per_block.values()), per_block


SECTION_6 = {"nodes": {
    "X1": {"states": 2}, "X2": {"states": 2}, "X3": {"states": 2},
    "Y": {"states": 2, "parents": ["X1", "X2"]},
    "X4": {"states": 2, "parents": ["X1", "X3", "Y"]},
    "X5": {"states": 2, "parents": ["X2", "X3", "Y"]}}}


def naive_bayes(class_states, input_states):
    nodes = {"Y": {"states": class_states}}
    nodes.update({f"X{i + 1}": {"states": r, "parents": ["Y"]} for i, r in enumerate(input_states)})
    return parse_spec({"nodes": nodes})


def markov_chain_given_y(class_states, input_states):
    nodes = {"Y": {"states": class_states}}
    for i, r in enumerate(input_states):
        nodes[f"X{i + 1}"] = {"states": r, "parents": ["Y"] + ([f"X{i}"] if i else [])}
    return parse_spec({"nodes": nodes})


def full_table(class_states, input_states):
    nodes = {f"X{i + 1}": {"states": r} for i, r in enumerate(input_states)}
    nodes["Y"] = {"states": class_states, "parents": list(nodes)}
    return parse_spec({"nodes": nodes})


# --- inference ---------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(8))
def test_eq4_log_odds_equal_brute_force_enumeration(seed):
    rng = np.random.default_rng(seed)
    network = random_embedded_network(rng, int(rng.integers(3, 6)))
    target = network.names[int(rng.integers(network.n_nodes))]
    cpts = random_parameters(network, rng)
    classifier = ebnc.embedded_classifier(network, target)
    x = all_input_configurations(classifier)
    ours = ebnc.log_odds(network, cpts, target, x)
    np.testing.assert_allclose(ours, brute_force_log_odds(network, cpts, target, x),
                               rtol=1e-10, atol=1e-10)
    # Eq. 3: the softmax of the log odds is the conditional p(y | x) of the network.
    joint = np.moveaxis(observed_distribution(network, cpts), classifier.target, -1)
    conditional = (joint / joint.sum(axis=-1, keepdims=True)).reshape(-1, classifier.n_classes)
    np.testing.assert_allclose(ebnc.class_probabilities(ours), conditional, rtol=1e-10)


def test_class_probabilities_are_stable_for_large_log_odds():
    p = ebnc.class_probabilities(np.array([[800.0, 0.0], [-800.0, -800.0]]))
    np.testing.assert_allclose(p, [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], atol=1e-300)


# --- exact and SVD rank ------------------------------------------------------------------------
def test_exact_rank_matches_float_rank_and_its_columns_are_independent(rng):
    for _ in range(20):
        rank = int(rng.integers(0, 6))
        matrix = rng.integers(-3, 4, (7, rank)) @ rng.integers(-3, 4, (rank, 9))
        exact, columns = ebnc.exact_rank(matrix)
        assert exact == np.linalg.matrix_rank(matrix.astype(float))
        assert len(columns) == exact
        assert np.linalg.matrix_rank(matrix[:, columns].astype(float)) == exact
        assert ebnc.svd_rank(matrix)[0] == exact


# --- dimension: the constructions agree --------------------------------------------------------
@pytest.mark.parametrize("seed", range(25))
def test_sec4_and_sec6_agree_with_each_other_and_the_closed_form(seed):
    rng = np.random.default_rng(100 + seed)
    network = random_embedded_network(rng, int(rng.integers(3, 8)))
    target = network.names[int(rng.integers(network.n_nodes))]
    summary = ebnc.ebnc_dimensions(network, target, rng=rng)
    classifier = ebnc.embedded_classifier(network, target)
    per_class, per_block = downward_closure_counts(classifier)
    classes = classifier.n_classes - 1
    assert summary.by_method["decomposition"] == per_class * classes
    assert summary.by_method["exact"] == per_class * classes
    assert summary.by_method["svd"] == per_class * classes
    assert summary.linear_constructions_agree
    basis = ebnc.ebnc_basis(network, target)
    assert basis.block_ranks == {network.names[v]: count * 1 for v, count in per_block.items()}
    # The exact and floating Jacobian ranks agree; no EBNC exceeds its span or its parameters.
    assert summary.jacobian_ranks_agree
    free = sum(network.node_parameter_count(f.node) for f in classifier.families)
    assert summary.d <= min(summary.basis_size, free)
    if classifier.n_classes == 2:  # Theorem 1's openness holds for a binary Y
        assert summary.span_is_model and not summary.warnings()


def test_section_6_network_block_ranks_follow_the_closed_form():
    network = parse_spec(SECTION_6)
    classifier = ebnc.embedded_classifier(network, "Y")
    per_class, per_block = downward_closure_counts(classifier)
    summary = ebnc.ebnc_dimensions(network, "Y")
    assert set(summary.by_method.values()) == {per_class}
    ranks = ebnc.ebnc_basis(network, "Y").block_ranks
    assert ranks == {network.names[v]: c for v, c in per_block.items()}
    # Eq. 12 as printed: psi_3 is a sum of a function of x1 and one of x2 (rank 3 of 4).
    block = {b.node: b for b in ebnc.eta_psi_blocks(classifier)}[network.index("X3")]
    assert block.groups == ((network.index("X1"),), (network.index("X2"),))


@pytest.mark.parametrize("n", range(1, 7))
def test_binary_naive_bayes_has_n_plus_1(n):
    # Eq. 6: the log odds are phi_0 + sum_i I(x_i^2) phi_i and the phi are free.
    summary = ebnc.ebnc_dimensions(naive_bayes(2, [2] * n), "Y")
    assert set(summary.by_method.values()) == {n + 1}


@pytest.mark.parametrize("class_states, input_states",
                         [(3, [2, 2]), (4, [2, 3, 2]), (3, [4, 2, 5])])
def test_naive_bayes_with_more_states(class_states, input_states):
    # Per class an additive function of the inputs, and each input's log-odds ratios are free
    # logit differences while the constant absorbs the rest: (r_Y - 1)(1 + sum_i (r_i - 1)).
    expected = (class_states - 1) * (1 + sum(r - 1 for r in input_states))
    summary = ebnc.ebnc_dimensions(naive_bayes(class_states, input_states), "Y")
    assert set(summary.by_method.values()) == {expected}


@pytest.mark.parametrize("class_states, input_states", [(2, [2, 2, 3]), (3, [2, 2]), (2, [3, 4])])
def test_full_table_has_every_configuration(class_states, input_states):
    # Y's parents are all the inputs and Y has no children: a multinomial per configuration.
    expected = int(np.prod(input_states)) * (class_states - 1)
    summary = ebnc.ebnc_dimensions(full_table(class_states, input_states), "Y")
    assert set(summary.by_method.values()) == {expected}


@pytest.mark.parametrize("n", range(2, 7))
def test_binary_markov_chain_given_y_has_2n(n):
    # Scopes {X1}, {X_{i-1}, X_i}: constant, n main effects, n - 1 adjacent pairs.
    summary = ebnc.ebnc_dimensions(markov_chain_given_y(2, [2] * n), "Y")
    assert set(summary.by_method.values()) == {2 * n}


def test_non_binary_chain_span_formula():
    states = [3, 2, 4]
    pairs = sum((a - 1) * (b - 1) for a, b in zip(states, states[1:]))
    span = 1 + sum(r - 1 for r in states) + pairs
    summary = ebnc.ebnc_dimensions(markov_chain_given_y(2, states), "Y")
    assert set(summary.by_method.values()) == {span}


def test_non_binary_class_can_fall_short_of_its_span():
    # 4-state Y with a binary parent X1, binary child X4 that also has a binary parent X3: the
    # tables of Y and X4 have 2*3 + 4*2*1 = 14 free parameters, yet the scopes {X1}, {X3, X4}
    # span 3 * (1 + 1 + 1 + 1 + 1) = 15 dimensions, so the EBNC cannot fill its span.
    network = parse_spec({"nodes": {
        "X1": {"states": 2}, "X3": {"states": 2}, "Y": {"states": 4, "parents": ["X1"]},
        "X4": {"states": 2, "parents": ["X3", "Y"]}}})
    summary = ebnc.ebnc_dimensions(network, "Y")
    assert summary.basis_size == 15
    assert summary.d == summary.by_method["jacobian-svd"] <= 14
    assert not summary.span_is_model
    assert any("curved" in line for line in summary.warnings())


# --- the Jacobian used by the check ------------------------------------------------------------
def test_log_odds_jacobian_matches_finite_differences(rng):
    network = parse_spec({"nodes": {
        "A": {"states": 3}, "Y": {"states": 3, "parents": ["A"]},
        "B": {"states": 2, "parents": ["A", "Y"]}, "C": {"states": 2, "parents": ["B"]}}})
    classifier = ebnc.embedded_classifier(network, "Y")
    logits = [rng.normal(size=(network.n_parent_configurations(i), network.cardinalities[i]))
              for i in range(network.n_nodes)]

    def cpts_of(logits):
        return [np.exp(b) / np.exp(b).sum(axis=1, keepdims=True) for b in logits]

    jacobian = ebnc.log_odds_jacobian(classifier, cpts_of(logits))
    blanket_states = ebnc._configurations([network.cardinalities[v] for v in classifier.blanket])
    x = np.zeros((blanket_states.shape[0], len(classifier.inputs)), dtype=np.int64)
    position = {v: j for j, v in enumerate(classifier.inputs)}
    x[:, [position[v] for v in classifier.blanket]] = blanket_states

    def flat_log_odds(logits):
        return ebnc.log_odds(network, cpts_of(logits), "Y", x).T.ravel()  # class-major rows

    column, step = 0, 1e-6
    for family in classifier.families:
        for index in np.ndindex(logits[family.node].shape):
            up = [b.copy() for b in logits]
            down = [b.copy() for b in logits]
            up[family.node][index] += step
            down[family.node][index] -= step
            numeric = (flat_log_odds(up) - flat_log_odds(down)) / (2 * step)
            np.testing.assert_allclose(jacobian[:, column], numeric, atol=1e-7)
            column += 1
    assert column == jacobian.shape[1]


# --- the basis phi -----------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(10))
def test_basis_is_full_rank_and_reproduces_every_conditional(seed):
    rng = np.random.default_rng(200 + seed)
    network = random_embedded_network(rng, int(rng.integers(3, 7)))
    target = network.names[int(rng.integers(network.n_nodes))]
    basis = ebnc.ebnc_basis(network, target)
    x = all_input_configurations(basis.classifier)
    design = basis.design_matrix(x)
    assert design.shape == (x.shape[0], basis.n_features)
    assert np.linalg.matrix_rank(design) == basis.n_features  # non-redundant
    for _ in range(3):
        cpts = random_parameters(network, rng, alpha=0.7)
        target_log_odds = ebnc.log_odds(network, cpts, target, x)
        phi, *_ = np.linalg.lstsq(design, target_log_odds, rcond=None)
        np.testing.assert_allclose(design @ phi, target_log_odds, atol=1e-8)


def test_basis_features_are_readable_and_start_with_the_constant():
    basis = ebnc.ebnc_basis(naive_bayes(3, [2, 3]), "Y")
    assert basis.feature_names() == ["1", "X1=1", "X2=1", "X2=2"]
    assert basis.dimension == 8


# --- bad input ---------------------------------------------------------------------------------
def test_bad_input_gives_one_line_errors():
    with pytest.raises(SpecError, match="hidden"):
        ebnc.embedded_classifier(parse_spec("2:2,2"), "X1")
    with pytest.raises(SpecError, match="no node called"):
        ebnc.embedded_classifier(naive_bayes(2, [2]), "Z")
    basis = ebnc.ebnc_basis(naive_bayes(2, [2, 2]), "Y")
    with pytest.raises(DataError, match="shape"):
        basis.design_matrix(np.zeros((3, 3), dtype=int))
    with pytest.raises(DataError, match="X2"):
        basis.design_matrix(np.array([[0, 2]]))
    with pytest.raises(HiddenbnError, match="unknown EBNC dimension method"):
        ebnc.ebnc_dimension(naive_bayes(2, [2]), "Y", method="guess")


# --- large networks: sampled checks, skipped checks, size limits --------------------------------
def test_large_blanket_is_checked_on_sampled_configurations():
    # 2^30 blanket configurations: the checks run on a random subset, a lower bound that
    # reaches the span and so proves every rank exactly.
    summary = ebnc.ebnc_dimensions(naive_bayes(2, [2] * 30), "Y")
    assert summary.sampled_rows is not None and summary.sampled_rows < 2**30
    assert set(summary.by_method.values()) == {31}
    assert not summary.warnings()


def test_dense_checks_are_skipped_with_a_warning_beyond_the_work_limit(monkeypatch):
    monkeypatch.setattr(ebnc, "MAX_DENSE_WORK", 0)
    summary = ebnc.ebnc_dimensions(markov_chain_given_y(2, [2] * 3), "Y")
    assert summary.by_method == {"decomposition": 6} and summary.d == 6
    assert "exact" in summary.skipped
    assert any("too large for the dense checks" in line for line in summary.warnings())
    report = ebnc.ebnc_report(markov_chain_given_y(2, [2] * 3), "Y")
    assert "skipped" in format_ebnc_report(report)


def test_oversized_sec6_block_is_refused_with_its_size():
    # The block of X14 maps functions of X1..X13 to themselves: 2^13 x 2^13 entries.
    with pytest.raises(HiddenbnError, match=r"input 'X14' is a 8.19e\+03 x 8.19e\+03 matrix"):
        ebnc.ebnc_basis(full_table(2, [2] * 26), "Y")
