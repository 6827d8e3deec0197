# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo business readme-results test lint typecheck-baseline browser redis postgres serve ui clean-warehouse

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

## Run the whole pipeline on the bundled demo college and print what was built.
demo: $(STAMP)
	$(BIN)/advisor materialize

## The second bundled institution (새빛대학교 경영경제대학), evaluation included, in its own warehouse.
BUSINESS_WAREHOUSE := warehouse/business
business: $(STAMP)
	$(BIN)/advisor materialize --config examples/business_college/institution.yaml --warehouse $(BUSINESS_WAREHOUSE)

## The README's results block, generated from both institutions' latest evaluation runs.
readme-results: $(STAMP)
	$(BIN)/python -m eval.reports.readme_results --warehouse warehouse --warehouse $(BUSINESS_WAREHOUSE)

## Lint (ruff), check the layers (import-linter contracts in pyproject.toml) and the types
## (basedpyright, against its baseline), run the test suite (installs Chromium for the browser
## tests, redis-server for the shared-session tests and the PostgreSQL server for the
## production-instance tests first when they are missing).
test: $(STAMP) browser redis postgres lint
	$(BIN)/python -m pytest -n 2

# The type checker reads [tool.basedpyright] in pyproject.toml and the project's own interpreter.
TYPECHECK := $(BIN)/basedpyright --pythonpath $(BIN)/python

## A type error not in .basedpyright/baseline.json fails; one fixed leaves it (the file shrinks: commit it).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(TYPECHECK)

## Rewrite the type checker's baseline from the tree as it is, after moving or renaming modules (it
## names files), then check against it. Never to let a new error in: tests/test_lint_baselines.py
## holds its size to a ceiling that only goes down.
typecheck-baseline: $(STAMP)
	-$(TYPECHECK) --writebaseline >/dev/null
	$(TYPECHECK)

## Debian's Chromium and a Korean font for the browser tests (playwright drives /usr/bin/chromium;
## no browser download). Needs root; without it the browser tests are skipped with the reason.
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    apt-get update && apt-get install -y chromium chromium-driver fonts-nanum; \
	  else \
	    echo "note: /usr/bin/chromium is missing and this is not root: the browser tests will be skipped"; \
	  fi; \
	fi

## Debian's redis-server for the shared-session tests (tests/test_sessions_shared.py starts its own
## on a free loopback port, persistence off). Needs root; without it those tests are skipped with
## the reason.
redis:
	@if ! command -v redis-server >/dev/null; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    apt-get update && apt-get install -y redis-server; \
	  else \
	    echo "note: redis-server is missing and this is not root: the shared-session tests will be skipped"; \
	  fi; \
	fi

## Debian's PostgreSQL server for the production-instance tests (tests/test_postgres_instance.py
## starts its own in a temporary folder on a free loopback port, as the `postgres` user when run as
## root). Needs root; without it those tests are skipped with the reason.
postgres:
	@if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    apt-get update && apt-get install -y postgresql; \
	  else \
	    echo "note: the PostgreSQL server is missing and this is not root: the production-instance tests will be skipped"; \
	  fi; \
	fi

## Serve the student API and web page on the latest build (http://127.0.0.1:8000).
serve: $(STAMP)
	$(BIN)/advisor serve

## Open the Dagster UI on the warehouse the CLI uses ($ADVISOR_WAREHOUSE, else warehouse/), with its
## run history (http://127.0.0.1:3000).
ui: $(STAMP)
	$(BIN)/advisor ui --host 127.0.0.1 --port 3000

## Delete everything the pipeline generated (the lakehouse, raw bytes, run history).
clean-warehouse:
	find warehouse -mindepth 1 ! -name README.md -exec rm -rf {} +
