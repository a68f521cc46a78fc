# Set-up on a fresh machine: `make run`, then `make test`.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(VIRTUAL_ENV)/bin:$(PATH)
export NO_MKDOCS_2_WARNING := 1

.PHONY: run test dev venv native-test pytest lint bench bench-deps bench-quick docs clean

$(VENV)/.installed: pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "need $(PYTHON)"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip "maturin>=1.7,<2"
	maturin develop --quiet -E test,lint,examples,docs
	touch $@

venv: $(VENV)/.installed

## build the extension into the virtualenv (debug profile: fast to compile, opt-level 2 for deps)
dev: $(VENV)/.installed
	maturin develop --quiet

## build, start the embedded server, run the quickstart against it
run: dev
	$(PY) examples/quickstart.py --embedded

## everything CI checks
test: dev native-test pytest lint docs

native-test:
	cargo test --workspace --quiet

pytest: dev
	$(PY) -m pytest -q

lint: dev
	cargo fmt --all --check
	cargo clippy --workspace --all-targets --quiet -- -D warnings
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy
	$(PY) -m mypy.stubtest aerospike_fluent._native --allowlist .stubtest-allowlist

bench-deps: $(VENV)/.installed
	$(PIP) install -q -r benchmarks/requirements.txt

## the full comparison against every peer (release build of the extension)
bench: bench-deps
	maturin develop --quiet --release
	$(PY) -m benchmarks
	$(PY) -m benchmarks.secured
	$(PY) -m benchmarks.metrics_cost

## CI smoke: every workload briefly, writes benchmarks/results/ (asserts nothing about time)
bench-quick: bench-deps
	maturin develop --quiet --release
	$(PY) -m benchmarks --quick
	$(PY) -m benchmarks.secured --quick
	$(PY) -m benchmarks.metrics_cost --quick

docs: dev
	$(PY) -m mkdocs build --strict --quiet

clean:
	rm -rf $(VENV) target site
