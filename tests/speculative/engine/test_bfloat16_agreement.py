"""How far greedy speculative decoding agrees with `generate()` in bfloat16, where exact equality is not promised.

A tree forward over many rows and a one-row decode add up in different orders; in float32 the difference stays
far below any logit gap, in bfloat16 (8 bits of mantissa) it can flip a near-tied argmax, after which the two
answers go separate ways. This measures the agreement on the test device (the CPU unless `DEVICE` says otherwise), in the same dtype on both sides (a Gemma 3
layout, sliding window crossed), and checks that every divergence starts at a near-tie, which is what a dtype
effect looks like; an engine bug (a wrong mask, position or cache row) diverges where the target is sure.
The figures are reported in docs/speculative-engine.md.
"""

import statistics
from collections.abc import Callable, Sequence
from functools import partial

import pytest
import torch
from transformers import PreTrainedModel

from speculative.budget.fixed import FixedTreeBudget
from speculative.drafters.registry import drafter_factory
from speculative.engine.generator import SpeculativeGenerator
from speculative.engine.request import GenerationRequest
from speculative.engine.stopping import model_stop_token_ids
from speculative.engine.target import TargetModel
from speculative.settings import SpeculativeSettings
from tests.speculative.conftest import ReferenceGreedy

MAX_NEW_TOKENS = 48
PROMPTS = 8
# bfloat16 keeps 8 significant bits: neighbouring values differ by 2^-7 relative (≈ 0.8 %). A flip caused by
# summation order needs the two logits within a few such steps of each other.
NEAR_TIE_RELATIVE = 4 * 2.0**-7


def _prompts() -> list[list[int]]:
    generator = torch.Generator().manual_seed(3)

    def ids(length: int) -> list[int]:
        return torch.randint(3, 5000, (length,), generator=generator).tolist()

    return [ids(40) if index % 2 else (ids(8) + ids(3)) * 4 for index in range(PROMPTS)]


def _first_divergence(answer: Sequence[int], reference: Sequence[int]) -> int | None:
    pairs = zip(answer, reference, strict=False)
    position = next((index for index, (a, b) in enumerate(pairs) if a != b), None)
    if position is None and len(answer) != len(reference):
        return min(len(answer), len(reference))
    return position


def _relative_margin(model: PreTrainedModel, context: list[int], chosen: int, other: int) -> float:
    """How far apart the target's bfloat16 logits of two tokens are, after `context`, relative to their size."""
    with torch.inference_mode():
        logits = model(torch.tensor([context], device=model.device)).logits[0, -1].float()
    return abs(float(logits[chosen] - logits[other])) / max(abs(float(logits[chosen])), 1e-6)


@pytest.fixture(scope="module")
def bf16_gemma(make_tiny_gemma3: Callable[[int, int], PreTrainedModel]) -> TargetModel:
    return TargetModel(make_tiny_gemma3(2, 16).to(torch.bfloat16))


@pytest.mark.parametrize("method", ["casd"])
def test_bfloat16_answers_agree_with_greedy_and_diverge_only_at_near_ties(
    bf16_gemma: TargetModel, method: str, reference_greedy: ReferenceGreedy
) -> None:
    model = bf16_gemma.model
    stops = model_stop_token_ids(model.config, model.generation_config, None)
    factory = drafter_factory(method, SpeculativeSettings(_env_file=None), bf16_gemma)
    generator = SpeculativeGenerator(bf16_gemma, None, factory, partial(FixedTreeBudget, 16), stops)
    divergences: list[int | None] = []
    margins: list[float] = []

    for prompt in _prompts():
        reference = reference_greedy(model, prompt, MAX_NEW_TOKENS)
        answer = generator.generate(GenerationRequest(prompt, MAX_NEW_TOKENS)).run().token_ids
        position = _first_divergence(answer, reference)
        divergences.append(position)
        if position is not None and position < min(len(answer), len(reference)):
            context = [*prompt, *reference[:position]]
            margins.append(_relative_margin(model, context, reference[position], answer[position]))

    diverged = [position for position in divergences if position is not None]
    exact_rate = divergences.count(None) / len(divergences)
    print(
        f"\nbfloat16 {method}: exact match {exact_rate:.0%} of {len(divergences)} answers of {MAX_NEW_TOKENS} "
        f"tokens; first divergences at {sorted(diverged)} (median {statistics.median(diverged or [0])}); "
        f"relative logit margins there {[f'{margin:.4f}' for margin in margins]}"
    )
    assert exact_rate >= 0.5
    assert all(margin <= NEAR_TIE_RELATIVE for margin in margins)
