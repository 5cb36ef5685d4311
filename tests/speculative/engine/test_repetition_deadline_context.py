"""Requests can end a looping answer, end at a deadline, and point CASD at passages instead of the whole prompt.

All three keep the output a prefix of (or equal to) plain greedy decoding: they only decide where to stop and
what to draft from, never which token comes next.
"""

import time
from collections.abc import Callable
from functools import partial

import pytest
from transformers import LlamaForCausalLM, PreTrainedTokenizerBase

from speculative.budget.fixed import FixedTreeBudget
from speculative.drafters.registry import drafter_factory
from speculative.engine.generator import GenerationResult, SpeculativeGenerator
from speculative.engine.request import GenerationRequest
from speculative.engine.stopping import RepetitionGuard, RepetitionRule, StopReason
from speculative.engine.target import TargetModel
from speculative.settings import SpeculativeSettings

PROMPT_TEXT = "De patiënt krijgt 1 g paracetamol. De patiënt krijgt 1 g paracetamol. De patiënt krijgt"


def _generate(
    target: TargetModel, tokenizer: PreTrainedTokenizerBase, request: GenerationRequest, method: str = "casd"
) -> GenerationResult:
    factory = drafter_factory(method, SpeculativeSettings(_env_file=None), target)
    generator = SpeculativeGenerator(target, tokenizer, factory, partial(FixedTreeBudget, 16), frozenset({2}))
    return generator.generate(request).run()


@pytest.fixture(scope="module")
def prompt_ids(smollm2_tokenizer: PreTrainedTokenizerBase) -> list[int]:
    return list(smollm2_tokenizer(PROMPT_TEXT).input_ids)


@pytest.fixture(scope="module")
def unguarded(
    tiny_llama_target: TargetModel, smollm2_tokenizer: PreTrainedTokenizerBase, prompt_ids: list[int]
) -> GenerationResult:
    return _generate(tiny_llama_target, smollm2_tokenizer, GenerationRequest(prompt_ids, 80))


@pytest.fixture(scope="module")
def looping_target(make_tiny_llama: Callable[[int, float], LlamaForCausalLM]) -> TargetModel:
    return TargetModel(make_tiny_llama(1, 0.05))  # repeats one token, then another, until the limit


def test_the_rule_fires_once_a_share_of_the_last_window_of_ngrams_repeat_earlier_ones() -> None:
    sentence = list(range(10, 20))
    rule = RepetitionRule(ngram=4, window=8, share=0.5)

    # The first repeated 4-gram ends at token 14 (the sentence again from its start); the 4th at token 17.
    assert rule.loop_end([*sentence] * 5) == 17
    assert RepetitionRule(ngram=4, window=8, share=1.0).loop_end([*sentence] * 5) == 21
    assert rule.loop_end(list(range(100))) is None


def test_a_loop_whose_sentence_changes_a_number_each_round_still_loops() -> None:
    rounds = [[10, 11, 12, 13, 14, 15, 16, 17, number, 19] for number in range(100, 110)]

    assert RepetitionRule(ngram=4, window=16).loop_end([token for r in rounds for token in r]) is not None


def test_a_phrase_quoted_twice_in_fluent_text_is_not_a_loop() -> None:
    phrase = [900, 901, 902, 903, 904, 905]
    answer = list(range(40)) + phrase + list(range(100, 140)) + phrase + list(range(200, 240))

    assert RepetitionRule(ngram=4, window=8).loop_end(answer) is None


def test_the_guard_applied_token_by_token_agrees_with_the_rule() -> None:
    tokens = [1, 2, 3] * 3 + [4, 5] * 20
    guard = RepetitionGuard(RepetitionRule(ngram=2, window=5))

    fired = next(count for count, token in enumerate(tokens, start=1) if guard.push(token))

    assert fired == RepetitionRule(ngram=2, window=5).loop_end(tokens)


@pytest.mark.parametrize("settings", [{"ngram": 0}, {"window": 0}, {"share": 0.0}, {"share": 1.5}])
def test_a_rule_without_ngrams_or_window_is_refused(settings: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="repetition rule"):
        RepetitionRule(**settings)


def test_a_looping_answer_stops_with_reason_repetition_as_a_prefix_of_greedy(
    looping_target: TargetModel, smollm2_tokenizer: PreTrainedTokenizerBase, prompt_ids: list[int]
) -> None:
    rule = RepetitionRule(ngram=3, window=6)
    loop = _generate(looping_target, smollm2_tokenizer, GenerationRequest(prompt_ids, 60))
    loop_end = rule.loop_end(loop.token_ids)
    assert loop.stop_reason is StopReason.LENGTH and loop_end is not None

    guarded = _generate(looping_target, smollm2_tokenizer, GenerationRequest(prompt_ids, 60, repetition=rule))

    assert guarded.stop_reason is StopReason.REPETITION
    assert guarded.token_ids == loop.token_ids[:loop_end]
    assert loop.text.startswith(guarded.text)


def test_a_passed_deadline_ends_the_answer_after_one_step_as_a_prefix_of_greedy(
    tiny_llama_target: TargetModel,
    smollm2_tokenizer: PreTrainedTokenizerBase,
    prompt_ids: list[int],
    unguarded: GenerationResult,
) -> None:
    request = GenerationRequest(prompt_ids, 80, deadline=time.monotonic())

    late = _generate(tiny_llama_target, smollm2_tokenizer, request)

    assert late.stop_reason is StopReason.DEADLINE
    assert late.stats.target_forwards == 1
    assert late.token_ids == unguarded.token_ids[: len(late.token_ids)]


def test_casd_drafts_from_the_given_context_instead_of_the_prompt(
    tiny_llama_target: TargetModel,
    smollm2_tokenizer: PreTrainedTokenizerBase,
    prompt_ids: list[int],
    unguarded: GenerationResult,
) -> None:
    request = GenerationRequest(prompt_ids, 80)
    passages = _generate(
        tiny_llama_target,
        smollm2_tokenizer,
        GenerationRequest(prompt_ids, 80, context_ids=unguarded.token_ids),
    )
    nothing = _generate(
        tiny_llama_target, smollm2_tokenizer, GenerationRequest(prompt_ids, 80, context_ids=[])
    )

    assert (
        passages.token_ids
        == nothing.token_ids
        == _generate(tiny_llama_target, smollm2_tokenizer, request).token_ids
    )
    assert passages.stats.target_forwards < nothing.stats.target_forwards
    assert passages.stats.tau > nothing.stats.tau
