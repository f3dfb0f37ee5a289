# AutoVerifier: set-up, demo, tests.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
SHARED ?= ../shared
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: setup demo test lint bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade uv || true

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	@if [ -x $(BIN)/uv ]; then \
	  $(BIN)/uv pip install --python $(BIN)/python --compile-bytecode -e '.[all]'; \
	else \
	  $(BIN)/python -m pip install -e '.[all]'; \
	fi
	touch $@

setup: $(VENV)/.installed

demo: setup
	$(BIN)/autoverifier demo --config configs/demo.yaml

test: setup
	$(BIN)/ruff check verifier_runtime autoverifier flows tasks tests benchmarks
	$(BIN)/python -m pytest -q

lint: setup
	$(BIN)/ruff check .

bench: setup
	$(BIN)/python benchmarks/runtime_speed.py

clean:
	rm -rf $(VENV) data/*.duckdb
