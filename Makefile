# The two commands a newcomer needs: `make up` runs the platform, `make test` runs the tests.
# Each creates the virtual environment and installs what it needs first.
# The interpreter of .venv: Debian's python3 when it is 3.11 or newer with venv and its
# headers (Debian builds it with PGO and LTO: the platform and the suite run about a fifth
# faster than on a Python built from source without them, as pyenv builds it), else
# python3 from PATH. `make clean` once after it changes.
PYTHON ?= $(shell for python in /usr/bin/python3 python3; do \
	$$python -c 'import ensurepip, os, sys, sysconfig; assert sys.version_info >= (3, 11); \
	assert os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))' \
	2>/dev/null && { echo $$python; exit; }; done; echo python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# The engine's hot modules compiled with mypyc (arena/native.py), again whenever they change.
NATIVE := arena/engine/.native
NATIVE_SOURCES := $(wildcard arena/engine/*.py) arena/game/selfplay.py arena/policies.py arena/native.py setup.py
C_SOURCES := $(wildcard arena/engine/*.c)

.PHONY: up test test-fast lint types bench clean browser screenshots native pure toolchains durations

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip uv
	ARENA_PURE_PYTHON=1 $(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -e '.[platform,rl,dev]'
	$(BIN)/python -m compileall -q arena worker dashboard sample_bots >/dev/null
	touch $(STAMP)

native: $(NATIVE)

# A missing compiler leaves plain Python (setup.py says so); a module mypyc refuses fails.
# mypyc skips a module whose text it has built before: the library is then touched, being
# as new as its sources.
$(NATIVE): $(STAMP) $(NATIVE_SOURCES) $(C_SOURCES)
	mkdir -p build
	$(BIN)/python setup.py --quiet build_ext --inplace > build/native.log 2>&1; status=$$?; \
	grep -v -i -E "warning|deprecat|\*\*\*|^ *$$|setuptools|pypa|See " build/native.log; \
	exit $$status
	touch -c arena/engine/_native__mypyc.*.so $(foreach source,$(C_SOURCES:.c=),$(source).cpython-*.so)
	touch $(NATIVE)

# The engine as plain Python (slower, the same results): `make native` compiles it again.
pure:
	rm -f $(foreach source,$(NATIVE_SOURCES:.py=) $(C_SOURCES:.c=),$(source).cpython-*.so) arena/engine/_native__mypyc.*.so $(NATIVE)

up: $(NATIVE) toolchains
	$(BIN)/arena up

# Bots uploaded in C++, Rust, Go, Java, JavaScript and TypeScript are built and run with Debian's
# toolchains (docs/other-languages.md): installed when one is missing from /usr/bin.
TOOLCHAINS := g++ rustc golang-go default-jdk-headless nodejs node-typescript
toolchains:
	@for tool in g++ rustc go javac jlink node tsc; do test -x /usr/bin/$$tool || missing=1; done; \
	if [ -n "$$missing" ]; then { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(TOOLCHAINS) >/dev/null; } || \
		echo "make: could not install $(TOOLCHAINS): uploads in those languages wait for a machine that has them"; fi

# The browser tests drive Debian's Chromium headless shell: Blink without the desktop
# browser around it, as Playwright's own headless runs (a third of the full one's CPU in
# the browser tests); Playwright never downloads a browser here.
CHROMIUM := /usr/lib/chromium/chromium-headless-shell
browser:
	@test -x $(CHROMIUM) || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell >/dev/null; }

# Test processes: two per core (most tests wait on processes, sandboxes and sockets).
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) * 2 )))

# mypy (one core) checks the types while one pytest process collects the tests once, so
# that the test processes find the modules it rewrote already made (5 s of each start).
# The `alone` tests then run by themselves, only their modules collected: a timing ratio,
# and the multi-host test bed, whose links change the machine's network under the browsers.
test: $(NATIVE) browser toolchains
	@started=$$(date +%s); mkdir -p build; \
	$(BIN)/ruff check arena worker dashboard sample_bots tests examples && \
	$(BIN)/ruff format --check arena worker dashboard sample_bots tests examples && { \
	$(BIN)/mypy > build/mypy.log 2>&1 & types=$$!; \
	$(BIN)/pytest --collect-only -q > /dev/null 2>&1; \
	$(BIN)/pytest -n $(TEST_WORKERS) --dist worksteal -m "not alone"; tests=$$?; \
	wait $$types; typed=$$?; cat build/mypy.log; \
	[ $$tests -eq 0 ] && [ $$typed -eq 0 ] && \
	$(BIN)/pytest -m alone $$(grep -l 'mark\.alone' tests/test_*.py); }; \
	status=$$?; echo "make test: $$(( $$(date +%s) - started )) s, exit status $$status"; \
	exit $$status

# The suite's measured times (tests/durations.json), from which each test process is dealt
# an equal share (tests/support/durations.py): again when tests are added or change length.
durations: $(NATIVE) browser toolchains
	$(BIN)/pytest -n $(TEST_WORKERS) --dist worksteal -m "not alone" --record-durations -q

# While working (well under a minute): the engine, protocol, store on SQLite and API
# tests; no long runs, services, processes, browser or sandboxes (markers in pyproject).
test-fast: $(NATIVE)
	$(BIN)/pytest -q -m "not slow and not services and not processes and not browser and not sandbox" \
		--hypothesis-profile=fast

types: $(STAMP)
	$(BIN)/mypy

bench: $(NATIVE)
	$(BIN)/arena bench engine

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache .mypy_cache build
	$(MAKE) pure

screenshots: $(STAMP) browser
	$(BIN)/python -m dashboard.screenshots docs/screenshots
