"""Greedy speculative decoding is lossless: every method yields exactly what `generate()` yields (fp32, CPU).

Tiny random models built in-process make this cheap enough to check on many prompts: random ones, repeated text
(where CASD's copies are accepted), long ones, and prompts past a sliding window (Gemma 3 layout).
"""

from collections.abc import Callable, Sequence
from functools import partial

import pytest
import torch
from transformers import PreTrainedModel

from speculative.budget.fixed import FixedTreeBudget
from speculative.drafters.registry import drafter_factory
from speculative.engine.drafter import DraftContext, Drafter, DrafterFactory
from speculative.engine.generator import GenerationResult, SpeculativeGenerator
from speculative.engine.request import GenerationRequest
from speculative.engine.stopping import StopReason, model_stop_token_ids
from speculative.engine.target import TargetModel
from speculative.engine.tree import DraftTree
from speculative.settings import SpeculativeSettings
from tests.speculative.conftest import ReferenceGreedy

MAX_NEW_TOKENS = 40
# The methods that need no trained weights; eagle2 (which needs a head) is tested with its head.
METHODS = ["vanilla", "casd", "casd_prompt", "casd+casd_prompt"]


def _prompts(seed: int) -> list[list[int]]:
    """Random ids, repeated blocks (copyable text) and a long prompt, from a fixed seed."""
    generator = torch.Generator().manual_seed(seed)

    def ids(length: int, high: int = 5000) -> list[int]:
        return torch.randint(3, high, (length,), generator=generator).tolist()

    block, phrase = ids(30), ids(8)
    return [
        ids(5),
        ids(60),
        block + ids(10) + block,
        (phrase + ids(3)) * 6,
        ids(40, high=40),  # a small alphabet: many short matches
        ids(700),
    ]


def _generate(
    target: TargetModel,
    factory: DrafterFactory,
    prompt: Sequence[int],
    budget: int = 16,
    max_new: int = MAX_NEW_TOKENS,
) -> GenerationResult:
    stops = model_stop_token_ids(target.config, target.model.generation_config, None)
    generator = SpeculativeGenerator(target, None, factory, partial(FixedTreeBudget, budget), stops)
    return generator.generate(GenerationRequest(prompt, max_new)).run()


@pytest.fixture(scope="module", params=[(0, 0.3), (1, 0.1)], ids=["varied-output", "looping-output"])
def llama(
    request: pytest.FixtureRequest, make_tiny_llama: Callable[[int, float], PreTrainedModel]
) -> TargetModel:
    seed, initializer_range = request.param
    return TargetModel(make_tiny_llama(seed, initializer_range))


@pytest.fixture(scope="module")
def looping_llama(make_tiny_llama: Callable[[int, float], PreTrainedModel]) -> TargetModel:
    """A tiny Llama whose greedy output falls into loops, which CASD copies."""
    return TargetModel(make_tiny_llama(1, 0.1))


@pytest.mark.parametrize("method", METHODS)
def test_every_method_equals_greedy_generate_on_a_tiny_llama(
    llama: TargetModel, method: str, reference_greedy: ReferenceGreedy
) -> None:
    factory = drafter_factory(method, SpeculativeSettings(_env_file=None), llama)

    for prompt in _prompts(seed=7):
        expected = reference_greedy(llama.model, prompt, MAX_NEW_TOKENS)
        assert _generate(llama, factory, prompt).token_ids == expected, f"prompt of {len(prompt)} tokens"


def test_casd_accepts_several_tokens_per_forward_when_the_output_repeats_context(
    looping_llama: TargetModel,
) -> None:
    target = looping_llama
    factory = drafter_factory("casd", SpeculativeSettings(_env_file=None), target)

    results = [_generate(target, factory, prompt) for prompt in _prompts(seed=7)]

    assert sum(result.stats.tau for result in results) / len(results) > 1.5


@pytest.mark.parametrize("method", METHODS)
def test_every_method_equals_greedy_generate_past_a_sliding_window(
    method: str, reference_greedy: ReferenceGreedy, make_tiny_gemma3: Callable[[int, int], PreTrainedModel]
) -> None:
    target = TargetModel(make_tiny_gemma3(2, 16))
    factory = drafter_factory(method, SpeculativeSettings(_env_file=None), target)

    for prompt in _prompts(seed=11)[1:4]:
        expected = reference_greedy(target.model, prompt, MAX_NEW_TOKENS)
        assert _generate(target, factory, prompt).token_ids == expected, f"prompt of {len(prompt)} tokens"


class OracleDrafter(Drafter):
    """Drafts a wrong branch first and the true greedy continuation second, so accepted rows are not contiguous.

    Every step then accepts many tokens from the middle of the tree, which exercises compaction as hard as a
    test can: one wrong row kept in the cache would change every later token.
    """

    name = "oracle"

    def __init__(self, prompt_length: int, continuation: list[int], depth: int) -> None:
        self.prompt_length = prompt_length
        self.continuation = continuation
        self.depth = depth

    def propose(self, context: DraftContext) -> DraftTree:
        tree = context.new_tree()
        done = len(context.sequence) - self.prompt_length
        truth = self.continuation[done : done + self.depth]
        tree.add_path([(token + 1) % 5000 for token in truth], "decoy")
        tree.add_path(truth, self.name)
        return tree


@pytest.mark.parametrize("depth", [1, 3, 9])
def test_accepting_paths_from_the_middle_of_the_tree_stays_exact(
    tiny_llama_target: TargetModel, depth: int, reference_greedy: ReferenceGreedy
) -> None:
    prompt = _prompts(seed=5)[1]
    expected = reference_greedy(tiny_llama_target.model, prompt, MAX_NEW_TOKENS)

    result = _generate(
        tiny_llama_target, lambda: OracleDrafter(len(prompt), expected, depth), prompt, budget=64
    )

    assert result.token_ids == expected
    assert result.stats.tau > 1
    assert result.stats.acceptance_histogram["oracle"][depth + 1] > 0


@pytest.mark.parametrize("budget", [0, 1, 4, 60])
def test_the_output_does_not_depend_on_the_tree_budget(
    tiny_llama_target: TargetModel, budget: int, reference_greedy: ReferenceGreedy
) -> None:
    prompt = _prompts(seed=7)[3]
    factory = drafter_factory("casd", SpeculativeSettings(_env_file=None), tiny_llama_target)
    expected = reference_greedy(tiny_llama_target.model, prompt, MAX_NEW_TOKENS)

    result = _generate(tiny_llama_target, factory, prompt, budget=budget)

    assert result.token_ids == expected
    assert all(sum(step.nodes_by_source.values()) <= budget for step in result.stats.steps)


def test_generation_stops_at_a_stop_token_inside_an_accepted_chunk(
    looping_llama: TargetModel, reference_greedy: ReferenceGreedy
) -> None:
    target = looping_llama
    prompt = _prompts(seed=7)[3]
    free_run = reference_greedy(target.model, prompt, MAX_NEW_TOKENS)
    stop = free_run[len(free_run) // 2]  # a token the model really emits, mid-answer
    expected = reference_greedy(target.model, prompt, MAX_NEW_TOKENS, frozenset({stop}))
    factory = drafter_factory("casd", SpeculativeSettings(_env_file=None), target)
    generator = SpeculativeGenerator(target, None, factory, partial(FixedTreeBudget, 16), frozenset({stop}))

    result = generator.generate(GenerationRequest(prompt, MAX_NEW_TOKENS)).run()

    assert result.token_ids == expected
    assert result.token_ids[-1] == stop and stop not in result.token_ids[:-1]
    assert result.stop_reason is StopReason.STOP_TOKEN


@pytest.mark.parametrize("method", METHODS)
def test_every_method_stops_where_generate_stops_at_the_generation_configs_eos(
    method: str, reference_greedy: ReferenceGreedy, make_tiny_llama: Callable[[int, float], PreTrainedModel]
) -> None:
    """The reference stops by transformers' own reading of the generation config, not by the engine's stop ids."""
    model = make_tiny_llama(1, 0.1)
    prompt = _prompts(seed=7)[3]
    free_run = reference_greedy(model, prompt, MAX_NEW_TOKENS)
    model.generation_config.eos_token_id = free_run[len(free_run) // 2]  # a token the model emits, mid-answer
    target = TargetModel(model)
    expected = reference_greedy(model, prompt, MAX_NEW_TOKENS)

    result = _generate(target, drafter_factory(method, SpeculativeSettings(_env_file=None), target), prompt)

    assert len(expected) < len(free_run)
    assert result.token_ids == expected
    assert result.stop_reason is StopReason.STOP_TOKEN


def test_generation_stops_at_max_new_tokens_even_mid_chunk(tiny_llama_target: TargetModel) -> None:
    prompt = _prompts(seed=7)[3]
    factory = drafter_factory("casd", SpeculativeSettings(_env_file=None), tiny_llama_target)

    for max_new in (1, 2, 7):
        result = _generate(tiny_llama_target, factory, prompt, max_new=max_new)
        assert len(result.token_ids) == max_new
        assert result.stop_reason is StopReason.LENGTH
