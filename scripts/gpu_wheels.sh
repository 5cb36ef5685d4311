#!/usr/bin/env bash
# Wheels for `python -m research.gpu_check` on a CUDA machine that has torch, transformers, tokenizers,
# safetensors, httpx, numpy and pytest but not the worker's web stack nor peft (which merges the shipped generator's
# adapter; accelerate and psutil under it): these packages at the versions of constraints.txt, for CPython 3.12 on
# manylinux x86_64 (pure Python, plus the compiled wheels of pydantic-core and psutil), into .whl/ (or the folder
# given). The machine then installs them without an index:
#   python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl
set -euo pipefail
cd "$(dirname "$0")/.."
DEST=${1:-.whl}
PACKAGES=(
  accelerate annotated-doc annotated-types anyio click fastapi h11 httpx-sse opentelemetry-api peft prometheus-client
  psutil pydantic pydantic-core pydantic-settings python-dotenv sse-starlette starlette typing-extensions
  typing-inspection uvicorn
)
pins=()
for name in "${PACKAGES[@]}"; do
  pin=$(grep -iE "^${name//-/[-_]}==" constraints.txt) || { echo "error: $name is not pinned in constraints.txt" >&2; exit 1; }
  pins+=("$pin")
done
python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -d "$DEST" "${pins[@]}"
ls "$DEST"
du -sh "$DEST"
