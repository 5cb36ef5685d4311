"""A step's forward fused by `torch.compile`, falling back to the plain forward when compiling fails.

Replaying a CUDA graph removes the cost of launching each kernel from Python, not the kernels themselves: an eager
transformers layer still runs its norms, rotary embedding, mask arithmetic and activations as separate small
kernels, each reading and writing memory. Inductor (`torch.compile`'s default backend) fuses them; the fused
forward is then captured in a graph like the plain one (`step_graphs.py`), or runs as it is on a CPU.

Shapes are compiled as dynamic, so a verifier's buckets (answers × tree rows × attended positions) share a few
compiled programs instead of one each: torch specialises a dimension of size 1 (one answer, one tree row), so a
verifier compiles four (`static_verifier.py`). The first call of each costs seconds to minutes (a cold cache, a
large model, a busy CPU), so a worker makes those calls in its warm-up, before it says ready; inductor keeps what it
compiled on disk for the next process.

If compiling fails (no C++ compiler or Triton, an operation dynamo cannot trace) the forward logs why once and
runs uncompiled from then on; its results are the same either way up to the dtype's rounding.
"""

import logging
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import torch
from torch._dynamo.exc import TorchDynamoException
from torch._inductor.exc import InductorError

log = logging.getLogger(__name__)

Inputs = TypeVar("Inputs")

COMPILE_ERRORS = (TorchDynamoException, InductorError)


class CompiledForward(Generic[Inputs]):
    """`forward(inputs)` compiled on first use; the plain `forward` once compiling has failed.

    `backend` is `torch.compile`'s (inductor by default; a test's failing one)."""

    def __init__(
        self, forward: Callable[[Inputs], None], name: str, backend: str | Callable[..., Any] = "inductor"
    ) -> None:
        self._forward = forward
        self._compiled: Callable[[Inputs], None] | None = torch.compile(
            forward, dynamic=True, backend=backend
        )
        self._name = name

    @property
    def active(self) -> bool:
        """Whether calls run the compiled forward (False after a failed compilation)."""
        return self._compiled is not None

    def __call__(self, inputs: Inputs) -> None:
        if self._compiled is not None:
            try:
                self._compiled(inputs)
                return
            except COMPILE_ERRORS as error:
                log.warning(
                    "torch.compile of the %s failed, so it runs uncompiled from now on: %s",
                    self._name,
                    _first_line(error),
                )
                self._compiled = None
        self._forward(inputs)


def _first_line(error: BaseException) -> str:
    """What went wrong, in one line: the backend's own error where dynamo wraps one."""
    cause = getattr(error, "inner_exception", None) or error.__cause__ or error
    lines = str(cause).strip().splitlines()
    return f"{type(cause).__name__}: {lines[0] if lines else ''}"
