# The two commands of README.md, and the helpers they use.
# .venv is (re)built whenever it is missing or older than pyproject.toml.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Rules call the `hiddenbn` command; put the venv's first on PATH without activating it.
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: reproduce quick test bench lint dry-run clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

reproduce: $(STAMP)
	$(BIN)/snakemake --cores all

quick: $(STAMP)
	$(BIN)/snakemake --cores all --configfile config/quick.yaml

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m benchmarks

lint: $(STAMP)
	$(BIN)/snakemake --lint

dry-run: $(STAMP)
	$(BIN)/snakemake -n

clean:
	rm -rf $(VENV) .snakemake
