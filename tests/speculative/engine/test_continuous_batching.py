"""Continuous batching: answers verified together in one forward each equal what they are decoded alone (fp32),
whatever joins, leaves, stops or runs out of time beside them, with either verifier: eager over a growing cache,
or static (a pre-allocated pool at bucketed shapes, the path CUDA graphs replay on a GPU)."""

import time
from collections.abc import Callable, Sequence
from functools import partial

import pytest
import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from speculative.budget.fixed import FixedTreeBudget
from speculative.drafters.registry import drafter_factory
from speculative.engine.batch import BatchDecoder
from speculative.engine.batch_verifier import BatchVerifier, DynamicBatchVerifier
from speculative.engine.generator import Generation, GenerationResult, SpeculativeGenerator
from speculative.engine.request import GenerationRequest
from speculative.engine.static_verifier import StaticBatchVerifier
from speculative.engine.stopping import StopReason, model_stop_token_ids
from speculative.engine.target import TargetModel
from speculative.settings import SpeculativeSettings

NEW_TOKENS = 40

VerifierFactory = Callable[[TargetModel, int], BatchVerifier]


def _graphed(target: TargetModel, slots: int) -> BatchVerifier:
    if target.device.type != "cuda":
        pytest.skip("CUDA graphs need a CUDA device: the GPU check runs these tests with DEVICE=cuda")
    verifier = StaticBatchVerifier(target, slots, target.context_length, graphs=True)
    assert verifier.graphs_active
    return verifier


VERIFIERS: dict[str, VerifierFactory] = {
    "eager": lambda target, slots: DynamicBatchVerifier(target),
    "static": lambda target, slots: StaticBatchVerifier(target, slots, target.context_length, graphs=False),
    "graphs": _graphed,
}


@pytest.fixture(params=sorted(VERIFIERS))
def verifier(request: pytest.FixtureRequest) -> VerifierFactory:
    """How the batch verifies: both verifiers must give every answer exactly its lone tokens."""
    return VERIFIERS[request.param]


def _prompts(seed: int, lengths: Sequence[int]) -> list[list[int]]:
    """Random prompts of these lengths; every other one repeats a block, so CASD's copies are accepted there."""
    generator = torch.Generator().manual_seed(seed)
    prompts = []
    for index, length in enumerate(lengths):
        if index % 2:
            block = torch.randint(3, 5000, (max(1, length // 3),), generator=generator).tolist()
            prompts.append((block * 3)[:length])
        else:
            prompts.append(torch.randint(3, 5000, (length,), generator=generator).tolist())
    return prompts


def _generator(
    target: TargetModel,
    method: str,
    tokenizer: PreTrainedTokenizerBase | None = None,
    budget: int = 16,
) -> SpeculativeGenerator:
    stops = model_stop_token_ids(target.config, target.model.generation_config, tokenizer)
    factory = drafter_factory(method, SpeculativeSettings(_env_file=None), target)
    return SpeculativeGenerator(target, tokenizer, factory, partial(FixedTreeBudget, budget), stops)


def _together(
    target: TargetModel,
    generations: Sequence[Generation],
    max_batch: int,
    verifier: VerifierFactory,
    join_at: Sequence[int] | None = None,
    drop: Callable[[int, int], bool] = lambda answer, step: False,
) -> list[str]:
    """Decode `generations` in one batch: answer i waits until step `join_at[i]` and for room; `drop(i, step)`
    takes a member out (cancelled). Returns each answer's streamed text."""
    decoder = BatchDecoder(target, max_batch, verifier(target, max_batch))
    join_at = join_at or [0] * len(generations)
    texts = [""] * len(generations)
    waiting = list(range(len(generations)))
    step = 0
    while waiting or decoder.members:
        for answer in [a for a in waiting if join_at[a] <= step]:
            if decoder.has_room:
                waiting.remove(answer)
                texts[answer] += decoder.join(generations[answer])
                if generations[answer].finished:
                    texts[answer] += generations[answer].finish()
        for answer, generation in enumerate(generations):
            if generation in decoder.members and drop(answer, step):
                decoder.leave(generation)
        for generation, delta in decoder.step():
            answer = generations.index(generation)
            texts[answer] += delta
            if generation.finished:
                texts[answer] += generation.finish()
        step += 1
    return texts


def _alone(generator: SpeculativeGenerator, request: GenerationRequest) -> GenerationResult:
    return generator.generate(request).run()


@pytest.fixture(scope="module", params=[(0, 0.3), (1, 0.1)], ids=["varied-output", "looping-output"])
def llama(
    request: pytest.FixtureRequest, make_tiny_llama: Callable[[int, float], PreTrainedModel]
) -> TargetModel:
    seed, initializer_range = request.param
    return TargetModel(make_tiny_llama(seed, initializer_range))


@pytest.mark.parametrize("method", ["vanilla", "casd"])
def test_answers_decoded_together_are_token_for_token_what_each_gives_alone(
    llama: TargetModel, method: str, verifier: VerifierFactory
) -> None:
    generator = _generator(llama, method)
    requests = [GenerationRequest(prompt, NEW_TOKENS) for prompt in _prompts(3, [5, 60, 33, 120, 9, 48])]
    alone = [_alone(generator, request) for request in requests]

    generations = [generator.generate(request) for request in requests]
    _together(llama, generations, max_batch=4, verifier=verifier, join_at=[0, 0, 2, 3, 3, 7])

    for index, (single, batched) in enumerate(zip(alone, generations, strict=True)):
        assert batched.result.token_ids == single.token_ids, f"answer {index}"
        assert batched.result.stop_reason == single.stop_reason


def test_answers_with_different_methods_share_a_batch_past_a_sliding_window(
    make_tiny_gemma3: Callable[[int, int], PreTrainedModel], verifier: VerifierFactory
) -> None:
    target = TargetModel(make_tiny_gemma3(2, 16))
    generators = [_generator(target, method) for method in ("casd", "vanilla", "casd", "casd_prompt")]
    requests = [GenerationRequest(prompt, NEW_TOKENS) for prompt in _prompts(11, [60, 9, 45, 30])]
    alone = [_alone(g, r) for g, r in zip(generators, requests, strict=True)]

    generations = [g.generate(r) for g, r in zip(generators, requests, strict=True)]
    _together(target, generations, max_batch=4, verifier=verifier)

    assert [g.result.token_ids for g in generations] == [single.token_ids for single in alone]


def test_the_step_rows_are_the_sum_of_every_answers_tree(
    llama: TargetModel, verifier: VerifierFactory
) -> None:
    generator = _generator(llama, "casd", budget=6)
    requests = [GenerationRequest(prompt, NEW_TOKENS) for prompt in _prompts(5, [40, 40, 40])]
    decoder = BatchDecoder(llama, max_batch=3, verifier=verifier(llama, 3))
    generations = [generator.generate(request) for request in requests]
    for generation in generations:
        decoder.join(generation)

    decoder.step()

    assert 3 <= decoder.last_rows <= 3 * 7
    with pytest.raises(RuntimeError, match="full"):
        decoder.join(generator.generate(requests[0]))


def test_a_stop_string_in_the_middle_of_an_accepted_run_ends_only_that_answer(
    make_tiny_llama: Callable[[int, float], PreTrainedModel],
    smollm2_tokenizer: PreTrainedTokenizerBase,
    verifier: VerifierFactory,
) -> None:
    target = TargetModel(make_tiny_llama(1, 0.1))  # loops: long accepted runs
    generator = _generator(target, "casd", smollm2_tokenizer)
    prompts = _prompts(9, [50, 30, 64])
    plain = [_alone(generator, GenerationRequest(p, NEW_TOKENS)) for p in prompts]
    runs = [step.acceptance_length for step in plain[1].stats.steps]
    assert max(runs) >= 3, "the test needs an answer that accepts several tokens in one step"
    words = plain[1].text.split()
    stop = words[len(words) // 2]
    requests = [
        GenerationRequest(prompts[0], NEW_TOKENS),
        GenerationRequest(prompts[1], NEW_TOKENS, stop_strings=[stop]),
        GenerationRequest(prompts[2], NEW_TOKENS),
    ]
    alone = [_alone(generator, request) for request in requests]

    generations = [generator.generate(request) for request in requests]
    texts = _together(target, generations, max_batch=3, verifier=verifier)

    stopped = generations[1].result
    assert stopped.stop_reason is StopReason.STOP_STRING
    assert texts[1] == stopped.text == plain[1].text[: plain[1].text.index(stop)]
    assert stopped.token_ids == alone[1].token_ids
    assert [generations[0].result.token_ids, generations[2].result.token_ids] == [
        alone[0].token_ids,
        alone[2].token_ids,
    ]


def test_an_answer_past_its_deadline_leaves_and_the_others_continue_exactly(
    llama: TargetModel, verifier: VerifierFactory
) -> None:
    generator = _generator(llama, "casd")
    prompts = _prompts(4, [20, 35, 50])
    alone = [_alone(generator, GenerationRequest(p, NEW_TOKENS)) for p in prompts]
    requests = [
        GenerationRequest(prompts[0], NEW_TOKENS),
        GenerationRequest(prompts[1], NEW_TOKENS, deadline=time.monotonic()),  # already due
        GenerationRequest(prompts[2], NEW_TOKENS),
    ]

    generations = [generator.generate(request) for request in requests]
    _together(llama, generations, max_batch=3, verifier=verifier)

    late = generations[1].result
    assert late.stop_reason is StopReason.DEADLINE and late.stats.target_forwards == 1
    assert late.token_ids == alone[1].token_ids[: len(late.token_ids)]
    assert generations[0].result.token_ids == alone[0].token_ids
    assert generations[2].result.token_ids == alone[2].token_ids


def test_a_cancelled_answer_frees_its_slot_at_once_for_the_next_and_the_others_stay_exact(
    llama: TargetModel, verifier: VerifierFactory
) -> None:
    generator = _generator(llama, "casd")
    requests = [GenerationRequest(prompt, NEW_TOKENS) for prompt in _prompts(6, [25, 40, 15])]
    alone = [_alone(generator, request) for request in requests]

    generations = [generator.generate(request) for request in requests]
    # two slots: answer 2 can only join once answer 1 has been cancelled (after step 2)
    _together(
        llama,
        generations,
        max_batch=2,
        verifier=verifier,
        join_at=[0, 0, 0],
        drop=lambda answer, step: (answer, step) == (1, 2),
    )

    assert generations[0].result.token_ids == alone[0].token_ids
    assert generations[2].result.token_ids == alone[2].token_ids
    with pytest.raises(RuntimeError, match="not finished"):
        _ = generations[1].result


def test_a_prompt_that_fills_the_context_decodes_beside_short_ones(
    llama: TargetModel, verifier: VerifierFactory
) -> None:
    generator = _generator(llama, "casd")
    context = llama.context_length
    prompts = _prompts(8, [context - 24, 12, 30])
    requests = [GenerationRequest(prompts[0], 24), *(GenerationRequest(p, NEW_TOKENS) for p in prompts[1:])]
    alone = [_alone(generator, request) for request in requests]

    generations = [generator.generate(request) for request in requests]
    _together(llama, generations, max_batch=3, verifier=verifier)

    assert len(prompts[0]) + len(generations[0].result.token_ids) <= context
    assert [g.result.token_ids for g in generations] == [single.token_ids for single in alone]
