"""The device side of the settings, shared by the engine, the benchmarks and the embedder: the torch dtype of a
`dtype` setting, and a clock that first waits for the device's queued work (GPU kernels run asynchronously, so
reading the time without it measures the launch, not the work)."""

import time

import torch

TORCH_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def torch_dtype(name: str) -> torch.dtype:
    """The torch dtype of a `dtype` setting (`float32`, `bfloat16`, `float16`)."""
    if name not in TORCH_DTYPES:
        raise ValueError(f"unknown dtype {name!r}; accepted: {', '.join(TORCH_DTYPES)}")
    return TORCH_DTYPES[name]


def synced_clock(device: torch.device) -> float:
    """Wall time (`time.perf_counter`) once `device` has finished its queued work."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":
        torch.mps.synchronize()
    return time.perf_counter()
