# Two commands do all the set-up: `make figures` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with notebooks/sanitize.cfg
# Where notebooks run by nbval save their figures (save_fig would otherwise write notebooks/images/).
NBVAL_IMAGES := DPTEACH_IMAGES_DIR=$(CURDIR)/_build/nbval-images

.PHONY: figures test lint unit nbval lab clean tumult-check slides book test-browser bench lock test-latest \
	student-notebooks grade

LOCK := requirements.lock

# (Re)create the virtual environment when it is missing or pyproject.toml or the lock changed since the last
# install. The lock pins the exact versions the stored notebook outputs were made with; pyproject.toml keeps ranges.
$(STAMP): pyproject.toml $(LOCK)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r $(LOCK)
	@# jupyterlab-slideshow replaced jupyterlab-deck (same commands): an older environment must not keep both.
	$(BIN)/python -m pip uninstall --quiet -y jupyterlab-deck 2>/dev/null || true
	$(BIN)/python -m pip install --quiet --no-deps -e .
	@touch $(STAMP)

# Re-resolve the lock from pyproject.toml's ranges (newest allowed versions, one fork per Python where they differ).
lock: $(STAMP)
	$(BIN)/python -m pip install --quiet uv
	$(BIN)/uv pip compile pyproject.toml --extra dev --extra book --universal --python-version 3.10 --no-header --quiet -o $(LOCK)

# The newest versions pyproject.toml allows, in a throwaway environment: unit tests and nbval, then the drift
# from the lock. A failure here is what next year's student would meet; `make lock` adopts the new versions.
LATEST := _build/latest-venv
test-latest:
	rm -rf $(LATEST) && $(PYTHON) -m venv $(LATEST)
	$(LATEST)/bin/python -m pip install --quiet --upgrade pip
	$(LATEST)/bin/python -m pip install --quiet --upgrade -e ".[dev,book]"
	$(LATEST)/bin/python scripts/lock_drift.py $(LOCK)
	$(LATEST)/bin/python -m pytest tests --ignore=tests/browser \
	  --deselect tests/test_packaging.py::test_installed_versions_match_the_lock
	$(NBVAL_IMAGES) $(LATEST)/bin/python -m pytest $(NBVAL) notebooks

figures: $(STAMP)
	$(BIN)/python scripts/run_notebooks.py notebooks

lint: $(STAMP)
	$(BIN)/ruff check .

unit: $(STAMP)
	$(BIN)/python -m pytest tests --ignore=tests/browser

nbval: $(STAMP)
	$(NBVAL_IMAGES) $(BIN)/python -m pytest $(NBVAL) notebooks

test: lint unit nbval

# For instructors: student versions of the notebooks (folded solutions and outputs removed) in _build/student/,
# and grading: every notebook under SUBMISSIONS run in a fresh kernel, a table of the checks' verdicts (a row per
# notebook, a column per exercise), also written to SUBMISSIONS/grades.csv.
student-notebooks: $(STAMP)
	$(BIN)/python -m dpteach.exercises.notebooks student notebooks _build/student

grade: $(STAMP)
	@test -n "$(SUBMISSIONS)" || (echo "usage: make grade SUBMISSIONS=<folder of completed notebooks>" >&2; exit 2)
	$(BIN)/python -m dpteach.exercises.notebooks grade $(SUBMISSIONS) --csv $(SUBMISSIONS)/grades.csv

# As root (Docker, Codespaces) JupyterLab refuses to start without --allow-root. JupyterLab runs with the
# course's own config folder: scripts/lab_setup.py writes there the Chinese web font (custom.css), the type sizes
# and clicker keys of presentation mode, and resets presentation mode so JupyterLab never starts in it; no news
# prompt; and (in LAB_CONFIG/data, on JUPYTER_PATH) a small extension that opens every slide at its top.
LAB_CONFIG := _build/jupyter
lab: $(STAMP)
	$(BIN)/python scripts/lab_setup.py $(LAB_CONFIG)
	JUPYTER_CONFIG_DIR=$(CURDIR)/$(LAB_CONFIG) JUPYTER_PATH=$(CURDIR)/$(LAB_CONFIG)/data $(BIN)/jupyter lab notebooks --LabApp.custom_css=True \
	  $$(test "$$(id -u)" = 0 && echo --allow-root)

# Every performance comparison in one process (about 12 minutes, mostly the naive baseline):
# writes benchmarks/results.md, benchmarks/timings.csv and images/benchmark_scaling.png.
bench: $(STAMP)
	$(BIN)/python benchmarks/bench.py

# Offline reveal.js decks in _build/slides/; their JavaScript comes from the npm registry (cached in
# _build/slides/vendor) so the decks make no request to any CDN.
slides: $(STAMP)
	@command -v npm >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm)
	$(BIN)/python scripts/build_slides.py

# The course website in _build/book/ (open _build/book/index.html): every notebook as a page, rendered from its
# committed outputs without running it, with the decks copied in for each page's slide link. MathJax and the
# widget renderer come from the npm registry (cached in _build/book-generated/vendor); no page loads from a CDN.
book: $(STAMP) slides
	$(BIN)/python scripts/build_book.py

# Playwright drives Debian's Chromium (no browser download); installing it with apt-get needs root, as CI has.
test-browser: $(STAMP) slides book
	@test -x /usr/bin/chromium || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)
	DPTEACH_REQUIRE_BROWSER=1 $(BIN)/python -m pytest -p no:cacheprovider tests/browser

# Cross-check notebook 08's stability factors against Tumult Analytics running on Spark, in its own
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
