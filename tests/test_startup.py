"""The command line starts without the heavy libraries.

``hiddenbn --help``, ``--version``, every command's ``--help`` and an argument error build the
parser and stop: none of them may import numba, scipy, pandas or matplotlib, which take a second
to load; a command imports them when it runs. Each probe runs in a fresh interpreter, since this
process has long imported them. The time itself is measured by ``benchmarks/bench_startup.py``,
not here.
"""

import argparse
import dataclasses
import json
import subprocess
import sys

HEAVY = ("numba", "scipy", "pandas", "matplotlib")

#: Runs ``hiddenbn.cli.main`` on each argument list of argv[1] (JSON) in turn and prints, per
#: list, its exit status and the heavy modules loaded so far.
PROBE = """
import contextlib, io, json, sys
from hiddenbn import cli
heavy = {heavy!r}
for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli.main(argv)
        except SystemExit as stop:
            status = stop.code
    loaded = sorted(name for name in heavy if name in sys.modules)
    print(json.dumps({{"argv": argv, "status": status, "loaded": loaded,
                      "out": out.getvalue(), "err": err.getvalue()}}))
""".format(heavy=HEAVY)


def probe(*argvs):
    """One result per argument list, from one fresh interpreter that runs them in order."""
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(argvs)], capture_output=True,
                          text=True, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


def commands():
    """Every command and action of the parser, e.g. ['fit'] and ['ebnc', 'select']."""
    from hiddenbn.cli import build_parser

    def below(parser, path):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield path + [name]
                    yield from below(sub, path + [name])
    return list(below(build_parser(), []))


def test_importing_the_cli_loads_no_heavy_library():
    script = ("import sys, hiddenbn.cli; "
              f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]"


def test_help_version_and_argument_errors_load_no_heavy_library():
    every = commands()
    assert ["fit"] in every and ["ebnc", "select"] in every
    argvs = ([["--version"], ["--help"]] + [path + ["--help"] for path in every]
             + [["fit"], ["fit", "data.csv", "--schedule", "anneal"], ["sample", "2:2,2"],
                ["no-such-command"], []])
    results = probe(*argvs)
    assert [result["argv"] for result in results] == argvs
    for result in results:
        assert result["loaded"] == [], result["argv"]
    version, main_help, *helps = results[:2 + len(every)]
    assert version["status"] == 0 and version["out"].startswith("hiddenbn ")
    for result in [main_help] + helps:
        assert result["status"] == 0 and result["out"].startswith("usage: hiddenbn"), \
            result["argv"]
    for result in results[2 + len(every):]:
        assert result["status"] == 2 and result["out"] == "", result["argv"]
        assert result["err"].startswith("hiddenbn: error: ") \
            and result["err"].count("\n") == 1, result["argv"]


def test_a_command_loads_what_it_needs_and_pins_every_blas():
    """The probe sees a heavy import, and a command still runs with every BLAS on one thread:
    numpy and scipy each bring their own, and the limit reaches only the ones already loaded."""
    script = ("import contextlib, io, json, sys\n"
              "from hiddenbn import cli\n"
              "with contextlib.redirect_stdout(io.StringIO()):\n"
              "    assert cli.main(['params', '2:2,2']) == 0\n"
              "from threadpoolctl import threadpool_info\n"
              f"print(json.dumps([sorted(m for m in {HEAVY!r} if m in sys.modules), "
              "[i['num_threads'] for i in threadpool_info() if i['user_api'] == 'blas']]))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    loaded, blas_threads = json.loads(done.stdout)
    assert {"numba", "scipy"} <= set(loaded)
    assert blas_threads and set(blas_threads) == {1}


def test_the_defaults_the_parser_shows_are_the_library_s():
    from hiddenbn.data import dataset
    from hiddenbn.ebnc import fitting
    from hiddenbn.learning import annealing, em
    from hiddenbn.scores import wbic
    from hiddenbn.util import defaults

    assert defaults.CONVERGENCE == em.CONVERGENCE
    assert defaults.PRIOR_ALPHA == em.PRIOR_ALPHA
    assert defaults.ENGINE_SCHEDULES == em.ENGINE_SCHEDULES
    assert defaults.SCHEDULES == em.SCHEDULES
    assert defaults.OPTIMUM == dataclasses.asdict(em.OPTIMUM)
    assert defaults.ANNEALING_SWEEPS == annealing.SWEEPS
    assert defaults.DEFAULT_MISSING_VALUES == dataset.DEFAULT_MISSING_VALUES
    assert defaults.MISSING_HANDLING == dataset.MISSING_HANDLING
    assert defaults.EBNC_SCORES == fitting.SCORES
    assert defaults.EBNC_PRIOR_SD == fitting.DEFAULT_PRIOR_SD
    assert defaults.WBIC_DRAWS == wbic.DRAWS


def test_the_version_is_read_when_asked_for():
    from importlib.metadata import version

    import hiddenbn

    assert hiddenbn.__version__ == version("hiddenbn")
