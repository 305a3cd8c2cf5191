# sensei: `make demo` and `make test` create the virtual environment when it is missing.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.sensei-installed

.PHONY: demo test bench docs env clean browser boundscheck

env: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test,distributed]'
	touch $(STAMP)

# the report test opens a generated report in headless Chromium (Debian's package; playwright cannot
# download its own browser here)
browser:
	@test -x /usr/bin/chromium || (apt-get update -qq && apt-get install -y -qq chromium) || \
	  { [ -z "$$CI" ] && echo "chromium could not be installed: the browser test will be skipped"; }

# TEST_JOBS: test worker processes (pytest-xdist; each worker takes a contiguous run of tests, so a file
# mostly stays in one worker, and an idle worker takes tests from the other's queue: on an empty numba
# cache 8.0-8.3 min against 8.7 min with whole files per worker, when the suite was smaller; see
# docs/speed.md for its time now); the 25 slowest tests are listed at the end (where the suite's time goes)
TEST_JOBS ?= 2
test: $(STAMP) browser
	$(PY) -m pytest -n $(TEST_JOBS) --dist worksteal --durations=25

# GAMES: deals per cell of each shipped question (make demo GAMES=4000 for tighter intervals)
GAMES ?= 800
# SEARCH_ITERATIONS: the search player's budget per decision in the strong-play question
SEARCH_ITERATIONS ?= 100
demo: $(STAMP)
	$(PY) -m experiments.demo $(GAMES) --search-iterations $(SEARCH_ITERATIONS)

# bench: the speed table, also written into docs/speed.md (its block between the bench markers)
bench: $(STAMP)
	$(PY) -m bench.run --write docs/speed.md

# boundscheck: every fingerprint case in both lanes and the search player, compiled afresh with numba's
# bounds checks on (the project's kernels index without negative wrap-around; some minutes)
boundscheck: $(STAMP)
	$(PY) tools/boundscheck.py

# docs: the generated blocks of docs/ (rule options, strategies) made afresh from the code's descriptions
docs: $(STAMP)
	$(PY) tools/gendocs.py

clean:
	rm -rf $(VENV) runs .pytest_cache
