"""A step's forward compiled by torch.compile: the same writes as the plain forward, and a compilation that fails
leaves the plain forward running, with one log line."""

import logging
from typing import Any

import pytest
import torch

from speculative.engine.step_compile import CompiledForward


def _scaled_sum(buffers: tuple[torch.Tensor, torch.Tensor]) -> None:
    """A forward as the verifier's: reads its input tensor, writes its result into a static output tensor."""
    inputs, output = buffers
    output.copy_(torch.nn.functional.silu(inputs * 2.0 + 1.0).sum(dim=-1))


def _failing_backend(graph: torch.fx.GraphModule, example_inputs: list[Any]) -> Any:
    raise RuntimeError("no C++ compiler (a test's backend)")


def test_a_compiled_forward_writes_what_the_plain_forward_writes() -> None:
    forward = CompiledForward(_scaled_sum, "test forward")
    inputs = torch.randn(3, 8)
    compiled, plain = torch.empty(3), torch.empty(3)

    forward((inputs, compiled))
    _scaled_sum((inputs, plain))

    assert forward.active
    torch.testing.assert_close(compiled, plain)


def test_a_forward_whose_compilation_fails_runs_uncompiled_and_says_so_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    forward = CompiledForward(_scaled_sum, "test forward", backend=_failing_backend)
    inputs, output, expected = torch.randn(2, 4), torch.empty(2), torch.empty(2)
    _scaled_sum((inputs, expected))

    with caplog.at_level(logging.WARNING, logger="speculative.engine.step_compile"):
        forward((inputs, output))
        forward((inputs, output))

    assert not forward.active
    assert torch.equal(output, expected)
    messages = [
        record.getMessage() for record in caplog.records if record.name == "speculative.engine.step_compile"
    ]
    assert len(messages) == 1
    assert "torch.compile of the test forward failed, so it runs uncompiled from now on" in messages[0]
    assert "RuntimeError: no C++ compiler (a test's backend)" in messages[0] and "\n" not in messages[0]
