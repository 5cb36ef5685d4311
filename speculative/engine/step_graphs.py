"""CUDA graphs of a forward: captured once per static shape, replayed with one launch instead of hundreds.

An eager transformers forward launches each small kernel from Python, which on a GPU costs more than the kernels
themselves for a decoding step. A captured graph replays the same kernels on the same memory: the forward reads its
inputs from, and writes its outputs to, tensors that never move (`static_verifier.py` copies each step's inputs in
and reads the outputs out). Graphs of all shapes share one memory pool, since only one is replayed at a time.

Capture can fail (out of memory, an operation that synchronises with the host); a replay could in principle differ
from the eager forward. Both are checked at capture: the caller then runs the forward eagerly and logs why. A replay
matches when its hidden states differ from the eager run's by rounding only: inside a capture the matrix library may
pick other kernels, which in bf16 can flip a greedy token at a near-tie (seen on an H200), as any change of kernel
may; a wrong input or memory address differs by far more.
"""

from collections.abc import Callable
from typing import Any, Protocol

import torch

RELATIVE_TOLERANCE = {torch.float32: 1e-4, torch.float64: 1e-8}
HALF_PRECISION_TOLERANCE = 1e-1  # bf16 and fp16: rounding through every layer; a wrong input differs by ~1


class GraphCaptureError(RuntimeError):
    """The forward could not be captured, or its replay did not reproduce the eager result."""


class GraphCapture(Protocol):
    def capture(self, forward: Callable[[], None], outputs: Callable[[], torch.Tensor]) -> Any:
        """A replayable graph of `forward` (raises `GraphCaptureError`)."""
        ...


class StepGraphs:
    """Captures and replays forwards on one CUDA device; graphs share one memory pool."""

    WARM_UP_RUNS = 2  # eager runs on a side stream before capture (lazy initialisation, allocator state)

    def __init__(self, device: torch.device) -> None:
        if device.type != "cuda":
            raise ValueError(f"CUDA graphs need a CUDA device, not {device}")
        self.device = device
        self._pool: Any = torch.cuda.graph_pool_handle()

    def capture(
        self, forward: Callable[[], None], outputs: Callable[[], torch.Tensor]
    ) -> torch.cuda.CUDAGraph:
        """Capture `forward` (which writes its results into static tensors) and check that a replay gives what
        the eager run gave up to rounding (`replay_matches`): `outputs()` returns the floating-point result to
        compare. Raises `GraphCaptureError`."""
        side = torch.cuda.Stream(self.device)
        side.wait_stream(torch.cuda.current_stream(self.device))
        try:
            with torch.cuda.stream(side):
                for _ in range(self.WARM_UP_RUNS):
                    forward()
            torch.cuda.current_stream(self.device).wait_stream(side)
            eager = outputs().clone()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, pool=self._pool):
                forward()
            graph.replay()
            replayed = outputs()
        except (torch.OutOfMemoryError, RuntimeError) as error:
            raise GraphCaptureError(f"{type(error).__name__}: {error}") from error
        if not replay_matches(eager, replayed):
            raise GraphCaptureError(
                f"the replayed graph's result differs from the eager forward's by "
                f"{relative_difference(eager, replayed):.3g} (relative), more than rounding"
            )
        return graph


def relative_difference(expected: torch.Tensor, actual: torch.Tensor) -> float:
    """‖actual − expected‖ / ‖expected‖ over the whole tensor, in float64 (inf where the shapes differ)."""
    if expected.shape != actual.shape:
        return float("inf")
    expected, actual = expected.double(), actual.double()
    return float(
        torch.linalg.vector_norm(actual - expected) / torch.linalg.vector_norm(expected).clamp_min(1e-30)
    )


def replay_matches(eager: torch.Tensor, replayed: torch.Tensor) -> bool:
    """Whether a replay's result equals the eager one's up to the rounding of its dtype."""
    tolerance = RELATIVE_TOLERANCE.get(eager.dtype, HALF_PRECISION_TOLERANCE)
    return relative_difference(eager, replayed) <= tolerance
