"""Lossless on real weights: SmolLM2-135M-Instruct (Llama architecture) and Gemma 3 270M (sliding windows).

The prompts are Dutch RAG prompts in the product's template. The long one exceeds Gemma's 512-token sliding
window before generation starts; with the crossing one the answer itself crosses position 512, so both the
prefill and the tree masks must apply the window per layer type.
"""

import json
from pathlib import Path

import pytest
from conftest import GEMMA3, SMOLLM2, cached_model, greedy_reference
from transformers import AutoTokenizer, PreTrainedTokenizerBase

from speculative.engine.loading import build_generator
from speculative.engine.request import GenerationRequest
from speculative.engine.stopping import StopReason
from speculative.engine.target import TargetModel
from speculative.settings import SpeculativeSettings

pytestmark = pytest.mark.slow

PROMPTS = json.loads((Path(__file__).parent / "data" / "rag_prompts.json").read_text(encoding="utf-8"))
MAX_NEW_TOKENS = 40
METHODS = ["vanilla", "casd", "casd_prompt", "casd+casd_prompt"]
GEMMA_SLIDING_WINDOW = 512


class RealModels:
    """Loads each model once per module and remembers `generate()`'s answer to each prompt."""

    def __init__(self) -> None:
        self._models: dict[str, tuple[TargetModel, PreTrainedTokenizerBase]] = {}
        self._references: dict[tuple[str, str], tuple[int, ...]] = {}

    def loaded(self, name: str) -> tuple[TargetModel, PreTrainedTokenizerBase]:
        if name not in self._models:
            folder = cached_model(name)
            self._models[name] = (
                TargetModel.load(folder, "cpu", "float32"),
                AutoTokenizer.from_pretrained(folder),
            )
        return self._models[name]

    def reference(self, name: str, prompt: str) -> tuple[int, ...]:
        if (name, prompt) not in self._references:
            target, tokenizer = self.loaded(name)
            stops = build_generator(
                SpeculativeSettings(_env_file=None), target, tokenizer, "vanilla"
            ).stop_token_ids
            prompt_ids = tokenizer(PROMPTS[prompt]).input_ids
            self._references[name, prompt] = tuple(
                greedy_reference(target.model, prompt_ids, MAX_NEW_TOKENS, stops)
            )
        return self._references[name, prompt]


@pytest.fixture(scope="module")
def real() -> RealModels:
    return RealModels()


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("prompt", ["long", "crossing"])
@pytest.mark.parametrize("model", [SMOLLM2, GEMMA3], ids=["smollm2", "gemma3"])
def test_every_method_equals_greedy_generate_on_real_weights(
    real: RealModels, model: str, prompt: str, method: str
) -> None:
    target, tokenizer = real.loaded(model)
    generator = build_generator(SpeculativeSettings(_env_file=None), target, tokenizer, method)
    prompt_ids = tokenizer(PROMPTS[prompt]).input_ids

    result = generator.generate(GenerationRequest(prompt_ids, MAX_NEW_TOKENS)).run()

    assert tuple(result.token_ids) == real.reference(model, prompt)


def test_the_gemma_prompts_exercise_the_sliding_window(real: RealModels) -> None:
    _, tokenizer = real.loaded(GEMMA3)
    long, crossing = (len(tokenizer(PROMPTS[key]).input_ids) for key in ("long", "crossing"))

    assert long > GEMMA_SLIDING_WINDOW
    assert crossing < GEMMA_SLIDING_WINDOW < crossing + MAX_NEW_TOKENS


def test_casd_copies_from_the_documents_on_a_rag_prompt(real: RealModels) -> None:
    target, tokenizer = real.loaded(GEMMA3)
    generator = build_generator(SpeculativeSettings(_env_file=None), target, tokenizer, "casd")

    result = generator.generate(GenerationRequest(tokenizer(PROMPTS["long"]).input_ids, MAX_NEW_TOKENS)).run()

    assert result.stats.tau > 2
    assert max(result.stats.acceptance_histogram["casd"]) >= 8


def test_the_answer_stops_at_the_templates_end_marker(real: RealModels) -> None:
    target, tokenizer = real.loaded(GEMMA3)
    generator = build_generator(SpeculativeSettings(_env_file=None), target, tokenizer, "casd")
    request = GenerationRequest(tokenizer(PROMPTS["long"]).input_ids, MAX_NEW_TOKENS, ["[einde antwoord]"])

    generation = generator.generate(request)
    streamed = "".join(generation)
    result = generation.result

    assert result.stop_reason is StopReason.STOP_STRING
    assert streamed == result.text and "[einde" not in result.text and result.text.strip()
    assert result.token_ids == list(real.reference(GEMMA3, "long")[: len(result.token_ids)])
