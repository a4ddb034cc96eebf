"""The ``hiddenbn`` command line: argument parsing only; the work is done by the library.

Bad input of any kind (spec, data file, parameter file, argument) gets one line ``hiddenbn:
error: ...`` on stderr and exit status 2, before any work: every size an argument asks for is
checked by :mod:`hiddenbn.util.limits` first. A command writes all of its output files or none.
JSON output is strict: a NaN or infinite value (a Laplace score without a positive definite
Hessian) is written as ``null``.
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import signal
import sys
import threading
import time
import warnings
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass

import hiddenbn
from hiddenbn.errors import HiddenbnError, command_line, excerpt, first_named
from hiddenbn.util import defaults, limits
from hiddenbn.util.defaults import STANDARD_STREAM

# Only light modules above: `hiddenbn --help`, `--version` and an argument error build the
# parser from them alone, and each command imports the library it needs (numba, scipy and
# pandas take a second to load; see benchmarks/bench_startup.py and tests/test_startup.py).

EXAMPLES = """\
examples:
  hiddenbn sample 2:2,2,2,2,2 --n 1000 --seed 1 --save-params truth.json -o data.csv
  hiddenbn fit data.csv --classes 2 --seed 1
  hiddenbn fit data.csv --model 2:2,2,2,2,2 --schedule halving --restarts 64
  hiddenbn fit data.csv --model 2:2,2,2,2,2 --init truth.json
  hiddenbn fit data.csv --classes 2 --posteriors posteriors.csv --plot profile.png
  hiddenbn fit data.csv --classes 2 --missing drop --json
  hiddenbn select data.csv --family lc --classes 1..4 --json
  hiddenbn evidence data.csv --model 2:2,2,2,2,2 --method mc --runs 4
  hiddenbn params 4:2,2,2,2,2,2,2,2 --seed 3 -o params.json
  hiddenbn sample '5(3(2,2),3(2,2),2)' --n 9000 --seed 7 --counts --save-params hlc.json -o hlc.csv
  hiddenbn fit hlc.csv --model '5(3(2,2),3(2,2),2)' --seed 1
These run in this order in an empty folder; docs/cli.md shows the spec files of the other
commands (dim --ebnc, ebnc fit, check-config).

A SPEC is a latent class shorthand (k:r1,...,rn), a tree shorthand for hierarchical latent
class models (a hidden node's state count followed by its children in parentheses), or a YAML
or JSON file with 'nodes: {NAME: {states: INT, parents: [...], hidden: BOOL}}'.
"""


#: Seconds between the progress lines of a long search on stderr.
PROGRESS_SECONDS = 10


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, like every other error of hiddenbn, and
    which knows its options and subcommands (to tell which options a command line gives)."""

    #: The arguments being parsed (set by :func:`main`), to explain an error they caused.
    given: tuple = ()

    def __init__(self, *args, **kwargs):
        self.options = []  # the actions of the options added here
        self.subcommands = []  # the parsers of its subcommands
        super().__init__(*args, **kwargs)

    def add_argument(self, *args, **kwargs):
        action = super().add_argument(*args, **kwargs)
        if action.option_strings and action.dest != argparse.SUPPRESS:
            self.options.append(action)
        return action

    def add_subparsers(self, **kwargs):
        action = super().add_subparsers(**kwargs)
        self.subcommands.append(action.choices)  # filled in by add_parser
        return action

    def error(self, message):
        dashed = next((a for a in self.given if len(a) > 1 and a[0] == "-" and a[1].isdigit()),
                      None)
        if dashed is not None and ("required" in message or "unrecognized" in message):
            # argparse takes '-1:2,2' for an option, then misses the SPEC
            message += (f"; {dashed!r} starts with '-' and was read as an option (a state count "
                        "is a positive whole number)")
        self.exit(2, f"hiddenbn: error: {message} (see '{self.prog} --help')\n")


class _Version(argparse.Action):
    """``--version``: argparse's version action, but the version is looked up when asked for
    (reading the installed package's metadata is the slowest part of building the parser)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="show program's version number and exit"):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"hiddenbn {hiddenbn.__version__}")
        parser.exit()


def _bounded(convert, minimum, strict: bool, description: str, maximum=None):
    """An argparse type: ``convert`` the text and require it ``> minimum`` (``>=`` unless
    strict), finite, and at most ``maximum`` (a limit of :mod:`hiddenbn.util.limits`)."""
    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {description}, got {excerpt(text)}") \
                from None
        if not (value > minimum if strict else value >= minimum) \
                or (isinstance(value, float) and not math.isfinite(value)):
            raise argparse.ArgumentTypeError(f"expected {description}, got {value}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"{limits.shown(value)} is above the limit of "
                                             f"{maximum}; give at most {maximum}")
        return value
    return parse


def _count(maximum: int, minimum: int = 1, description: str = "a positive whole number"):
    """An argparse type: a whole number from ``minimum`` to ``maximum``."""
    return _bounded(int, minimum, False, description, maximum)


def _file_name(text: str) -> str:
    """An argparse type: a path that is not empty (an empty one names no file, and an option
    given as '' would otherwise be dropped as if it were left out)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected a file name, got {excerpt(text)}; give the "
                                         "name of a file")
    return text


_positive_int = _bounded(int, 1, False, "a positive whole number")
_seed = _bounded(int, 0, False, "a non-negative whole number as seed")
_positive_float = _bounded(float, 0.0, True, "a positive number")
_dirichlet_alpha = _bounded(float, 0.0, True, "a positive number", limits.MAX_PRIOR_ALPHA)
_prior_sd = _bounded(float, limits.MIN_PRIOR_SD, False,
                     f"a number from {limits.MIN_PRIOR_SD} to {limits.MAX_PRIOR_SD}",
                     limits.MAX_PRIOR_SD)


# --- which options act on which model family ------------------------------------------------
# A command's model (SPEC, --model or --classes) is of one family; a family is taken by some
# commands, and of their options some cannot act on it. FAMILIES declares both, and
# _refuse_what_does_not_act checks a command line against it before any work: an option that
# would be ignored is refused with one line saying why, never dropped in silence.

@dataclass(frozen=True)
class Family:
    """A family of models, as the command line tells them apart.

    Attributes
    ----------
    name : str
        The family as a message names it (with its article).
    commands : dict
        Each command that takes the family -> the options that cannot act on it, each with why
        and the fix (an option may be keyed with a value, ``"--schedule annealing"``).
    """

    name: str
    commands: dict


_EVERY_OPTION = {"sample": {}, "params": {}, "dim": {}, "fit": {}, "evidence": {},
                 "ebnc fit": {}}
_NOT_LATENT_CLASS = {"--plot": "it draws the class profiles of a latent class model; leave it "
                               "out"}
_NAMED_NODES = {"--columns": "its nodes name the columns already; leave --columns out"}
_NAMED_CAUSES = {"--columns": "its causes and effect name the columns already; leave --columns "
                              "out"}
_OWN_EM = {"--schedule annealing": "annealing searches hard completions of a network's hidden "
                                   "nodes, and an interaction model has EM of its own; give "
                                   "--schedule halving or best-of-n",
           "--sweeps": "it sets the annealing of a network's hidden nodes, and an interaction "
                       "model's EM starts at random points; leave it out"}
_NO_NETWORK_PARAMETERS = {
    "--posteriors": "its mechanisms are numbers without a bound, with no states to give the "
                    "posteriors of; leave it out",
    "--save-params": "its rates have no parameter file (the report lists them: --json); leave "
                     "it out",
    "--init": "its rates have no parameter file to start from; leave it out",
    "--skip-de": "its effective dimension is the rank of a small matrix, always found; leave "
                 "it out",
    **{option: "WBIC samples CPT rows under Dirichlet priors, and its mechanisms' rates are "
               "numbers without a bound; leave it out" for option in ("--wbic", "--wbic-draws")}}
_RANK_WITHOUT_POINTS = "its dimension is the exact rank of a matrix of its structure, found " \
    "without random points; leave it out"
_NOISY_ADDITIVE = {
    "dim": {"--jacobian-points": _RANK_WITHOUT_POINTS, "--seed": _RANK_WITHOUT_POINTS,
            "--ebnc": "an embedded classifier is of a fully observed discrete network; leave it "
                      "out"},
    "fit": {**_NAMED_CAUSES, **_NOT_LATENT_CLASS, **_OWN_EM, **_NO_NETWORK_PARAMETERS}}

#: The model families: which commands take each, and which of their options cannot act on it.
FAMILIES = {
    "latent class": Family("a latent class model", _EVERY_OPTION),
    "tree": Family("a tree", {**_EVERY_OPTION, "fit": _NOT_LATENT_CLASS}),
    "latent class file": Family("a latent class model in a spec file", {
        **_EVERY_OPTION, "fit": _NAMED_NODES, "evidence": _NAMED_NODES}),
    "network file": Family("a network in a spec file", {
        **_EVERY_OPTION, "fit": {**_NAMED_NODES, **_NOT_LATENT_CLASS},
        "evidence": _NAMED_NODES}),
    "noisy-max": Family("a noisy-max model", {
        **_EVERY_OPTION, "fit": {**_NAMED_CAUSES, **_NOT_LATENT_CLASS, **_OWN_EM},
        "evidence": _NAMED_CAUSES}),
    "poisson": Family("a Poisson noisy-additive model", _NOISY_ADDITIVE),
    "gaussian": Family("a Gaussian noisy-additive model", _NOISY_ADDITIVE),
    "gaussian network": Family("a Gaussian network", {"dim": {}}),
    "sigmoid network": Family("a sigmoid network", {"dim": {}}),
}

#: Options that act only beside another option (or its absence), for any family: the
#: commands, the options, whether they act (given the arguments), and why not.
_IDLE_BESIDE = (
    (("fit", "select"), ("--sweeps",), lambda args: args.schedule == "annealing",
     "without --schedule annealing, whose annealing it sets; give that, or leave it out"),
    (("fit", "select"), ("--wbic-draws",), lambda args: args.wbic,
     "without --wbic, whose draws it sets; give that, or leave it out"),
    (("select",), ("--cores",), lambda args: args.blrt is not None,
     "without --blrt, whose bootstrap replicates it runs in parallel; give --blrt B, or leave "
     "it out"),
    (("fit",), ("--restarts", "--schedule", "--seed"), lambda args: not args.init,
     "with --init, from whose parameters EM starts once; leave it out"),
    (("fit", "select"), ("--categorical", "--predict-at", "--plot-covariate", "--prior-sd",
                          "--three-step"),
     lambda args: args.covariates is not None,
     "without --covariates, the latent class regression it belongs to; give --covariates, or "
     "leave it out"),
    (("fit", "select"), ("--init", "--save-params", "--wbic", "--wbic-draws", "--skip-de",
                         "--sbic-phi", "--blrt", "--cores"),
     lambda args: args.covariates is None,
     "with --covariates: a latent class regression starts from the measurement model's search, "
     "and has no parameter file, WBIC, effective dimension, sBIC or bootstrap test; leave it "
     "out"),
    (("fit",), ("--prior-sd",), lambda args: args.three_step is None,
     "with --three-step, whose scores are the measurement model's, with no coefficient to put "
     "a prior on; leave it out"),
    (("fit",), ("--plot-covariate",), lambda args: args.plot is not None,
     "without --plot, the figure it chooses the covariate of; give --plot FILE, or leave it "
     "out"),
    (("sample",), ("--generating-alpha",), lambda args: not args.params,
     "with --params, whose parameters are used instead of drawn ones; leave it out"),
    (("evidence",), ("--runs", "--particles", "--seed"), lambda args: args.method == "mc",
     "with --method exact, which sums over every completion instead of drawing them at random; "
     "leave it out"),
)


def _given_options(argv) -> tuple:
    """The options that the command line ``argv`` gives, by their long names, in its order:
    one given at its default value too (``argv`` is parsed again, without the defaults)."""
    parser = build_parser()
    names, pending = {}, [parser]
    while pending:
        current = pending.pop()
        for action in current.options:
            action.default = argparse.SUPPRESS
            names[action.dest] = max(action.option_strings, key=len)
        pending += [sub for choices in current.subcommands for sub in choices.values()]
    return tuple(names[dest] for dest in vars(parser.parse_args(argv)) if dest in names)


def _refuse_what_does_not_act(command: str, args, family: str | None = None,
                              shown: str = "") -> None:
    """Refuse, before any work, a model ``command`` does not take and every option given that
    would not act: on the model's ``family`` (see FAMILIES; ``shown`` is how the command line
    gave the model), or beside the other options (_IDLE_BESIDE)."""
    if family is not None:
        commands = FAMILIES[family].commands
        if command not in commands:
            takers = " or ".join(f"'hiddenbn {name}'" for name in commands)
            raise HiddenbnError(f"{shown} is {FAMILIES[family].name}, which 'hiddenbn "
                                f"{command}' does not take; give it to {takers}")
        idle = commands[command]
        for option in args.options_given:
            value = getattr(args, option.removeprefix("--").replace("-", "_"), None)
            key = f"{option} {value}" if f"{option} {value}" in idle else option
            if key in idle:
                raise HiddenbnError(f"{key} does not act on {shown}, {FAMILIES[family].name}: "
                                    f"{idle[key]}")
    for commands, options, acts, why in _IDLE_BESIDE:
        for option in options:
            if command in commands and option in args.options_given and not acts(args):
                raise HiddenbnError(f"{option} does not act {why}")


def _print_result(result, as_json: bool) -> None:
    """Print a command's result (:mod:`hiddenbn.reports.results`) as strict JSON or as text."""
    print(result.to_json() if as_json else result)


@contextmanager
def _outputs(*paths):
    """Temporary paths for the output files ``paths`` (None where an output is not wanted);
    they are written to ``paths`` together when the block succeeds (see
    :func:`hiddenbn.util.files.atomic_output`) and all removed when it fails, so a failed command
    leaves no output behind, not even the ones it finished."""
    from hiddenbn.util.files import atomic_output

    with ExitStack() as stack:
        yield [path and stack.enter_context(atomic_output(path)) for path in paths]
        # The outputs are renamed into place one after another. A stopping signal whose handler
        # ran between two renames would leave the first outputs without the others (a signal
        # that arrives during a long write in C runs its handler only when the write returns),
        # so while they are renamed the handler only notes the signal, and the command ends as
        # interrupted with every output in place.
        _COMMITTING_OUTPUTS.set()
        try:
            stack.close()
        finally:
            _COMMITTING_OUTPUTS.clear()


def _check_outputs(outputs: dict, inputs=()) -> None:
    """Refuse, before any work, output paths that cannot be written as given: a folder, a
    symlink loop, a path under a file, one file for two outputs, two outputs on standard output
    (``-``), or an input of the command (which the output would replace; a symbolic link is
    followed to its file). ``outputs`` maps each option to its path (None: not wanted); what a
    command prints on standard output is named there too, with ``-``. A device or a FIFO is
    written as it is and never replaced, so two outputs may share one (``/dev/null``)."""
    from hiddenbn.util.files import output_target

    read = {os.path.realpath(path) for path in inputs if path and path != STANDARD_STREAM}
    named = {}
    for option, path in outputs.items():
        if not path:
            continue
        if path == STANDARD_STREAM:
            if STANDARD_STREAM in named:
                raise HiddenbnError(f"{named[STANDARD_STREAM]} and {option} both write to "
                                    f"standard output (-); give {option} a file name")
            named[STANDARD_STREAM] = option
            continue
        target = output_target(path, option)
        if target.in_place:
            continue
        blocking = next((parent for parent in target.path.parents
                         if parent.exists() and not parent.is_dir()), None)
        if blocking is not None:
            raise HiddenbnError(f"{option} {path}: {blocking} is a file, not a folder; give a "
                                "path in a folder")
        if str(target.path) in read:
            raise HiddenbnError(f"{option} {path} is also an input of this command and would be "
                                "overwritten; give the output another name")
        if target.path in named:
            raise HiddenbnError(f"{named[target.path]} and {option} both name {path}; give each "
                                "output its own file")
        named[target.path] = option


def _add_parameter_options(parser):
    parser.add_argument("spec", metavar="SPEC", help="model: k:r1,...,rn, a tree such as "
                        "'3(2,2,2)', or a YAML/JSON file")
    parser.add_argument("--seed", type=_seed, default=0, help="random seed (default 0)")
    parser.add_argument("--generating-alpha", type=_dirichlet_alpha, default=1.0,
                        help="Dirichlet parameter of the random CPT rows (default 1: uniform)")


def _model_of(spec, classes: int | None = None) -> tuple:
    """The family of a command's model (a key of FAMILIES) and the model: a Network, an
    InteractionModel (noisy-max and noisy-additive models), or None for ``classes`` (--classes
    K or --model K: the latent class model over the data's columns, built when they are read).
    :func:`hiddenbn.commands.spec_model` reads a spec."""
    from hiddenbn import commands

    if classes is not None:
        if not 1 <= classes <= limits.MAX_STATES:
            raise HiddenbnError(f"{'--classes' if spec is None else '--model'} {classes}: a "
                                "latent class model needs at least 1 class")
        return "latent class", None
    chosen = commands.spec_model(spec)
    return chosen.family, chosen.model


def _network_of(command: str, args, spec):
    """The network of ``spec`` (a noisy-max model's as a network) for ``command``, once the
    command line has passed :func:`_refuse_what_does_not_act`."""
    family, model = _model_of(spec)
    _refuse_what_does_not_act(command, args, family, spec)
    return model.network() if family == "noisy-max" else model


def command_sample(args) -> None:
    from hiddenbn import commands

    _check_outputs({"--save-params": args.save_params, "--output": args.output},
                   [args.spec, args.params])
    drawn = commands.draw_sample(_network_of("sample", args, args.spec), args.n,
                                 seed=args.seed, parameters=args.params,
                                 generating_alpha=args.generating_alpha,
                                 missing_rate=args.missing_rate, counts=args.counts)
    with _outputs(args.save_params, args.output) as (params_file, data_file):
        if params_file:
            drawn.save_parameters(params_file)
        drawn.write_csv(data_file)


def command_params(args) -> None:
    from hiddenbn import commands

    _check_outputs({"--output": args.output}, [args.spec])
    _network_of("params", args, args.spec)
    result = commands.parameters(args.spec, seed=args.seed,
                                 generating_alpha=args.generating_alpha)
    with _outputs(args.output) as (output,):
        result.save_parameters(output)


def command_dim(args) -> None:
    from hiddenbn import commands

    family, _ = _model_of(args.spec)
    _refuse_what_does_not_act("dim", args, family, args.spec)
    result = commands.dimensions(args.spec, ebnc=args.ebnc,
                                 jacobian_points=args.jacobian_points, seed=args.seed)
    if args.ebnc is None:  # the report carries the warnings of a rank; they are shown here too
        for warning in result.to_dict()["warnings"]:
            print(f"hiddenbn: warning: {warning}", file=sys.stderr)
    _print_result(result, args.json)


def command_ebnc_fit(args) -> None:
    from hiddenbn import commands

    _network_of("ebnc fit", args, args.embedded)
    _print_result(commands.ebnc_fit(args.data, args.embedded, args.target,
                                    prior_sd=args.prior_sd), True)


def command_ebnc_select(args) -> None:
    from hiddenbn import commands

    inputs = None if args.inputs is None else _names_option("--inputs", args.inputs)
    result = commands.ebnc_select(args.data, args.target, inputs=inputs, score=args.score,
                                  prior_sd=args.prior_sd, max_parents=args.max_parents,
                                  progress=_progress_lines("embedded networks scored"))
    _print_result(result, True)


def _progress_lines(what: str):
    """A callback that prints ``hiddenbn: N <what> (T s)`` on stderr for a count ``N``, at
    most every :data:`PROGRESS_SECONDS` and not before: a long search shows it is moving, a
    short one prints nothing."""
    started = last = time.monotonic()

    def report(count: int) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= PROGRESS_SECONDS:
            print(f"hiddenbn: {count} {what} ({now - started:.0f} s)", file=sys.stderr)
            last = now

    return report


def _data_table(args, numeric=()):
    """DATA parsed with the data options (dictionary, missing cells; ``numeric``: columns of
    measured numbers, not states), its columns coded once the model names them
    (:meth:`hiddenbn.data.DataTable.data_file`)."""
    from hiddenbn.data import read_table

    tokens = [token for token in args.missing_values.split(",")] + [""]  # empty is always missing
    return read_table(args.data, dictionary=args.dictionary, missing_values=tokens,
                      missing=args.missing, numeric=numeric)


def _columns(args, names) -> tuple:
    """The columns a model is bound to: --columns, else every column of the data (``names``)."""
    if args.columns is None:
        return names
    columns = _names_option("--columns", args.columns)
    unknown = [name for name in columns if name not in names]
    if unknown:
        raise HiddenbnError(f"--columns names {excerpt(unknown[0])}, which is not a column of "
                            f"{args.data}; its columns are {', '.join(names)}")
    return columns


#: What leaving out each option that takes column names means, for its messages.
_WITHOUT_NAMES = {"--columns": "for every column", "--inputs": "for every other column",
                  "--covariates": "for a model without covariates",
                  "--categorical": "to read each covariate as its cells say"}


def _names_option(option: str, text: str) -> tuple:
    """A comma-separated list of column names, each given once and none empty."""
    names = tuple(name.strip() for name in text.split(","))
    if not all(names):
        raise HiddenbnError(f"{option} {excerpt(text)} has an empty name; give column names "
                            "separated by commas, or leave the option out "
                            f"{_WITHOUT_NAMES[option]}")
    if len(set(names)) != len(names):
        raise HiddenbnError(f"{option} names a column twice; give each once")
    return names


def _classes(args) -> int | None:
    """K of --classes K or --model K (the latent class model over the data's columns)."""
    classes = getattr(args, "classes", None)  # fit's --classes; evidence has only --model
    return int(args.model) if classes is None and args.model.strip().isdigit() else classes


def _command_model(command: str, args) -> tuple:
    """The family and the model of --model or --classes (:func:`_model_of`), once the command
    line has passed :func:`_refuse_what_does_not_act`."""
    classes = _classes(args)
    family, model = _model_of(args.model, classes)
    _refuse_what_does_not_act(command, args, family,
                              args.model if args.model is not None else f"--classes {classes}")
    return family, model


def command_fit(args) -> None:
    from hiddenbn import commands

    if args.model is None and args.classes is None:
        raise HiddenbnError("give the model: --model SPEC or --classes K")
    if args.model is not None and args.classes is not None:
        raise HiddenbnError("give --model or --classes, not both")
    _check_outputs({"the report": STANDARD_STREAM, "--posteriors": args.posteriors,
                    "--plot": args.plot, "--save-params": args.save_params},
                   [args.data, args.model, args.init, args.dictionary])
    family, model = _command_model("fit", args)
    table = _data_table(args, numeric=(model.effect_name,)
                        if family in commands.ADDITIVE_FAMILIES else ())
    columns = None if args.columns is None else _columns(args, table.names)
    plot_format = args.plot and _plots().figure_format(args.plot)
    regression = {}
    if args.covariates is not None:
        covariates = _names_option("--covariates", args.covariates)
        if args.plot_covariate is not None and args.plot_covariate not in covariates:
            raise HiddenbnError(f"--plot-covariate {excerpt(args.plot_covariate)} is not one of "
                                f"--covariates ({first_named(covariates)}); name one of them")
        regression = {"covariates": covariates, "prior_sd": args.prior_sd,
                      "categorical": () if args.categorical is None
                      else _names_option("--categorical", args.categorical),
                      "predict_at": args.predict_at or (), "three_step": args.three_step}
    result = commands.fit(table, args.model, classes=args.classes, columns=columns,
                          init=args.init, **_search_options(args), **regression)
    with _outputs(args.posteriors, args.plot, args.save_params) as (
            posteriors_file, plot_file, params_file):
        if params_file:
            result.save_parameters(params_file)
        if posteriors_file:
            result.write_posteriors(posteriors_file)
        if plot_file and args.plot_covariate is not None:
            result.plot(plot_file, plot_format, covariate=args.plot_covariate)
        elif plot_file:
            result.plot(plot_file, plot_format)
        _print_result(result, args.json)


def _plots():
    """:mod:`hiddenbn.reports.plots`, imported when a figure is asked for (matplotlib is slow to
    load)."""
    from hiddenbn.reports import plots as module

    return module


def command_select(args) -> None:
    from hiddenbn import commands
    from hiddenbn.learning import selection

    _refuse_what_does_not_act("select", args)  # its family is the latent class model
    table = _data_table(args)
    classes = selection.parse_classes(args.classes)
    regression = {} if args.covariates is None else {
        "covariates": _names_option("--covariates", args.covariates),
        "prior_sd": args.prior_sd, "categorical": () if args.categorical is None
        else _names_option("--categorical", args.categorical)}
    columns = (None if args.covariates is not None and args.columns is None
               else _columns(args, table.names))
    result = commands.select(table, classes, columns=columns, sbic_phi=args.sbic_phi,
                             blrt=args.blrt, cores=args.cores,
                             progress=_progress_lines("bootstrap replicates refitted"),
                             **_search_options(args), **regression)
    _print_result(result, args.json)


def command_check_config(args) -> None:
    # the experiments it checks: only this command needs them
    from hiddenbn.experiments import workflow_config

    result = workflow_config.check_config_file(args.config)
    print(result.results_dir if args.results_dir else result)


def command_evidence(args) -> None:
    from hiddenbn import commands

    _command_model("evidence", args)
    table = _data_table(args)
    columns = None if args.columns is None else _columns(args, table.names)
    result = commands.log_evidence(table, args.model, method=args.method, runs=args.runs,
                                   particles=args.particles, prior_alpha=args.prior_alpha,
                                   seed=args.seed, columns=columns)
    _print_result(result, args.json)


def _search_options(args) -> dict:
    """The EM search options of fit and select, as :func:`hiddenbn.commands.fit` takes them."""
    return {name: getattr(args, name) for name in (
        "prior_alpha", "restarts", "schedule", "sweeps", "seed", "tolerance", "convergence",
        "max_iterations", "acceleration", "run_all_iterations", "skip_de", "wbic", "wbic_draws")}


def _add_data_options(parser):
    parser.add_argument("data", metavar="DATA", type=_file_name,
                        help="CSV with a header of column names, one "
                        "case per line; cells are labels or whole numbers (see "
                        "docs/own-data.md); an optional 'count' column holds pattern counts; - "
                        "reads standard input")
    parser.add_argument("--columns", metavar="A,B,...", help="the columns the model is bound "
                        "to, in order (default: every column)")
    parser.add_argument("--dictionary", metavar="FILE", type=_file_name,
                        help="data dictionary (YAML): each "
                        "column's categories in order, e.g. 'smoker: [no, yes]'; a category "
                        "absent from the data still counts")
    parser.add_argument("--missing-values", metavar="LIST", default=",".join(
                        value for value in defaults.DEFAULT_MISSING_VALUES if value),
                        help="cells read as missing besides empty ones, comma-separated; "
                        "replaces the default: pandas' default na_values (NA, NaN, N/A, NULL, "
                        "None, ...), . and na")
    parser.add_argument("--missing", choices=defaults.MISSING_HANDLING, default="model",
                        help="model: missing cells are summed out (missing at random; the "
                        "default); drop: cases with a missing cell are deleted (listwise)")


def _add_em_options(parser):
    optimum = defaults.OPTIMUM  # em.OPTIMUM, without importing EM
    _add_data_options(parser)
    parser.add_argument("--prior-alpha", type=_dirichlet_alpha, default=defaults.PRIOR_ALPHA,
                        help="symmetric Dirichlet prior of every CPT row, >= 1; the fit is its MAP "
                        "estimate (default 1: the ML estimate, as poLCA and StepMix give; "
                        "Chickering & Heckerman 1996 use 1.01, which keeps probabilities off 0)")
    parser.add_argument("--restarts", type=_count(limits.MAX_RESTARTS),
                        help="EM starts (default "
                        + ", ".join(f"{n} with {name}" for name, n in defaults.RESTARTS.items())
                        + ")")
    parser.add_argument("--schedule", choices=defaults.SCHEDULES, default=defaults.SCHEDULE,
                        help="annealing (the default): every start, found by simulated "
                        "annealing over hard completions of the cases, run to convergence, the "
                        "best kept and improved by split-and-merge moves for a latent class "
                        "model (random starts for an interaction model or a network with too "
                        "many joint hidden states); halving: random starts, the best half kept "
                        "after 1, 2, 4, ... iterations until one is left (Chickering & "
                        "Heckerman 1996); best-of-n: every random start to convergence, the "
                        "best kept")
    parser.add_argument("--sweeps", type=_count(limits.MAX_ITERATIONS),
                        default=defaults.ANNEALING_SWEEPS, help="annealing sweeps over the "
                        "cases per start (--schedule annealing; default "
                        f"{defaults.ANNEALING_SWEEPS})")
    parser.add_argument("--seed", type=_seed, default=0, help="random seed of the EM starts "
                        "(default 0)")
    parser.add_argument("--tolerance", type=_positive_float, default=optimum["tolerance"],
                        help="EM has converged when the change of the log posterior g over an "
                        f"iteration is at most this (default {optimum['tolerance']:g}, as "
                        "poLCA)")
    parser.add_argument("--convergence", choices=defaults.CONVERGENCE,
                        default=optimum["convergence"],
                        help="absolute: |change of g| <= tolerance (the default); relative: "
                        "|change| <= tolerance |g| (Chickering & Heckerman 1996, with 1e-5)")
    parser.add_argument("--max-iterations", type=_count(limits.MAX_ITERATIONS),
                        default=optimum["max_iterations"], help="the most EM iterations after "
                        f"the restart schedule (default {optimum['max_iterations']}); a fit "
                        "stopped by it is reported as not converged")
    parser.add_argument("--acceleration", choices=defaults.ACCELERATIONS,
                        default=defaults.ACCELERATION, help="squarem: after the restart "
                        "schedule, EM jumps along its last two steps wherever that does not "
                        "lower the log posterior (SQUAREM, Varadhan & Roland 2008; the default: "
                        "where EM crawls it converges in a fraction of the iterations); none: "
                        "plain EM steps (Chickering & Heckerman 1996's protocol)")
    parser.add_argument("--run-all-iterations", action="store_true", help="always run all "
                        "--max-iterations (Chickering & Heckerman 1996's protocol, with "
                        "--convergence relative --tolerance 1e-5 --max-iterations 200)")
    parser.add_argument("--skip-de", action="store_true", help="do not compute the effective "
                        "dimension (no BIC+ or CS+); it can take minutes for wide models")
    parser.add_argument("--wbic", action="store_true", help="also score by WBIC (Watanabe "
                        "2013): the mean log-likelihood under the posterior tempered to 1/log N, "
                        "sampled by 4 chains of Hamiltonian Monte Carlo (seeded by --seed), with "
                        "its Monte-Carlo standard error and split-R-hat; seconds to minutes")
    parser.add_argument("--wbic-draws", type=_count(limits.MAX_ITERATIONS, 4,
                                                     "a whole number of at least 4"),
                        default=defaults.WBIC_DRAWS, help="WBIC's draws per chain, after a "
                        "warm-up half as long (--wbic; default "
                        f"{defaults.WBIC_DRAWS})")
    parser.add_argument("--json", action="store_true", help="print JSON")


def _add_covariate_options(parser):
    """The options of a latent class regression that fit and select share."""
    parser.add_argument("--covariates", metavar="A,B,...", help="one-step latent class "
                        "regression: these columns predict the class by a multinomial logit, "
                        "class 1 the reference, fitted with the items by EM; the items are "
                        "--columns, by default every other column; a row with a missing "
                        "covariate is dropped (a note counts them)")
    parser.add_argument("--categorical", metavar="A,B,...", help="covariates coded as whole "
                        "numbers that are categories (dummy-coded; the first level, in the data "
                        "dictionary's order or sorted, is the reference); a covariate with "
                        "labels is categorical anyway")
    parser.add_argument("--prior-sd", type=_prior_sd, default=defaults.EBNC_PRIOR_SD,
                        help="with --covariates: s.d. of the normal prior on every logit "
                        "coefficient of the standardised covariates (a class against any "
                        "other), for the Laplace score (default "
                        f"{defaults.EBNC_PRIOR_SD})")


def _subcommand(commands, name: str, help: str, **settings):
    """A subcommand that shows the command-line examples under its own --help."""
    return commands.add_parser(name, help=help, epilog=EXAMPLES,
                               formatter_class=argparse.RawDescriptionHelpFormatter, **settings)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="hiddenbn", description="Model selection in Bayesian networks with hidden variables.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    sample = _subcommand(
        commands, "sample", "sample data from a model",
        description="Forward-sample cases from a model and write the observed variables as CSV. "
                    "Without --params the CPTs are drawn from Dirichlet(--generating-alpha); "
                    "parameters and data use separate streams derived from --seed.")
    _add_parameter_options(sample)
    sample.add_argument("--n", type=_count(limits.MAX_CASES), required=True,
                        help="number of cases")
    sample.add_argument("--params", metavar="FILE", type=_file_name,
                        help="parameter file (JSON, as written by "
                        "--save-params or 'hiddenbn params')")
    sample.add_argument("--save-params", metavar="FILE", type=_file_name,
                        help="write the parameters used as JSON "
                        "(-: standard output, when -o names a file)")
    sample.add_argument("--counts", action="store_true",
                        help="write distinct patterns with a 'count' column instead of one row "
                        "per case")
    sample.add_argument("--missing-rate", type=_bounded(float, 0.0, False, "a number from 0 to "
                        "below 1", 0.999999), default=0.0, metavar="RATE", help="blank each cell "
                        "with this probability (missing completely at random; a case keeps at "
                        "least one cell); default 0")
    sample.add_argument("-o", "--output", metavar="FILE", type=_file_name, default=STANDARD_STREAM,
                        help="output CSV (default -: standard output)")
    sample.set_defaults(run=command_sample)

    params = _subcommand(
        commands, "params", "draw random parameters for a model",
        description="Draw every CPT row from Dirichlet(--generating-alpha) and write them as "
                    "JSON.")
    _add_parameter_options(params)
    params.add_argument("-o", "--output", metavar="FILE", type=_file_name, default=STANDARD_STREAM,
                        help="output JSON (default -: standard output)")
    params.set_defaults(run=command_params)

    dim = _subcommand(
        commands, "dim", "dimension of a model",
        description="The standard dimension ds, effective dimension de (exact Jacobian rank "
                    "over a prime field and SVD rank with its singular-value gap, Geiger et al. "
                    "1996), the complete dimension dc and, for latent class models, the "
                    "Kocka-Zhang bounds dp and db. "
                    "With --ebnc NODE: the dimension of the embedded Bayesian-network classifier "
                    "(EBNC) of NODE given the other nodes of the fully observed network SPEC "
                    "(Heckerman & Meek 1997, Secs. 4 and 6), its non-redundant basis of "
                    "indicator features, and the rank by every construction.")
    dim.add_argument("spec", metavar="SPEC", help="model: k:r1,...,rn, a tree such as "
                     "'3(2,2,2)', or a YAML/JSON file")
    dim.add_argument("--ebnc", metavar="NODE", help="give the EBNC dimension of NODE's local "
                     "distribution (the network must be fully observed)")
    dim.add_argument("--json", action="store_true", help="print JSON (keys: ds, de, dc, dp, db, "
                     "method, gap, ...; with --ebnc: node, d, method, basis_size, features, "
                     "by_method, svd_gaps, warnings)")
    dim.add_argument("--jacobian-points", type=_count(limits.MAX_POINTS), default=5,
                     help="random parameter points at which the Jacobian is ranked; the rank is "
                     "the maximum (default 5)")
    dim.add_argument("--seed", type=_seed, default=0, help="random seed of the points (default 0)")
    dim.set_defaults(run=command_dim)

    fit = _subcommand(
        commands, "fit", "fit a model by EM and score it",
        description="Fit the MAP parameters of --model to DATA by EM with the restart schedule "
                    "of Chickering & Heckerman (1996) and print them with the log-likelihood, "
                    "convergence and every score, approximations of log p(D | model) where "
                    "larger is better (bic_log_evidence = -BIC/2, icl_log_evidence = -ICL/2, "
                    "BIC less the entropy of the hidden classes, BIC+, Draper, MLED, CS, CS+ "
                    "and Laplace; sBIC, a fixed point over the models of 1..K classes, is "
                    "'select''s); for a latent class model also AIC, BIC, SABIC and "
                    "CAIC (-2 log L + penalty, smaller is better), entropy and G^2. With "
                    "--covariates, a latent class regression: the covariates predict the class "
                    "by a multinomial logit (docs/latent-class-regression.md).")
    _add_em_options(fit)
    fit.add_argument("--model", metavar="SPEC", help="model: k:r1,...,rn or a tree such as "
                     "'3(2,2,2)', whose observed leaves are bound to the columns in order (or "
                     "to --columns); a bare number k: the latent class model with k classes "
                     "over every column, states read from the data; or a YAML/JSON file, whose "
                     "observed nodes name columns")
    fit.add_argument("--classes", type=_count(limits.MAX_STATES), metavar="K",
                     help="the latent class model with K classes over the columns (the same "
                     "as --model K)")
    fit.add_argument("--posteriors", metavar="FILE", type=_file_name,
                     help="write each data row's posterior "
                     "class probabilities and modal class as CSV (any other model: each hidden "
                     "node's, p_NODE_1.. and modal_NODE), one line per row of DATA in its order "
                     "(rows with missing cells included)")
    fit.add_argument("--plot", metavar="FILE", type=_file_name,
                     help="draw the class profile (item-response "
                     "probabilities per class) as PNG, PDF or SVG by the suffix of FILE")
    fit.add_argument("--save-params", metavar="FILE", type=_file_name,
                     help="write the fitted parameters as JSON "
                     "with the states of each column (what --init and 'sample --params' read)")
    fit.add_argument("--init", metavar="FILE", type=_file_name,
                     help="start EM once from these parameters (JSON, "
                     "as written by 'hiddenbn params' or 'sample --save-params') instead of the "
                     "restart schedule: from the generating parameters it shows whether a "
                     "search found the mode near the truth")
    _add_covariate_options(fit)
    fit.add_argument("--predict-at", metavar="NAME=VALUE,...", action="append",
                     help="report the predicted class probabilities at these covariate values, "
                     "e.g. age=30,sex=M (every covariate; repeatable)")
    fit.add_argument("--plot-covariate", metavar="NAME", help="with --plot and --covariates: "
                     "draw the predicted class probabilities against this numeric covariate "
                     "(the others at their means or reference levels) instead of the class "
                     "profile")
    fit.add_argument("--three-step", choices=defaults.THREE_STEP_CORRECTIONS,
                     help="with --covariates: estimate the coefficients in three steps "
                     "(Vermunt 2010): the latent class model of the items alone, modal "
                     "assignment with its classification error, then the covariates' logit of "
                     "the assigned classes corrected by BCH (robust to a wrong covariate model) "
                     "or ML (more efficient); the classes stay those the items define")
    fit.set_defaults(run=command_fit)

    select = _subcommand(
        commands, "select", "choose the number of hidden states by every score",
        description="Fit a latent class model (a hidden root with every column as a child) for "
                    "each number of hidden states and print per model the fit statistics "
                    "that 'fit' prints (AIC, BIC, SABIC and CAIC: -2 log L + penalty, smaller "
                    "is better; entropy R^2 and G^2) and every score (approximations of log "
                    "p(D | model), larger is better; with --classes 1..K also sBIC, the "
                    "singular BIC of Drton & Plummer 2017), then the number of classes each "
                    "criterion and score selects. With --covariates, a latent class "
                    "regression for each number of classes, every score counting its "
                    "coefficients.")
    _add_em_options(select)
    select.add_argument("--family", choices=["lc"], default="lc", help="model family: lc, the "
                        "latent class model (default)")
    select.add_argument("--classes", default="1..8", help="numbers of classes (states of the "
                        "hidden root): a range such as 1..8 or a list such as 2,3,5 (default "
                        "1..8)")
    select.add_argument("--sbic-phi", metavar="PHI", type=_positive_float,
                        help="prior parameter phi of "
                        "sBIC's learning-coefficient bounds (Drton & Plummer 2017, Sec. 6.3), "
                        "the Dirichlet parameter of the class weights; default that of the R "
                        "package sBIC, (d_1 + 1) / 2 for items with d_1 = sum (states - 1)")
    select.add_argument("--blrt", type=_count(limits.MAX_BOOTSTRAP_REPLICATES), metavar="B",
                        help="test k - 1 against k classes for each k > 1 of --classes by the "
                        "bootstrap likelihood-ratio test with at most B replicates (e.g. 100), "
                        "each drawn from the k - 1 class fit and refitted under both; stops "
                        "once p > 0.05 is certain (Besag & Clifford 1991)")
    select.add_argument("--cores", type=_count(limits.MAX_PROCESSES), metavar="N",
                        help="processes that refit the bootstrap replicates (default: every "
                        "core this process may use); the p-values are the same for any N")
    _add_covariate_options(select)
    select.set_defaults(run=command_select)

    evidence = _subcommand(
        commands, "evidence", "marginal likelihood log p(D | S), exact or Monte Carlo",
        description="The marginal likelihood of DATA under --model with a symmetric Dirichlet "
                    "prior: 'exact' sums the complete-data Bayesian-Dirichlet score over every "
                    "completion of the hidden values (small data only); 'mc' estimates it by "
                    "sequential Monte Carlo with collapsed Gibbs moves and reports the standard "
                    "error over --runs independent runs.")
    _add_data_options(evidence)
    evidence.add_argument("--model", metavar="SPEC", required=True, help="model: k:r1,...,rn, "
                          "a tree such as '3(2,2,2)', or a YAML/JSON file")
    evidence.add_argument("--method", choices=["exact", "mc"], default="mc",
                          help="exact enumeration or Monte Carlo (default mc)")
    evidence.add_argument("--runs", type=_count(limits.MAX_RUNS, 2, "at least 2 runs"), default=8,
                          help="independent Monte-Carlo runs; their spread is the standard "
                          "error (default 8)")
    evidence.add_argument("--particles", type=_count(limits.MAX_PARTICLES), default=64,
                          help="particles per Monte-Carlo run (default 64)")
    evidence.add_argument("--prior-alpha", type=_dirichlet_alpha,
                          default=defaults.PRIOR_ALPHA,
                          help="symmetric Dirichlet prior of every CPT row (default 1)")
    evidence.add_argument("--seed", type=_seed, default=0, help="random seed (default 0)")
    evidence.add_argument("--json", action="store_true", help="print JSON")
    evidence.set_defaults(run=command_evidence)

    check_config = _subcommand(
        commands, "check-config", "check a workflow config file before a run",
        description="Check a config file for the workflow as the workflow does before any job "
                    "(its YAML, the schema, each section's own checks) and print one line per "
                    "problem. Run it on a config of your own before 'snakemake --configfile': "
                    "Snakemake reads that file before the workflow starts, and its message for "
                    "a YAML syntax error names neither the file nor the line.")
    check_config.add_argument("config", metavar="CONFIG", help="the config file (YAML or JSON)")
    check_config.add_argument("--results-dir", action="store_true", help="print only the "
                              "config's results_dir (with its default filled in)")
    check_config.set_defaults(run=command_check_config)

    ebnc_command = _subcommand(
        commands, "ebnc", "fit or select embedded Bayesian-network classifiers (JSON)",
        description="Embedded Bayesian-network classifiers (Heckerman & Meek 1997): 'fit' "
                    "fits the EBNC of --target in an embedded network to complete DATA and "
                    "prints Laplace (Eq. 8, normal prior on phi), bic_log_evidence (Eq. 9: "
                    "BIC on the scale of log p(D | S), -BIC/2) and phi; "
                    "'select' searches embedded networks and inputs for --target.")
    ebnc_commands = ebnc_command.add_subparsers(dest="ebnc_command", required=True,
                                                metavar="ACTION")
    ebnc_fit_parser = ebnc_commands.add_parser(
        "fit", help="fit and score the EBNC of an embedded network",
        description="Fit the EBNC of --target in --embedded (ML and MAP of its non-redundant "
                    "parameters phi) and print JSON: d, laplace, bic_log_evidence, "
                    "log-likelihoods, phi.")
    ebnc_fit_parser.add_argument("--embedded", metavar="SPEC", required=True,
                                 help="the embedded network: a YAML/JSON file of observed "
                                 "discrete nodes whose names are columns of DATA")
    ebnc_fit_parser.set_defaults(run=command_ebnc_fit)
    ebnc_select_parser = ebnc_commands.add_parser(
        "select", help="select an embedded network and inputs by laplace or bic_log_evidence",
        description="Greedy search over embedded networks on --target and the inputs (add, "
                    "delete or reverse an arc); prints JSON: the selected inputs, network, "
                    "scores and features.")
    ebnc_select_parser.add_argument("--inputs", metavar="X1,X2,...", help="candidate input "
                                    "columns (default: every other column)")
    ebnc_select_parser.add_argument("--score", choices=list(defaults.EBNC_SCORES),
                                    default="laplace", help="selection score (default laplace)")
    ebnc_select_parser.add_argument("--max-parents", type=_positive_int, default=3,
                                    help="largest parent set in the search (default 3)")
    ebnc_select_parser.set_defaults(run=command_ebnc_select)
    for action in (ebnc_fit_parser, ebnc_select_parser):
        action.add_argument("data", metavar="DATA", help="CSV with a header of column names and "
                            "a state (a label or a whole number) in every cell; an optional "
                            "'count' column holds pattern counts; - reads standard input")
        action.add_argument("--target", metavar="Y", required=True, help="the class column")
        action.add_argument("--prior-sd", type=_prior_sd, default=defaults.EBNC_PRIOR_SD,
                            help="s.d. of the normal prior on every phi (default "
                            f"{defaults.EBNC_PRIOR_SD})")
    return parser


class _Stopped(BaseException):
    """SIGTERM or SIGHUP arrived. Raised in the main thread, it unwinds the command as Ctrl-C
    does, so every ``finally`` runs (temporary files are removed); a BaseException, like
    KeyboardInterrupt, so no ``except Exception`` swallows it."""

    def __init__(self, signal_number: int):
        super().__init__(signal_number)
        self.signal = signal.Signals(signal_number)


#: Signals that end a command, each with the handler Python starts with: their default action
#: (SIGINT's: raise KeyboardInterrupt) would kill the process on the spot, leaving its
#: temporary files behind, or print a traceback.
_STOPPING_SIGNALS = {signal.SIGINT: signal.default_int_handler, signal.SIGTERM: signal.SIG_DFL,
                     signal.SIGHUP: signal.SIG_DFL}


#: Set while a command's outputs are renamed into place (see :func:`_outputs`).
_COMMITTING_OUTPUTS = threading.Event()


@dataclass
class _ArrivedSignal:
    """The signal that arrived while a command ran, if any."""

    signal: signal.Signals | None = None


def main(argv=None) -> int:
    """Run the command of ``argv`` (default: ``sys.argv``); its exit status. A signal that ends
    it (Ctrl-C, SIGTERM, SIGHUP) gives one line and exit status 128 + its number, as a shell
    reports a process it killed."""
    arrived = _ArrivedSignal()
    try:
        with _signals_stop_the_command(arrived):
            status = _run(argv)
    except BaseException as err:
        stopped_by = _stopping_signal(err) or arrived.signal
        if stopped_by is None:
            raise
        return _interrupted(stopped_by)
    # a library dropped the interrupt (see _signals_stop_the_command): the command went on
    return status if arrived.signal is None else _interrupted(arrived.signal)


def _interrupted(stopped_by: signal.Signals) -> int:
    """Print the line of a command stopped by ``stopped_by``; its exit status."""
    print(f"hiddenbn: interrupted by {stopped_by.name}", file=sys.stderr)
    # A KeyboardInterrupt that left code run from a string (SciPy's array-API shim runs
    # `exec("from numpy import *")` while it is imported) marks the interpreter, and
    # `python -m` then ends by killing itself with SIGINT instead of exiting with the status
    # returned here. Running code from a string clears that mark.
    exec("")
    return 128 + stopped_by


@contextmanager
def _signals_stop_the_command(arrived: _ArrivedSignal):
    """Inside the block, each of :data:`_STOPPING_SIGNALS` that still has the handler Python
    starts with (``nohup`` ignores SIGHUP: it stays ignored) is noted in ``arrived`` and raises
    KeyboardInterrupt or :class:`_Stopped`. A library may drop the exception: C code that
    clears errors, or a callback from C (numba's compiler makes them), where Python prints it as
    "Exception ignored" and goes on; the note stays, and the hook that prints it keeps quiet."""
    if threading.current_thread() is not threading.main_thread():  # only it may set handlers
        yield
        return

    def stop(signal_number, frame):
        arrived.signal = signal.Signals(signal_number)
        if _COMMITTING_OUTPUTS.is_set():
            return
        raise KeyboardInterrupt if signal_number == signal.SIGINT else _Stopped(signal_number)

    def print_unless_interrupt(unraisable):
        if _stopping_signal(unraisable.exc_value) is None:
            previous_hook(unraisable)

    previous = {number: signal.signal(number, stop) for number, initial in
                _STOPPING_SIGNALS.items() if signal.getsignal(number) == initial}
    previous_hook, sys.unraisablehook = sys.unraisablehook, print_unless_interrupt
    try:
        yield
    finally:
        sys.unraisablehook = previous_hook
        for number, handler in previous.items():
            signal.signal(number, handler)


def _stopping_signal(error: BaseException) -> signal.Signals | None:
    """The signal that ``error`` or an exception it was raised from stands for, if any (numba
    wraps a KeyboardInterrupt raised in a call it makes in a SystemError)."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, KeyboardInterrupt):
            return signal.SIGINT
        if isinstance(error, _Stopped):
            return error.signal
        error = error.__cause__ or error.__context__
    return None


def _run(argv) -> int:
    """:func:`main` without the signal handling."""
    parser = build_parser()
    _Parser.given = tuple(sys.argv[1:] if argv is None else map(str, argv))
    args = parser.parse_args(argv)
    args.options_given = _given_options(list(_Parser.given))
    _pin_blas()
    try:
        # a library warning is one line, like the errors; notes and warnings name flags
        with warnings.catch_warnings(), command_line():
            warnings.showwarning = _warning_line
            args.run(args)
    except HiddenbnError as err:
        return _error(err.command_line_message())
    except MemoryError:  # a backstop: sizes are checked before anything is allocated
        return _error("out of memory; use a smaller model, less data, fewer --restarts or fewer "
                      "--particles")
    except BrokenPipeError:  # the reader went away (e.g. `| head`): nothing left to tell it
        sys.stdout = open(os.devnull, "w")
        return 0
    except OSError as err:
        reason = err.strerror or " ".join(str(err).split()) or type(err).__name__
        return _error(f"cannot use {err.filename or 'a file'}: {reason}; check the path, its "
                      "permissions and the free space")
    return 0


def _pin_blas() -> None:
    """numba on every core, BLAS on one: the same result on any machine (hiddenbn.util.threads).

    The limit reaches only the BLAS libraries loaded when it is set, and numpy and scipy each
    bring their own: both are loaded first (numba loads numpy), as they were when this module
    imported the whole library at its top."""
    from hiddenbn.util.threads import pin_blas_to_one_thread

    importlib.import_module("scipy.linalg")  # loads scipy's BLAS, so that the limit covers it
    pin_blas_to_one_thread()


def _warning_line(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning as ``hiddenbn: warning: ...`` on stderr, without the source location."""
    print(f"hiddenbn: warning: {message}", file=sys.stderr)


def _error(message: str) -> int:
    """Print the line of a failed command (one per problem of a config); its exit status."""
    for line in message.splitlines() or [""]:
        print(f"hiddenbn: error: {line}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
