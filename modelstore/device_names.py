"""The device and dtype setting types that the worker's and ingest's settings share; a value outside them stops the
program at start with the accepted names. `DTYPE=auto` is resolved here, from the device and the CPU's flags.
Standard library and pydantic only (no torch), so reading settings stays cheap."""

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator

DTypeName = Literal["float32", "bfloat16", "float16"]
DTypeSetting = Literal["auto", "float32", "bfloat16", "float16"]
# CPU flags of matrix units that multiply bfloat16 natively (oneDNN uses them): Intel AMX, AVX512-BF16. On this
# project's CPUs a bfloat16 matrix product ran ~10x faster than float32 (docs/benchmarks.md).
BFLOAT16_CPU_FLAGS = ("amx_bf16", "avx512_bf16")
_CPUINFO = Path("/proc/cpuinfo")


def cpu_bfloat16_flags(cpuinfo: Path = _CPUINFO) -> list[str]:
    """Which of BFLOAT16_CPU_FLAGS this CPU reports (Linux's /proc/cpuinfo); none where it cannot be read."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    flags = set()
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name.strip() == "flags":
            flags.update(value.split())
    return [flag for flag in BFLOAT16_CPU_FLAGS if flag in flags]


def resolve_dtype(setting: str, device: str, cpu_flags: Sequence[str] | None = None) -> DTypeName:
    """The dtype a DTYPE setting gives on `device`.

    `auto`: bfloat16 on a CUDA GPU; on a CPU, bfloat16 where it has bfloat16 matrix units (`cpu_flags`, read from
    the CPU when None) and float32 where it has not (there bfloat16 is emulated and slower); float32 on mps.
    """
    if setting != "auto":
        return setting  # type: ignore[return-value]
    if device.startswith("cuda"):
        return "bfloat16"
    if device == "cpu":
        return "bfloat16" if (cpu_bfloat16_flags() if cpu_flags is None else cpu_flags) else "float32"
    return "float32"


def _check_device(value: str) -> str:
    """Accept the torch device strings we deploy on; anything else fails at start, not mid-request."""
    base, _, index = value.partition(":")
    if base not in {"cpu", "cuda", "mps"} or (index and (base != "cuda" or not index.isdigit())):
        raise ValueError(f"unknown device {value!r}; accepted: cpu, cuda, cuda:N, mps")
    return value


DeviceName = Annotated[str, AfterValidator(_check_device)]
