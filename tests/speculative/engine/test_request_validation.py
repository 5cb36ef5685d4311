"""Bad requests fail before any compute, with a message that says what to change."""

from collections.abc import Iterator
from functools import partial

import pytest

from speculative.budget.fixed import FixedTreeBudget
from speculative.drafters.registry import drafter_factory
from speculative.engine.generator import SpeculativeGenerator
from speculative.engine.request import GenerationRequest, InvalidRequestError
from speculative.engine.target import TargetModel
from speculative.settings import SpeculativeSettings

CONTEXT = 2048  # the tiny Llama's max_position_embeddings


@pytest.fixture(scope="module")
def generator(tiny_llama_target: TargetModel) -> SpeculativeGenerator:
    factory = drafter_factory("casd", SpeculativeSettings(_env_file=None), tiny_llama_target)
    return SpeculativeGenerator(tiny_llama_target, None, factory, partial(FixedTreeBudget, 8), frozenset({2}))


@pytest.fixture
def forwards(tiny_llama_target: TargetModel) -> Iterator[list[int]]:
    """Counts the target's forwards: validation must reject a request before the first one."""
    calls: list[int] = []
    hook = tiny_llama_target.model.get_decoder().register_forward_pre_hook(lambda *_: calls.append(1))
    yield calls
    hook.remove()


@pytest.mark.parametrize(
    ("prompt_length", "max_new_tokens", "message"),
    [
        (CONTEXT, 1, "the prompt has 2048 tokens but the model's context holds 2048"),
        (CONTEXT + 500, 1, "shorten the prompt"),
        (10, 0, "max_new_tokens must be at least 1"),
        (10, -5, "max_new_tokens must be at least 1"),
        (2000, 49, "at most 48 new tokens"),
        (0, 5, "the prompt is empty"),
    ],
)
def test_a_request_that_does_not_fit_the_model_is_refused_before_any_forward(
    generator: SpeculativeGenerator,
    forwards: list[int],
    prompt_length: int,
    max_new_tokens: int,
    message: str,
) -> None:
    with pytest.raises(InvalidRequestError, match=message):
        generator.generate(GenerationRequest([5] * prompt_length, max_new_tokens))

    assert forwards == []


def test_a_valid_request_does_run_the_target(generator: SpeculativeGenerator, forwards: list[int]) -> None:
    generator.generate(GenerationRequest([5, 6, 7], 2)).run()

    assert forwards != []


def test_a_request_that_exactly_fills_the_context_is_served(generator: SpeculativeGenerator) -> None:
    result = generator.generate(GenerationRequest([5] * (CONTEXT - 3), 3)).run()

    assert len(result.token_ids) <= 3


def test_token_ids_outside_the_vocabulary_are_named(generator: SpeculativeGenerator) -> None:
    with pytest.raises(
        InvalidRequestError, match=r"\[49152, 60000\] are outside the model's vocabulary of 49152"
    ):
        generator.generate(GenerationRequest([5, 49152, 60000, 7], 3))


def test_stop_strings_need_a_generator_with_a_tokenizer(generator: SpeculativeGenerator) -> None:
    with pytest.raises(InvalidRequestError, match="need a generator with a tokenizer"):
        generator.generate(GenerationRequest([5, 6], 3, stop_strings=["[einde antwoord]"]))


def test_an_empty_stop_string_is_refused(generator: SpeculativeGenerator) -> None:
    with pytest.raises(InvalidRequestError, match="must not be empty"):
        generator.generate(GenerationRequest([5, 6], 3, stop_strings=[""]))
