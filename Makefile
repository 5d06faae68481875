# The two commands a new user needs: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: install run test lint bench eval clean soak screenshots

# setup.py builds legaldb/_lookup_path.c (the compiled lookup path), verifier/_quote_postings.c
# (the quote index's postings walk), verifier/_normalize.c (two steps of the quote
# normalisation), extractor/_quote_bounds.c (where a quote and a claim start and end),
# extractor/_slotted.c (citations and spans made in one call), verifier/_jsonline.c (the lines
# of `check --jsonl`) and verifier/_support_scan.c (the support's bigrams, the quantities'
# scan); each skipped without a compiler
$(STAMP): pyproject.toml setup.py legaldb/_lookup_path.c verifier/_quote_postings.c \
		verifier/_normalize.c extractor/_quote_bounds.c \
		extractor/_slotted.c verifier/_jsonline.c verifier/_support_scan.c
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# The packages' bytecode is written here (pip writes it for a wheel; an editable install does
# not, and with PYTHONDONTWRITEBYTECODE set every command would compile its modules again:
# a sixth of `lexgate check`'s start-up). Python ignores a file compiled from older source.
PACKAGES := textnorm extractor legaldb migrations verifier gate audit web lexgate

install: $(STAMP)
	@$(BIN)/python -m compileall -q -j 0 $(PACKAGES)

## make run: set up, build or migrate the embedded SQLite statute database, make the audit keys,
## start the web service; it says "LexGate is up" in a frame, with the figures and where to look.
run: install
	@$(BIN)/lexgate db init
	@$(BIN)/lexgate audit init
	@LEXGATE_WEB_PUBLIC_PAGES=$${LEXGATE_WEB_PUBLIC_PAGES:-true} $(BIN)/lexgate serve --host 127.0.0.1 --port 8000

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

## make soak: >= 5,000 gated answers at concurrency 64 on each database, a PostgreSQL outage; nothing lost (docs/reliability.md).
soak: install
	$(BIN)/python -m benchmarks.soak $(SOAK_ARGS)

## make eval: extraction F1 and quote-check accuracy with the scorers of ../shared/eval.
eval: install
	$(BIN)/lexgate db init
	scripts/evaluate.sh

## make screenshots: the README's screenshots (docs/images) anew, from a copy of the database in Chromium.
screenshots: install
	$(BIN)/lexgate db init
	$(BIN)/python scripts/screenshots.py

clean:
	rm -rf var .pytest_cache .mypy_cache .ruff_cache
