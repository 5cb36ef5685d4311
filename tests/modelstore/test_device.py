"""The dtype of a setting and the device-synced clock: one place serves the engine, the benchmark and the embedder."""

import pytest
import torch

from modelstore.device import torch_dtype


@pytest.mark.parametrize(
    ("name", "dtype"), [("float32", torch.float32), ("bfloat16", torch.bfloat16), ("float16", torch.float16)]
)
def test_every_dtype_setting_names_its_torch_dtype(name: str, dtype: torch.dtype) -> None:
    assert torch_dtype(name) is dtype


def test_an_unknown_dtype_is_refused_with_the_accepted_names() -> None:
    with pytest.raises(ValueError, match="unknown dtype 'fp8'; accepted: float32, bfloat16, float16"):
        torch_dtype("fp8")
