# Each command creates .venv when it is missing:
#   make demo   audit the built-in catalogue and print the verdict table
#   make lint   ruff (with the numpy docstring rules) and mypy, zero findings; CI runs it before the tests
#   make test   run the default test suite on every core (pytest-xdist; slow checks are left out; `make test-slow` runs them,
#               `make crosscheck` installs dp-accounting and runs the cross-checks against it;
#               `make test-browser` installs Debian's chromium and opens the HTML report in it;
#               `make mutation` runs mutation testing of the auditor's statistics: long, not in CI)
#   make docs   build the documentation (docs/_build/html), warnings as errors
#   make notebooks  re-execute the notebooks in place (full parameters) and regenerate their README thumbnails
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.dpaudit-installed

.PHONY: demo test docs test-slow test-browser crosscheck prove bounds bench notebooks mutation mutation-kernel lint clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,progress,plots,notebooks,adapters]'
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/dpaudit demo

test: $(STAMP)
	$(BIN)/python -m pytest -q -n auto --dist worksteal

DOCS_STAMP := $(VENV)/.dpaudit-docs-installed

$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	@touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	$(BIN)/python -m sphinx -W --keep-going -q -b html docs docs/_build/html

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow

test-browser: $(STAMP)
	bash tests/cli/install_browser.sh
	$(BIN)/python -m pytest -q tests/cli/test_report.py

crosscheck: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[crosscheck]'
	$(BIN)/python -m pytest -q -m crosscheck

prove: $(STAMP)
	$(BIN)/dpaudit prove

bounds: $(STAMP)
	$(BIN)/dpaudit bounds

bench: $(STAMP)
	$(BIN)/python -m benchmarks

notebooks: $(STAMP)
	$(BIN)/python notebooks/execute.py

# mutation testing of auditor/stats.py, auditor/runner.py, accounting/calibrate.py and the verification kernel
# (dpaudit/verify/kernel; `make mutation-kernel` for the kernel alone) (long; not in CI)
mutation: $(STAMP)
	$(BIN)/python -m pip install --quiet "mutmut>=3.8,<4"
	$(BIN)/mutmut run --max-children 2 || true
	$(BIN)/mutmut results

mutation-kernel: $(STAMP)
	$(BIN)/python -m pip install --quiet "mutmut>=3.8,<4"
	$(BIN)/mutmut run --max-children 2 "dpaudit.verify.kernel*" || true
	$(BIN)/mutmut results

# ruff (lint, import order, numpy docstrings, the line ceiling) and mypy; zero findings (CI runs it first)
lint: $(STAMP)
	@test -x $(BIN)/ruff -a -x $(BIN)/mypy || $(BIN)/python -m pip install --quiet "ruff>=0.5" "mypy>=1.10"
	$(BIN)/ruff check dpaudit proofs tests benchmarks
	$(BIN)/mypy dpaudit proofs

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis docs/_build docs/_notebooks docs/generated
