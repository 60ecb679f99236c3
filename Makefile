# The two commands a newcomer needs: `make up` runs the platform, `make test` runs the tests.
# Each creates the virtual environment and installs what it needs first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: up test lint bench clean

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

up: $(STAMP)
	$(BIN)/arena up

test: $(STAMP)
	$(BIN)/ruff check arena worker dashboard sample_bots tests
	$(BIN)/ruff format --check arena worker dashboard sample_bots tests
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/arena bench engine

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache
