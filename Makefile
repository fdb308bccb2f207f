# StoryScope — the two commands of the README: `make run` and `make test`.
# Both create .venv when missing, install the project, and are fast when already installed.
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
STORE  ?= $(or $(STORYSCOPE_STORE),data/storyscope.duckdb)
SHARED_DATA ?= ../shared/data
PORT   ?= 8501
# `make run READ_ONLY=1`: a read-only explorer to share with a lab (no labels, judge reruns,
# generation, imports or store switching; the store is opened read-only)
READ_ONLY ?=

.PHONY: run test test-fast test-durations install browser demo bench clean lint import-check test-cluster

install: $(STAMP)

# torch must come first as the CPU build from the local wheel (DESIGN.md); otherwise
# sentence-transformers would pull a multi-GB CUDA build. `make run` needs only the runtime
# dependencies, so a user's first run never builds the test-only llama-cpp-python.
$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q "torch==2.13.0"
	$(PY) -m pip install -q -e .
	@touch $(STAMP)

# The test extra adds llama-cpp-python[server] (the real OpenAI-compatible server the LLM tests
# run against), which pip builds from source (minutes on 2 cores, once; pip caches the wheel).
# GGML_NATIVE=OFF keeps -march=native out, so the cached wheel does not depend on the exact CPU
# it was built on; ggml's defaults still turn on AVX2, FMA and F16C (read off the built
# libggml-cpu.so: AVX2 and FMA code, no AVX-512), so it needs an x86-64-v3 CPU.
$(TEST_STAMP): $(STAMP) pyproject.toml
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(PY) -m pip install -q -e ".[test]"
	@touch $(TEST_STAMP)

# Debian's chromium for the Playwright browser tests (never a downloaded browser build).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = "0" ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	      || echo "chromium could not be installed: browser tests will be skipped"; \
	  else echo "not root: install Debian's chromium to run the browser tests"; fi; }

demo: $(STAMP)
	@test -f $(STORE) || $(VENV)/bin/storyscope demo --store $(STORE) \
	  $$(test -d $(SHARED_DATA) && echo --data-dir $(SHARED_DATA))

run: demo
	STORYSCOPE_STORE=$(STORE) $(if $(READ_ONLY),STORYSCOPE_READ_ONLY=$(READ_ONLY)) \
	  $(PY) -m ui.serve run app.py --server.port $(PORT)

# Whole files per worker, heaviest first (tests/support/file_order.py: xdist's own reorder is
# switched off so the recorded order holds). Two workers: a third (`make test PYTEST_WORKERS=3`)
# did not make CI faster on two cores (1,014 s against 940-1,136 s for two; the suite's ~1,400 s
# of CPU is the bound) and loads the browser and Ray tests harder.
PYTEST_WORKERS ?= 2
PYTEST_ARGS := -q -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=40

test: $(TEST_STAMP) browser
	$(PY) -m pytest $(PYTEST_ARGS)

# The fast tier, for the edit-test loop: no browser, no llama.cpp server, no ../shared/data, no
# Ray, no cluster, nothing marked slow and no file over 20 s in tests/durations.json
# (tests/support/tiers.py marks a test by the fixtures it uses; `--fast` is its option). About a
# quarter of `make test`'s time. `make test` stays the command that runs everything.
test-fast: $(TEST_STAMP)
	$(PY) -m pytest $(PYTEST_ARGS) --fast

# Re-record tests/durations.json (each file's seconds) after adding or slowing down test files.
test-durations: $(TEST_STAMP) browser
	$(PY) -m pytest $(PYTEST_ARGS) --record-file-durations

bench: $(TEST_STAMP)
	$(PY) benchmarks/bench_store.py

# A real two-node Ray cluster on this machine (`ray start --head` + `ray start --address`), the
# scaled commands run on it and compared with local runs, a node killed mid-run
# (tests/pipelines/scale/test_ray_cluster.py, docs/SCALE.md). Minutes on 2 cores, so not part of `make test`.
test-cluster: $(TEST_STAMP)
	STORYSCOPE_TEST_CLUSTER=1 $(PY) -m pytest -q -m cluster tests/pipelines/scale/test_ray_cluster.py

# ruff (lint + format), configured in pyproject.toml, and the layers of DESIGN.md (.importlinter:
# ui -> pipelines | viz -> data_access); both come with the test extra.
lint: $(TEST_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache

# The package installed WITHOUT extras in its own venv (kept between runs; pip's cache makes the
# first build quick): every module imports, every import the runtime code makes (lazy ones too)
# resolves, every page renders over an empty store. A runtime dependency that only the test
# extra installs fails here (.ci/import_check.py).
PLAIN := .venv-plain
$(PLAIN)/.installed: pyproject.toml
	@test -x $(PLAIN)/bin/python || $(PYTHON) -m venv $(PLAIN)
	$(PLAIN)/bin/python -m pip install -q --upgrade pip
	$(PLAIN)/bin/python -m pip install -q "torch==2.13.0"
	$(PLAIN)/bin/python -m pip install -q .
	@touch $@

import-check: $(PLAIN)/.installed
	$(PLAIN)/bin/python .ci/import_check.py

clean:
	rm -rf $(VENV) $(PLAIN) .pytest_cache
