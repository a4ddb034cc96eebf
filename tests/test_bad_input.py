"""Bad input of every kind gets one line ``hiddenbn: error: ...``, exit 2, at once.

Each class the tester found has tests here: states silently wrapped to 32 bits, files that are
binary or not UTF-8 (and the byte-order mark that must be accepted), sizes that cannot fit in
memory, arguments that made a command run until killed, and outputs left behind by a failed
command. Sizes are checked before any work, so every refusal is immediate; a deadline turns a
command that would hang into a failure instead of a stuck test run.
"""

import io
import json
import math
import os
import re
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import hiddenbn
from hiddenbn import cli
from hiddenbn.cli import main
from hiddenbn.data import Dataset, read_csv, sampling
from hiddenbn.errors import DataError, HiddenbnError, ParameterError, SpecError
from hiddenbn.models.network import (latent_class, load_parameters, random_parameters,
                                     save_parameters)
from hiddenbn.models.spec import parse_spec
from hiddenbn.scores import exact
from hiddenbn.scores.exact import ExactEvidence
from hiddenbn.util import limits

#: Seconds a test may run; every refusal tested here takes milliseconds, but a command in a
#: subprocess may first load its numba cache, which took over 10 s on a fully loaded 2-core
#: machine. A hang still becomes a failure.
DEADLINE_SECONDS = 30


@pytest.fixture(autouse=True)
def deadline():
    """Raise in a test still running after :data:`DEADLINE_SECONDS` (a hang becomes a failure)."""
    def expire(signum, frame):
        raise TimeoutError(f"still running after {DEADLINE_SECONDS} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, DEADLINE_SECONDS)
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)


def run(capsys, *argv):
    """``hiddenbn argv`` in-process: (exit status, stdout, stderr)."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exit_:  # argparse
        code = exit_.code
    out, err = capsys.readouterr()
    return code, out, err


def assert_refused(result, message: str) -> None:
    """Exit status 2 and one line ``hiddenbn: error: ...`` containing ``message``."""
    code, _, err = result
    assert code == 2, err
    assert err.startswith("hiddenbn: error: ") and err.count("\n") == 1, err
    assert message in err, err


def write(folder, name: str, content) -> str:
    path = folder / name
    if isinstance(content, str):
        path.write_text(content)
    else:
        path.write_bytes(content)
    return str(path)


@pytest.fixture
def data(tmp_path):
    """A small valid data file over X1, X2."""
    return write(tmp_path, "data.csv", "X1,X2\n0,1\n1,0\n1,1\n0,0\n1,1\n")


# --- silently wrong: states beyond 32 bits -----------------------------------------------------
@pytest.mark.parametrize("state", [4294967297, 9999999999, 3000000000, 2**31 - 1])
def test_a_state_beyond_int32_is_named_not_wrapped(tmp_path, capsys, state):
    # 4294967297 was read as 1 (the fit identical to the file with 1), 9999999999 reported as
    # "state 1410065407", 3000000000 crashed fit after EM had run
    path = write(tmp_path, "data.csv", f"X1,X2,X3\n0,1,1\n1,0,{state}\n1,1,0\n")
    assert_refused(run(capsys, "fit", path, "--model", "2:2,2,2", "--restarts", "2"),
                   f"data file {path}, column 'X3': {state} is not a state of a variable "
                   "with at most 2147483647 states; code states 0..r-1 or 1..r")


def test_select_and_exact_evidence_refuse_such_a_state_before_any_work(tmp_path, capsys):
    path = write(tmp_path, "data.csv", "X1,X2,X3\n0,1,1\n1,0,3000000000\n1,1,0\n")
    for argv in (["select", path, "--classes", "1..2", "--restarts", "2"],
                 ["evidence", path, "--model", "2:2,2,2", "--method", "exact"]):
        assert_refused(run(capsys, *argv), "3000000000 is not a state")


def test_monte_carlo_evidence_refuses_such_a_state_instead_of_crashing(tmp_path):
    # a subprocess: the old code died with a segmentation fault (exit 139)
    path = write(tmp_path, "data.csv", "X1,X2,X3\n0,1,1\n1,0,3000000000\n1,1,0\n")
    result = subprocess.run([sys.executable, "-m", "hiddenbn", "evidence", path, "--model",
                             "2:2,2,2", "--runs", "2", "--particles", "4"],
                            capture_output=True, text=True, timeout=60)
    assert_refused((result.returncode, result.stdout, result.stderr), "is not a state")


def test_the_library_refuses_states_it_cannot_store():
    with pytest.raises(DataError, match=r"0\.\.2147483646"):
        Dataset.from_rows(["X"], np.array([[2**32 + 1], [0]]))


@pytest.mark.parametrize("cell", ["1_0", "\u0663", "\uff11"])
def test_cells_that_only_python_reads_as_integers_are_labels(tmp_path, cell):
    # int() reads "1_0" as 10 and Arabic-Indic or full-width digits as digits: here they are
    # labels, states of their own, never a number
    path = write(tmp_path, "data.csv", f"X1,X2\n0,1\n1,{cell}\n")
    assert read_csv(path).categories[1] == ("1", cell)


def test_counts_beyond_the_exact_integers_of_float64_are_refused(tmp_path):
    path = write(tmp_path, "data.csv", f"X1,count\n0,{2**53}\n1,1\n")
    with pytest.raises(DataError, match="the counts add up to 9007199254740993 cases"):
        read_csv(path)


# --- files that are not UTF-8 text, and the byte-order mark -----------------------------------
NOT_TEXT = [(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "is a binary file, not text; give a UTF-8 "
             "text file"),
            ("X1,X2\n0,1\n1,caf\u00e9\n".encode("latin-1"), "is not UTF-8 text (byte 0xe9 "
             "cannot be decoded); save it as UTF-8")]


@pytest.mark.parametrize("content, message", NOT_TEXT)
def test_a_data_file_that_is_not_utf8_text_is_one_line(tmp_path, capsys, content, message):
    path = write(tmp_path, "data.csv", content)
    assert_refused(run(capsys, "fit", path, "--model", "2:2,2"), f"data file {path} {message}")


@pytest.mark.parametrize("content, message", NOT_TEXT)
def test_a_spec_file_that_is_not_utf8_text_is_one_line(tmp_path, capsys, content, message):
    path = write(tmp_path, "model.yaml", content)
    assert_refused(run(capsys, "params", path), f"spec file {path} {message}")


@pytest.mark.parametrize("content, message", NOT_TEXT)
def test_a_parameter_file_that_is_not_utf8_text_is_one_line(tmp_path, capsys, content, message):
    path = write(tmp_path, "truth.json", content)
    assert_refused(run(capsys, "sample", "2:2,2", "--n", "5", "--params", path),
                   f"parameter file {path} {message}")


def test_a_utf8_byte_order_mark_is_skipped_in_every_file(tmp_path):
    bom = b"\xef\xbb\xbf"
    dataset = read_csv(write(tmp_path, "data.csv", bom + b"X1,X2\n0,1\n1,0\n"))
    assert dataset.names == ("X1", "X2")
    spec = write(tmp_path, "model.yaml", bom + b"nodes:\n  H: {states: 2, hidden: true}\n"
                                               b"  X: {states: 3, parents: [H]}\n")
    network = parse_spec(spec)
    assert network.names == ("H", "X")
    truth = tmp_path / "truth.json"
    cpts = random_parameters(network, np.random.default_rng(0))
    save_parameters(truth, network, cpts)
    truth.write_bytes(bom + truth.read_bytes())
    assert all(np.array_equal(a, b) for a, b in zip(load_parameters(truth, network), cpts))


# --- sizes that cannot fit in memory ----------------------------------------------------------
@pytest.mark.parametrize("argv, message", [
    (["sample", "2:2,2", "--n", "100000000000000"], "sampling 100000000000000 cases needs about"),
    (["params", "3:100000000,2,2,2"], "the number of CPT entries of the model is 300000021, "
                                      "above the limit of 16777216; use fewer states"),
    (["params", "2:99999999999999999999"], "99999999999999999999 states is above the limit of "
                                           "2147483647; use fewer states"),
    (["params", "2:" + "9" * 5000], "(5000 characters) states is above the limit"),
    (["params", "2(" * 150 + "2" + ")" * 150], "nest more than 100 levels deep; write deeper "
                                               "models as a YAML file"),
    (["sample", "2:2,2", "--n", "9" * 400], "argument --n: about 10^400 is above the limit of "
                                            "9007199254740992"),
])
def test_sizes_that_cannot_fit_are_refused_before_anything_is_allocated(capsys, argv, message):
    assert_refused(run(capsys, *argv), message)


def test_fit_refuses_a_model_too_large_for_any_machine(data, capsys):
    assert_refused(run(capsys, "fit", data, "--model", "3:100000000,2"),
                   "the number of CPT entries of the model is 300000009")


def test_huge_integers_in_files_are_one_line(tmp_path, capsys, data):
    path = write(tmp_path, "huge.csv", "X1,X2\n0,1\n1,99999999999999999999999\n")
    assert_refused(run(capsys, "fit", path, "--model", "2:2,2"),
                   "'99999999999999999999999' has 23 digits, more than any state or count")
    truth = write(tmp_path, "truth.json", '{"cpts": {"H1": [[0.5, 1' + "0" * 5000 + "]]}}")
    with pytest.raises(ParameterError, match="is not valid JSON"):
        load_parameters(truth, parse_spec("2:2,2"))


@pytest.mark.parametrize("counts", [[], ["--counts"]])
def test_running_out_of_memory_anyway_is_one_line(data, capsys, monkeypatch, counts):
    def exhausted(*args, **kwargs):
        raise MemoryError
    monkeypatch.setattr(sampling, "forward_sample", exhausted)
    assert_refused(run(capsys, "sample", "2:2,2", "--n", "5", *counts),
                   "out of memory; use a smaller")


def test_an_interaction_model_too_large_is_one_line(tmp_path, capsys):
    spec = write(tmp_path, "model.yaml", "interaction: poisson\ncauses: {C1: 100000, C2: 100000}"
                                         "\nmechanisms: {X1: [C1, C2], L: []}\n")
    assert_refused(run(capsys, "dim", spec), "the number of cause configurations times "
                                             "mechanism rows is 100000000010000000000")


# --- arguments that made a command run until killed -------------------------------------------
@pytest.mark.parametrize("argv, message", [
    (["params", "1000000000:2,2"], "the number of CPT entries of the model is 5000000000"),
    (["fit", "DATA", "--model", "2:2,2", "--restarts", "100000000000"],
     "argument --restarts: 100000000000 is above the limit of 65536; give at most 65536 (see "
     "'hiddenbn fit --help')"),
    (["fit", "DATA", "--model", "2:2,2", "--max-iterations", "1000000000000"],
     "argument --max-iterations: 1000000000000 is above the limit of 1048576"),
    (["fit", "DATA", "--model", "2:2,2", "--schedule", "annealing", "--sweeps", "10000000000"],
     "argument --sweeps: 10000000000 is above the limit of 1048576"),
    (["select", "DATA", "--classes", "1..1000000000"],
     "--classes '1..1000000000': the number of models to fit is 1000000000, above the limit of "
     "1024"),
    (["dim", "2:2,2,2", "--jacobian-points", "1000000000"],
     "argument --jacobian-points: 1000000000 is above"),
    (["evidence", "DATA", "--model", "2:2,2", "--runs", "1000000000"],
     "argument --runs: 1000000000 is above the limit of 4096"),
    (["evidence", "DATA", "--model", "2:2,2", "--particles", "1000000000000"],
     "argument --particles: 1000000000000 is above the limit of 1048576"),
])
def test_arguments_that_would_run_until_killed_are_refused(data, capsys, argv, message):
    assert_refused(run(capsys, *[data if a == "DATA" else a for a in argv]), message)


@pytest.mark.parametrize("command", [["fit", "DATA", "--model", "2:2,2"],
                                     ["evidence", "DATA", "--model", "2:2,2", "--method", "exact"]])
def test_a_prior_alpha_past_the_precision_of_the_scores_is_refused(data, capsys, command):
    # at 1e16 the cancellation in log Gamma(alpha + N) - log Gamma(alpha) had given a log
    # marginal likelihood above 0
    argv = [data if a == "DATA" else a for a in command]
    assert_refused(run(capsys, *argv, "--prior-alpha", "1e16"),
                   "argument --prior-alpha: 1e+16 is above the limit of 1000000.0")


def test_prior_alpha_at_its_limit_gives_the_uniform_distribution(tmp_path, capsys):
    path = write(tmp_path, "data.csv", "X1,X2\n0,1\n1,0\n2,2\n")
    code, out, _ = run(capsys, "evidence", path, "--model", "2:3,3", "--method", "exact",
                       "--prior-alpha", "1e6", "--json")
    value = json.loads(out)["log_evidence"]
    assert code == 0
    assert value == pytest.approx(6 * np.log(1 / 3), abs=1e-4)  # the limit of every CPT at 1/r


def test_exact_evidence_refuses_a_huge_count_before_listing_its_splits(tmp_path, capsys):
    path = write(tmp_path, "data.csv", "X1,X2,count\n0,1,1000000000\n1,0,3\n")
    assert_refused(run(capsys, "evidence", path, "--model", "2:2,2", "--method", "exact"),
                   "needs more than 2097152 distinct sufficient statistics")


def test_monte_carlo_evidence_refuses_more_cases_than_fit_in_memory(tmp_path, capsys):
    path = write(tmp_path, "data.csv", "X1,X2,count\n0,1,1000000000000\n1,0,3\n")
    assert_refused(run(capsys, "evidence", path, "--model", "2:2,2"),
                   "the marginal likelihood of 1000000000003 cases needs about")


def test_ebnc_select_refuses_a_column_with_a_huge_state(tmp_path, capsys):
    path = write(tmp_path, "data.csv", "Y,X1,X2\n0,1,1\n1,0,2000000000\n1,1,0\n")
    assert_refused(run(capsys, "ebnc", "select", path, "--target", "Y"),
                   f"2000000002 parameters, above the limit of {limits.MAX_EBNC_PARAMETERS}")


def test_a_long_spec_in_reverse_order_is_sorted_at_once():
    # the topological sort scanned every remaining node per step: minutes for 8000 nodes
    nodes = {f"N{i}": {"states": 2, "parents": [f"N{i + 1}"] if i < 5999 else []}
             for i in range(6000)}
    assert parse_spec({"nodes": nodes}).names[:2] == ("N5999", "N5998")


# --- outputs: all or none, strict JSON, one line --------------------------------------------
def test_a_failed_sample_leaves_neither_output(tmp_path, capsys):
    blocker = tmp_path / "blocker"
    blocker.write_text("")  # a file where the data's folder should be
    params = tmp_path / "p.json"
    assert run(capsys, "sample", "2:2,2", "--n", "5", "--save-params", params,
               "-o", blocker / "out.csv")[0] == 2
    assert sorted(tmp_path.iterdir()) == [blocker]


@pytest.mark.parametrize("counts", [[], ["--counts"]])
def test_a_sample_that_fails_while_sampling_leaves_neither_output(tmp_path, capsys,
                                                                  monkeypatch, counts):
    def exhausted(*args, **kwargs):
        raise MemoryError
    monkeypatch.setattr(sampling, "forward_sample", exhausted)
    assert run(capsys, "sample", "2:2,2", "--n", "5", "--save-params", tmp_path / "p.json",
               "-o", tmp_path / "out.csv", *counts)[0] == 2
    assert list(tmp_path.iterdir()) == []


def test_json_output_is_strict_with_null_for_nan_and_infinity(data, capsys, monkeypatch):
    monkeypatch.setattr(exact, "exact_log_evidence",
                        lambda *args: ExactEvidence(float("-inf"), 1, None))
    code, out, _ = run(capsys, "evidence", data, "--model", "2:2,2", "--method", "exact",
                       "--json")

    def refuse(constant):
        raise AssertionError(f"{constant} is not JSON")
    assert code == 0 and json.loads(out, parse_constant=refuse)["log_evidence"] is None


def test_argument_errors_are_one_line(data, capsys):
    assert_refused(run(capsys, "fit", data, "--model", "2:2,2", "--schedule", "anneal"),
                   "argument --schedule: invalid choice: 'anneal'")
    assert_refused(run(capsys, "sample", "2:2,2"), "the following arguments are required: --n "
                                                   "(see 'hiddenbn sample --help')")


def test_an_empty_interaction_data_file_is_one_line(tmp_path, capsys):
    spec = write(tmp_path, "model.yaml", "interaction: poisson\ncauses: {C1: 2}\n"
                                         "mechanisms: {X1: [C1], L: []}\n")
    assert_refused(run(capsys, "fit", write(tmp_path, "empty.csv", ""), "--model", spec),
                   "empty.csv is empty; it needs a header of variable names")


def test_limits_are_far_above_the_defaults_and_the_workflow():
    assert limits.MAX_RESTARTS >= 64 and limits.MAX_ITERATIONS >= 2000
    assert limits.MAX_RUNS >= 8 and limits.MAX_PARTICLES >= 64 and limits.MAX_POINTS >= 5
    assert limits.table_cells(parse_spec("64:" + ",".join(["64"] * 128))) \
        <= limits.MAX_TABLE_CELLS


def test_the_table_limit_guards_what_builds_tables_and_dim_keeps_its_own(capsys):
    """The CPT-size limit guards what builds the tables; ``dim`` never does, so a wide model
    gets the dimension analysis's own answer (here its refusal with the bound db on de)."""
    wide = "3:" + ",".join(["100000000"] * 2)
    assert_refused(run(capsys, "params", wide), "the number of CPT entries of the model")
    assert_refused(run(capsys, "dim", wide), "db = 599999990 is an upper bound on de")


# --- outputs that cannot be written as given ----------------------------------------------------
@pytest.mark.parametrize("argv, message", [
    (["fit", "DATA", "--model", "2:2,2", "--save-params", "OUT/fit.json", "--posteriors",
      "OUT"], "--posteriors OUT is a folder; give a file name"),
    (["fit", "DATA", "--model", "2:2,2", "--plot", "OUT/p.png", "--posteriors", "DATA"],
     "--posteriors DATA is also an input of this command and would be overwritten"),
    (["fit", "DATA", "--model", "2:2,2", "--posteriors", "OUT/p.csv", "--save-params",
      "OUT/p.csv"], "--posteriors and --save-params both name OUT/p.csv; give each output its "
                    "own file"),
    (["fit", "DATA", "--model", "2:2,2", "--posteriors", "DATA/p.csv"],
     "is a file, not a folder; give a path in a folder"),
    (["sample", "2:2,2", "--n", "5", "-o", "OUT/s.csv", "--save-params", "OUT"],
     "--save-params OUT is a folder"),
    (["sample", "2:2,2", "--n", "5", "-o", "OUT/s.csv", "--save-params", "OUT/s.csv"],
     "--save-params and --output both name OUT/s.csv"),
    (["params", "2:2,2", "-o", "OUT"], "--output OUT is a folder"),
    (["sample", "2:2,2", "--n", "5", "--save-params", "-"], "--save-params and --output both "
     "write to standard output (-); give --output a file name"),
    (["fit", "DATA", "--model", "2:2,2", "--posteriors", "-"], "the report and --posteriors "
     "both write to standard output (-); give --posteriors a file name"),
    (["fit", "DATA", "--model", "2:2,2", "--posteriors", "OUT/link.csv"],
     "--posteriors OUT/link.csv is also an input of this command and would be overwritten"),
    # an empty name was dropped as if the option were left out: no posteriors, exit 0
    (["fit", "DATA", "--model", "2:2,2", "--posteriors", ""],
     "argument --posteriors: expected a file name, got ''; give the name of a file"),
    (["fit", "DATA", "--model", "2:2,2", "--save-params", " "], "argument --save-params: "
     "expected a file name"),
    (["sample", "2:2,2", "--n", "5", "-o", ""], "argument -o/--output: expected a file name"),
    (["fit", "", "--model", "2:2,2"], ": expected a file name, got ''"),
])
def test_outputs_that_cannot_be_written_are_refused_before_any_is(tmp_path, data, capsys, argv,
                                                                  message):
    """Found by an input audit: a later output that failed left the earlier ones written, and
    an output named like the data file replaced it."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "link.csv").symlink_to(data)  # the data file under another name
    before = sorted(tmp_path.rglob("*"))
    argv = [a.replace("OUT", str(out)).replace("DATA", data) for a in argv]
    assert_refused(run(capsys, *argv), message.replace("OUT", str(out)).replace("DATA", data))
    assert sorted(tmp_path.rglob("*")) == before


# --- paths that are not regular files: devices, FIFOs, links, '-' -------------------------------
def test_a_fifo_output_gives_its_reader_the_whole_file(tmp_path, capsys):
    fifo = tmp_path / "data.csv"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()), daemon=True)
    reader.start()
    assert run(capsys, "sample", "2:2,2", "--n", "4", "--seed", "1", "-o", fifo)[0] == 0
    reader.join(5)
    assert received == [run(capsys, "sample", "2:2,2", "--n", "4", "--seed", "1")[1]]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_an_output_that_is_a_symlink_is_written_through_it(tmp_path, capsys):
    """Found by an input audit: the link was replaced by a file and the target kept its text."""
    target = Path(write(tmp_path, "target.csv", "old\n"))
    link = tmp_path / "link.csv"
    link.symlink_to(target.name)
    assert run(capsys, "sample", "2:2,2", "--n", "4", "-o", link)[0] == 0
    assert link.is_symlink() and target.read_text().startswith("X1,X2\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.csv", "target.csv"]


def test_a_dash_writes_standard_output(tmp_path, capsys):
    params = tmp_path / "params.json"
    code, out, _ = run(capsys, "sample", "2:2,2", "--n", "4", "-o", "-", "--save-params", params)
    assert code == 0 and out.startswith("X1,X2\n") and out.count("\n") == 5
    code, out, _ = run(capsys, "sample", "2:2,2", "--n", "4", "-o", tmp_path / "data.csv",
                       "--save-params", "-")
    assert code == 0 and json.loads(out) == json.loads(params.read_text())
    code, out, _ = run(capsys, "params", "2:2,2", "-o", "-")
    assert code == 0 and json.loads(out) == json.loads(params.read_text())


def test_symlink_loops_are_one_line(tmp_path, capsys):
    """Found by an input audit: a loop raised RuntimeError from pathlib's resolve()."""
    loop = tmp_path / "loop.yaml"
    loop.symlink_to(tmp_path / "back.yaml")
    (tmp_path / "back.yaml").symlink_to(loop)
    assert_refused(run(capsys, "fit", loop, "--classes", "2"),
                   f"data file {loop} is a symlink loop; point the link at a file")
    assert_refused(run(capsys, "dim", loop), f"spec file {loop} is a symlink loop")
    assert_refused(run(capsys, "sample", "2:2,2", "--n", "5", "-o", loop),
                   f"--output {loop} is a symlink loop; point the link at a file or give another "
                   "path")


@pytest.mark.parametrize("source", ["fifo", "process substitution", "standard input"])
def test_a_data_stream_is_read_once_like_a_file(tmp_path, monkeypatch, data, source):
    """Found by an input audit: a FIFO and <(cat data.csv) were said not to exist. A stream is
    read once (a second open of a FIFO would wait for a writer for ever: the deadline)."""
    text = Path(data).read_text()
    if source == "fifo":
        path = tmp_path / "fifo.csv"
        os.mkfifo(path)
        threading.Thread(target=path.write_text, args=(text,), daemon=True).start()
    elif source == "process substitution":  # what bash passes for <(cat data.csv)
        readable, writable = os.pipe()
        path = f"/dev/fd/{readable}"
        with os.fdopen(writable, "w") as pipe:  # the pipe holds 64 KiB: no reader needed yet
            pipe.write(text)
    else:  # the data of every command that reads one data file
        path = "-"
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    try:
        streamed = read_csv(path)
    finally:
        if source == "process substitution":
            os.close(readable)
    expected = read_csv(data)
    assert streamed.names == expected.names and streamed.n_cases == expected.n_cases
    assert np.array_equal(streamed.patterns, expected.patterns)
    assert np.array_equal(streamed.counts, expected.counts)


def test_dev_null_as_an_input_is_an_empty_file(tmp_path, capsys):
    assert_refused(run(capsys, "fit", os.devnull, "--classes", "2"),
                   f"data file {os.devnull} is empty; it needs a header of variable names")
    assert_refused(run(capsys, "sample", "2:2", "--n", "3", "--params", os.devnull),
                   f"parameter file {os.devnull} is not valid JSON")


# --- a key given twice: the parsers keep the last one silently ----------------------------------
DUPLICATE_NODE_YAML = ("nodes:\n  H: {states: 2, hidden: true}\n  X1: {states: 2, parents: [H]}\n"
                       "  X2: {states: 2, parents: [H]}\n  X1: {states: 3, parents: [H]}\n")
DUPLICATE_NODE_JSON = ('{"nodes": {"H": {"states": 2, "hidden": true}, "X1": {"states": 2, '
                       '"parents": ["H"]}, "X2": {"states": 2, "parents": ["H"]}, "X1": '
                       '{"states": 3, "parents": ["H"]}}}')


@pytest.mark.parametrize("name, text, message", [
    ("model.yaml", DUPLICATE_NODE_YAML, "cannot be parsed: line 5: found the key 'X1' twice"),
    ("model.json", DUPLICATE_NODE_JSON, "cannot be parsed: the key 'X1' appears twice"),
])
def test_a_node_defined_twice_in_a_spec_file_is_refused(tmp_path, capsys, name, text, message):
    assert_refused(run(capsys, "dim", write(tmp_path, name, text)), message)


def test_a_column_named_twice_in_a_dictionary_is_refused(tmp_path, capsys):
    data = write(tmp_path, "data.csv", "smoker,q\nno,1\nyes,2\nno,2\n")
    dictionary = write(tmp_path, "d.yaml", "smoker: [no, yes]\nq: [1, 2]\nsmoker: [yes, no]\n")
    assert_refused(run(capsys, "fit", data, "--classes", "2", "--dictionary", dictionary),
                   "data dictionary " + dictionary + ", line 3: found the key 'smoker' twice")


def test_a_table_given_twice_in_a_parameter_file_is_refused(tmp_path, capsys, data):
    params = write(tmp_path, "p.json", '{"cpts": {"H1": [[0.5, 0.5]], "X1": [[0.5, 0.5], '
                   '[0.5, 0.5]], "X2": [[1, 0], [0, 1]], "X1": [[0.9, 0.1], [0.1, 0.9]]}}')
    assert_refused(run(capsys, "fit", data, "--model", "2:2,2", "--init", params),
                   "is not valid JSON: the key 'X1' appears twice in one object")


CHAIN = ("nodes: {H1: {states: 2, hidden: true}, X1: {states: 2, parents: [H1]}, "
         "X2: {states: 2, parents: [X1]}}")


@pytest.mark.parametrize("command", [["sample", "CHAIN", "--n", "5"],
                                     ["fit", "DATA", "--model", "CHAIN", "--init"]])
def test_parameters_of_another_structure_with_tables_of_the_same_shapes_are_refused(
        tmp_path, capsys, data, command):
    """Found by an input audit: a parameter file's network was never compared with the model,
    so the tables of 2:2,2 (X2 a child of H1) loaded for a chain H1 -> X1 -> X2."""
    chain = write(tmp_path, "chain.yaml", CHAIN)
    latent = str(tmp_path / "latent.json")
    assert run(capsys, "params", "2:2,2", "-o", latent)[0] == 0
    argv = [{"CHAIN": chain, "DATA": data}.get(a, a) for a in command]
    option = ["--params"] if command[0] == "sample" else []
    assert_refused(run(capsys, *argv, *option, latent),
                   f"parameter file {latent} was written for another model: node 'X2' has the "
                   "parents 'H1' in the file and 'X1' in the model; give the parameters of this "
                   "model")


def test_a_table_error_of_a_parameter_file_names_the_file(tmp_path, capsys, data):
    params = write(tmp_path, "p.json", '{"cpts": {"H1": [[0.5, 0.5]], "X1": [[0.5, 0.5], '
                   '[0.5, 0.5]]}}')
    assert_refused(run(capsys, "fit", data, "--classes", "2", "--init", params),
                   f"parameter file {params}: node 'X2' has no table")


def test_a_config_key_given_twice_is_refused(tmp_path, capsys):
    config = (Path(__file__).resolve().parents[1] / "config" / "quick.yaml").read_text().replace(
        "seed:", "seed: 1\nseed:", 1)
    path = write(tmp_path, "config.yaml", config)
    code, out, err = run(capsys, "check-config", path)
    assert code == 2 and "found the key 'seed' twice" in err and err.count("\n") == 1


# --- YAML aliases that repeat without bound ("billion laughs") ---------------------------------
def _laughs(depth: int = 9) -> str:
    """Ten aliases nested ``depth`` deep under the key ``laughs``, and the deepest once more:
    about 2 x 10^depth values in 400 bytes."""
    lines = ['  l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"  l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, depth)]
    return "laughs:\n" + "\n".join(lines) + f"\n  all: *l{depth - 1}\n"


@pytest.mark.parametrize("repeated", [_laughs(), "laughs: &loop [1, *loop]\n"])
@pytest.mark.parametrize("reader", ["config", "spec", "interaction model", "dictionary"])
def test_yaml_aliases_that_repeat_without_bound_are_refused_at_once(tmp_path, capsys, reader,
                                                                   repeated):
    # imported before the clock starts
    from hiddenbn.experiments import workflow_config  # noqa: F401

    data = write(tmp_path, "data.csv", "X1,X2\n1,2\n2,1\n")
    spec = "nodes:\n  X1: {states: 2}\n"
    argv = {"config": ["check-config", write(tmp_path, "c.yaml", "seed: 1\n" + repeated)],
            "spec": ["dim", write(tmp_path, "s.yaml", spec + repeated)],
            "interaction model": ["fit", data, "--model", write(tmp_path, "m.yaml",
                                                                spec + repeated)],
            "dictionary": ["fit", data, "--classes", "1", "--dictionary",
                           write(tmp_path, "d.yaml", "X1: [1, 2]\n" + repeated)]}[reader]
    started = time.perf_counter()
    result = run(capsys, *argv)
    assert time.perf_counter() - started < 2
    assert_refused(result, "an alias (*name) lies inside the value it names" if "loop" in repeated
                   else "its aliases (*name) add 2345678991 values by repeating what they name, "
                   f"above the limit of {limits.MAX_ALIAS_VALUES}; write the values out")


def test_yaml_aliases_within_the_limit_are_read_as_written():
    import yaml

    from hiddenbn.util.textfiles import yaml_loader

    text = _laughs(4) + "base: &base {a: 1, b: [2, 3]}\nmerged: {<<: *base, b: 4}\n"
    document = yaml.load(text, Loader=yaml_loader())
    assert document["merged"] == {"a": 1, "b": 4}
    assert len(document["laughs"]["all"]) == 10 and document["laughs"]["all"][9][9][9][0] == "lol"


# --- options that were silently ignored, and EBNC inputs with nothing to learn -----------------
@pytest.mark.parametrize("argv, message", [
    (["fit", "DATA", "--classes", "2", "--columns", ""], "--columns '' has an empty name"),
    (["fit", "DATA", "--classes", "2", "--columns", "X1,,X2"], "--columns 'X1,,X2' has an empty"),
    (["fit", "DATA", "--classes", "2", "--columns", "X1,X1"], "--columns names a column twice"),
    (["fit", "DATA", "--model", "SPEC", "--columns", "X1,X2"],
     "--columns does not act on SPEC, a latent class model in a spec file: its nodes name the "
     "columns already; leave --columns out"),
    (["ebnc", "select", "DATA", "--target", "X1", "--inputs", ""], "--inputs '' has an empty name"),
    (["ebnc", "select", "DATA", "--target", "X1", "--inputs", "X2,X2"],
     "--inputs names a column twice"),
    (["fit", "DATA", "--classes", "2", "--covariates", ""], "--covariates '' has an empty name; "
     "give column names separated by commas, or leave the option out for a model without "
     "covariates"),
    (["select", "DATA", "--classes", "1..2", "--covariates", "X1,"],
     "or leave the option out for a model without covariates"),
    (["fit", "DATA", "--classes", "2", "--covariates", "X1", "--categorical", ""],
     "--categorical '' has an empty name; give column names separated by commas, or leave the "
     "option out to read each covariate as its cells say"),
])
def test_column_lists_are_taken_as_given_or_refused(tmp_path, data, capsys, argv, message):
    spec = write(tmp_path, "model.yaml", "nodes:\n  H: {states: 2, hidden: true}\n"
                 "  X1: {states: 2, parents: [H]}\n  X2: {states: 2, parents: [H]}\n")
    argv = [data if a == "DATA" else spec if a == "SPEC" else a for a in argv]
    assert_refused(run(capsys, *argv), message.replace("SPEC", spec))


def test_an_ebnc_target_with_one_class_is_refused(tmp_path, capsys):
    path = write(tmp_path, "one.csv", "Y,A\n1,0\n1,1\n1,0\n1,1\n")
    embedded = write(tmp_path, "e.yaml",
                     "nodes:\n  Y: {states: 2}\n  A: {states: 2, parents: [Y]}\n")
    message = "--target 'Y' has one class in the data (1); a classifier needs cases of at least two"
    assert_refused(run(capsys, "ebnc", "fit", path, "--target", "Y", "--embedded", embedded),
                   message)
    assert_refused(run(capsys, "ebnc", "select", path, "--target", "Y"), message)
    # a Python caller reads the keyword it gave, not the command line's flag
    with pytest.raises(DataError, match=re.escape(message.replace("--target ", "target="))):
        hiddenbn.ebnc_select(path, "Y")


def test_an_ebnc_search_over_too_many_inputs_is_refused_not_run_for_hours(tmp_path, capsys):
    columns = limits.MAX_EBNC_INPUTS + 2
    rows = np.random.default_rng(0).integers(0, 2, size=(30, columns))
    path = write(tmp_path, "wide.csv", ",".join(f"v{i}" for i in range(columns)) + "\n"
                 + "\n".join(",".join(map(str, row)) for row in rows) + "\n")
    assert_refused(run(capsys, "ebnc", "select", path, "--target", "v0"),
                   f"the number of inputs the greedy search considers is {columns - 1}, above "
                   f"the limit of {limits.MAX_EBNC_INPUTS}; choose them with --inputs")


def _many_states(tmp_path, states: int, inputs: int = 2, rows: int = 400) -> str:
    """A data file of a binary Y and ``inputs`` inputs of ``states`` states each."""
    rng = np.random.default_rng(1)
    table = np.column_stack([rng.integers(0, 2, rows)]
                            + [rng.integers(0, states, rows) for _ in range(inputs)])
    return write(tmp_path, "many.csv", ",".join(["Y"] + [f"A{i}" for i in range(inputs)]) + "\n"
                 + "\n".join(",".join(map(str, row)) for row in table) + "\n")


def test_an_ebnc_search_that_would_fit_huge_models_is_refused_at_once(tmp_path, capsys):
    data = _many_states(tmp_path, 60)  # Y on A0, A1: 3600 parameters, minutes a fit
    started = time.perf_counter()
    assert_refused(run(capsys, "ebnc", "select", data, "--target", "Y"),
                   "the search may fit the EBNC of 'Y' on parents A0, A1: 3600 parameters (60 x "
                   "60 parent states x 1 class beyond the first), above the limit of "
                   f"{limits.MAX_EBNC_PARAMETERS}; give --max-parents 1, or leave inputs")
    assert time.perf_counter() - started < 2
    # the naive-Bayes start has 1 + 20 x 59 parameters, whatever --max-parents
    assert_refused(run(capsys, "ebnc", "select", _many_states(tmp_path, 60, 20), "--target",
                       "Y", "--max-parents", "1"),
                   "the naive-Bayes EBNC of 'Y' on its 20 inputs, where the search starts, has "
                   "1181 parameters, above the limit")
    embedded = write(tmp_path, "e.yaml", "nodes:\n  A0: {states: 60}\n  A1: {states: 60}\n"
                     "  Y: {states: 2, parents: [A0, A1]}\n")
    assert_refused(run(capsys, "ebnc", "fit", data, "--target", "Y", "--embedded", embedded),
                   "the number of parameters of the EBNC of 'Y' on A0, A1 is 3600, above the "
                   f"limit of {limits.MAX_EBNC_PARAMETERS}")


def test_a_long_ebnc_search_shows_progress(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cli, "PROGRESS_SECONDS", 0)
    code, out, err = run(capsys, "ebnc", "select", _many_states(tmp_path, 60, rows=40),
                         "--target", "Y", "--max-parents", "1")
    assert code == 0 and json.loads(out)["models_scored"] == 8
    assert err.splitlines()[-1].startswith("hiddenbn: 8 embedded networks scored (")


@pytest.mark.parametrize("kind, message", [
    ("folder", "is a folder; give a YAML (.yaml, .yml) or JSON (.json) spec file"),
    ("file", "is a file without a spec file's suffix; give a YAML"),
])
def test_a_spec_path_that_is_no_spec_file_is_named_as_such(tmp_path, capsys, monkeypatch, kind,
                                                            message):
    monkeypatch.chdir(tmp_path)  # a relative name, as a user types it
    (tmp_path / "model").mkdir() if kind == "folder" else (tmp_path / "model").write_text("x")
    assert_refused(run(capsys, "dim", "model"), "model spec 'model' " + message)


def test_a_folder_given_as_the_data_file_is_named_as_such(tmp_path, capsys):
    assert_refused(run(capsys, "fit", tmp_path, "--classes", "2"),
                   f"data file {tmp_path} is a folder; give a file")


@pytest.mark.parametrize("table", ['[[true, 0.0], [0.5, 0.5]]', '[[1, 0], [false, 1]]',
                                   '[["0.5", 0.5], [0.5, 0.5]]'])
def test_a_parameter_table_of_other_than_numbers_is_refused(tmp_path, capsys, data, table):
    # true and false had converted to 1.0 and 0.0 beside numbers
    params = write(tmp_path, "p.json", '{"cpts": {"H1": [[0.5, 0.5]], "X1": ' + table
                   + ', "X2": [[0.5, 0.5], [0.5, 0.5]]}}')
    assert_refused(run(capsys, "fit", data, "--model", "2:2,2", "--init", params),
                   "every table must be a list of rows of numbers")


@pytest.mark.parametrize("alpha", [math.inf, 1e308, -1.0, math.nan, 0.0])
def test_a_dirichlet_alpha_outside_its_range_is_refused_by_the_library(alpha):
    """Found by an input audit: infinity gave NaN parameters and NaN log evidences."""
    from hiddenbn.data.sampling import sample_dataset
    from hiddenbn.learning import em
    from hiddenbn.models.network import latent_class, random_parameters
    from hiddenbn.scores import exact as evidence, smc

    network, rng = latent_class(2, [2, 2]), np.random.default_rng(0)
    data = sample_dataset(network, random_parameters(network, rng), 20, rng)
    for call in (lambda: random_parameters(network, rng, alpha),
                 lambda: smc.smc_log_evidence(network, data, rng, alpha),
                 lambda: evidence.exact_log_evidence(network, data, alpha),
                 lambda: em.fit(network, data, rng, alpha)):
        with pytest.raises(ParameterError, match="alpha"):
            call()


@pytest.mark.parametrize("build, message", [
    (lambda: latent_class(2, [2, 2], ["X1", "X1"]), "the node name 'X1' is given twice"),
    (lambda: latent_class(0, [2, 2]), "node 'H1' has 0 states; a node needs at least 1"),
    (lambda: parse_spec({"nodes": {"H": {"states": 2, "hidden": True},
                                   "count": {"states": 2, "parents": ["H"]}}}),
     "an observed node cannot be named 'count'"),
])
def test_networks_a_data_file_cannot_carry_are_refused(build, message):
    """Found by an input audit: a node named count was sampled as a column and read back as case
    counts; a name given twice fitted one column twice; 0 states divided by zero in EM."""
    with pytest.raises(SpecError, match=message):
        build()


def test_a_node_name_with_a_comma_survives_a_data_file(tmp_path, capsys):
    spec = write(tmp_path, "m.yaml", 'nodes:\n  H: {states: 2, hidden: true}\n'
                 '  "a,b": {states: 2, parents: [H]}\n  X: {states: 3, parents: [H]}\n')
    data = tmp_path / "d.csv"
    assert run(capsys, "sample", spec, "--n", "40", "-o", data)[0] == 0
    assert data.read_text().splitlines()[0] == '"a,b",X'
    assert read_csv(data).names == ("a,b", "X")


@pytest.mark.parametrize("points", [0, -1, 2.5, True])
def test_a_number_of_random_points_that_is_not_a_count_is_refused(points):
    """Found by an input audit: 0 points recursed without end (RecursionError)."""
    from hiddenbn.dimension import effective as dimension

    network = latent_class(3, [2, 2, 2, 2])
    for call in (dimension.effective_dimension, dimension.dimension_report):
        with pytest.raises(HiddenbnError, match="random points must be a whole number"):
            call(network, points)
    de, reason = dimension.effective_dimension_or_reason(network, points)
    assert de is None and "random points" in reason


@pytest.mark.parametrize("options, message", [
    ({"tolerance": math.nan}, "the EM tolerance must be a finite number of at least 0"),
    ({"tolerance": -1.0}, "the EM tolerance must be a finite number of at least 0"),
    ({"max_iterations": 0}, "final EM iterations must be a whole number of at least 1"),
    ({"restarts": 2.5}, "EM starts must be a whole number of at least 1"),
])
def test_em_settings_that_cannot_work_are_refused(options, message):
    """Found by an input audit: a NaN tolerance ran every fit to the cap, 0 iterations returned
    iterations = -1, 2.5 restarts raised a TypeError."""
    from hiddenbn.data.sampling import sample_dataset
    from hiddenbn.learning import em

    network, rng = latent_class(2, [2, 2]), np.random.default_rng(0)
    data = sample_dataset(network, random_parameters(network, rng), 20, rng)
    with pytest.raises(ParameterError, match=message):
        em.fit(network, data, rng, 1.0, **options)


@pytest.mark.parametrize("names, patterns, counts, message", [
    (("A",), [[0, 1, 0]], [1], "patterns must be a table of 1 columns"),
    (("A", "B"), [[0, 1]], [-2], "a pattern count is -2"),
    (("A", "B"), [[0, -3]], [2], "a pattern has the code -3"),
    (("A", "B"), [[0, 1], [1, 0]], [2], "need one count per pattern"),
])
def test_a_data_set_built_by_hand_is_checked(names, patterns, counts, message):
    """Found by an input audit: negative counts gave a log-likelihood of +435, a code of -3
    was used as a state."""
    with pytest.raises(DataError, match=message):
        Dataset(names, np.array(patterns), np.array(counts))


def test_em_refuses_a_data_set_without_cases():
    """Zero cases had given BIC = +inf, which every selection would pick."""
    from hiddenbn.learning import em

    network = latent_class(2, [2, 2])
    empty = Dataset(("X1", "X2"), np.zeros((0, 2), dtype=np.int32), np.zeros(0, dtype=np.int64))
    with pytest.raises(DataError, match="the data set has no cases"):
        em.fit(network, empty, np.random.default_rng(0), 1.0)


@pytest.mark.parametrize("seed", [-1, 1.5, "7", True])
def test_a_library_seed_that_is_not_a_whole_number_from_0_is_refused(seed):
    """Found by an input audit: 1.5 had been cut to 1 silently, -1 refused by numpy's error."""
    from hiddenbn.util import seeding

    with pytest.raises(ParameterError, match="a seed must be a whole number of at least 0"):
        seeding.rng(seed, "data")


def test_sampling_more_cases_than_fit_in_memory_is_refused_by_the_library():
    """Found by an input audit: the library raised numpy's MemoryError (the CLI checked)."""
    from hiddenbn.data.sampling import sample_dataset

    network, rng = latent_class(2, [2, 2]), np.random.default_rng(0)
    with pytest.raises(HiddenbnError, match="sampling 1000000000000 cases needs about"):
        sample_dataset(network, random_parameters(network, rng), 10**12, rng)
