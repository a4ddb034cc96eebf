"""Bayesian-network structures and their parameters.

A :class:`Network` is a directed acyclic graph over named nodes, stored in topological order,
with a state count per node, a hidden mask and, for the causal-interaction models of Meek &
Heckerman (paper 004), deterministic nodes whose value is the ``max`` or ``sum`` of their
parents' values. ``kind`` is ``"discrete"`` (the default), ``"gaussian"`` (linear-Gaussian
networks, paper 000 Sec. 7) or ``"sigmoid"`` (binary sigmoid networks, paper 000 Sec. 8).

Parameters of a discrete network are a list with one conditional probability table (CPT) per
node: an array of shape ``(q_i, r_i)`` whose row ``j`` is ``p(X_i | Pa_i = pa_i^j)``, or ``None``
for a deterministic node. Parent configurations are numbered in C order over the parents as
listed (the first parent is the most significant digit), as ``numpy.ravel_multi_index`` does.

The free parameterisation drops the last entry of every row (paper 003 Sec. 2: ``r_i - 1``
free parameters per parent configuration), so the standard dimension is
``ds = sum_i q_i (r_i - 1)`` (paper 003, below Eq. 8).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace

import numpy as np

from hiddenbn.errors import HiddenbnError, ParameterError, SpecError, excerpt
from hiddenbn.util import limits
from hiddenbn.util.files import atomic_write_text
from hiddenbn.util.textfiles import read_text, unique_json_object

KINDS = ("discrete", "gaussian", "sigmoid")
FUNCTIONS = ("max", "sum")

#: Largest observed state space that :func:`observed_distribution` builds densely.
MAX_DENSE_STATES = 2**25


@dataclass(frozen=True)
class Network:
    """A Bayesian-network structure in topological order.

    Attributes
    ----------
    names : tuple of str
        Node names; node ``i`` precedes all of its children.
    cardinalities : tuple of int
        Number of states per node; 0 for the continuous nodes of a Gaussian network.
    parents : tuple of tuple of int
        Indices of each node's parents, all smaller than the node's own index.
    hidden : tuple of bool
        True for a hidden (never observed) node.
    functions : tuple of (str or None)
        ``"max"`` or ``"sum"`` for a deterministic node, ``None`` for a stochastic one.
    kind : str
        ``"discrete"``, ``"gaussian"`` or ``"sigmoid"``.

    Use :func:`hiddenbn.models.spec.parse_spec` or :func:`latent_class` to build one: they check a
    user's input and sort it topologically. The constructor checks only the invariants.

    Examples
    --------
    >>> from hiddenbn import parse_spec
    >>> network = parse_spec("2(3(2,2),2)")
    >>> network.names, network.cardinalities
    (('H1', 'H2', 'X1', 'X2', 'X3'), (2, 3, 2, 2, 2))
    >>> network.observed_names, network.standard_dimension
    (('X1', 'X2', 'X3'), 13)
    """

    names: tuple[str, ...]
    cardinalities: tuple[int, ...]
    parents: tuple[tuple[int, ...], ...]
    hidden: tuple[bool, ...]
    functions: tuple[str | None, ...]
    kind: str = "discrete"

    def __post_init__(self):
        n = len(self.names)
        if not (len(self.cardinalities) == len(self.parents) == len(self.hidden)
                == len(self.functions) == n):
            raise SpecError("network fields have different lengths; build networks with "
                            "hiddenbn.models.spec.parse_spec")
        if self.kind not in KINDS:
            raise SpecError(f"unknown network type {self.kind!r}; use one of {', '.join(KINDS)}")
        for i, pa in enumerate(self.parents):
            if any(p >= i or p < 0 for p in pa):
                raise SpecError(f"node {self.names[i]!r}: parents must precede the node "
                                "(topological order); build networks with "
                                "hiddenbn.models.spec.parse_spec")
        self._check_names()
        if self.kind == "discrete":
            few = next((i for i, r in enumerate(self.cardinalities)
                        if self.functions[i] is None and r < 1), None)
            if few is not None:
                raise SpecError(f"node {self.names[few]!r} has {self.cardinalities[few]} states; "
                                "a node needs at least 1")

    def _check_names(self) -> None:
        """Names that data files can carry: each once, not empty, and no observed node named
        like the counts column (its cells would be read back as case counts)."""
        twice = next((name for k, name in enumerate(self.names) if name in self.names[:k]), None)
        if twice is not None:
            raise SpecError(f"the node name {twice!r} is given twice; name each node once")
        for i, name in enumerate(self.names):
            if not isinstance(name, str) or not name.strip():
                raise SpecError(f"node names must be non-empty text, got {name!r}")
            if name == "count" and not self.hidden[i]:
                raise SpecError("an observed node cannot be named 'count': a data file's count "
                                "column holds how many cases each row stands for; rename it")

    # --- structure -------------------------------------------------------------------------
    @property
    def n_nodes(self) -> int:
        return len(self.names)

    @property
    def observed_indices(self) -> np.ndarray:
        return np.flatnonzero(~np.asarray(self.hidden, dtype=bool))

    @property
    def hidden_indices(self) -> np.ndarray:
        return np.flatnonzero(np.asarray(self.hidden, dtype=bool))

    @property
    def observed_names(self) -> tuple[str, ...]:
        return tuple(self.names[i] for i in self.observed_indices)

    @property
    def observed_cardinalities(self) -> tuple[int, ...]:
        return tuple(self.cardinalities[i] for i in self.observed_indices)

    @property
    def ordered_names(self) -> frozenset:
        """The observed nodes whose states are ordered: a deterministic node (the ``max`` or
        ``sum`` of its parents' states) and each of its parents. Their data must say which
        state is which (numbers, or labels in a data dictionary's order)."""
        ordered = {j for i, function in enumerate(self.functions) if function is not None
                   for j in (i, *self.parents[i])}
        return frozenset(self.names[j] for j in ordered if not self.hidden[j])

    def is_deterministic(self, i: int) -> bool:
        return self.functions[i] is not None

    def index(self, name: str) -> int:
        """Position of the node called ``name``."""
        try:
            return self.names.index(name)
        except ValueError:
            raise SpecError(f"no node called {name!r}; nodes are {', '.join(self.names)}") from None

    def children(self, i: int) -> tuple[int, ...]:
        return tuple(j for j, pa in enumerate(self.parents) if i in pa)

    def n_parent_configurations(self, i: int) -> int:
        """``q_i``: the number of joint states of node ``i``'s parents (1 for a root)."""
        return math.prod(int(self.cardinalities[p]) for p in self.parents[i])

    def node_parameter_count(self, i: int) -> int:
        """Number of free parameters of node ``i``'s local distribution."""
        if self.is_deterministic(i):
            return 0
        if self.kind == "discrete":
            return self.n_parent_configurations(i) * (self.cardinalities[i] - 1)
        if self.kind == "gaussian":  # mean, one weight per parent, variance
            return 2 + len(self.parents[i])
        return 1 + len(self.parents[i])  # sigmoid: bias and one weight per parent

    @property
    def standard_dimension(self) -> int:
        """``ds``: the number of free parameters of the network (paper 003 Sec. 2)."""
        return int(sum(self.node_parameter_count(i) for i in range(self.n_nodes)))

    def with_cardinality(self, name: str, states: int) -> "Network":
        """The same structure with node ``name`` given ``states`` states.

        Deterministic descendants keep their state counts; re-parse the spec if they must grow.
        """
        i = self.index(name)
        cards = list(self.cardinalities)
        cards[i] = int(states)
        return replace(self, cardinalities=tuple(cards))

    def to_dict(self) -> dict:
        """The YAML/JSON spec form of the network (see :mod:`hiddenbn.models.spec`)."""
        nodes = {}
        for i, name in enumerate(self.names):
            entry: dict = {}
            if self.kind != "gaussian":
                entry["states"] = int(self.cardinalities[i])
            if self.parents[i]:
                entry["parents"] = [self.names[p] for p in self.parents[i]]
            if self.hidden[i]:
                entry["hidden"] = True
            if self.functions[i] is not None:
                entry["function"] = self.functions[i]
            nodes[name] = entry
        return {"type": self.kind, "nodes": nodes}


def latent_class(hidden_states: int, observed_states, names=None, hidden: str = "H1") -> Network:
    """The latent class model ``k:r1,...,rn`` (paper 002 Sec. 2.2, Fig. 1).

    A hidden root ``hidden`` (``H1``) with ``hidden_states`` states and observed children
    ``names`` (``X1..Xn``); with binary children it is the naive-Bayes model with a hidden root
    of paper 003 Sec. 3. A ``hidden`` name that is also an observed name gets underscores
    around it until it is unique.

    Parameters
    ----------
    hidden_states : int
        The number of classes, k.
    observed_states : sequence of int
        The states of each observed child, r1, ..., rn.
    names : sequence of str, optional
        The children's names (default ``X1 .. Xn``).
    hidden : str
        The hidden root's name.

    Returns
    -------
    Network

    Examples
    --------
    >>> network = latent_class(3, [2, 2, 4], names=["smoker", "cough", "H1"])
    >>> network.names, network.standard_dimension
    (('_H1_', 'smoker', 'cough', 'H1'), 17)
    """
    observed_states = [int(r) for r in observed_states]
    names = (tuple(f"X{j + 1}" for j in range(len(observed_states))) if names is None
             else tuple(names))
    while hidden in names:
        hidden = f"_{hidden}_"
    names = (hidden,) + names
    return Network(
        names=names,
        cardinalities=(int(hidden_states), *observed_states),
        parents=((),) + ((0,),) * len(observed_states),
        hidden=(True,) + (False,) * len(observed_states),
        functions=(None,) * len(names),
    )


# --- parameters -----------------------------------------------------------------------------
def _require_discrete(network: Network, what: str):
    if network.kind != "discrete":
        raise HiddenbnError(f"{what} is defined for discrete networks; this network has "
                            f"type {network.kind!r}")


def deterministic_table(network: Network, i: int) -> np.ndarray:
    """The 0/1 CPT of deterministic node ``i``: ``p(x_i | pa) = 1`` iff ``x_i = f(pa)``."""
    parent_cards = [network.cardinalities[p] for p in network.parents[i]]
    configs = np.indices(parent_cards).reshape(len(parent_cards), -1)
    combine = np.max if network.functions[i] == "max" else np.sum
    values = combine(configs, axis=0)
    table = np.zeros((configs.shape[1], network.cardinalities[i]))
    table[np.arange(configs.shape[1]), values] = 1.0
    return table


def random_parameters(network: Network, rng: np.random.Generator, alpha: float = 1.0) -> list:
    """Draw every CPT row from a symmetric Dirichlet(``alpha``) distribution.

    ``alpha = 1`` is the uniform Dirichlet that paper 003 Sec. 3 uses to generate models. Rows
    are drawn node by node in topological order, rows in parent-configuration order, so a seed
    fixes the parameters.

    Parameters
    ----------
    network : Network
        A discrete network.
    rng : numpy.random.Generator
        The source of the draws.
    alpha : float
        The Dirichlet parameter of every row (1: uniform over the simplex).

    Returns
    -------
    list of ndarray
        One table per node (None for a deterministic node): a row per configuration of its
        parents, a column per state.

    Examples
    --------
    >>> import numpy as np
    >>> cpts = random_parameters(latent_class(2, [3, 2]), np.random.default_rng(0))
    >>> [table.shape for table in cpts]
    [(1, 2), (2, 3), (2, 2)]
    >>> bool(np.allclose(cpts[1].sum(axis=1), 1.0))
    True
    """
    _require_discrete(network, "random_parameters")
    limits.check_network(network)
    limits.check_dirichlet_alpha(alpha, ParameterError)
    cpts = []
    for i in range(network.n_nodes):
        if network.is_deterministic(i):
            cpts.append(None)
            continue
        r = network.cardinalities[i]
        cpts.append(rng.dirichlet(np.full(r, float(alpha)),
                                  size=network.n_parent_configurations(i)))
    return cpts


def check_parameters(network: Network, cpts, tolerance: float = 1e-8) -> list:
    """Return ``cpts`` as float arrays after checking they fit ``network``.

    Raises :class:`~hiddenbn.errors.ParameterError` naming the node whose table has the wrong
    shape, a negative entry, or a row that does not sum to one.
    """
    _require_discrete(network, "check_parameters")
    if len(cpts) != network.n_nodes:
        raise ParameterError(f"expected {network.n_nodes} tables (one per node), got {len(cpts)}")
    checked = []
    for i, table in enumerate(cpts):
        name = network.names[i]
        if network.is_deterministic(i):
            if table is not None:
                raise ParameterError(f"node {name!r} is deterministic ({network.functions[i]}) "
                                     "and takes no table; remove it from the parameters")
            checked.append(None)
            continue
        if table is None:
            raise ParameterError(f"node {name!r} has no table")
        table = np.asarray(table, dtype=float)
        shape = (network.n_parent_configurations(i), network.cardinalities[i])
        if table.shape != shape:
            raise ParameterError(f"node {name!r}: table has shape {table.shape}, expected {shape} "
                                 "(parent configurations x states)")
        if not np.all(np.isfinite(table)) or np.any(table < 0):
            raise ParameterError(f"node {name!r}: table has a negative or non-finite entry")
        bad = np.flatnonzero(np.abs(table.sum(axis=1) - 1.0) > tolerance)
        if bad.size:
            raise ParameterError(f"node {name!r}: row {bad[0]} sums to "
                                 f"{table[bad[0]].sum():.12g}, not 1; divide each row by its "
                                 "sum in double precision (float32 rows are off by about 1e-7)")
        checked.append(table)
    return checked


def free_parameters(network: Network, cpts) -> np.ndarray:
    """The free-parameter vector: every CPT row without its last entry, node by node."""
    _require_discrete(network, "free_parameters")
    parts = [table[:, :-1].ravel() for table in cpts if table is not None]
    return np.concatenate(parts) if parts else np.zeros(0)


def parameters_from_free(network: Network, theta) -> list:
    """Inverse of :func:`free_parameters`: the last entry of each row is one minus the rest."""
    _require_discrete(network, "parameters_from_free")
    theta = np.asarray(theta, dtype=float)
    if theta.shape != (network.standard_dimension,):
        raise ParameterError(f"expected {network.standard_dimension} free parameters, "
                             f"got shape {theta.shape}")
    cpts, start = [], 0
    for i in range(network.n_nodes):
        if network.is_deterministic(i):
            cpts.append(None)
            continue
        q, r = network.n_parent_configurations(i), network.cardinalities[i]
        head = theta[start:start + q * (r - 1)].reshape(q, r - 1)
        start += q * (r - 1)
        cpts.append(np.hstack([head, 1.0 - head.sum(axis=1, keepdims=True)]))
    return cpts


def node_tables(network: Network, cpts) -> list:
    """One table per node, deterministic nodes included as their 0/1 tables."""
    return [deterministic_table(network, i) if network.is_deterministic(i) else cpts[i]
            for i in range(network.n_nodes)]


def observed_distribution(network: Network, cpts) -> np.ndarray:
    """The exact distribution of the observed variables, hidden ones summed out.

    Returns an array with one axis per observed node (in network order), computed by variable
    elimination (``numpy.einsum``) over the factorisation ``prod_i p(x_i | pa_i)``.
    """
    _require_discrete(network, "observed_distribution")
    size = math.prod(int(r) for r in network.observed_cardinalities)
    if size > MAX_DENSE_STATES:
        raise HiddenbnError(f"the observed variables have {limits.approximately(size)} joint "
                            f"states, more than the {MAX_DENSE_STATES} that fit a dense array; "
                            "use pattern-based likelihoods instead")
    if network.n_nodes > 52:
        raise HiddenbnError("observed_distribution handles at most 52 nodes (numpy.einsum's "
                            "limit); use pattern-based likelihoods instead")
    operands = []
    for i, table in enumerate(node_tables(network, check_parameters(network, cpts))):
        shape = [network.cardinalities[p] for p in network.parents[i]] + [network.cardinalities[i]]
        operands += [table.reshape(shape), [*network.parents[i], i]]
    return np.einsum(*operands, list(network.observed_indices), optimize="greedy")


def parameters_to_dict(network: Network, cpts, states=None) -> dict:
    """A JSON-ready form of the parameters, keyed by node name; with ``states`` (node name ->
    the labels of its states, in the order of the table columns) also those labels."""
    cpts = check_parameters(network, cpts)
    return {
        "network": network.to_dict(),
        **({"states": {name: list(labels) for name, labels in states.items()}} if states else {}),
        "cpts": {network.names[i]: cpts[i].tolist() for i in range(network.n_nodes)
                 if cpts[i] is not None},
    }


def save_parameters(path, network: Network, cpts, states=None) -> None:
    """Write the parameters as JSON (``{"network": spec, "states": {node: labels}, "cpts":
    {node: rows}}``, states only when given)."""
    text = json.dumps(parameters_to_dict(network, cpts, states), indent=1, allow_nan=False)
    atomic_write_text(path, text + "\n")


def load_parameters(path, network: Network, states=None) -> list:
    """Read a parameter file written by :func:`save_parameters` and check it fits ``network``
    (and, where both the file and ``states`` label a node's states, that they agree: a table
    whose columns mean other states would be silently wrong)."""
    return load_labelled_parameters(path, network, states)[0]


def load_labelled_parameters(path, network: Network, states=None) -> tuple[list, dict]:
    """:func:`load_parameters`, and the labels the file gives the states of observed nodes
    (``{node: [label, ...]}``, in the order of the table columns; empty if it gives none),
    each checked to be distinct text, one per state."""
    text = read_text(path, ParameterError, "parameter file", limits.MAX_PARAMETER_FILE_BYTES)
    try:
        document = json.loads(text, object_pairs_hook=unique_json_object)
    except RecursionError:
        raise ParameterError(f"parameter file {path} nests lists too deeply; a table is a list "
                             "of rows of numbers") from None
    except ValueError as err:  # not JSON, or a number of more than 4300 digits
        raise ParameterError(f"parameter file {path} is not valid JSON: {err}; give the "
                             "JSON a fit or 'hiddenbn params' writes") from None
    tables = document.get("cpts") if isinstance(document, dict) else None
    if not isinstance(tables, dict):
        raise ParameterError(f"parameter file {path} has no 'cpts' object mapping node names to "
                             "tables")
    unknown = sorted(set(tables) - set(network.names))
    if unknown:
        raise ParameterError(f"parameter file {path} has a table for {unknown[0]!r}, which is not "
                             "a node of the model; give the parameters of this model (hiddenbn "
                             "params SPEC writes them)")
    labelled = _state_labels(path, network, document.get("states", {}))
    for name, labels in (labelled.items() if states else ()):
        if name in states and labels != list(states[name]):
            raise ParameterError(f"parameter file {path} gives {name!r} the states "
                                 f"{', '.join(labels)} but the data has "
                                 f"{', '.join(states[name])}; fit again or edit the file")
    try:
        cpts = check_parameters(network, [_numbers(path, tables[name]) if name in tables else None
                                          for name in network.names])
    except ParameterError as err:  # named by node; the file is named here
        raise ParameterError(f"parameter file {path}: {err}") from None
    if "network" in document:  # tables of the same shapes can belong to another structure
        difference = _network_difference(document["network"], network)
        if difference:
            raise ParameterError(f"parameter file {path} was written for another model: "
                                 f"{difference}; give the parameters of this model")
    return cpts, labelled


def _network_difference(written, network: Network) -> str | None:
    """The first difference between the ``network`` object of a parameter file (the spec
    form of :meth:`Network.to_dict`) and ``network``, in words; None if they agree."""
    nodes = written.get("nodes") if isinstance(written, dict) else None
    if not isinstance(nodes, dict):
        return "its 'network' is not a spec with 'nodes'"
    kind = written.get("type", "discrete")
    if kind != network.kind:
        return f"its network has type {excerpt(str(kind))} and the model {network.kind!r}"
    extra = next((name for name in nodes if name not in network.names), None)
    if extra is not None:
        return f"its network has a node {excerpt(str(extra))}, which the model has not"
    for i, name in enumerate(network.names):
        if name not in nodes:
            return f"its network has no node {name!r}"
        entry = nodes[name] if isinstance(nodes[name], dict) else {}
        parents = entry.get("parents", [])
        parents = parents if isinstance(parents, list) else [parents]
        model_parents = [network.names[p] for p in network.parents[i]]
        if parents != model_parents:
            return (f"node {name!r} has the parents {_named(parents)} in the file and "
                    f"{_named(model_parents)} in the model")
        if entry.get("hidden", False) != network.hidden[i]:
            seen = ("observed", "hidden") if network.hidden[i] else ("hidden", "observed")
            return f"node {name!r} is {seen[0]} in the file and {seen[1]} in the model"
        if entry.get("function") != network.functions[i]:
            return (f"node {name!r} is {_local(entry.get('function'))} in the file and "
                    f"{_local(network.functions[i])} in the model")
        states = entry.get("states")
        if states != network.cardinalities[i] and not (states is None and network.functions[i]):
            return (f"node {name!r} has {excerpt(str(states))} states in the file and "
                    f"{network.cardinalities[i]} in the model")
    return None


def _named(names) -> str:
    """A list of node names in words (``none`` for no parents)."""
    return ", ".join(excerpt(str(name)) for name in names) if names else "none"


def _local(function) -> str:
    """How a node's value arises, in words: drawn from its table or a function of its
    parents."""
    return "drawn from its table" if function is None else f"the {excerpt(str(function))} of "\
        "its parents"


def _state_labels(path, network: Network, labelled) -> dict:
    """The ``states`` object of a parameter file, checked against ``network``."""
    if not isinstance(labelled, dict):
        raise ParameterError(f"parameter file {path}: 'states' must map node names to lists of "
                             "labels")
    for name, labels in labelled.items():
        if name not in network.names or network.hidden[network.names.index(name)]:
            raise ParameterError(f"parameter file {path} labels the states of {excerpt(name)}, "
                                 "which is not an observed node of the model")
        cardinality = network.cardinalities[network.names.index(name)]
        text = [str(label) for label in labels if isinstance(label, (str, int))
                and not isinstance(label, bool)] if isinstance(labels, list) else []
        if len(text) != cardinality or len(labels) != cardinality or len(set(text)) != len(text):
            raise ParameterError(f"parameter file {path}: the states of {name!r} must be "
                                 f"{cardinality} distinct labels, one per state")
    return {name: [str(label) for label in labels] for name, labels in labelled.items()}


def _holds_a_boolean(table) -> bool:
    """Whether nested lists hold a JSON ``true`` or ``false``."""
    return any(isinstance(item, bool) or (isinstance(item, list) and _holds_a_boolean(item))
               for item in table) if isinstance(table, list) else isinstance(table, bool)


def _numbers(path, table) -> np.ndarray:
    """``table`` as a float array if it holds only numbers (not strings, booleans or numbers
    beyond float64, which ``numpy.asarray(..., dtype=float)`` would convert or fail on)."""
    try:
        array = np.asarray(table)
    except ValueError:  # ragged rows
        array = None
    if array is not None and array.dtype.kind in "iuf" and _holds_a_boolean(table):
        array = None  # [true, 0.5] converts to [1.0, 0.5], [false, 1] to [0, 1]
    if array is None or array.dtype.kind not in "iuf":
        raise ParameterError(f"parameter file {path}: every table must be a list of rows of "
                             "numbers")
    return array.astype(float)
