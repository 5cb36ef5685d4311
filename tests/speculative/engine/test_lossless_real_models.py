"""Lossless on real weights: SmolLM2-135M-Instruct (Llama architecture) and Gemma 3 270M (sliding windows).

`eagle2` and `eagle2+casd` run on Gemma 3, the default generator, with a random head (no trained head exists for
the offline models): its drafts are mostly rejected, which checks that drafting and verifying EAGLE trees past the
sliding window leave the answer unchanged.

The prompts are Dutch RAG prompts in the product's template. The long one exceeds Gemma's 512-token sliding
window before generation starts; with the crossing one the answer itself crosses position 512, so both the
prefill and the tree masks must apply the window per layer type.

Every method runs on every Gemma prompt with the fixed tree (whose drafts are verified, so the masks are used);
SmolLM2 (no sliding window) runs the long prompt; the adaptive policy runs one method per model and prompt kind.
That the answer does not depend on the tree's budget is specified on the tiny models
(`test_lossless_tiny_models.py`), and the benchmark (`python -m research.engine_bench`) checks exact match against
`generate()` on whole prompt sets.
"""

import json
from pathlib import Path

import pytest
from transformers import AutoTokenizer, PreTrainedTokenizerBase

from research.engine_bench.random_head import write_random_head
from speculative.budget.cost_model import CostModel, measure, model_identity
from speculative.build import build_generator
from speculative.engine.request import GenerationRequest
from speculative.engine.stopping import StopReason
from speculative.engine.target import TargetModel
from speculative.settings import SpeculativeSettings, TreePolicy
from tests.speculative.conftest import GEMMA3, SMOLLM2, cached_model, greedy_reference

pytestmark = pytest.mark.slow

PROMPTS = json.loads((Path(__file__).parents[1] / "data" / "rag_prompts.json").read_text(encoding="utf-8"))
MAX_NEW_TOKENS = 40
METHODS = ["vanilla", "casd", "casd_prompt", "casd+casd_prompt"]
GEMMA_SLIDING_WINDOW = 512
# The adaptive policy's cost model, measured at a few tree sizes (the worker measures all 64): the budget it sets
# changes which drafts are verified, never the answer.
COST_MODEL_ROWS = (1, 4, 16, 64)
# EAGLE-2 trees smaller than the reference 60 tokens, depth 5, top 10: the masks past the window are the same at
# any size, and each step drafts and verifies through Gemma's 262k-word output layer (the reference size runs on
# Qwen2, `test_lossless_qwen2.py`).
EAGLE_TREE = {"eagle_total_tokens": 16, "eagle_depth": 3, "eagle_top_k": 4}


class RealModels:
    """Loads each model once per module and remembers `generate()`'s answer to each prompt."""

    def __init__(self) -> None:
        self._models: dict[str, tuple[TargetModel, PreTrainedTokenizerBase]] = {}
        self._references: dict[tuple[str, str], tuple[int, ...]] = {}
        self._cost_models: dict[str, CostModel] = {}

    def loaded(self, name: str) -> tuple[TargetModel, PreTrainedTokenizerBase]:
        if name not in self._models:
            folder = cached_model(name)
            self._models[name] = (
                TargetModel.load(folder, "cpu", "float32"),
                AutoTokenizer.from_pretrained(folder),
            )
        return self._models[name]

    def cost_model(self, name: str) -> CostModel:
        if name not in self._cost_models:
            target, _ = self.loaded(name)
            identity = model_identity(target, name, "sdpa")
            self._cost_models[name] = measure(
                target, identity, COST_MODEL_ROWS, prefill_tokens=128, repeats=1
            )
        return self._cost_models[name]

    def reference(self, name: str, prompt: str) -> tuple[int, ...]:
        if (name, prompt) not in self._references:
            target, tokenizer = self.loaded(name)
            prompt_ids = tokenizer(PROMPTS[prompt]).input_ids
            self._references[name, prompt] = tuple(greedy_reference(target.model, prompt_ids, MAX_NEW_TOKENS))
        return self._references[name, prompt]


@pytest.fixture(scope="module")
def real() -> RealModels:
    return RealModels()


CASES = [
    *(pytest.param(GEMMA3, prompt, method, "fixed", id=f"gemma3-{prompt}-{method}-fixed")
      for prompt in ("long", "crossing") for method in METHODS),
    *(pytest.param(SMOLLM2, "long", method, "fixed", id=f"smollm2-long-{method}-fixed") for method in METHODS),
    pytest.param(GEMMA3, "crossing", "casd", "adaptive", id="gemma3-crossing-casd-adaptive"),
    pytest.param(SMOLLM2, "long", "casd+casd_prompt", "adaptive", id="smollm2-long-casd+casd_prompt-adaptive"),
]  # fmt: skip


@pytest.mark.parametrize(("model", "prompt", "method", "policy"), CASES)
def test_every_method_and_tree_policy_equals_greedy_generate_on_real_weights(
    real: RealModels, model: str, prompt: str, method: str, policy: TreePolicy
) -> None:
    target, tokenizer = real.loaded(model)
    settings = SpeculativeSettings(_env_file=None, tree_policy=policy)  # type: ignore[call-arg]
    cost_model = real.cost_model(model) if policy == "adaptive" else None
    generator = build_generator(settings, target, tokenizer, method, cost_model)
    prompt_ids = tokenizer(PROMPTS[prompt]).input_ids

    result = generator.generate(GenerationRequest(prompt_ids, MAX_NEW_TOKENS)).run()

    assert tuple(result.token_ids) == real.reference(model, prompt)


@pytest.fixture(scope="module")
def gemma_random_head(real: RealModels, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target, _ = real.loaded(GEMMA3)
    return write_random_head(target.config, tmp_path_factory.mktemp("gemma-head"), seed=0)


EAGLE_CASES = [
    *(pytest.param(prompt, method, "fixed", id=f"{prompt}-{method}-fixed")
      for prompt in ("long", "crossing") for method in ("eagle2", "eagle2+casd")),
    pytest.param("long", "eagle2+casd", "adaptive", id="long-eagle2+casd-adaptive"),
]  # fmt: skip


@pytest.mark.parametrize(("prompt", "method", "policy"), EAGLE_CASES)
def test_eagle2_methods_equal_greedy_generate_on_gemma3_past_the_sliding_window(
    real: RealModels, gemma_random_head: Path, prompt: str, method: str, policy: TreePolicy
) -> None:
    target, tokenizer = real.loaded(GEMMA3)
    settings = SpeculativeSettings(
        _env_file=None,  # type: ignore[call-arg]
        eagle_head=str(gemma_random_head),
        tree_policy=policy,
        **EAGLE_TREE,
    )
    cost_model = real.cost_model(GEMMA3) if policy == "adaptive" else None
    generator = build_generator(settings, target, tokenizer, method, cost_model)
    prompt_ids = tokenizer(PROMPTS[prompt]).input_ids

    result = generator.generate(GenerationRequest(prompt_ids, MAX_NEW_TOKENS)).run()

    assert tuple(result.token_ids) == real.reference(GEMMA3, prompt)
    if policy == "fixed":  # the adaptive policy rightly verifies few or none of a random head's drafts
        assert result.stats.nodes_by_source["eagle2"] > 0


def test_the_gemma_prompts_exercise_the_sliding_window(real: RealModels) -> None:
    _, tokenizer = real.loaded(GEMMA3)
    long, crossing = (len(tokenizer(PROMPTS[key]).input_ids) for key in ("long", "crossing"))

    assert long > GEMMA_SLIDING_WINDOW
    assert crossing < GEMMA_SLIDING_WINDOW < crossing + MAX_NEW_TOKENS


def test_casd_copies_from_the_documents_on_a_rag_prompt(real: RealModels) -> None:
    target, tokenizer = real.loaded(GEMMA3)
    settings = SpeculativeSettings(_env_file=None, tree_policy="fixed")  # type: ignore[call-arg]
    generator = build_generator(settings, target, tokenizer, "casd")

    result = generator.generate(GenerationRequest(tokenizer(PROMPTS["long"]).input_ids, MAX_NEW_TOKENS)).run()

    assert result.stats.tau > 2
    assert max(result.stats.acceptance_histogram["casd"]) >= 8


def test_the_answer_stops_at_the_templates_end_marker(real: RealModels) -> None:
    target, tokenizer = real.loaded(GEMMA3)
    settings = SpeculativeSettings(_env_file=None)
    generator = build_generator(settings, target, tokenizer, "casd", cost_model=real.cost_model(GEMMA3))
    request = GenerationRequest(tokenizer(PROMPTS["long"]).input_ids, MAX_NEW_TOKENS, ["[einde antwoord]"])

    generation = generator.generate(request)
    streamed = "".join(generation)
    result = generation.result

    assert result.stop_reason is StopReason.STOP_STRING
    assert streamed == result.text and "[einde" not in result.text and result.text.strip()
    assert result.token_ids == list(real.reference(GEMMA3, "long")[: len(result.token_ids)])
