"""Lossless on the Qwen2 architecture with real weights: Qwen2.5-Coder-0.5B-Instruct, the small sibling of the 1.5B
the embedded mode can serve (attention biases, grouped KV heads, a 151,936-token vocabulary, a chat template).

The prompt is a Dutch RAG prompt in the product's template, wrapped in the model's chat template as the worker
wraps it. Every method runs on the 0.5B with the fixed tree (so drafts are verified and the tree masks used) and
with the adaptive policy (the EAGLE methods with a random head: its drafts are mostly rejected, which checks that
verifying them leaves the answer unchanged), compared in float32 with transformers' own greedy `generate()`. The
1.5B itself (an optional model, not in the suite's cache) is checked token for token by `research.engine_bench`
in float32 on real RAG prompts: its "exact match" column (docs/benchmarks.md).
"""

import json
from pathlib import Path

import pytest
from transformers import AutoTokenizer, PreTrainedTokenizerBase

from research.engine_bench.random_head import write_random_head
from speculative.budget.cost_model import CostModel, measure, model_identity
from speculative.build import build_generator
from speculative.engine.request import GenerationRequest
from speculative.engine.target import TargetModel
from speculative.settings import SpeculativeSettings, TreePolicy
from speculative.worker.encoding import chat_turn_ids
from tests.speculative.conftest import cached_model, greedy_reference

pytestmark = pytest.mark.slow

QWEN_05B = "Qwen/Qwen2.5-Coder-0.5B-Instruct"
PROMPT = json.loads((Path(__file__).parents[1] / "data" / "rag_prompts.json").read_text(encoding="utf-8"))[
    "long"
]
MAX_NEW_TOKENS = 32
COST_MODEL_ROWS = (1, 4, 16, 64)


class Loaded:
    """One Qwen model in float32, its chat-wrapped prompt and `generate()`'s answer to it."""

    def __init__(self, name: str, head_folder: Path) -> None:
        folder = cached_model(name)
        self.name = name
        self.target = TargetModel.load(folder, "cpu", "float32")
        self.tokenizer: PreTrainedTokenizerBase = AutoTokenizer.from_pretrained(folder)
        self.prompt_ids = chat_turn_ids(self.tokenizer, PROMPT)
        self.reference = tuple(greedy_reference(self.target.model, self.prompt_ids, MAX_NEW_TOKENS))
        self.head = write_random_head(self.target.config, head_folder, seed=0)
        self._cost_model: CostModel | None = None

    def cost_model(self) -> CostModel:
        if self._cost_model is None:
            identity = model_identity(self.target, self.name, "sdpa")
            self._cost_model = measure(self.target, identity, COST_MODEL_ROWS, prefill_tokens=128, repeats=1)
        return self._cost_model

    def answer(self, method: str, policy: TreePolicy) -> list[int]:
        settings = SpeculativeSettings(_env_file=None, eagle_head=str(self.head), tree_policy=policy)  # type: ignore[call-arg]
        cost_model = self.cost_model() if policy == "adaptive" else None
        generator = build_generator(settings, self.target, self.tokenizer, method, cost_model)
        return generator.generate(GenerationRequest(self.prompt_ids, MAX_NEW_TOKENS)).run().token_ids


@pytest.fixture(scope="module")
def qwen_05b(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    return Loaded(QWEN_05B, tmp_path_factory.mktemp("qwen-05b-head"))


@pytest.mark.parametrize(
    "method", ["vanilla", "casd", "casd_prompt", "casd+casd_prompt", "eagle2", "eagle2+casd"]
)
def test_every_method_equals_greedy_generate_on_qwen2(qwen_05b: Loaded, method: str) -> None:
    assert tuple(qwen_05b.answer(method, "fixed")) == qwen_05b.reference


@pytest.mark.parametrize("method", ["casd", "eagle2+casd"])
def test_the_adaptive_tree_budget_equals_greedy_generate_on_qwen2(qwen_05b: Loaded, method: str) -> None:
    assert tuple(qwen_05b.answer(method, "adaptive")) == qwen_05b.reference


def test_the_prompt_is_a_chat_turn_and_the_answer_is_not_empty(qwen_05b: Loaded) -> None:
    rendered = qwen_05b.tokenizer.decode(qwen_05b.prompt_ids)
    assert rendered.startswith("<|im_start|>system") and rendered.endswith("<|im_start|>assistant\n")
    assert qwen_05b.tokenizer.decode(qwen_05b.reference).strip()
