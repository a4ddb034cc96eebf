# The two commands of README.md, and the helpers they use.
# .venv is (re)built whenever it is missing or older than pyproject.toml.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# the docs extra (Sphinx and the tutorial's kernel), installed by `make docs` only
DOCS_STAMP := $(VENV)/.installed-docs
# Rules call the `hiddenbn` command; put the venv's first on PATH without activating it.
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: reproduce quick test docs test-cluster bench lint dry-run clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# The config of `make reproduce`: the default, or your own with `make reproduce CONFIG=my.yaml`
# (it replaces the default; see docs/workflow.md). It is checked first by `hiddenbn check-config`, which
# names the file and line of a YAML syntax error, where Snakemake's own message names neither.
CONFIG ?= config/config.yaml

# Run every job (Snakemake prints each step and "n of m steps done"), build the HTML report
# beside the results, say where both are.
reproduce: $(STAMP)
	$(BIN)/hiddenbn check-config $(CONFIG)
	$(BIN)/snakemake --cores all --configfile $(CONFIG)
	results=$$($(BIN)/hiddenbn check-config --results-dir $(CONFIG)) && \
	$(BIN)/snakemake --configfile $(CONFIG) --report "$$results/report.html" && \
	echo "Report: $$(realpath "$$results")/report.html" && \
	echo "Every comparison with the paper, with verdicts: $$(realpath "$$results")/REPRODUCTION.md"

quick:
	$(MAKE) reproduce CONFIG=config/quick.yaml

# One pytest-xdist worker per core, each file whole on one worker (its module fixtures computed
# once), the files in the order collected: tests/conftest.py puts the quick runs first.
test: $(STAMP)
	$(BIN)/python -m pytest -n auto --dist loadfile --no-loadscope-reorder

$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,docs]'
	touch $(DOCS_STAMP)

# The HTML documentation, into docs/_build/html; a warning (a broken reference, a docstring
# numpydoc cannot read) fails the build, and so does an error in the tutorial, which runs on
# every build.
docs: $(DOCS_STAMP)
	$(BIN)/sphinx-build -W --keep-going -n -b html docs docs/_build/html

# config/quick.yaml locally and on a one-node SLURM cluster it sets up (as root on Debian; it
# says why it skips elsewhere), checking that every job ran as a SLURM job and the results agree.
test-cluster: $(STAMP)
	$(BIN)/python tools/slurm/test-cluster.py

bench: $(STAMP)
	$(BIN)/python -m benchmarks

lint: $(STAMP)
	$(BIN)/snakemake --lint

dry-run: $(STAMP)
	$(BIN)/snakemake -n

# also numba's compiled kernels: a folder per version of the sources (src/hiddenbn/__init__.py)
clean:
	rm -rf $(VENV) .snakemake src/hiddenbn/__pycache__/hiddenbn-kernels-* docs/_build docs/generated
