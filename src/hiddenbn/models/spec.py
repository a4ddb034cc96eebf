"""Model specifications: the user-facing way to describe a network.

Three forms are accepted by :func:`parse_spec`:

``k:r1,...,rn``
    The latent class shorthand of Kočka & Zhang (paper 002 Sec. 2.2): a hidden root ``H1`` with
    ``k`` states and observed children ``X1..Xn`` with ``r1..rn`` states, e.g. ``3:2,2,2,2``.
``5(3(2,2),3(2,2),2)``
    The tree shorthand for hierarchical latent class models: a hidden node's state count
    followed by its children in parentheses; a bare number is an observed leaf. Hidden nodes are
    named ``H1, H2, ...`` in preorder and observed leaves ``X1, X2, ...`` from left to right, so
    ``3(2,2,2,2)`` is the same network as ``3:2,2,2,2``. The example is the HLC model
    5,3,3:2,2,2,2,2 of paper 002 Fig. 2.
a YAML or JSON file (or a dict)
    ``nodes: {NAME: {states: INT, parents: [...], hidden: BOOL, function: max|sum}}`` with an
    optional top-level ``type: discrete|gaussian|sigmoid``; or a parameter file, whose
    ``network`` is in that form. Deterministic nodes (``function``)
    are the effects of the causal-interaction models of paper 004; their ``states`` may be left
    out and is then the smallest count that holds every value of the function. Gaussian nodes
    are continuous and take no ``states``; sigmoid nodes are binary.

Hidden nodes may have a single state (the independence model that starts a sweep over hidden
cardinalities); observed nodes need at least two. Every malformed input raises
:class:`~hiddenbn.errors.SpecError` with one line naming the node or the character position.
"""

from __future__ import annotations

import heapq
import json
import re
from dataclasses import replace
from pathlib import Path

import yaml

from hiddenbn.errors import SpecError, excerpt, option
from hiddenbn.models.network import FUNCTIONS, KINDS, Network, latent_class
from hiddenbn.util import limits
from hiddenbn.util.textfiles import read_text, unique_json_object, yaml_loader

NODE_KEYS = ("states", "parents", "hidden", "function")
_LATENT_CLASS = re.compile(r"^\s*([0-9]+)\s*:\s*([0-9]+(?:\s*,\s*[0-9]+)*)\s*$")
_DIGITS = "0123456789"
_SPEC_FILE_SUFFIXES = (".yaml", ".yml", ".json")


def parse_spec(spec) -> Network:
    """Build a :class:`~hiddenbn.models.network.Network` from a shorthand string, a file path
    or a dict.

    Parameters
    ----------
    spec : str, path-like, dict or Network
        A latent class shorthand ``k:r1,...,rn``; a tree (a hidden node's state count
        followed by its children in parentheses, a leaf's state count alone); a YAML or JSON
        file, or its dict, of ``{"nodes": {NAME: {"states": INT, "parents": [...],
        "hidden": BOOL}}}``; or a network, returned as it is.

    Returns
    -------
    Network
        Its nodes in topological order; a shorthand's hidden nodes are named ``H1, H2, ...``
        and its observed nodes ``X1 .. Xn``.

    Examples
    --------
    >>> parse_spec("3:2,2,4").cardinalities
    (3, 2, 2, 4)
    >>> parse_spec("2(3(2,2),2)").hidden
    (True, True, False, False, False)
    >>> network = parse_spec({"nodes": {"cough": {"states": 2, "parents": ["smoker"]},
    ...                                 "smoker": {"states": 2}}})
    >>> network.names, network.standard_dimension
    (('smoker', 'cough'), 3)
    """
    if isinstance(spec, Network):
        return spec
    if isinstance(spec, dict):
        return network_from_dict(spec)
    if is_spec_file(spec):
        return load_spec_file(spec)
    if not isinstance(spec, str):
        raise SpecError("a model spec must be a string, a path or a dict, "
                        f"not {type(spec).__name__}")
    text = spec.strip()
    if not text:
        raise SpecError("empty model spec; write e.g. '3:2,2,2,2', '5(3(2,2),3(2,2),2)' or a "
                        "YAML file path")
    if not text[0].isdigit() and _is_a_path(text):  # a shorthand starts with a state count
        kind = "a folder" if Path(text).is_dir() else "a file without a spec file's suffix"
        raise SpecError(f"model spec {excerpt(text)} is {kind}; give a YAML (.yaml, .yml) or "
                        "JSON (.json) spec file, or a shorthand such as '3:2,2,2,2'")
    if ":" in text:
        return _parse_latent_class(text)
    return parse_tree(text)


def _is_a_path(text: str) -> bool:
    """Whether ``text`` names an existing file or folder (False for a text no file system
    takes as a name, such as one too long)."""
    try:
        return Path(text).exists()
    except (OSError, ValueError):  # ValueError: an embedded NUL
        return False


def is_spec_file(spec) -> bool:
    """Whether :func:`parse_spec` reads ``spec`` as a file: a path, or a name ending in
    ``.yaml``, ``.yml`` or ``.json``."""
    return isinstance(spec, Path) or (isinstance(spec, str)
                                      and spec.strip().lower().endswith(_SPEC_FILE_SUFFIXES))


def _state_count(digits: str, where: str) -> int:
    """``digits`` as a number of states. More digits than :data:`~hiddenbn.util.limits.MAX_STATES`
    has are refused here: such a number is above the limit, and ``int`` refuses 4300 digits."""
    digits = digits.strip()
    if len(digits) > len(str(limits.MAX_STATES)):
        shown = digits if len(digits) <= 40 else excerpt(digits)
        raise SpecError(f"{where}: {shown} states is above the limit of {limits.MAX_STATES}; "
                        "use fewer states")
    return int(digits)


def _checked(network: Network) -> Network:
    """``network`` once it passes :func:`hiddenbn.util.limits.check_states` (the size of its CPTs is
    checked where they are built: a dimension analysis of a wide model never builds them)."""
    limits.check_states(network)
    return network


def _parse_latent_class(text: str) -> Network:
    match = _LATENT_CLASS.match(text)
    if not match:
        head = text.split(":", 1)[0]
        if "," in head:
            raise SpecError(f"{excerpt(text)}: the k:r1,...,rn shorthand has one hidden variable; "
                            "write hierarchical models as trees, e.g. '5(3(2,2),3(2,2),2)'")
        raise SpecError(f"{excerpt(text)} is not a latent class spec; write e.g. '3:2,2,2,2'")
    hidden = _state_count(match.group(1), excerpt(text))
    observed = [_state_count(r, excerpt(text)) for r in match.group(2).split(",")]
    if hidden < 1:
        raise SpecError(f"{excerpt(text)}: the hidden variable needs at least 1 state, got "
                        f"{hidden}; give k of 1 or more in k:r1,...,rn")
    for j, r in enumerate(observed):
        if r < 2:
            raise SpecError(f"{excerpt(text)}: observed variable X{j + 1} needs at least 2 "
                            f"states, got {r}; give every item 2 or more states, or leave it out")
    return _checked(latent_class(hidden, observed))


class _TreeParser:
    """Recursive-descent parser for ``node := INT ['(' node (',' node)* ')']``."""

    def __init__(self, text: str):
        self.text = text
        self.pos = 0
        self.nodes: dict[str, dict] = {}
        self.n_hidden = 0
        self.n_observed = 0

    def fail(self, expected: str):
        found = repr(self.text[self.pos]) if self.pos < len(self.text) else "end of input"
        unbalanced = self.text.count("(") != self.text.count(")")
        hint = " (unbalanced parentheses)" if unbalanced else ""
        raise SpecError(f"{self.where(self.pos)}: expected {expected}, found {found}{hint}; "
                        "write a hidden node's states and its children in parentheses, e.g. "
                        "'3(2,2,2)'")

    def where(self, position: int) -> str:
        return f"tree spec {excerpt(self.text)}, character {position + 1}"

    def skip_space(self):
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def number(self) -> int:
        self.skip_space()
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] in _DIGITS:
            self.pos += 1
        if start == self.pos:
            self.fail("a state count")
        return _state_count(self.text[start:self.pos], self.where(start))

    def node(self, parent: str | None, depth: int = 1) -> str:
        start = self.pos
        states = self.number()
        if self.peek() == "(":
            self.n_hidden += 1
            name = f"H{self.n_hidden}"
            if states < 1:
                raise SpecError(f"{self.where(start)}: hidden node {name} needs at least 1 "
                                f"state, got {states}; give it 1 or more")
            if depth > limits.MAX_TREE_DEPTH:  # the parser recurses once per level
                raise SpecError(f"{self.where(start)}: hidden nodes nest more than "
                                f"{limits.MAX_TREE_DEPTH} levels deep; write deeper models as "
                                "a YAML file")
            self.nodes[name] = {"states": states, "hidden": True,
                                "parents": [parent] if parent else []}
            self.pos += 1
            self.node(name, depth + 1)
            while self.peek() == ",":
                self.pos += 1
                self.node(name, depth + 1)
            if self.peek() != ")":
                self.fail("',' or ')'")
            self.pos += 1
            return name
        self.n_observed += 1
        name = f"X{self.n_observed}"
        if states < 2:
            raise SpecError(f"{self.where(start)}: observed leaf {name} needs at least 2 states, "
                            f"got {states}; give it 2 or more, or leave it out")
        self.nodes[name] = {"states": states, "parents": [parent] if parent else []}
        return name

    def parse(self) -> dict:
        root = self.node(None)
        if self.peek():
            self.fail("end of input")
        if not self.nodes[root].get("hidden"):
            raise SpecError(f"tree spec {excerpt(self.text)}: the root must be a hidden node with "
                            "children; give its children in parentheses, e.g. '3(2,2,2)'")
        # observed leaves are numbered left to right, hidden nodes in preorder; order the
        # nodes so that both shorthands produce identical networks
        hidden = [n for n in self.nodes if n.startswith("H")]
        observed = [n for n in self.nodes if n.startswith("X")]
        return {name: self.nodes[name] for name in hidden + observed}


def parse_tree(text: str) -> Network:
    """Parse the tree shorthand, e.g. ``5(3(2,2),3(2,2),2)`` (see module docstring)."""
    return network_from_nodes(_TreeParser(text).parse())


def read_spec_document(path):
    """The parsed document of a YAML or JSON spec file (JSON by its suffix)."""
    path = Path(path)
    text = read_text(path, SpecError, "spec file", limits.MAX_SPEC_FILE_BYTES)
    try:
        if path.suffix.lower() == ".json":
            return json.loads(text, object_pairs_hook=unique_json_object)
        return yaml.load(text, Loader=yaml_loader())
    except RecursionError:
        raise SpecError(f"spec file {path} nests lists or mappings too deeply to parse; a spec "
                        "needs two levels (nodes, then each node's settings)") from None
    except (yaml.YAMLError, ValueError) as err:  # ValueError: JSON, or a number of >4300 digits
        reason = str(err).splitlines()[0]
        if isinstance(err, yaml.MarkedYAMLError) and err.problem and err.problem_mark:
            reason = f"line {err.problem_mark.line + 1}: {err.problem}"
        raise SpecError(f"spec file {path} cannot be parsed: {reason}; correct it there (YAML "
                        "or JSON with 'nodes: {NAME: {states: INT, parents: [...]}}')") from None


def load_spec_file(path) -> Network:
    """Read a YAML or JSON spec file; a parameter file (``network`` and ``cpts``, as
    :func:`hiddenbn.models.network.save_parameters` writes it) is the spec of its ``network``."""
    document = read_spec_document(path)
    if isinstance(document, dict) and {"network", "cpts"} <= set(document):
        document = document["network"]
    try:
        return network_from_dict(document)
    except SpecError as err:
        raise SpecError(f"spec file {path}: {err}") from None


def network_from_dict(document) -> Network:
    """Build a network from the YAML/JSON form ``{type: ..., nodes: {...}}``."""
    if not isinstance(document, dict) or "nodes" not in document:
        raise SpecError("a spec document needs a top-level 'nodes' mapping; write one, e.g. "
                        "nodes: {H: {states: 2, hidden: true}, X: {states: 2, parents: [H]}}")
    unknown = sorted(set(document) - {"type", "nodes"}, key=str)
    if unknown:
        raise SpecError(f"unknown top-level key {unknown[0]!r}; allowed: type, nodes")
    kind = document.get("type", "discrete")
    if kind not in KINDS:
        raise SpecError(f"unknown network type {kind!r}; use one of {', '.join(KINDS)}")
    return network_from_nodes(document["nodes"], kind)


def _check_node_entry(name, entry, kind) -> dict:
    if not isinstance(name, str) or not name:
        raise SpecError(f"node names must be non-empty strings, got {name!r}; name "
                        "each node with text")
    if entry is None:
        entry = {}
    if not isinstance(entry, dict):
        raise SpecError(f"node {name!r}: expected a mapping; give it keys among "
                        f"{', '.join(NODE_KEYS)}")
    unknown = sorted(set(entry) - set(NODE_KEYS), key=str)
    if unknown:
        raise SpecError(f"node {name!r}: unknown key {unknown[0]!r}; "
                        f"allowed: {', '.join(NODE_KEYS)}")
    parents = entry.get("parents", []) or []
    if isinstance(parents, str):
        parents = [parents]
    if not isinstance(parents, list) or not all(isinstance(p, str) for p in parents):
        raise SpecError(f"node {name!r}: 'parents' must be a list of node names; write "
                        "them in brackets, e.g. parents: [A, B]")
    if len(set(parents)) != len(parents):
        raise SpecError(f"node {name!r}: a parent is listed twice; list each once")
    hidden = entry.get("hidden", False)
    if not isinstance(hidden, bool):
        raise SpecError(f"node {name!r}: 'hidden' must be true or false, got {hidden!r}; "
                        "write true or false")
    function = entry.get("function")
    if function is not None:
        if kind != "discrete":
            raise SpecError(f"node {name!r}: deterministic nodes exist only in discrete "
                              "networks; leave out 'function' or use type: discrete")
        if function not in FUNCTIONS:
            raise SpecError(f"node {name!r}: unknown function {function!r}; use max or sum")
        if not parents:
            raise SpecError(f"node {name!r}: a deterministic node ({function}) needs parents; "
                              "list them under 'parents'")
    states = entry.get("states")
    if states is not None and (isinstance(states, bool) or not isinstance(states, int)):
        raise SpecError(f"node {name!r}: 'states' must be a whole number, got {states!r}; "
                        "write a number such as 2")
    if kind == "gaussian":
        if states is not None:
            raise SpecError(f"node {name!r}: Gaussian nodes are continuous; remove 'states'")
        states = 0
    elif kind == "sigmoid":
        if states not in (None, 2):
            raise SpecError(f"node {name!r}: sigmoid networks are binary; 'states' must be 2")
        states = 2
    elif states is None and function is None:
        raise SpecError(f"node {name!r}: 'states' is missing; give its number of states")
    elif states is not None and states < (1 if hidden else 2):
        what = "a hidden node" if hidden else "an observed node"
        need = 1 if hidden else 2
        raise SpecError(f"node {name!r}: {what} needs at least {need} state"
                        f"{'s' if need > 1 else ''}, got {states}; give it {need} or more")
    return {"states": states, "parents": parents, "hidden": hidden, "function": function}


def _topological_order(entries: dict) -> list[str]:
    """Kahn's algorithm, taking the first ready node in file order each time (a heap of file
    positions keeps it O(n log n)); names a cycle if there is one."""
    names = list(entries)
    position = {name: i for i, name in enumerate(names)}
    waiting = {name: len(entry["parents"]) for name, entry in entries.items()}
    children = {name: [] for name in names}
    for name, entry in entries.items():
        for p in entry["parents"]:
            children[p].append(name)
    ready = [position[name] for name in names if not waiting[name]]
    heapq.heapify(ready)
    order = []
    while ready:
        name = names[heapq.heappop(ready)]
        order.append(name)
        for child in children[name]:
            waiting[child] -= 1
            if not waiting[child]:
                heapq.heappush(ready, position[child])
    if len(order) < len(names):
        placed = set(order)
        remaining = [name for name in names if name not in placed]
        raise SpecError(f"the graph has a cycle: {' -> '.join(_find_cycle(entries, remaining))}; "
                        "remove one of its parent links")
    return order


def _find_cycle(entries: dict, remaining: list[str]) -> list[str]:
    # every remaining node has a remaining parent, so walking parents must revisit a node
    path, node = [], remaining[0]
    while node not in path:
        path.append(node)
        node = next(p for p in entries[node]["parents"] if p in remaining)
    cycle = path[path.index(node):] + [node]
    return cycle[::-1]


def network_from_nodes(nodes, kind: str = "discrete") -> Network:
    """Validate a ``{name: {states, parents, hidden, function}}`` mapping and build the network."""
    if not isinstance(nodes, dict) or not nodes:
        raise SpecError("'nodes' must be a non-empty mapping from node names to their settings; "
                        "give at least one node")
    entries = {name: _check_node_entry(name, entry, kind) for name, entry in nodes.items()}
    for name, entry in entries.items():
        for p in entry["parents"]:
            if p not in entries:
                raise SpecError(f"node {name!r}: unknown parent {p!r}; define {p!r} "
                                  "under 'nodes' or take it out of the parents")
    order = _topological_order(entries)
    for name in order:
        entry = entries[name]
        if entry["function"] is not None:
            parent_states = [entries[p]["states"] for p in entry["parents"]]
            need = (max(parent_states) if entry["function"] == "max"
                    else sum(r - 1 for r in parent_states) + 1)
            if entry["states"] is None:
                entry["states"] = need
            elif entry["states"] < need:
                raise SpecError(f"node {name!r}: the {entry['function']} of its parents' states "
                                f"({', '.join(map(str, parent_states))}) takes {need} values, "
                                f"but the node has {entry['states']} states; leave 'states' out "
                                "(inferred) or give at least that many")
    if all(entries[n]["hidden"] for n in order):
        raise SpecError("the model has no observed node; mark at least one node hidden: false")
    index = {name: i for i, name in enumerate(order)}
    return _checked(Network(
        names=tuple(order),
        cardinalities=tuple(int(entries[n]["states"]) for n in order),
        parents=tuple(tuple(index[p] for p in entries[n]["parents"]) for n in order),
        hidden=tuple(entries[n]["hidden"] for n in order),
        functions=tuple(entries[n]["function"] for n in order),
        kind=kind,
    ))


def bind_columns(network: Network, columns, shown: str = "the model") -> Network:
    """``network`` with its observed nodes, in order, renamed to ``columns`` (a data file's).

    A shorthand names its leaves ``X1..Xn``; bound to a data file they take the names of its
    columns, so every output speaks of the data's own variables. A hidden node whose name is
    also a column gets underscores around it until it is unique.
    """
    columns = tuple(columns)
    observed = network.observed_indices
    if len(columns) != observed.size:
        raise SpecError(f"{shown} has {observed.size} observed variables but there are "
                        f"{len(columns)} columns ({', '.join(columns[:8])}"
                        f"{', ...' if len(columns) > 8 else ''}); give {option('--columns')} with "
                        f"{observed.size} of them, or a model with {len(columns)} observed leaves")
    names = list(network.names)
    for i, column in zip(observed, columns):
        names[i] = column
    for i in network.hidden_indices:
        while names[i] in columns or names.count(names[i]) > 1:
            names[i] = f"_{names[i]}_"
    return replace(network, names=tuple(names))
