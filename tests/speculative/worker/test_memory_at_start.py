"""A worker that cannot hold its generator says so at start, naming the memory needed and free and the fix,
instead of being killed while it loads the weights."""

import json
import os
import subprocess
import sys
from pathlib import Path

import torch
from safetensors.torch import save_file

from speculative.worker.memory import memory_refusal
from tests.conftest import REPO_ROOT

GIGA_VALUES = 1_000_000 * 1_000_000  # a declared tensor of 10^12 values: 4 TB in float32


def test_a_model_larger_than_the_free_memory_is_refused_with_the_fix(tmp_path: Path) -> None:
    save_file({"w": torch.zeros(250_000)}, tmp_path / "model.safetensors")  # 1 MB in float32

    refusal = memory_refusal("GENERATOR_MODEL=tiny", tmp_path, "float32", "cpu", free=500_000)

    assert refusal is not None
    assert refusal.startswith("GENERATOR_MODEL=tiny needs about 0.0 GB of memory on cpu in float32")
    assert "in bfloat16 (DTYPE=bfloat16)" in refusal and "GENERATOR_MODEL=google/gemma-3-270m" in refusal
    assert memory_refusal("GENERATOR_MODEL=tiny", tmp_path, "float32", "cpu", free=2_000_000) is None
    assert memory_refusal("GENERATOR_MODEL=tiny", tmp_path, "float32", "mps", free=None) is None


def sparse_model(folder: Path) -> Path:
    """A model folder whose weights file declares 4 TB: written sparse, so it takes no disk space."""
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "llama"}))
    header = json.dumps(
        {"w": {"dtype": "F32", "shape": [1_000_000, 1_000_000], "data_offsets": [0, 4 * GIGA_VALUES]}}
    )
    weights = folder / "model.safetensors"
    with weights.open("wb") as stream:
        stream.write(len(header).to_bytes(8, "little") + header.encode())
        stream.truncate(8 + len(header) + 4 * GIGA_VALUES)
    return folder


def test_the_worker_stops_at_start_when_its_model_does_not_fit(tmp_path: Path) -> None:
    folder = sparse_model(tmp_path / "huge")
    environment = {
        **os.environ,
        "PYTHONPATH": str(REPO_ROOT),
        "GENERATOR_MODEL": str(folder),
        "GENERATOR_ADAPTER": "none",
        "EAGLE_HEAD": "",
        "DEVICE": "cpu",
        "DTYPE": "bfloat16",
    }

    started = subprocess.run(
        [sys.executable, "-m", "speculative.worker"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert started.returncode == 1
    assert (
        f"error: GENERATOR_MODEL={folder} needs about 2500.0 GB of memory on cpu in bfloat16"
        in started.stderr
    )
