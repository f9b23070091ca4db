# Two commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SCENARIO := scenarios/docking_mpc.toml

.PHONY: demo test fmus lint bench clean

$(BIN)/murcosim: pyproject.toml setup.py orchestrator/_kernel.c
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $@

fmus: $(BIN)/murcosim
	$(BIN)/murcosim build

demo: fmus
	$(BIN)/murcosim run $(SCENARIO) --out results/docking_mpc

lint: $(BIN)/murcosim
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test: fmus lint
	$(BIN)/pytest -q

bench: fmus
	$(BIN)/murcosim bench

clean:
	rm -rf $(VENV) results fmus/*.fmu fmus/.build-stamp.json
