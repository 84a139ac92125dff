# Two commands do all the set-up: `make figures` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with notebooks/sanitize.cfg

.PHONY: figures test lint unit nbval lab clean

# (Re)create the virtual environment when it is missing or pyproject.toml changed since the last install.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	@touch $(STAMP)

figures: $(STAMP)
	$(BIN)/python scripts/run_notebooks.py notebooks

lint: $(STAMP)
	$(BIN)/ruff check .

unit: $(STAMP)
	$(BIN)/python -m pytest tests

nbval: $(STAMP)
	$(BIN)/python -m pytest $(NBVAL) notebooks

test: lint unit nbval

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis _build
