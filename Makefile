# Two commands do all the set-up: `make figures` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with notebooks/sanitize.cfg

.PHONY: figures test lint unit nbval lab clean tumult-check

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

# Cross-check notebook 04's stability factors against Tumult Analytics running on Spark, in its own
# environment (it pins older numpy/pandas). Needs Python 3.11 or 3.12 and Java. Fails if the real library
# disagrees with data/tumult_crosscheck.json, or dpteach disagrees with that file.
TUMULT_PYTHON ?= python3
TUMULT_VENV := .venv-tumult

$(TUMULT_VENV)/.installed-stamp: tumult/requirements.txt
	@test -x $(TUMULT_VENV)/bin/python || $(TUMULT_PYTHON) -m venv $(TUMULT_VENV)
	$(TUMULT_VENV)/bin/python -m pip install --quiet -r tumult/requirements.txt
	@touch $@

tumult-check: $(TUMULT_VENV)/.installed-stamp $(STAMP)
	PYSPARK_PYTHON=$(CURDIR)/$(TUMULT_VENV)/bin/python SPARK_LOCAL_IP=127.0.0.1 \
	  $(TUMULT_VENV)/bin/python tumult/crosscheck.py data/tumult_crosscheck.json
	$(BIN)/python -m pytest -q tests/test_tumult_crosscheck.py

clean:
	rm -rf $(VENV) $(TUMULT_VENV) .pytest_cache .ruff_cache .hypothesis _build
