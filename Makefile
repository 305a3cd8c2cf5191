# sensei: `make demo` and `make test` create the virtual environment when it is missing.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.sensei-installed

.PHONY: demo test bench env clean

env: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test,distributed]'
	touch $(STAMP)

test: $(STAMP)
	$(PY) -m pytest

demo: $(STAMP)
	$(PY) -m experiments.demo

bench: $(STAMP)
	$(PY) -m bench.run

clean:
	rm -rf $(VENV) runs .pytest_cache
