"""Fuzzing the workflow's config validation: a malformed config never crashes it.

Each case changes config/quick.yaml, with the studies of config/studies_example.yaml added so
that every section is there, one to three times: a value anywhere replaced (by one of its own
type gone wrong, such as NaN, an infinity, a huge or negative number or a malformed spec, or by
one of another type), a key removed, an unknown key added.
hiddenbn.experiments.workflow_config.check_config must then accept the config or raise a
HiddenbnError whose every line names a key ("config <key path>: ..."); any other exception is a bug.
400 cases, the same on every run (derandomized): about 8 s, 15 s with the imports. Then 150 cases of
config/quick.yaml broken as text (characters cut, YAML indicators put in) and read as ``hiddenbn
check-config`` reads a file: a syntax error is one line with the file and line (about 6 s).
"""

import copy

from hypothesis import given, settings
from hypothesis import strategies as st
from test_workflow import REPO
from test_workflow_errors import SCHEMA, quick_with_studies

from hiddenbn.errors import HiddenbnError
from hiddenbn.experiments.workflow_config import check_config

BASE = quick_with_studies()


def node_paths(node, path=()):
    """The path of every value below ``node``: mapping keys and list positions."""
    children = node.items() if isinstance(node, dict) else \
        enumerate(node) if isinstance(node, list) else ()
    for key, child in children:
        yield path + (key,)
        yield from node_paths(child, path + (key,))


PATHS = list(node_paths(BASE))
MISSING = object()


def value_at(config, path):
    """The value at ``path`` in ``config``, or MISSING where an earlier change took it away."""
    for key in path:
        try:
            config = config[key] if isinstance(config, (dict, list)) else MISSING
        except (KeyError, IndexError, TypeError):
            return MISSING
    return config


numbers = st.one_of(st.integers(-5, 100), st.integers(10**6, 10**30),
                    st.integers(max_value=-10**6), st.floats(allow_nan=True, allow_infinity=True))
# names the sections use (so references between them are tried) and spec-like text
strings = st.one_of(st.text(max_size=12), st.sampled_from(
    ["fig1_n8", "small", "lc3", "halving", "F1", "3:2,2,2,2", "2(2,2)", "3(2,2", "bic_log_evidence",
     "kl"]))
any_value = st.one_of(st.none(), st.booleans(), numbers, strings,
                      st.lists(st.one_of(numbers, strings), max_size=3),
                      st.dictionaries(st.text(max_size=6), numbers, max_size=2))


def malformed(original):
    """Values to put in place of ``original``: about half of its own type, so that the change gets
    past the type check to the bounds and the sections' own checks, half of any type."""
    if isinstance(original, bool):
        same = st.booleans()
    elif isinstance(original, (int, float)):
        same = numbers
    elif isinstance(original, str):
        same = strings
    elif isinstance(original, list):
        same = st.lists(st.one_of(numbers, strings), max_size=4)
    else:
        same = st.dictionaries(strings, any_value, max_size=2)
    return st.one_of(same, any_value)


replacements = st.sampled_from(PATHS).flatmap(
    lambda path: st.tuples(st.just("replace"), st.just(path), malformed(value_at(BASE, path))))
removals = st.tuples(st.just("remove"), st.sampled_from(PATHS), st.none())
additions = st.tuples(st.just("add"), st.sampled_from([(), *PATHS]),
                      st.tuples(st.text(max_size=8), any_value))


def mutated(mutations) -> dict:
    """A copy of BASE with ``mutations`` applied in turn; one whose path is gone is skipped,
    and an unknown key is added to mappings only."""
    config = copy.deepcopy(BASE)
    for kind, path, value in mutations:
        target = value_at(config, path)
        if target is MISSING:
            continue
        if kind == "add":
            if isinstance(target, dict):
                target.setdefault(*value)
        elif kind == "replace":
            value_at(config, path[:-1])[path[-1]] = value
        else:
            del value_at(config, path[:-1])[path[-1]]
    return config


@settings(derandomize=True, deadline=None, max_examples=400)
@given(st.lists(st.one_of(replacements, removals, additions), min_size=1, max_size=3))
def test_a_malformed_config_is_accepted_or_reported_one_line_per_problem(mutations):
    config = mutated(mutations)
    try:
        check_config(config, SCHEMA, REPO / "config")
    except HiddenbnError as error:
        lines = str(error).splitlines()
        assert lines and all(line.startswith("config ") for line in lines), lines


QUICK_TEXT = (REPO / "config" / "quick.yaml").read_text()
#: What breaks YAML text: its indicators, a tab, a lone quote, an unknown alias or a Python tag.
YAML_BREAKERS = st.sampled_from(
    [":", "- ", "[", "]", "{", "}", "\t", "'", '"', "&a ", "*a", "!!python/object ", "%", "\n ",
     "? ", "|", ">", "#", "\u00e9", "\x85"])


@settings(derandomize=True, deadline=None, max_examples=150)
@given(st.lists(st.tuples(st.integers(0, len(QUICK_TEXT)), st.integers(0, 3), YAML_BREAKERS),
                min_size=1, max_size=3))
def test_a_config_file_broken_as_text_gets_its_line_or_its_key(edits):
    """The file as a user edits it, as ``hiddenbn check-config`` and ``make reproduce`` read it:
    characters cut or YAML indicators put in anywhere. A syntax error names the file and line."""
    import tempfile
    from pathlib import Path

    from hiddenbn.experiments.workflow_config import check_config_file

    text = QUICK_TEXT
    for position, cut, inserted in edits:
        text = text[:position] + inserted + text[position + cut:]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "my.yaml")
        path.write_text(text, encoding="utf-8")
        try:
            check_config_file(path)
        except HiddenbnError as error:
            lines = str(error).splitlines()
            assert lines and all(line.startswith("config ") for line in lines), lines
            if lines[0].startswith("config file"):
                assert len(lines) == 1 and (", line " in lines[0] or ": must be a mapping"
                                            in lines[0]), lines
