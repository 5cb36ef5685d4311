"""A CUDA graph's replay is kept when its result equals the eager forward's up to the rounding of its dtype: a
matrix product computed another way (as a capture may choose another kernel) matches, a result of other inputs does
not. (Capturing itself needs CUDA: tests/speculative/engine/test_continuous_batching.py runs the graph cases there.)

Whether a product summed from two halves equals the whole product depends on the kernel the CPU picks (with AMX
they are equal): a result that must differ is built to differ, one unit in the last place in every element."""

import torch

from speculative.engine.step_graphs import relative_difference, replay_matches


def _product_two_ways(dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """One product of two random matrices in `dtype`, and the same summed from two halves, each rounded to `dtype`
    (as a split-K kernel would)."""
    generator = torch.Generator().manual_seed(0)
    left = torch.randn(16, 512, generator=generator).to(dtype)
    right = torch.randn(512, 64, generator=generator).to(dtype)
    return left @ right, left[:, :256] @ right[:256] + left[:, 256:] @ right[256:]


def test_an_identical_replay_matches() -> None:
    result, _ = _product_two_ways(torch.float32)
    assert replay_matches(result, result.clone())
    assert relative_difference(result, result.clone()) == 0.0


def _rounded_the_other_way(result: torch.Tensor) -> torch.Tensor:
    """`result` with every element moved one unit in the last place away from zero, as a kernel that adds in
    another order may round: it differs from `result` by construction, on any CPU."""
    away_from_zero = torch.where(result < 0, float("-inf"), float("inf")).to(result.dtype)
    return torch.nextafter(result, away_from_zero)


def test_rounding_from_another_kernel_matches_in_bf16_and_fp32() -> None:
    for dtype in (torch.bfloat16, torch.float32):
        eager, summed_from_halves = _product_two_ways(dtype)
        assert replay_matches(eager, summed_from_halves), dtype
        replayed = _rounded_the_other_way(eager)
        assert not torch.equal(eager, replayed)
        assert replay_matches(eager, replayed), dtype


def test_a_result_of_other_inputs_or_another_shape_does_not_match() -> None:
    eager, _ = _product_two_ways(torch.bfloat16)
    other = torch.roll(eager, shifts=1, dims=0)
    assert not replay_matches(eager, other)
    assert not replay_matches(eager, eager[:8])
    assert relative_difference(eager, eager[:8]) == float("inf")


def test_fp32_allows_less_than_half_precision() -> None:
    eager, _ = _product_two_ways(torch.float32)
    noisy = eager * (1 + 1e-3)
    assert not replay_matches(eager, noisy)
    assert replay_matches(eager.bfloat16(), noisy.bfloat16())
