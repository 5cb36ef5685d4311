"""The dtype of a setting and the device-synced clock: one place serves the engine, the benchmark and the embedder.

DTYPE=auto gives bfloat16 where the hardware multiplies it natively (a CUDA GPU, a CPU with AMX or AVX512-BF16)
and float32 elsewhere."""

from pathlib import Path

import pytest
import torch

from ingest.settings import IngestSettings
from modelstore.device import torch_dtype
from modelstore.device_names import cpu_bfloat16_flags, resolve_dtype
from speculative.settings import SpeculativeSettings


@pytest.mark.parametrize(
    ("name", "dtype"), [("float32", torch.float32), ("bfloat16", torch.bfloat16), ("float16", torch.float16)]
)
def test_every_dtype_setting_names_its_torch_dtype(name: str, dtype: torch.dtype) -> None:
    assert torch_dtype(name) is dtype


def test_an_unknown_dtype_is_refused_with_the_accepted_names() -> None:
    with pytest.raises(ValueError, match="unknown dtype 'fp8'; accepted: float32, bfloat16, float16"):
        torch_dtype("fp8")


CPUINFO = """processor\t: 0
model name\t: Intel(R) Xeon(R) Processor
flags\t\t: fpu sse2 avx2 avx512f {extra}

processor\t: 1
flags\t\t: fpu sse2 avx2 avx512f {extra}
"""


@pytest.mark.parametrize(
    ("extra", "flags"),
    [
        ("amx_tile amx_bf16 amx_int8 avx512_bf16", ["amx_bf16", "avx512_bf16"]),
        ("avx512_bf16", ["avx512_bf16"]),
        ("avx512_vnni", []),
    ],
)
def test_the_cpus_bfloat16_matrix_units_are_read_from_its_flags(
    tmp_path: Path, extra: str, flags: list[str]
) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(CPUINFO.format(extra=extra))
    assert cpu_bfloat16_flags(cpuinfo) == flags


def test_a_cpu_whose_flags_cannot_be_read_has_no_bfloat16_units(tmp_path: Path) -> None:
    assert cpu_bfloat16_flags(tmp_path / "absent") == []


@pytest.mark.parametrize(
    ("device", "cpu_flags", "dtype"),
    [
        ("cuda", [], "bfloat16"),
        ("cuda:1", [], "bfloat16"),
        ("cpu", ["amx_bf16"], "bfloat16"),
        ("cpu", ["avx512_bf16"], "bfloat16"),
        ("cpu", [], "float32"),
        ("mps", [], "float32"),
    ],
)
def test_auto_dtype_is_bfloat16_where_the_hardware_multiplies_it_natively(
    device: str, cpu_flags: list[str], dtype: str
) -> None:
    assert resolve_dtype("auto", device, cpu_flags) == dtype


@pytest.mark.parametrize("setting", ["float32", "bfloat16", "float16"])
def test_a_set_dtype_is_kept_whatever_the_hardware(setting: str) -> None:
    assert resolve_dtype(setting, "cpu", []) == setting
    assert resolve_dtype(setting, "cpu", ["amx_bf16"]) == setting


def test_both_settings_resolve_auto_for_their_device_and_the_embedder_keeps_float32_on_a_cpu(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DTYPE", "auto")
    monkeypatch.setenv("DEVICE", "cuda")
    assert SpeculativeSettings(_env_file=None).dtype == "bfloat16"  # type: ignore[call-arg]
    assert IngestSettings(_env_file=None).dtype == "bfloat16"  # type: ignore[call-arg]
    monkeypatch.setenv("DEVICE", "cpu")
    on_this_cpu = resolve_dtype("auto", "cpu")
    assert SpeculativeSettings(_env_file=None).dtype == on_this_cpu  # type: ignore[call-arg]
    assert IngestSettings(_env_file=None).dtype == "float32"  # type: ignore[call-arg]  # the embedder, any CPU
