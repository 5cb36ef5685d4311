"""What a model needs in memory and what the machine has free: read from the weights files' headers (no weights are
loaded) and from the kernel's estimate of the memory available to a new program (`MemAvailable`)."""

import math
from pathlib import Path

from safetensors import safe_open

BYTES_PER_VALUE = {"float32": 4, "bfloat16": 2, "float16": 2}
# Beyond its weights a served model needs its KV cache, activations and the runtime: a quarter more, measured on
# the offline models (docs/operations.md, "Models").
OVERHEAD = 1.25
_MEMINFO = Path("/proc/meminfo")


def parameter_count(folder: Path) -> int:
    """The number of values in the folder's safetensors files, from their headers."""
    count = 0
    for path in sorted(folder.glob("*.safetensors")):
        with safe_open(path, framework="numpy") as weights:
            count += sum(math.prod(weights.get_slice(name).get_shape()) for name in weights.keys())  # noqa: SIM118
    return count


def bytes_needed(folder: Path, dtype: str) -> int:
    """What the model in `folder` needs in memory when served in `dtype`."""
    return int(parameter_count(folder) * BYTES_PER_VALUE[dtype] * OVERHEAD)


def available_bytes(meminfo: Path = _MEMINFO) -> int | None:
    """Memory available to a new program without swapping (Linux `MemAvailable`); None where it cannot be read."""
    try:
        lines = meminfo.read_text(encoding="ascii").splitlines()
    except OSError:
        return None
    for line in lines:
        name, _, value = line.partition(":")
        if name == "MemAvailable":
            return int(value.split()[0]) * 1024
    return None
