# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test ui clean-warehouse

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	touch $(STAMP)

## Run the whole pipeline on the bundled demo college and print what was built.
demo: $(STAMP)
	$(BIN)/advisor materialize

## Run the test suite.
test: $(STAMP)
	$(BIN)/python -m pytest

## Open the Dagster UI on the same warehouse (http://127.0.0.1:3000).
ui: $(STAMP)
	DAGSTER_HOME=$(CURDIR) $(BIN)/dagster dev -m pipelines.definitions -h 127.0.0.1 -p 3000

## Delete everything the pipeline generated (the lakehouse, raw bytes, run history).
clean-warehouse:
	find warehouse -mindepth 1 ! -name README.md -exec rm -rf {} +
