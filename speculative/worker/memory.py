"""Whether the configured generator fits in the memory this machine has free, checked before it is loaded, so a
worker that cannot hold its model says so at start instead of being killed while loading it."""

from pathlib import Path

import torch

from modelstore.memory import available_bytes, bytes_needed

GIGABYTE = 1e9


def free_bytes(device: str) -> int | None:
    """Memory free for the model on `device` (None where it cannot be told, as on mps)."""
    if device.startswith("cuda"):
        return int(torch.cuda.mem_get_info(torch.device(device))[0])
    if device == "cpu":
        return available_bytes()
    return None


def memory_refusal(setting: str, folder: Path, dtype: str, device: str, free: int | None) -> str | None:
    """Why the model in `folder` (the value of `setting`) cannot be served in `dtype` with `free` bytes, or None."""
    needed = bytes_needed(folder, dtype)
    if free is None or needed <= free:
        return None
    smaller = " in bfloat16 (DTYPE=bfloat16)," if dtype == "float32" else ""
    return (
        f"{setting} needs about {needed / GIGABYTE:.1f} GB of memory on {device} in {dtype} (its weights, KV cache "
        f"and runtime) and {free / GIGABYTE:.1f} GB is free: stop other programs, serve it{smaller} or choose a "
        "smaller model (GENERATOR_MODEL=google/gemma-3-270m)"
    )
