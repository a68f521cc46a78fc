# Set-up on a fresh machine: `make run`, then `make test`.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(VIRTUAL_ENV)/bin:$(PATH)
export NO_MKDOCS_2_WARNING := 1

.PHONY: run test dev venv native-test portable-check pytest lint bench bench-deps bench-quick docs clean wheel wheel-smoke

## the virtualenv and the build tool: all `make run` needs before building
$(VENV)/.runtime: pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "need $(PYTHON)"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip "maturin>=1.7,<2"
	touch $@

## and everything the tests, lint, examples and docs need
$(VENV)/.installed: $(VENV)/.runtime
	maturin develop --quiet -E test,lint,examples,docs
	touch $@

venv: $(VENV)/.installed

## build the extension into the virtualenv (debug profile: fast to compile, opt-level 2 for deps)
dev: $(VENV)/.installed
	maturin develop --quiet

## build (runtime dependencies only, quickest profile), start the embedded server, run the
## quickstart on it
run: $(VENV)/.runtime
	maturin develop --quiet --profile first-run
	$(PY) examples/quickstart.py --embedded

## everything CI checks
test: dev native-test portable-check pytest lint docs

native-test:
	cargo test --workspace --quiet

## the native core compiles with its Linux-only paths off (the paths macOS and Windows take)
portable-check:
	RUSTFLAGS="--cfg aerospike_fluent_portable" cargo check --workspace --quiet \
		--target-dir target/portable

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
	$(PY) -m benchmarks.backpressure
	$(PY) -m benchmarks.breaker_cost
	$(PY) -m benchmarks.policy_cost
	$(PY) -m benchmarks.typed_records
	$(PY) -m benchmarks.transactions
	$(PY) -m benchmarks.arrow_writes
	$(PY) -m benchmarks.dask_reads
	$(PY) -m benchmarks.bulk_build
	$(PY) -m benchmarks.numpy_reads
	$(PY) -m benchmarks.arrow_reads

## CI smoke: every workload briefly, writes benchmarks/results/ (asserts nothing about time)
bench-quick: bench-deps
	maturin develop --quiet --release
	$(PY) -m benchmarks --quick
	$(PY) -m benchmarks.secured --quick
	$(PY) -m benchmarks.metrics_cost --quick
	$(PY) -m benchmarks.backpressure --quick
	$(PY) -m benchmarks.policy_cost --quick
	$(PY) -m benchmarks.typed_records --quick
	$(PY) -m benchmarks.transactions --quick
	$(PY) -m benchmarks.arrow_writes --quick
	$(PY) -m benchmarks.dask_reads --quick
	$(PY) -m benchmarks.bulk_build --quick
	$(PY) -m benchmarks.numpy_reads --quick
	$(PY) -m benchmarks.arrow_reads --quick

## a release wheel (manylinux_2_28: zig links against that glibc) and the sdist, into dist/
wheel: $(VENV)/.runtime
	$(PIP) install -q "ziglang>=0.13" "auditwheel>=6"
	maturin build --quiet --release --zig --compatibility manylinux_2_28 --out dist
	maturin sdist --out dist
	$(VENV)/bin/auditwheel show dist/aerospike_fluent-*-manylinux_2_28_x86_64.whl

## that wheel in fresh virtualenvs of Python 3.11-3.13 without Rust on PATH, smoke-tested
wheel-smoke: wheel
	.ci/wheel-smoke

docs: dev
	$(PY) -m mkdocs build --strict --quiet

clean:
	rm -rf $(VENV) target site
