# The two commands of the README's Quickstart. Both create .venv when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test suite lint-beside quick lint warm typecheck unit bench fuzz explore docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# uv installs what pip would, from PyPI, in a fraction of the time (3 s against 56 s for this
# list on a fresh machine); pip installs it where uv cannot be had. uv writes no bytecode: the
# tests start hundreds of processes that would each compile jax again where none is written
# (PYTHONDONTWRITEBYTECODE), and `warm` writes it for what the suite imports, beside the
# linters. Compiling every installed file here (`--compile-bytecode`, scipy and tensorstore
# included) cost 30 s on both cores, against 18 s on one core for what is imported.
INSTALL := '.[test,jax]'
$(STAMP): $(BIN)/python pyproject.toml
	( $(BIN)/python -m pip install --quiet uv \
	  && $(BIN)/uv pip install --quiet --python $(BIN)/python -e $(INSTALL) ) \
	|| $(BIN)/python -m pip install --quiet -e $(INSTALL)
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/shapecheck check examples/ ; status=$$?; [ $$status -le 1 ] || exit $$status

lint: $(STAMP)
	$(BIN)/ruff check shapecheck plugin rules tests benchmarks
	$(BIN)/python tools/typecheck.py

# Every test, on every core; the tests of a folder that share a server or mypy's cache stay together.
PYTEST_PARALLEL := -n auto --dist loadgroup

# The tests start hundreds of Python processes (the CLI, language servers, mypy): each would
# compile shapecheck again where bytecode is not written (PYTHONDONTWRITEBYTECODE, a read-only
# checkout), about 0.2 s apiece. Compiled once here, as installing a wheel does.
BYTECODE := $(BIN)/python -m compileall -q shapecheck plugin rules

# The linters run beside the suite rather than before it: mypy keeps one core busy for about
# 25 s, which the suite's workers share instead of waiting for it. Their output is shown where
# they fail (and the run fails, once the suite has finished); a clean lint prints nothing.
test: $(STAMP)
	$(MAKE) --no-print-directory -j2 lint-beside suite

# Bytecode is written during the suite too (for what only the processes a test starts import:
# pathspec in each CLI run, pre-commit's virtualenv, the docs' mkdocs), once rather than in
# every process.
suite: warm
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest $(PYTEST_PARALLEL)

lint-beside: $(STAMP)
	@log=$$(mktemp); if $(MAKE) --no-print-directory lint > $$log 2>&1; then rm -f $$log; \
	else cat $$log; rm -f $$log; echo "lint failed (make lint shows it alone)"; exit 1; fi

# Before the suite: the bytecode above, and that of every module the suite imports (the
# installed packages, and the test modules as pytest rewrites their asserts). Where bytecode
# is not written, each of pytest's workers, and each process a test starts, would compile
# them again (for the test modules alone, 8 of the 15 s of collection); a collection run writes
# them once. Its failures are the suite's to report, with their tracebacks.
warm: $(STAMP)
	$(BYTECODE)
	-env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest --collect-only -q -p no:cacheprovider > /dev/null 2>&1

# A developer's loop: the suite without the tests marked slow (CI runs them all).
quick: $(STAMP)
	$(BYTECODE)
	$(BIN)/python -m pytest $(PYTEST_PARALLEL) -m "not slow"

# The fuzz tests of `make test`, longer and random: FUZZ_EXAMPLES examples per strategy.
FUZZ_EXAMPLES ?= 2000
fuzz: $(STAMP)
	SHAPECHECK_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest tests/test_fuzz.py -q

# The differential suites and the oracle with RANDOM_EXAMPLES random examples per test, rather
# than CI's fixed ones: how misses against JAX are found (a failure prints its program).
RANDOM_EXAMPLES ?= 500
explore: $(STAMP)
	SHAPECHECK_RANDOM_EXAMPLES=$(RANDOM_EXAMPLES) $(BIN)/python -m pytest $(PYTEST_PARALLEL) -q \
		tests/test_oracle.py $(wildcard tests/test_*differential.py)

bench: $(STAMP)
	$(BIN)/python benchmarks/lint.py

# The documentation site (mkdocs.yml, docs/; rule pages generated from rules/) into site/.
docs: $(STAMP)
	$(BIN)/mkdocs build --strict

clean:
	rm -rf $(VENV) build *.egg-info site
