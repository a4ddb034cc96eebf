"""Limits on the sizes hiddenbn accepts, checked before anything is allocated.

Every size that a spec, a data file, a parameter file or a command-line argument asks for
(entries of the CPTs, cases to sample, EM starts, Monte-Carlo particles, ...) is computed here
as a Python integer, which cannot overflow, and compared with a documented limit and with the
memory the machine has available before any array is made. A typo such as ``--n
100000000000000`` or a state count of 10^9 then costs a one-line
:class:`~hiddenbn.errors.HiddenbnError` instead of a ``MemoryError`` deep inside numpy, a
process the kernel kills, or a run that never ends.

The limits reject what is certainly a mistake: each is far above any use in the papers, the
workflow and the tests, and its comment says why it has its value. They do not promise that
everything below them is fast. Memory estimates count the large arrays of the computation, not
every temporary: they catch requests that cannot fit, not ones that barely fit.
"""

from __future__ import annotations

import math
import numbers
import os

from hiddenbn.errors import HiddenbnError, SpecError, option

#: Most states of one variable: data states are stored as int32 (``Dataset.patterns``), so the
#: largest state is 2**31 - 2.
MAX_STATES = 2**31 - 1
#: Most CPT entries of a network, ``sum_i q_i r_i``. The widest models the EM kernels are built
#: for (128 variables of 64 states under a 64-state hidden root) have 2**19; a parameter file
#: of 2**24 entries is already ~400 MB of JSON.
MAX_TABLE_CELLS = 2**24
#: Deepest nesting of the tree shorthand: its parser recurses once per level, and the
#: hierarchical models of the papers have three levels.
MAX_TREE_DEPTH = 100
#: Most cases of a data set or a sample: counts enter EM, the scores and the Monte-Carlo
#: estimator as float64, whose integers are exact up to 2**53.
MAX_CASES = 2**53
#: Most EM starts (``--restarts``): the papers use 64, the thorough annealed search a few.
MAX_RESTARTS = 2**16
#: Most EM iterations (``--max-iterations``) and annealing sweeps (``--sweeps``); both default
#: to 200 and the workflow uses at most 2000.
MAX_ITERATIONS = 2**20
#: Most hidden-state counts one ``select`` fits (``--classes``); paper 003 sweeps up to ~40.
MAX_MODELS = 2**10
#: Most replicates of a bootstrap likelihood-ratio test (``select --blrt``): Nylund et al. (2007)
#: use hundreds, and 65536 refits of two models each take a day for a model that fits in a
#: second.
MAX_BOOTSTRAP_REPLICATES = 2**16
#: Most processes of a pool (``select --cores``): each loads the library (~100 MB), and few
#: machines have more cores.
MAX_PROCESSES = 2**10
#: Most random points of a Jacobian rank (``--jacobian-points``); the default is 5, the workflow
#: uses 3.
MAX_POINTS = 2**10
#: Most independent Monte-Carlo runs (``--runs``); the workflow uses 8, and the standard error
#: needs tens at most.
MAX_RUNS = 2**12
#: Most particles per Monte-Carlo run (``--particles``); the workflow uses 64.
MAX_PARTICLES = 2**20
#: Largest Dirichlet alpha (``--prior-alpha``, the config's ``prior_alpha``): the scores take
#: ``log Gamma(alpha + N) - log Gamma(alpha)``, whose cancellation loses about
#: ``eps alpha log alpha`` nats a term (at 1e16 a log marginal likelihood came out positive),
#: and a prior worth a million cases per cell already fixes every parameter.
MAX_PRIOR_ALPHA = 1e6
#: Most inputs of the greedy search over embedded networks (``ebnc select``): each step scores
#: every arc change, about n^2 EBNC fits, so 20 inputs take about a minute and 40 much longer.
MAX_EBNC_INPUTS = 24
#: Most parameters of one EBNC that ``ebnc fit`` and ``ebnc select`` fit (basis features times
#: the classes of the target beyond the first): Newton's method factors their dense Hessian at
#: every step, ~4 s a model at 1024 and a minute at 3600 (two 60-state inputs), and the search
#: fits dozens of models; the workflow's have tens.
MAX_EBNC_PARAMETERS = 2**10
#: Smallest and largest s.d. of the normal prior of an EBNC (``--prior-sd``): its precision
#: ``1 / sd**2`` must be a finite, non-zero float; the default is 2.
MIN_PRIOR_SD, MAX_PRIOR_SD = 1e-150, 1e150
#: Largest spec file: the specs of the papers are below 10 KB, and PyYAML reads well under
#: 1 MB a second, so a larger spec would take minutes to parse.
MAX_SPEC_FILE_BYTES = 2**20
#: Most values that the aliases (``*name``) of a YAML file (config, spec, data dictionary) may
#: add by repeating what they name, counting every repeat in full: reusing a generator's tables
#: in a config adds hundreds; the "billion laughs", ten aliases nested nine deep in 400 bytes,
#: adds 10^9, and every reader would take minutes and gigabytes to build or check it.
MAX_ALIAS_VALUES = 2**16
#: Largest parameter file: one for a model of :data:`MAX_TABLE_CELLS` entries, as
#: ``save_parameters`` writes it, is ~400 MB.
MAX_PARAMETER_FILE_BYTES = 2**30
#: Memory per byte of a JSON or YAML file while it is parsed: a number takes at least two bytes
#: of text ("0,") and ~32 bytes as a Python float in a list, then 8 in an array.
PARSED_BYTES_PER_TEXT_BYTE = 20
#: Memory per byte of a data file while it is read and counted: a cell takes at least two bytes
#: of text ("0,") and ~32 bytes in arrays (the int32 table, its int64 copy and the sort keys).
DATA_BYTES_PER_TEXT_BYTE = 16
#: Memory per CPT entry and EM start: every start keeps its parameters and its expected counts
#: as float64.
EM_BYTES_PER_CELL = 16
#: Extra copies of the CPTs an E step holds (the latent class E step's blocks of expected
#: counts, :data:`hiddenbn.inference.enumeration.LATENT_CLASS_BLOCKS`).
E_STEP_TABLE_COPIES = 16
#: Most rows of the latent class E step's stacked group tables
#: (:func:`hiddenbn.inference.enumeration.state_groups`), unless the variables alone have more: the
#: tables and a block's counts, ``rows x k`` floats each, stay in a core's L2 cache.
GROUP_TABLE_ROWS = 2**10
#: Most bytes of those tables and their :data:`E_STEP_TABLE_COPIES` blocks of counts beyond
#: what the variables alone would take: with few states per variable the groups have more
#: rows than the CPTs (64 binary variables: up to 1024 against 128), so with very many classes
#: they take fewer rows (a million classes: single variables), and :func:`check_em` adds this.
GROUP_TABLE_BYTES = 2**26
#: Memory per case and variable of an expanded data set (int64), as the annealed search and the
#: Monte-Carlo estimator hold it.
CASE_BYTES = 8


def shown(value) -> str:
    """``value`` for a one-line message: as Python writes it, or an integer's order of
    magnitude when it has more than 39 digits."""
    if isinstance(value, float) or abs(value).bit_length() <= 128:
        return str(value)
    return f"about 10^{int(abs(value).bit_length() * math.log10(2))}"


def approximately(value: int) -> str:
    """``value`` to three significant digits (``6.71e+07``), also beyond the range of floats."""
    if abs(value).bit_length() <= 1000:
        return f"{value:.3g}"
    return shown(value)


def require_whole_number(value, minimum: int, what: str, error=HiddenbnError) -> None:
    """Raise ``error`` unless ``value`` is a whole number (not a bool, not 2.5) of at least
    ``minimum``: ``int()`` would cut 1.5 to 1 silently."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise error(f"{what} must be a whole number of at least {minimum}, got {value!r}")


def check_dirichlet_alpha(alpha, error=HiddenbnError) -> None:
    """Refuse a Dirichlet parameter that is not a number in (0, :data:`MAX_PRIOR_ALPHA`]
    (infinity had given NaN parameters and evidences)."""
    if not (isinstance(alpha, numbers.Real) and 0 < alpha <= MAX_PRIOR_ALPHA):
        raise error(f"a Dirichlet alpha must be a positive number of at most {MAX_PRIOR_ALPHA:g}, "
                    f"got {alpha}")


def require_at_most(value: int, limit: int, what: str, fix: str, error=HiddenbnError) -> None:
    """Raise ``error`` when ``value`` (the size of ``what``) is above ``limit``."""
    if value > limit:
        raise error(f"{what} is {shown(value)}, above the limit of {limit}; {fix}")


def available_memory() -> int:
    """Bytes of memory the machine can give this process now (MemAvailable, else all RAM)."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def _gib(n_bytes: int) -> str:
    """``n_bytes`` in GiB to three digits, or as a power of ten beyond the range of floats."""
    if n_bytes.bit_length() <= 1000:
        return f"{n_bytes / 2**30:.3g} GiB"
    return f"10^{int((n_bytes >> 30).bit_length() * math.log10(2))} GiB"


def require_memory(n_bytes: int, task: str, fix: str) -> None:
    """Raise when ``task`` needs more than the memory available now."""
    available = available_memory()
    if n_bytes > available:
        raise HiddenbnError(f"{task} needs about {_gib(n_bytes)} of memory, more than the "
                            f"{_gib(available)} available; {fix}")


# --- sizes of models --------------------------------------------------------------------------
def table_cells(network) -> int:
    """``sum_i q_i r_i``: the CPT entries of ``network``, deterministic tables included."""
    return sum(network.n_parent_configurations(i) * int(r)
               for i, r in enumerate(network.cardinalities))


def check_states(network) -> None:
    """Raise :class:`~hiddenbn.errors.SpecError` when a node of ``network`` has more than
    :data:`MAX_STATES` states (what every use of a model needs: states are stored as int32)."""
    for name, states in zip(network.names, network.cardinalities):
        require_at_most(states, MAX_STATES, f"the number of states of node {name!r}",
                        "use fewer states", SpecError)


def check_network(network, what: str = "the model") -> None:
    """:func:`check_states`, and :class:`~hiddenbn.errors.SpecError` when the CPTs of
    ``network`` have more than :data:`MAX_TABLE_CELLS` entries: for whatever builds them
    (parameters, EM, sampling, evidence), not for the dimension analyses, which never do and
    have limits of their own."""
    check_states(network)
    require_at_most(table_cells(network), MAX_TABLE_CELLS,
                    f"the number of CPT entries of {what}",
                    "use fewer states or fewer parents per node", SpecError)


# --- memory of computations -------------------------------------------------------------------
def check_em(network, n_cases: int, restarts: int, annealing: bool) -> None:
    """Memory of EM with ``restarts`` starts; the annealed search also expands the cases."""
    n_bytes = (EM_BYTES_PER_CELL * table_cells(network) * (restarts + E_STEP_TABLE_COPIES)
               + GROUP_TABLE_BYTES)
    if annealing:
        n_bytes += CASE_BYTES * n_cases * (len(network.observed_indices) + 2)
    require_memory(n_bytes, f"EM with {restarts} starts on {n_cases} cases",
                   f"use fewer {option('--restarts')}, a smaller model or the halving schedule")


def check_sample(n_cases: int, n_columns: int, counts: bool) -> None:
    """Memory of drawing ``n_cases`` cases (int32) and, for ``counts``, sorting them."""
    n_bytes = 4 * n_cases * n_columns
    if counts:
        n_bytes += 8 * n_cases * (n_columns + 4)  # int64 keys, the sort and its inverse
    require_memory(n_bytes, f"sampling {n_cases} cases", f"use a smaller {option('--n')}")


def check_evidence(network, n_patterns: int, n_cases: int, runs: int, particles: int) -> None:
    """Memory of the marginal likelihood: the cell of every node for every pattern and hidden
    configuration (both methods), and for the Monte-Carlo method (``runs`` > 0) a hidden
    configuration per case and the sufficient statistics of every particle (all int64)."""
    hidden = math.prod(int(network.cardinalities[i]) for i in network.hidden_indices)
    n_bytes = CASE_BYTES * n_patterns * hidden * 2 * network.n_nodes
    if runs:
        cells = table_cells(network)
        n_bytes += CASE_BYTES * runs * (particles * (n_cases + 2 * cells) + n_cases)
    require_memory(n_bytes, f"the marginal likelihood of {n_cases} cases",
                   f"use fewer {option('--runs')} or {option('--particles')}, or a model with "
                   "fewer hidden states")
