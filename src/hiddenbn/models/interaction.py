"""Causal interaction models (Meek & Heckerman, paper 004 Secs. 2-3): structure and spec.

A causal interaction model has observed causes ``C_1..C_n``, hidden mechanism variables
``X_1..X_m`` whose parents are sets of causes (an empty set is a *leak* mechanism), and an
observed effect ``E`` that is a deterministic function of the mechanisms (Sec. 2). Three
families are implemented:

``noisy-max`` (NMI, Sec. 3.1)
    Discrete mechanisms with a full table given their causes, ``E = max_i X_i`` over the ordered
    states ``0 < 1 < ... < r_E - 1`` (binary: noisy-or without distinguished states). It is an
    ordinary discrete :class:`~hiddenbn.models.network.Network` with a ``function: max`` node, so
    sampling, the dimension engine and exact enumeration all apply;
    :mod:`hiddenbn.interaction.noisy_max` has its mechanism posteriors and EM.
``poisson`` (Poisson NAI, Sec. 3.2)
    ``X_i | pa = j ~ Poisson(lambda_ij)``, ``E = sum_i X_i``; see
    :mod:`hiddenbn.interaction.noisy_additive`.
``gaussian`` (Gaussian NAI, Sec. 3.2)
    ``X_i | pa = j ~ N(mu_ij, sigma2_ij)``, ``E = sum_i X_i``; see
    :mod:`hiddenbn.interaction.noisy_additive`.

Causes are observed roots with their own multinomial table (so the model is a full Bayesian
network over ``C, E``; the unadjusted dimension of Sec. 5 counts them). The YAML form is ::

    interaction: noisy-max        # or poisson, gaussian
    causes: {C1: 2, C2: 2, C3: 2}  # name: number of states
    mechanisms: {X1: [C1, C2], X2: [C3], L: []}   # [] is a leak mechanism
    effect: {name: E, states: 2}   # states only for noisy-max (default: 2)

A noisy-max model may also be written as an ordinary network spec (``function: max``); see
:func:`from_network`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hiddenbn.errors import SpecError
from hiddenbn.models.network import Network
from hiddenbn.models.priors import map_update
from hiddenbn.models.spec import is_spec_file, parse_spec, read_spec_document
from hiddenbn.util import limits

FAMILIES = ("noisy-max", "poisson", "gaussian")
_KEYS = ("interaction", "causes", "mechanisms", "effect")


@dataclass(frozen=True)
class InteractionModel:
    """The structure of a causal interaction model.

    Attributes
    ----------
    family : str
        ``"noisy-max"``, ``"poisson"`` or ``"gaussian"``.
    cause_names, cause_states : tuple
        The observed causes and their numbers of states.
    mechanism_names : tuple of str
        The hidden mechanism variables.
    mechanism_causes : tuple of tuple of int
        Indices (into the causes) of each mechanism's parents; ``()`` for a leak.
    effect_name : str
    effect_states : int
        States of a noisy-max effect (and of its mechanisms); 0 for the additive families.
    """

    family: str
    cause_names: tuple[str, ...]
    cause_states: tuple[int, ...]
    mechanism_names: tuple[str, ...]
    mechanism_causes: tuple[tuple[int, ...], ...]
    effect_name: str = "E"
    effect_states: int = 0

    @property
    def n_causes(self) -> int:
        return len(self.cause_names)

    @property
    def n_mechanisms(self) -> int:
        return len(self.mechanism_names)

    @property
    def observed_names(self) -> tuple[str, ...]:
        """Columns of a data set: the causes, then the effect."""
        return (*self.cause_names, self.effect_name)

    def n_configurations(self, i: int) -> int:
        """``q_i``: the number of joint states of mechanism ``i``'s causes (1 for a leak)."""
        return math.prod(int(self.cause_states[c]) for c in self.mechanism_causes[i])

    def mechanism_offsets(self) -> np.ndarray:
        """First row of each mechanism in a table stacking every mechanism's rows."""
        sizes = [self.n_configurations(i) for i in range(self.n_mechanisms)]
        return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)

    def mechanism_rows(self, causes) -> np.ndarray:
        """Row of each mechanism's parameters in the stacked table, per case.

        ``causes`` has one column per cause; returns shape ``(cases, n_mechanisms)`` with
        ``offset_i + j_i`` where ``j_i`` numbers the mechanism's parent configuration in C order
        over its causes as listed (the convention of :mod:`hiddenbn.models.network`).
        """
        causes = np.asarray(causes, dtype=np.int64).reshape(-1, self.n_causes)
        offsets = self.mechanism_offsets()
        rows = np.empty((causes.shape[0], self.n_mechanisms), dtype=np.int64)
        for i, parents in enumerate(self.mechanism_causes):
            j = np.zeros(causes.shape[0], dtype=np.int64)
            for c in parents:
                j = j * self.cause_states[c] + causes[:, c]
            rows[:, i] = offsets[i] + j
        return rows

    def cause_configurations(self) -> np.ndarray:
        """Every joint state of the causes, shape ``(prod r_c, n_causes)``, in C order."""
        return np.indices(self.cause_states).reshape(self.n_causes, -1).T

    def incidence(self) -> np.ndarray:
        """0/1 matrix: cause configuration x stacked mechanism row it uses.

        An additive model's mean of ``E`` given the causes is ``incidence @ rates`` (Sec. 3.2).
        """
        rows = self.mechanism_rows(self.cause_configurations())
        matrix = np.zeros((rows.shape[0], int(self.mechanism_offsets()[-1])))
        np.put_along_axis(matrix, rows, 1.0, axis=1)
        return matrix

    @property
    def cause_dimension(self) -> int:
        """Free parameters of the causes' own tables: ``sum_c (r_c - 1)``."""
        return int(sum(r - 1 for r in self.cause_states))

    def cause_network(self) -> Network:
        """The causes alone: independent observed roots (fully observed, no mechanisms)."""
        return Network(names=self.cause_names, cardinalities=self.cause_states,
                       parents=((),) * self.n_causes, hidden=(False,) * self.n_causes,
                       functions=(None,) * self.n_causes)

    def network(self) -> Network:
        """The noisy-max model as a discrete network: causes, mechanisms (hidden), ``E = max``."""
        if self.family != "noisy-max":
            raise SpecError(f"only noisy-max models are discrete networks; this one is "
                            f"{self.family!r}")
        n, r = self.n_causes, self.effect_states
        return Network(
            names=(*self.cause_names, *self.mechanism_names, self.effect_name),
            cardinalities=(*self.cause_states, *([r] * self.n_mechanisms), r),
            parents=(*([()] * n), *self.mechanism_causes,
                     tuple(range(n, n + self.n_mechanisms))),
            hidden=(False,) * n + (True,) * self.n_mechanisms + (False,),
            functions=(None,) * (n + self.n_mechanisms) + ("max",),
        )


def noisy_max_model(mechanism_causes, cause_states=None, effect_states: int = 2,
                    leak: bool = False) -> InteractionModel:
    """An NMI model over causes ``C1..Cn`` with mechanisms ``X1..Xm`` (and a leak ``L``).

    ``mechanism_causes`` lists each mechanism's causes as 1-based cause numbers, e.g.
    ``[[1, 2], [3]]`` for model F2 of paper 004 Fig. 4; causes are binary unless
    ``cause_states`` says otherwise.
    """
    n = max((c for causes in mechanism_causes for c in causes), default=0)
    cause_states = tuple(cause_states) if cause_states is not None else (2,) * n
    mechanisms = [tuple(c - 1 for c in causes) for causes in mechanism_causes]
    names = [f"X{i + 1}" for i in range(len(mechanisms))]
    if leak:
        mechanisms.append(())
        names.append("L")
    causes = tuple(f"C{c + 1}" for c in range(len(cause_states)))
    return _checked(InteractionModel("noisy-max", causes, cause_states, tuple(names),
                                     tuple(mechanisms), "E", int(effect_states)))


def _checked(model: InteractionModel) -> InteractionModel:
    if model.family not in FAMILIES:
        raise SpecError(f"unknown interaction family {model.family!r}; use one of "
                        f"{', '.join(FAMILIES)}")
    names = [*model.cause_names, *model.mechanism_names, model.effect_name]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate is not None:
        raise SpecError(f"the name {duplicate!r} is used twice; causes, mechanisms and the "
                        "effect need distinct names")
    if not model.mechanism_names:
        raise SpecError("an interaction model needs at least one mechanism; list them under "
                        "'mechanisms', e.g. mechanisms: {X1: [C1], L: []}")
    for name, r in zip(model.cause_names, model.cause_states):
        if isinstance(r, bool) or not isinstance(r, (int, np.integer)) or r < 2:
            raise SpecError(f"cause {name!r} needs a whole number of at least 2 states, got "
                            f"{r!r}; write a number such as 2")
        limits.require_at_most(r, limits.MAX_STATES, f"the number of states of cause {name!r}",
                               "use fewer states", SpecError)
    for name, causes in zip(model.mechanism_names, model.mechanism_causes):
        if len(set(causes)) != len(causes) or any(not 0 <= c < model.n_causes for c in causes):
            raise SpecError(f"mechanism {name!r}: its causes must be distinct causes of the model")
    if model.family == "noisy-max" and model.effect_states < 2:
        raise SpecError(f"the noisy-max effect {model.effect_name!r} needs at least 2 states, "
                        f"got {model.effect_states}; give it 2 or more under effect: states")
    _check_size(model)
    return model


def _check_size(model: InteractionModel) -> None:
    """Refuse models whose tables cannot be built
    (:data:`~hiddenbn.util.limits.MAX_TABLE_CELLS`)."""
    if model.family == "noisy-max":
        limits.check_network(model.network())
        return
    # the additive dimension and the data summary enumerate every cause configuration against
    # every mechanism row (incidence)
    mechanism_rows = sum(model.n_configurations(i) for i in range(model.n_mechanisms))
    limits.require_at_most(math.prod(int(r) for r in model.cause_states) * mechanism_rows,
                           limits.MAX_TABLE_CELLS,
                           "the number of cause configurations times mechanism rows",
                           "use fewer causes or fewer states", SpecError)


def from_network(network: Network) -> InteractionModel:
    """Read a noisy-max model from a discrete network with one ``max`` node.

    The network must consist of observed root causes, hidden mechanisms whose parents are
    causes and whose only child is the effect, and the observed effect ``E = max`` of the
    mechanisms, with the mechanisms' states equal to the effect's.
    """
    deterministic = [i for i in range(network.n_nodes) if network.is_deterministic(i)]
    if network.kind != "discrete" or len(deterministic) != 1 \
            or network.functions[deterministic[0]] != "max":
        raise SpecError("a noisy-max model needs exactly one deterministic node with "
                        "function: max (the effect)")
    effect = deterministic[0]
    if network.hidden[effect]:
        raise SpecError(f"the effect {network.names[effect]!r} must be observed")
    mechanisms = network.parents[effect]
    causes = [i for i in range(network.n_nodes) if i != effect and i not in mechanisms]
    for i in causes:
        if network.hidden[i] or network.parents[i]:
            raise SpecError(f"node {network.names[i]!r} is neither a mechanism (a parent of the "
                            f"effect) nor an observed root cause")
    r = network.cardinalities[effect]
    for i in mechanisms:
        if not network.hidden[i] or any(p not in causes for p in network.parents[i]) \
                or network.children(i) != (effect,) or network.cardinalities[i] != r:
            raise SpecError(f"mechanism {network.names[i]!r} must be hidden, have only causes "
                            f"as parents, the effect as its only child, and {r} states")
    position = {c: t for t, c in enumerate(causes)}
    return _checked(InteractionModel(
        "noisy-max", tuple(network.names[i] for i in causes),
        tuple(network.cardinalities[i] for i in causes),
        tuple(network.names[i] for i in mechanisms),
        tuple(tuple(position[p] for p in network.parents[i]) for i in mechanisms),
        network.names[effect], r))


def interaction_document(spec) -> dict | None:
    """``spec``'s mapping if it is in the interaction-model YAML form (it has an
    ``interaction`` key), else None.

    A dict is its own mapping; a spec file (:func:`hiddenbn.models.spec.is_spec_file`) is read if it
    exists. Anything else, a missing file included, is left to
    :func:`hiddenbn.models.spec.parse_spec`, which reads network specs and reports missing files.
    """
    if isinstance(spec, dict):
        document = spec
    elif is_spec_file(spec) and Path(spec).is_file():
        document = read_spec_document(spec)
    else:
        return None
    return document if isinstance(document, dict) and "interaction" in document else None


def load_interaction(spec) -> InteractionModel:
    """An interaction model from its YAML/JSON form (file or dict) or a network spec.

    Network specs (shorthand, YAML ``nodes:``) are accepted for noisy-max models whose
    structure :func:`from_network` recognises.
    """
    if isinstance(spec, InteractionModel):
        return spec
    document = interaction_document(spec)
    if document is not None:
        try:
            return interaction_from_dict(document)
        except SpecError as err:
            raise SpecError(f"{spec if not isinstance(spec, dict) else 'spec'}: {err}") from None
    return from_network(parse_spec(spec))


def interaction_from_dict(document: dict) -> InteractionModel:
    """Validate the YAML form (see the module docstring) and build the model."""
    unknown = sorted(set(document) - set(_KEYS), key=str)
    if unknown:
        raise SpecError(f"unknown key {unknown[0]!r}; an interaction model has keys "
                        f"{', '.join(_KEYS)}")
    family = document.get("interaction")
    if family not in FAMILIES:
        raise SpecError(f"interaction: {family!r} is not a family; use one of "
                        f"{', '.join(FAMILIES)}")
    causes = document.get("causes")
    if not isinstance(causes, dict) or not causes:
        raise SpecError("'causes' must map each cause name to its number of states; write "
                        "them as causes: {C1: 2, C2: 3}")
    mechanisms = document.get("mechanisms")
    if not isinstance(mechanisms, dict) or not mechanisms:
        raise SpecError("'mechanisms' must map each mechanism name to its list of causes; "
                        "write them as mechanisms: {X1: [C1, C2], L: []}")
    cause_names = [str(c) for c in causes]
    mechanism_causes = []
    for name, parents in mechanisms.items():
        parents = [] if parents is None else [parents] if isinstance(parents, str) else parents
        if not isinstance(parents, list) or not all(isinstance(p, str) for p in parents):
            raise SpecError(f"mechanism {name!r}: give its causes as a list of cause names")
        missing = [p for p in parents if p not in causes]
        if missing:
            raise SpecError(f"mechanism {name!r}: unknown cause {missing[0]!r}; causes are "
                            f"{', '.join(cause_names)}")
        mechanism_causes.append(tuple(cause_names.index(p) for p in parents))
    effect = document.get("effect", {}) or {}
    if isinstance(effect, str):
        effect = {"name": effect}
    if not isinstance(effect, dict) or set(effect) - {"name", "states"}:
        raise SpecError("'effect' must be a mapping with keys name and states; write it as "
                        "effect: {name: E, states: 2}")
    states = effect.get("states", 2 if family == "noisy-max" else None)
    if family != "noisy-max" and states is not None:
        raise SpecError(f"the effect of a {family} model is unbounded; remove 'states'")
    if family == "noisy-max" and (isinstance(states, bool) or not isinstance(states, int)):
        raise SpecError(f"effect states must be a whole number, got {states!r}; write a "
                        "number such as 2")
    return _checked(InteractionModel(family, tuple(cause_names), tuple(causes.values()),
                                     tuple(str(m) for m in mechanisms), tuple(mechanism_causes),
                                     str(effect.get("name", "E")), int(states or 0)))


def fit_cause_tables(model: InteractionModel, causes, counts, alpha: float):
    """MAP (ML for ``alpha = 1``) tables of the observed root causes, and their counts.

    The causes are fully observed, so their tables follow from the counts in closed form (the
    Dirichlet MAP update of paper 004 Sec. 4.1). Returns ``(tables, counts)``, one ``(1, r_c)``
    array each per cause.
    """
    causes = np.asarray(causes, dtype=np.int64).reshape(-1, model.n_causes)
    counts = np.asarray(counts, dtype=np.float64)
    tables, totals = [], []
    for c, r in enumerate(model.cause_states):
        n = np.bincount(causes[:, c], weights=counts, minlength=r)[None, :]
        tables.append(map_update(n, n.sum(), r, np.full((1, r), 1.0 / r), alpha))
        totals.append(n)
    return tables, totals


def interaction_spec(spec) -> InteractionModel | None:
    """The interaction model if ``spec`` (a dict or a YAML/JSON file) is in the interaction
    form, else None (the spec is then an ordinary network spec)."""
    document = interaction_document(spec)
    return None if document is None else interaction_from_dict(document)
