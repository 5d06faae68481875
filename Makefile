# The two commands a new user needs: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: install run test lint bench eval clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

## make run: set up, build or migrate the embedded SQLite statute database, start the main job.
run: install
	$(BIN)/lexgate db init
	$(BIN)/lexgate db stats

## make lint: ruff (lint and format), import-linter (the dependency arrow), mypy.
lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy

## make test: lint, then the whole test suite on SQLite and PostgreSQL.
test: lint
	$(BIN)/pytest

## make bench: speed and memory figures reported in docs/performance.md.
bench: install
	$(BIN)/python -m benchmarks

## make eval: extraction F1 and quote-check accuracy on ../shared/eval (docs/evaluation.md).
eval: install
	$(BIN)/lexgate db init
	scripts/evaluate.sh

clean:
	rm -rf var .pytest_cache .mypy_cache .ruff_cache
