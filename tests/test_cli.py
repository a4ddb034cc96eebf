"""The hiddenbn command line: outputs, reproducibility and one-line errors with exit code 2."""

import contextlib
import io
import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import hiddenbn
from hiddenbn import cli
from hiddenbn.cli import main
from hiddenbn.data import read_csv
from hiddenbn.models.network import load_parameters
from hiddenbn.models.spec import parse_spec


def run(*args):
    return subprocess.run([sys.executable, "-m", "hiddenbn", *args], capture_output=True,
                          text=True)


def test_version_and_help():
    assert run("--version").stdout.strip() == f"hiddenbn {hiddenbn.__version__}"
    help_text = run("sample", "--help").stdout
    assert "examples:" in help_text and "hiddenbn sample 2:2,2,2,2,2" in help_text


def test_same_seed_gives_byte_identical_files(tmp_path):
    for name in ("a", "b", "c"):
        seed = "5" if name != "c" else "6"
        assert main(["sample", "5(3(2,2),3(2,2),2)", "--n", "3000", "--seed", seed, "--counts",
                     "--save-params", str(tmp_path / f"{name}.json"),
                     "-o", str(tmp_path / f"{name}.csv")]) == 0
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert (tmp_path / "a.csv").read_bytes() != (tmp_path / "c.csv").read_bytes()
    assert read_csv(tmp_path / "a.csv").n_cases == 3000


def test_params_then_sample_with_params_reproduces_sample(tmp_path):
    main(["params", "3:2,2,2", "--seed", "8", "-o", str(tmp_path / "p.json")])
    main(["sample", "3:2,2,2", "--seed", "8", "--n", "50", "-o", str(tmp_path / "direct.csv"),
          "--save-params", str(tmp_path / "saved.json")])
    main(["sample", "3:2,2,2", "--seed", "8", "--n", "50", "--params", str(tmp_path / "p.json"),
          "-o", str(tmp_path / "via.csv")])
    assert (tmp_path / "direct.csv").read_bytes() == (tmp_path / "via.csv").read_bytes()
    network = parse_spec("3:2,2,2")
    for a, b in zip(load_parameters(tmp_path / "p.json", network),
                    load_parameters(tmp_path / "saved.json", network)):
        assert np.array_equal(a, b)


def test_rows_are_written_in_sampling_order(tmp_path):
    main(["sample", "2:2,2,2", "--n", "2000", "--seed", "1", "-o", str(tmp_path / "rows.csv")])
    rows = np.loadtxt(tmp_path / "rows.csv", delimiter=",", skiprows=1, dtype=int)
    assert rows.shape == (2000, 3)
    assert not np.array_equal(rows, rows[np.lexsort(rows.T[::-1])])  # not sorted patterns


def test_params_prints_json_to_stdout():
    document = json.loads(run("params", "2:3", "--seed", "1").stdout)
    assert set(document) == {"network", "cpts"} and len(document["cpts"]["X1"]) == 2


@pytest.mark.parametrize("args, message", [
    (["sample", "3:2,2,2(", "--n", "5"], "hiddenbn: error: '3:2,2,2(' is not a latent class spec"),
    (["sample", "3(2,2", "--n", "5"], "character 6: expected ',' or ')'"),
    (["sample", "3:2,2", "--n", "5", "--params", "missing.json"], "parameter file missing.json "
                                                                  "does not exist"),
    (["sample", "3:2,2", "--n", "0"], "argument --n: expected a positive whole number, got 0"),
    (["sample", "3:2,2", "--n", "5", "--seed", "-1"],
     "expected a non-negative whole number as seed"),
    (["sample", "3:2,2", "--n", "5", "--generating-alpha", "0"],
     "expected a positive number, got 0.0"),
    (["sample", "3:2,2", "--n", "5", "--generating-alpha", "nan"],
     "expected a positive number, got nan"),
    (["dim", "-1:2,2"], "'-1:2,2' starts with '-' and was read as an option (a state count is a "
                        "positive whole number)"),
    (["sample", "3:2,2", "--n", "5", "-o", "/etc/hostname/x.csv"],
     "hiddenbn: error: --output /etc/hostname/x.csv: /etc/hostname is a file, not a folder"),
])
def test_bad_arguments_exit_2_with_one_line(args, message):
    result = run(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


# --- every option acts or is refused, for every model family ---------------------------------
#: A model of each family of the command line (hiddenbn.cli.FAMILIES): a shorthand, or the
#: text of a spec file.
FAMILY_SPECS = {
    "latent class": "2:2,2,2,2",
    "tree": "2(2(2,2),2(2,2))",
    "latent class file": "nodes: {H1: {states: 2, hidden: true}, X1: {states: 2, parents: [H1]},"
                         " X2: {states: 2, parents: [H1]}, X3: {states: 2, parents: [H1]}, "
                         "X4: {states: 2, parents: [H1]}}",
    "network file": "nodes: {H1: {states: 2, hidden: true}, X1: {states: 2, parents: [H1]}, "
                    "X2: {states: 2, parents: [X1]}, X3: {states: 2, parents: [H1]}, "
                    "X4: {states: 2, parents: [H1]}}",
    "noisy-max": "interaction: noisy-max\ncauses: {C1: 2, C2: 2}\nmechanisms: {X1: [C1], "
                 "X2: [C2], L: []}\neffect: {name: E, states: 2}\n",
    "poisson": "interaction: poisson\ncauses: {C1: 2, C2: 2}\nmechanisms: {X1: [C1, C2], L: []}\n",
    "gaussian": "interaction: gaussian\ncauses: {C1: 2, C2: 2}\nmechanisms: {X1: [C1, C2], "
                "L: []}\n",
    "gaussian network": "type: gaussian\nnodes: {H1: {hidden: true}, X1: {parents: [H1]}, "
                        "X2: {parents: [H1]}}",
    "sigmoid network": "type: sigmoid\nnodes: {H1: {hidden: true}, X1: {parents: [H1]}, "
                       "X2: {parents: [H1]}}",
}
SHORTHANDS = ("latent class", "tree")
INTERACTION = ("noisy-max", "poisson", "gaussian")


def family_data(family: str, complete: bool) -> str:
    """60 cases of the family's columns; the items of the networks have missing cells always
    (their EM sums them out), the causes of an interaction model only if not ``complete``."""
    rng = np.random.default_rng(5)
    if "file" in family or family in ("latent class", "tree"):
        rows = [[str(v) for v in rng.integers(0, 2, 4) | rng.integers(0, 2)] for _ in range(60)]
        rows[3][1], rows[8][2] = ".", ""
        return "X1,X2,X3,X4\n" + "".join(",".join(row) + "\n" for row in rows)
    causes = rng.integers(0, 2, (60, 2))
    effect = (causes.sum(axis=1) + rng.integers(0, 2, 60) if family != "gaussian"
              else causes @ [1.0, 2.0] + rng.normal(0, 0.5, 60))
    if family == "noisy-max":
        effect = np.minimum(effect, 1)
    rows = [[str(c1), str(c2), f"{e:g}"] for (c1, c2), e in zip(causes, effect)]
    if not complete:
        rows[4][0] = "."
    return "C1,C2,E\n" + "".join(",".join(row) + "\n" for row in rows)


#: The options of fit, each with its values to try (other than the baseline's): a value and
#: what else it needs beside it. "FILE" is an output file, "DICTIONARY" a data dictionary
#: reversing the states of the data's first column, "PARAMETERS" a parameter file of the
#: family's model. The baseline is fast and leaves every setting something to change.
FIT_BASELINE = {"--restarts": "2", "--max-iterations": "200", "--tolerance": "1e-3"}
FIT_OPTIONS = {
    "--model": [["3:2,2,2,2"]], "--classes": [["2"]], "--columns": [["X4,X3,X2,X1"]],
    "--dictionary": [["DICTIONARY"]], "--missing-values": [["NA"]], "--missing": [["drop"]],
    "--prior-alpha": [["2"]], "--restarts": [["3"]],
    # (best-of-n is what the default, annealing, means for an interaction model)
    "--schedule": [["halving"]],
    "--sweeps": [["1"], ["1", "--schedule", "halving"]], "--seed": [["7"]],
    "--tolerance": [["0.5"]], "--convergence": [["relative"]], "--max-iterations": [["3"]],
    "--run-all-iterations": [[]], "--acceleration": [["none"]], "--skip-de": [[]],
    "--json": [[]], "--posteriors": [["FILE"]], "--plot": [["FILE.png"]],
    "--save-params": [["FILE"]], "--init": [["PARAMETERS"]],
    # a flag given beside another option: None; a short run, and its draws alone are idle
    "--wbic": [[None, "--wbic-draws", "4"]], "--wbic-draws": [["4"]],
    # a latent class regression on the last column (an item of every family's model)
    "--covariates": [["X4"]], "--categorical": [["X4", "--covariates", "X4"]],
    "--predict-at": [["X4=1", "--covariates", "X4"]], "--prior-sd": [["1", "--covariates", "X4"]],
    "--plot-covariate": [["X4", "--covariates", "X4", "--plot", "FILE.png"]],
    "--three-step": [["bch", "--covariates", "X4"]],
}
SELECT_BASELINE = {"--classes": "1..2", **FIT_BASELINE}
SAMPLE_BASELINE = {"--n": "20"}
SAMPLE_OPTIONS = {
    "--seed": [["7"]], "--generating-alpha": [["0.2"], ["0.2", "--params", "PARAMETERS"]],
    "--n": [["30"]], "--params": [["PARAMETERS"]], "--save-params": [["FILE"]],
    "--counts": [[]], "--missing-rate": [["0.3"]], "--output": [["FILE"]],
}
EVIDENCE_BASELINE = {"--runs": "2", "--particles": "8"}
EVIDENCE_OPTIONS = {
    **{option: FIT_OPTIONS[option] for option in ("--model", "--dictionary",
                                                  "--missing-values", "--missing",
                                                  "--prior-alpha", "--seed", "--json")},
    # the evidence of a latent class model is the same for its items in any order; the
    # report in JSON lists them in their order
    "--columns": [["X4,X3,X2,X1", "--json"]],
    "--method": [["exact"]], "--runs": [["3"]], "--particles": [["9"]],
}
#: Options whose only value is their default (select's --family lc): there is nothing to change.
ONLY_THE_DEFAULT = {"--family", "--help"}


def command_options(command: str) -> set:
    """Every option of ``command`` by its long name, read from the parser itself."""
    parser = cli.build_parser()
    return {max(action.option_strings, key=len)
            for action in parser.subcommands[0][command].options} - ONLY_THE_DEFAULT


SELECT_OPTIONS = {**{option: FIT_OPTIONS[option] for option in sorted(command_options("select"))
                     if option in FIT_OPTIONS},
                  "--classes": [["1..3"]], "--sbic-phi": [["1"]], "--blrt": [["19"]],
                  # the p-values are the same on any number of cores: alone, it is refused
                  "--cores": [["1"]]}


def outcome(capsys, folder, argv) -> tuple:
    """Exit status, stdout, stderr and the files written to ``folder`` of ``hiddenbn argv``."""
    folder.mkdir()
    try:
        code = main([str(folder / a) if a.startswith("FILE") else a for a in argv])
    except SystemExit as stop:  # argparse
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err, {p.name: p.read_bytes() for p in folder.iterdir()}


@pytest.fixture(scope="module")
def family_files(tmp_path_factory):
    """Per family: its spec argument, its data, data with a missing cell, a parameter file of
    its model (where it has one) and a data dictionary reversing its first column's states."""
    folder = tmp_path_factory.mktemp("families")
    files = {}
    for k, (family, text) in enumerate(FAMILY_SPECS.items()):
        spec = text if family in SHORTHANDS else folder / f"model{k}.yaml"
        if family not in SHORTHANDS:
            spec.write_text(text)
        data, incomplete = folder / f"data{k}.csv", folder / f"incomplete{k}.csv"
        data.write_text(family_data(family, True))
        incomplete.write_text(family_data(family, False))
        parameters, dictionary = folder / f"parameters{k}.json", folder / f"dictionary{k}.yaml"
        # not the parameters that sample draws by default (--seed 0); none for some families
        main(["params", str(spec), "--seed", "3", "-o", str(parameters)])
        dictionary.write_text(f"{data.read_text().split(',')[0]}: ['1', '0']\n")
        files[family] = {"SPEC": str(spec), "DATA": str(data), "INCOMPLETE": str(incomplete),
                         "PARAMETERS": str(parameters), "DICTIONARY": str(dictionary)}
    return files


#: The outcome of each baseline command line run so far.
BASELINES = {}


def assert_each_value_acts_or_is_refused(capsys, folder, command, option, values, baseline,
                                         files) -> None:
    """For each value of ``option``: ``command`` with it (beside the ``baseline`` settings,
    --init without --restarts) either exits 2 with one line or gives other outputs than
    without it."""
    for k, entry in enumerate(values):
        value, beside = (entry[0], entry[1:]) if entry else (None, [])  # [] is a flag
        settings = {name: setting for name, setting in baseline.items()
                    if name != option and not (option == "--init" and name == "--restarts")}
        argv = [*command, *[files.get(a, a) for a in beside],
                *[item for pair in settings.items() for item in pair]]
        if tuple(argv) not in BASELINES:  # it writes no file: the same for every option
            BASELINES[tuple(argv)] = outcome(capsys, folder / f"base{k}", argv)
        base = BASELINES[tuple(argv)]
        variant = outcome(capsys, folder / f"variant{k}",
                          [*argv, option, *([] if value is None else [files.get(value, value)])])
        what = f"{' '.join(command[:1])} {option} {value} {beside}"
        code, _, err, _ = variant
        if code == 2:
            assert err.startswith("hiddenbn: error: ") and err.count("\n") == 1, (what, err)
        else:
            assert code == 0 and "Traceback" not in err, (what, err)
            assert (base[0], base[1], base[3]) != (variant[0], variant[1], variant[3]), \
                f"{what} changed nothing"


def test_the_option_tables_cover_every_option_and_family():
    assert command_options("fit") == set(FIT_OPTIONS)
    assert command_options("select") == set(SELECT_OPTIONS)
    assert command_options("sample") == set(SAMPLE_OPTIONS)
    assert command_options("evidence") == set(EVIDENCE_OPTIONS)
    assert set(cli.FAMILIES) == set(FAMILY_SPECS)


#: The commands that fit or score a model of DATA: their options and baselines.
MODEL_COMMANDS = {"fit": (FIT_OPTIONS, FIT_BASELINE), "evidence": (EVIDENCE_OPTIONS,
                                                                   EVIDENCE_BASELINE)}


@pytest.mark.parametrize("family", FAMILY_SPECS)
@pytest.mark.parametrize("command, option", [(command, option) for command, (options, _) in
                                             MODEL_COMMANDS.items() for option in options])
def test_every_fit_and_evidence_option_acts_or_is_refused_for_every_family(
        command, option, family, family_files, tmp_path, capsys):
    """Found by an input audit: with an interaction model, --posteriors, --save-params, --plot,
    --columns, --missing drop and a missing --dictionary were ignored by fit with exit 0."""
    files = family_files[family]
    missing_cells = option in ("--missing", "--missing-values") and family in INTERACTION
    data = files["INCOMPLETE" if missing_cells else "DATA"]
    options, baseline = MODEL_COMMANDS[command]
    assert_each_value_acts_or_is_refused(capsys, tmp_path,
                                         [command, data, "--model", files["SPEC"]], option,
                                         options[option], baseline, files)


@pytest.mark.parametrize("option", SELECT_OPTIONS)
def test_every_select_option_acts_or_is_refused(option, family_files, tmp_path, capsys):
    files = family_files["latent class"]  # the family select fits
    assert_each_value_acts_or_is_refused(capsys, tmp_path, ["select", files["DATA"]], option,
                                         SELECT_OPTIONS[option], SELECT_BASELINE, files)


@pytest.mark.parametrize("family", FAMILY_SPECS)
@pytest.mark.parametrize("option", SAMPLE_OPTIONS)
def test_every_sample_option_acts_or_is_refused_for_every_family(family, option, family_files,
                                                                 tmp_path, capsys):
    files = family_files[family]
    assert_each_value_acts_or_is_refused(capsys, tmp_path, ["sample", files["SPEC"]], option,
                                         SAMPLE_OPTIONS[option], SAMPLE_BASELINE, files)



# --- signals: one line, exit 128 + the signal's number, no temporary file left --------------------
def _default_stopping_signals():
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_DFL)


def _started(command, folder):
    """``hiddenbn command`` in a subprocess (in ``folder``), and a function that tells whether
    it has reached the command's work: the libraries it imports in its main() are loaded, so
    that a signal no longer finds Python starting up."""
    # a shell without job control starts background jobs (`make test &`) with SIGINT ignored,
    # and Python keeps an ignored SIGINT: the command gets it as a terminal would give it
    process = subprocess.Popen([sys.executable, "-m", "hiddenbn", *command], cwd=folder,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               preexec_fn=_default_stopping_signals)

    def working():
        with open(f"/proc/{process.pid}/maps") as maps:
            return "numpy" in maps.read()
    return process, working


def _wait_for(condition, process, seconds=60):
    deadline = time.monotonic() + seconds
    while not condition():
        assert process.poll() is None, process.communicate()[1]
        assert time.monotonic() < deadline, "the command never started its work"
        time.sleep(0.02)


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc")
def test_ctrl_c_during_fit_is_one_line_and_exit_130(tmp_path):
    """Found by an input audit: Ctrl-C printed a KeyboardInterrupt traceback, or numba's 56
    lines of chained SystemError with exit 1. Here it arrives while the fit loads its
    libraries, compiles or runs EM (whichever a machine is at after half a second)."""
    # twelve items: ~1500 patterns keep the fit busy for seconds even on an idle machine, so the
    # interrupt never lands after it, while its outputs are put in place (they then stay, whole)
    main(["sample", "3:2,2,2,2,2,2,2,2,2,2,2,2", "--n", "2000", "-o", str(tmp_path / "data.csv")])
    # halving's starts: should a library drop the interrupt (see cli._signals_stop_the_command),
    # the fit still ends well within the timeout, as interrupted
    process, working = _started(["fit", "data.csv", "--classes", "3", "--restarts", "4096",
                                 "--schedule", "halving", "--posteriors", "posteriors.csv"],
                                tmp_path)
    _wait_for(working, process)
    time.sleep(0.5)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert (process.returncode, err) == (130, "hiddenbn: interrupted by SIGINT\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.csv"]


def test_sigterm_while_writing_outputs_leaves_no_temporary_file(tmp_path):
    """Found by an input audit: SIGTERM left three hidden temporary files (one a temporary of
    a temporary, which a rerun did not clean up). The signal is sent once the outputs'
    temporary files exist. It leaves no output, or, where its handler runs only as the
    outputs are renamed into place (a loaded machine; a signal that arrives while C code
    writes the data waits for it), every output and nothing else: once data.csv was left
    without params.json."""
    process, _ = _started(["sample", "3:2,2,2,2,2,2", "--n", "5000000", "--save-params",
                           "params.json", "-o", "data.csv"], tmp_path)
    _wait_for(lambda: any(tmp_path.iterdir()), process)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert (process.returncode, err) == (143, "hiddenbn: interrupted by SIGTERM\n")
    left = sorted(path.name for path in tmp_path.iterdir())
    assert left in ([], ["data.csv", "params.json"]), left
    if left:
        json.loads((tmp_path / "params.json").read_text())
        assert len((tmp_path / "data.csv").read_text().splitlines()) == 5000001


def test_a_signal_as_a_temporary_file_is_made_leaves_no_file(tmp_path, monkeypatch):
    """A signal arriving right as an output's temporary file is created (a loaded machine:
    once in a full test run) finds its name already held for removal, so its handler's
    exception leaves nothing behind."""
    from hiddenbn.util import files

    class Stopped(Exception):
        pass

    def stop(number, frame):
        raise Stopped

    make = os.open

    def make_then_signal(path, *args, **kwargs):
        made = make(path, *args, **kwargs)
        if Path(path).parent == tmp_path:  # the output's temporary file, just created
            os.kill(os.getpid(), signal.SIGTERM)
        return made

    previous = signal.signal(signal.SIGTERM, stop)
    monkeypatch.setattr(files.os, "open", make_then_signal)
    try:
        with pytest.raises(Stopped):
            with files.atomic_output(tmp_path / "data.csv") as temporary:
                Path(temporary).write_text("never reached")
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert list(tmp_path.iterdir()) == []


def test_a_signal_while_outputs_are_renamed_waits_until_all_are_in_place(tmp_path, monkeypatch):
    """The signal's handler runs between the renames of two outputs (as when it arrived
    during a long write in C): the command ends as interrupted with both outputs in place."""
    from hiddenbn.util import files

    replace = os.replace
    renamed = []

    def replace_then_signal(source, target):
        replace(source, target)
        if Path(target).parent == tmp_path:  # not a compiled kernel's cache file
            renamed.append(Path(target).name)
            if len(renamed) == 1:
                os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(files.os, "replace", replace_then_signal)
    monkeypatch.chdir(tmp_path)
    status = main(["sample", "2:2,2,2", "--n", "10", "--save-params", "params.json", "-o",
                   "data.csv"])
    assert status == 143 and len(renamed) == 2
    assert sorted(path.name for path in tmp_path.iterdir()) == ["data.csv", "params.json"]


def test_a_signal_ignored_by_the_caller_stays_ignored():
    """``nohup`` ignores SIGHUP: a command must not take it back."""
    # the other handlers are restored as they were (SIGINT is ignored too where the suite runs
    # as a background job of a shell without job control)
    before = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["params", "2:2"]) == 0
        assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, previous)
    assert {number: signal.getsignal(number) for number in before} == before


def test_dev_null_stays_a_device_after_commands_write_it(tmp_path):
    """Found by an input audit: run as root, `-o /dev/null` renamed a regular file onto it."""
    data = tmp_path / "data.csv"
    data.write_text("X1,X2,X3\n0,1,1\n1,0,1\n1,1,0\n0,0,0\n1,1,1\n")
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["sample", "2:2,2", "--n", "5", "-o", os.devnull,
                     "--save-params", os.devnull]) == 0
        assert main(["fit", str(data), "--classes", "2", "--restarts", "1", "--skip-de",
                     "--posteriors", os.devnull, "--save-params", os.devnull]) == 0
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
