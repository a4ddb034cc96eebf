"""Model specifications: shorthands, YAML/JSON, and one clear message per malformed input."""

import json

import pytest

from hiddenbn.errors import SpecError
from hiddenbn.models.network import latent_class
from hiddenbn.models.spec import parse_spec


def test_latent_class_shorthand_tree_and_yaml_agree(tmp_path):
    yaml_file = tmp_path / "lc.yaml"
    yaml_file.write_text(
        "nodes:\n"
        "  H1: {states: 3, hidden: true}\n"
        "  X1: {states: 2, parents: [H1]}\n"
        "  X2: {states: 4, parents: [H1]}\n"
        "  X3: {states: 2, parents: [H1]}\n")
    shorthand = parse_spec("3:2,4,2")
    assert (shorthand == parse_spec("3(2,4,2)") == parse_spec(yaml_file)
            == latent_class(3, [2, 4, 2]))
    assert shorthand.observed_names == ("X1", "X2", "X3")
    assert shorthand.standard_dimension == 2 + 3 * (1 + 3 + 1)


def test_hlc_tree_equals_its_yaml_and_json(tmp_path):
    tree = parse_spec("5(3(2,2),3(2,2),2)")
    nodes = {
        "H1": {"states": 5, "hidden": True},
        "H2": {"states": 3, "hidden": True, "parents": ["H1"]},
        "H3": {"states": 3, "hidden": True, "parents": ["H1"]},
        "X1": {"states": 2, "parents": ["H2"]},
        "X2": {"states": 2, "parents": ["H2"]},
        "X3": {"states": 2, "parents": ["H3"]},
        "X4": {"states": 2, "parents": ["H3"]},
        "X5": {"states": 2, "parents": ["H1"]},
    }
    json_file = tmp_path / "hlc.json"
    json_file.write_text(json.dumps({"nodes": nodes}))
    assert tree == parse_spec(json_file) == parse_spec({"nodes": nodes})
    # 4 + 2 * (5 * 2) + 5 * 1 + 4 * (3 * 1): the 41 standard parameters quoted by paper 002
    # follow from the structure; we count them from the definition q_i (r_i - 1)
    expected = sum(
        (1 if not tree.parents[i] else tree.cardinalities[tree.parents[i][0]])
        * (tree.cardinalities[i] - 1) for i in range(tree.n_nodes))
    assert tree.standard_dimension == expected


def test_yaml_nodes_are_sorted_topologically_in_file_order():
    net = parse_spec({"nodes": {"B": {"states": 2, "parents": ["A"]},
                                "C": {"states": 2},
                                "A": {"states": 2, "parents": ["C"]}}})
    assert net.names == ("C", "A", "B")


def test_deterministic_states_are_inferred_from_the_function():
    net = parse_spec({"nodes": {"A": {"states": 3}, "B": {"states": 4},
                                "MAX": {"function": "max", "parents": ["A", "B"]},
                                "SUM": {"function": "sum", "parents": ["A", "B"]}}})
    assert net.cardinalities[net.index("MAX")] == 4
    assert net.cardinalities[net.index("SUM")] == 6
    assert net.standard_dimension == 2 + 3


def test_gaussian_and_sigmoid_networks():
    gaussian = parse_spec({"type": "gaussian", "nodes": {
        "H": {"hidden": True}, **{f"X{i}": {"parents": ["H"]} for i in range(1, 5)}}})
    assert gaussian.kind == "gaussian" and gaussian.standard_dimension == 2 + 4 * 3
    sigmoid = parse_spec({"type": "sigmoid", "nodes": {
        "H1": {"hidden": True}, "H2": {"hidden": True},
        **{f"X{i}": {"parents": ["H1", "H2"]} for i in range(1, 5)}}})
    assert sigmoid.cardinalities == (2,) * 6 and sigmoid.standard_dimension == 2 + 4 * 3


@pytest.mark.parametrize("spec, message", [
    ({"nodes": {"A": {"states": 2, "parents": ["B"]}, "B": {"states": 2, "parents": ["C"]},
                "C": {"states": 2, "parents": ["A"]}}}, "cycle: A -> C -> B -> A"),
    ({"nodes": {"A": {"states": 2, "parents": ["Q"]}}}, "node 'A': unknown parent 'Q'"),
    ({"nodes": {"A": {"states": 1}}}, "node 'A': an observed node needs at least 2 states, got 1"),
    ({"nodes": {"H": {"states": 0, "hidden": True}}}, "node 'H': a hidden node needs at least 1"),
    ({"nodes": {"H": {"states": 2, "hidden": True}}}, "no observed node"),
    ({"nodes": {"A": {"states": 3}, "B": {"states": 2},
                "E": {"function": "max", "parents": ["A", "B"], "states": 2}}},
     "node 'E': the max of its parents' states (3, 2) takes 3 values, but the node has 2"),
    ({"nodes": {"A": {"states": 2}, "E": {"function": "sum", "parents": ["A", "A"]}}},
     "node 'E': a parent is listed twice"),
    ({"nodes": {"A": {"states": 2, "colour": "red"}}}, "node 'A': unknown key 'colour'"),
    ({"nodes": {"A": {"states": "two"}}}, "node 'A': 'states' must be a whole number"),
    ({"nodes": {"A": {"function": "min", "parents": []}}}, "unknown function 'min'"),
    ({"type": "poisson", "nodes": {"A": {"states": 2}}}, "unknown network type 'poisson'"),
    ({"type": "gaussian", "nodes": {"A": {"states": 2}}}, "Gaussian nodes are continuous"),
    ({"nodes": {}}, "'nodes' must be a non-empty mapping"),
    ({"network": {}}, "top-level 'nodes' mapping"),
    ("5(3(2,2),3(2,2),2", "character 18: expected ',' or ')', found end of input "
                          "(unbalanced parentheses)"),
    ("5(3(2,2)),2)", "character 10: expected end of input, found ',' (unbalanced parentheses)"),
    ("5(3(2,x),2)", "character 7: expected a state count, found 'x'"),
    ("3(2,1)", "observed leaf X2 needs at least 2 states, got 1"),
    ("2", "the root must be a hidden node"),
    ("3:2,1,2", "observed variable X2 needs at least 2 states, got 1"),
    ("5,3,3:2,2,2,2,2", "write hierarchical models as trees"),
    ("", "empty model spec"),
    ("nosuchfile.yaml", "spec file nosuchfile.yaml does not exist"),
    ({"nodes": {"A": {"states": 2}, "E": {"function": "max"}}}, "needs parents"),
    ({"nodes": {"A": {"states": 2, "parents": 5}}}, "'parents' must be a list"),
    ({"nodes": {"A": {"states": 2, "hidden": "yes"}}}, "'hidden' must be true or false"),
    ({"nodes": {"A": {}}}, "'states' is missing"),
    ({"nodes": {"A": 3}}, "node 'A': expected a mapping"),
    ("0:2,2", "the hidden variable needs at least 1 state"),
    ("0(2,2)", "hidden node H1 needs at least 1 state"),
])
def test_each_malformed_spec_gets_its_message(spec, message):
    with pytest.raises(SpecError) as error:
        parse_spec(spec)
    assert message in str(error.value)
    # one line, what is wrong and then, after a semicolon, what to do
    assert "\n" not in str(error.value) and "; " in str(error.value)


def test_unparsable_yaml_file_names_the_file(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("nodes: {A: [unclosed\n")
    with pytest.raises(SpecError, match=r"spec file .*bad.yaml cannot be parsed: .*; correct "):
        parse_spec(bad)
