# The two commands a newcomer needs: `make up` runs the platform, `make test` runs the tests.
# Each creates the virtual environment and installs what it needs first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: up test test-fast lint types bench clean browser screenshots

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[platform,rl,dev]'
	$(BIN)/python -m compileall -q arena worker dashboard sample_bots >/dev/null
	touch $(STAMP)

up: $(STAMP)
	$(BIN)/arena up

# The browser tests drive Debian's Chromium (Playwright never downloads a browser here).
browser:
	@command -v chromium >/dev/null 2>&1 || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

test: $(STAMP) browser
	$(BIN)/ruff check arena worker dashboard sample_bots tests examples
	$(BIN)/ruff format --check arena worker dashboard sample_bots tests examples
	$(BIN)/mypy
	$(BIN)/pytest -n 4 --dist worksteal -m "not alone"
	$(BIN)/pytest -m alone

# While working (well under a minute): the engine, protocol, store on SQLite and API
# tests; no long runs, services, processes, browser or sandboxes (markers in pyproject).
test-fast: $(STAMP)
	$(BIN)/pytest -q -m "not slow and not services and not processes and not browser and not sandbox" \
		--hypothesis-profile=fast

types: $(STAMP)
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/arena bench engine

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache .mypy_cache

screenshots: $(STAMP) browser
	$(BIN)/python -m dashboard.screenshots docs/screenshots
