# Two commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SCENARIO := scenarios/docking_mpc.toml

.PHONY: demo test fmus lint bench clean web browser tbb docs

# The package is byte-compiled as pip does for a regular install (an editable install leaves
# it to the first imports, which write nothing where PYTHONDONTWRITEBYTECODE is set, and then
# every command compiles the sources again: a tenth of a second of each start-up).
$(BIN)/murcosim: pyproject.toml setup.py orchestrator/native/_kernel.c orchestrator/native/_coupling.c orchestrator/native/_coupling.h \
		orchestrator/native/_transfer.c orchestrator/native/_transfer.h \
		orchestrator/native/_navigation.c orchestrator/native/_navigation.h \
		orchestrator/native/_algebra3.h
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev,rl]'
	$(BIN)/python -m compileall -q orchestrator murcosim
	touch $@

fmus: $(BIN)/murcosim
	$(BIN)/murcosim build

demo: fmus web
	$(BIN)/murcosim run $(SCENARIO) --out results/docking_mpc
	$(BIN)/murcosim replay results/docking_mpc

# three.js for the replay pages, inlined into each page when it is written
web: build/web/node_modules/three/package.json
build/web/node_modules/three/package.json:
	npm install --prefix build/web --no-save --no-audit --no-fund three@~0.187.0

# headless Chromium for the replay's browser test (Debian package; needs root to install)
browser:
	@command -v chromium >/dev/null || { if [ "$$(id -u)" = 0 ]; then \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; \
	  else echo "chromium missing and not root: the replay browser test will be skipped"; fi; }

# the TBB runtime for ecos, the second Co-Simulation importer of the tests (Debian package)
tbb:
	@ldconfig -p | grep -q 'libtbb.so.12 ' || { if [ "$$(id -u)" = 0 ]; then \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q libtbb12; \
	  else echo "libtbb12 missing and not root: the ecos test will be skipped"; fi; }

lint: $(BIN)/murcosim
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The suite in WORKERS processes (pytest-xdist), one test file at a time in each, so that a
# module's fixtures (a test library built once per file) are built once. CI has two cores;
# more workers than cores only add contention: `make test WORKERS=4` on a larger machine.
WORKERS ?= 2
test: fmus lint web browser tbb
	$(BIN)/pytest -q -n $(WORKERS) --dist loadfile

# the API reference of the public package, from its docstrings (pdoc): build/docs/index.html
DOCS_MODULES := murcosim murcosim.configuration murcosim.regression murcosim.pytest_plugin
docs: $(BIN)/murcosim
	$(BIN)/pdoc $(DOCS_MODULES) --docformat restructuredtext -o build/docs

bench: fmus
	$(BIN)/murcosim bench

clean:
	rm -rf $(VENV) results build fmus/*.fmu fmus/fmi2 fmus/fmi3 fmus/.build-stamp.json
