"""A static verifier's warm-up: before the first answer it captures every bucket serving will use (CUDA graphs) and
compiles every program (VERIFY_MODE=compiled), so that no step captures or compiles afterwards; the answers stay
plain greedy decoding, and a compilation that fails during the warm-up leaves the plain forward running, with one
log line."""

import logging
from collections.abc import Callable, Sequence
from functools import partial
from types import SimpleNamespace
from typing import Any

import pytest
import torch
from transformers import PreTrainedModel

from speculative.budget.fixed import FixedTreeBudget
from speculative.drafters.registry import drafter_factory
from speculative.engine.batch import BatchDecoder
from speculative.engine.generator import SpeculativeGenerator
from speculative.engine.kv_cache import KVCache
from speculative.engine.request import GenerationRequest
from speculative.engine.static_verifier import MAX_TREE_ROWS, StaticBatchVerifier
from speculative.engine.stopping import model_stop_token_ids
from speculative.engine.target import TargetModel
from speculative.engine.tree import ROOT, DraftTree
from speculative.settings import SpeculativeSettings
from tests.speculative.conftest import ReferenceGreedy, compilations, greedy_reference

TREE_BUDGET = 4  # drafted nodes: trees of up to 5 rows, padded to 8
NEW_TOKENS = 20


class _RecordingCapture:
    """CUDA graphs' place on a CPU: counts the captures; a graph's replay runs the forward again."""

    def __init__(self) -> None:
        self.captures = 0

    def capture(self, forward: Callable[[], None], outputs: Callable[[], torch.Tensor]) -> Any:
        forward()
        self.captures += 1
        return SimpleNamespace(replay=forward)


def _failing_backend(graph: torch.fx.GraphModule, example_inputs: list[Any]) -> Any:
    raise RuntimeError("no C++ compiler (a test's backend)")


def _generator(target: TargetModel) -> SpeculativeGenerator:
    stops = model_stop_token_ids(target.config, target.model.generation_config, None)
    factory = drafter_factory("casd", SpeculativeSettings(_env_file=None), target)
    return SpeculativeGenerator(target, None, factory, partial(FixedTreeBudget, TREE_BUDGET), stops)


def _prompts(lengths: Sequence[int]) -> list[list[int]]:
    """Prompts that repeat a block, so CASD's copies are accepted and the trees vary in size."""
    return [([3 + (7 * index + length) % 50 for index in range(9)] * length)[:length] for length in lengths]


def _decode_together(
    target: TargetModel, verifier: StaticBatchVerifier, prompts: list[list[int]]
) -> list[list[int]]:
    """Every prompt's answer, all decoded in one batch; their new token ids."""
    generator = _generator(target)
    generations = [generator.generate(GenerationRequest(prompt, NEW_TOKENS)) for prompt in prompts]
    decoder = BatchDecoder(target, len(prompts), verifier)
    for generation in generations:
        decoder.join(generation)
    while decoder.members:
        decoder.step()
    for generation in generations:
        generation.finish()
    return [generation.result.token_ids for generation in generations]


def _greedy(target: TargetModel, prompts: list[list[int]], reference: ReferenceGreedy) -> list[list[int]]:
    stops = model_stop_token_ids(target.config, target.model.generation_config, None)
    return [reference(target.model, prompt, NEW_TOKENS, stops) for prompt in prompts]


def test_a_warm_up_captures_every_bucket_serving_uses_so_that_serving_captures_none(
    tiny_llama_target: TargetModel,
) -> None:
    """Graphs (recorded here, as a CPU has no CUDA graphs): two answers, trees of up to 5 rows, prefixes from a
    few positions to the pool's 300."""
    capture = _RecordingCapture()
    verifier = StaticBatchVerifier(tiny_llama_target, slots=2, capacity=300, graphs=False, capture=capture)

    warm_up = verifier.warm_up(max_rows=1 + TREE_BUDGET)

    assert warm_up.to_json() | {"seconds": 0} == {
        "mode": "graphs",
        "buckets": 2 * 4 * 2,
        "answers": [1, 2],
        "tree_rows": [1, 2, 4, 8],
        "attended_positions": [256, 512],
        "seconds": 0,
    }
    assert capture.captures == len(warm_up.buckets)
    short, longest = _prompts([7, 300 - NEW_TOKENS - 1])
    answers = [
        *_decode_together(tiny_llama_target, verifier, [short, longest]),
        *_decode_together(tiny_llama_target, verifier, [short]),
        *_decode_together(tiny_llama_target, verifier, [longest]),
    ]
    assert capture.captures == len(warm_up.buckets), "a step captured a bucket the warm-up left out"
    assert answers == _greedy(tiny_llama_target, [short, longest, short, longest], greedy_reference)


def test_after_a_compiled_warm_up_no_tree_shape_compiles_and_the_answers_stay_plain_greedy(
    tiny_llama_target: TargetModel, fresh_compiler: None
) -> None:
    """VERIFY_MODE=compiled with inductor (on a CPU its C++ kernels, without graphs): the warm-up compiles the
    programs of one answer or two and one tree row or more; then no tree of 1 to 256 rows over any prefix, for
    one answer or two, compiles anything, and answers decoded together are plain greedy decoding (fp32)."""
    verifier = StaticBatchVerifier(tiny_llama_target, slots=2, capacity=64, graphs=True, fused=True)
    before = compilations()

    warm_up = verifier.warm_up(max_rows=1 + TREE_BUDGET)

    assert compilations() > before, "the warm-up compiled the forward"
    assert warm_up.mode == verifier.mode and verifier.compiled_active
    after_warm_up = compilations()
    prompts = _prompts([9, 30])
    assert _decode_together(tiny_llama_target, verifier, prompts) == _greedy(
        tiny_llama_target, prompts, greedy_reference
    )
    for answers in (1, 2):
        for prefix in (3, 64):
            for rows in (1, 2, 3, 5, 17, 100, MAX_TREE_ROWS):
                _verify_once(tiny_llama_target, verifier, answers, prefix, rows)
    assert compilations() == after_warm_up, "a verify forward compiled after the warm-up"
    assert verifier.compiled_active


def _verify_once(
    target: TargetModel, verifier: StaticBatchVerifier, answers: int, prefix: int, rows: int
) -> None:
    """One verify forward of `answers` answers of `prefix` positions, each with a chain of `rows` rows."""
    while verifier.lengths:
        verifier.remove(0)
    for answer in range(answers):
        cache = KVCache()
        target.prefill([3 + (answer + position) % 40 for position in range(prefix)], cache)
        verifier.add(cache)
    chain = DraftTree(5)
    chain.add_path([6 + row for row in range(rows - 1)], "test", ROOT)
    verifier.verify([chain] * answers)


def test_a_warm_up_whose_compilation_fails_runs_the_plain_forward_and_says_so_once(
    make_tiny_llama: Callable[[int, float], PreTrainedModel],
    caplog: pytest.LogCaptureFixture,
    fresh_compiler: None,
) -> None:
    target = TargetModel(make_tiny_llama(1, 0.1))
    verifier = StaticBatchVerifier(
        target, slots=2, capacity=64, graphs=False, fused=True, compile_backend=_failing_backend
    )

    with caplog.at_level(logging.WARNING, logger="speculative.engine.step_compile"):
        warm_up = verifier.warm_up(max_rows=1 + TREE_BUDGET)

    assert warm_up.mode == verifier.mode == "static"
    messages = [
        record.getMessage() for record in caplog.records if record.name == "speculative.engine.step_compile"
    ]
    assert len(messages) == 1
    assert "torch.compile of the verify forward failed, so it runs uncompiled from now on" in messages[0]
    prompts = _prompts([9, 30])
    assert _decode_together(target, verifier, prompts) == _greedy(target, prompts, greedy_reference)


def test_a_verifier_is_warmed_up_before_any_answer_joins(tiny_llama_target: TargetModel) -> None:
    verifier = StaticBatchVerifier(tiny_llama_target, slots=2, capacity=64, graphs=False)
    cache = KVCache()
    tiny_llama_target.prefill([3, 4, 5], cache)
    verifier.add(cache)

    with pytest.raises(RuntimeError, match="before any answer joins"):
        verifier.warm_up(max_rows=4)


def test_the_plain_static_forward_has_nothing_to_warm_up(tiny_llama_target: TargetModel) -> None:
    verifier = StaticBatchVerifier(tiny_llama_target, slots=2, capacity=64, graphs=False)

    assert verifier.warm_up(max_rows=4).buckets == ()
