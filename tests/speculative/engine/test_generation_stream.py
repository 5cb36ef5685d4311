"""A generation streams text deltas as tokens are accepted and ends with its token ids, text and statistics."""

import json
from functools import partial

import pytest
from transformers import PreTrainedTokenizerBase

from speculative.budget.fixed import FixedTreeBudget
from speculative.drafters.registry import drafter_factory
from speculative.engine.generator import SpeculativeGenerator
from speculative.engine.request import GenerationRequest
from speculative.engine.target import TargetModel
from speculative.engine.verify import NO_DRAFT_SOURCE
from speculative.settings import SpeculativeSettings

PROMPT_TEXT = "De patiënt krijgt 1 g paracetamol. De patiënt krijgt 1 g paracetamol. De patiënt krijgt"


def _generator(target: TargetModel, tokenizer: PreTrainedTokenizerBase, method: str) -> SpeculativeGenerator:
    factory = drafter_factory(method, SpeculativeSettings(_env_file=None), target)
    return SpeculativeGenerator(target, tokenizer, factory, partial(FixedTreeBudget, 16), frozenset({2}))


@pytest.fixture(scope="module")
def prompt_ids(smollm2_tokenizer: PreTrainedTokenizerBase) -> list[int]:
    return list(smollm2_tokenizer(PROMPT_TEXT).input_ids)


@pytest.mark.parametrize("method", ["vanilla", "casd"])
def test_the_streamed_deltas_add_up_to_the_decoded_answer(
    tiny_llama_target: TargetModel,
    smollm2_tokenizer: PreTrainedTokenizerBase,
    prompt_ids: list[int],
    method: str,
) -> None:
    generation = _generator(tiny_llama_target, smollm2_tokenizer, method).generate(
        GenerationRequest(prompt_ids, 30)
    )

    deltas = list(generation)

    assert len(deltas) > 1 and all(deltas)
    assert "".join(deltas) == generation.result.text
    assert generation.result.text == smollm2_tokenizer.decode(
        generation.result.token_ids, skip_special_tokens=True
    )


def test_the_result_is_only_available_once_the_generation_has_ended(
    tiny_llama_target: TargetModel, smollm2_tokenizer: PreTrainedTokenizerBase, prompt_ids: list[int]
) -> None:
    generation = _generator(tiny_llama_target, smollm2_tokenizer, "casd").generate(
        GenerationRequest(prompt_ids, 5)
    )

    with pytest.raises(RuntimeError, match="has not finished"):
        _ = generation.result
    assert len(generation.run().token_ids) == 5


def test_vanilla_decoding_gains_one_token_per_target_forward(
    tiny_llama_target: TargetModel, smollm2_tokenizer: PreTrainedTokenizerBase, prompt_ids: list[int]
) -> None:
    stats = (
        _generator(tiny_llama_target, smollm2_tokenizer, "vanilla")
        .generate(GenerationRequest(prompt_ids, 12))
        .run()
        .stats
    )

    assert stats.tau == 1.0
    assert stats.target_forwards == 11  # the first token comes from the prefill
    assert stats.acceptance_histogram == {NO_DRAFT_SOURCE: {1: 11}}
    assert stats.nodes_by_source == {}


def test_statistics_account_for_every_token_forward_and_node(
    tiny_llama_target: TargetModel, smollm2_tokenizer: PreTrainedTokenizerBase, prompt_ids: list[int]
) -> None:
    result = (
        _generator(tiny_llama_target, smollm2_tokenizer, "casd")
        .generate(GenerationRequest(prompt_ids, 30))
        .run()
    )
    stats = result.stats

    lengths = [step.acceptance_length for step in stats.steps]
    assert stats.prompt_tokens == len(prompt_ids) and stats.new_tokens == len(result.token_ids) == 30
    assert 1 + sum(lengths) >= stats.new_tokens  # the last step may be cut at the limit
    assert stats.tau == sum(lengths) / stats.target_forwards
    assert (
        sum(sum(counts.values()) for counts in stats.acceptance_histogram.values()) == stats.target_forwards
    )
    assert set(stats.nodes_by_source) <= {"casd"}
    assert stats.prefill_seconds > 0 and stats.verify_seconds > 0 and stats.draft_seconds > 0
    assert stats.decode_seconds >= stats.verify_seconds + stats.draft_seconds
    assert stats.decode_tokens_per_second == pytest.approx((stats.new_tokens - 1) / stats.decode_seconds)


def test_the_summary_is_json(
    tiny_llama_target: TargetModel, smollm2_tokenizer: PreTrainedTokenizerBase, prompt_ids: list[int]
) -> None:
    stats = (
        _generator(tiny_llama_target, smollm2_tokenizer, "casd")
        .generate(GenerationRequest(prompt_ids, 8))
        .run()
        .stats
    )

    summary = json.loads(json.dumps(stats.summary()))

    assert summary["target_forwards"] == stats.target_forwards
    assert summary["tau"] == stats.tau
