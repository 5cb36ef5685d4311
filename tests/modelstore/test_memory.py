"""What a model needs in memory, read from its weights' headers, and what the machine has available."""

from pathlib import Path

import pytest
import torch
from safetensors.torch import save_file

from modelstore.memory import OVERHEAD, available_bytes, bytes_needed, parameter_count


def test_the_parameters_are_counted_from_every_weights_file(tmp_path: Path) -> None:
    save_file({"a": torch.zeros(3, 4), "b": torch.zeros(5)}, tmp_path / "model-1.safetensors")
    save_file({"c": torch.zeros(2, 2, 2)}, tmp_path / "model-2.safetensors")

    assert parameter_count(tmp_path) == 12 + 5 + 8


@pytest.mark.parametrize(("dtype", "size"), [("float32", 4), ("bfloat16", 2), ("float16", 2)])
def test_the_memory_needed_is_the_weights_in_the_dtype_and_a_quarter_more(
    tmp_path: Path, dtype: str, size: int
) -> None:
    save_file({"w": torch.zeros(1000)}, tmp_path / "model.safetensors")

    assert bytes_needed(tmp_path, dtype) == int(1000 * size * OVERHEAD)


def test_the_available_memory_is_the_kernels_mem_available(tmp_path: Path) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text(
        "MemTotal:       24576000 kB\nMemFree:         1000000 kB\nMemAvailable:   19000000 kB\n"
    )

    assert available_bytes(meminfo) == 19_000_000 * 1024
    assert available_bytes(tmp_path / "absent") is None
