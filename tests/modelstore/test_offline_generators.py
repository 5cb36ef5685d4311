"""The provisioned causal LMs load offline from the cache and decode greedily like `generate` does.

Gemma 3 270M is the multilingual default generator; SmolLM2-135M-Instruct is the Llama-architecture
model with real weights. Device and dtype come from the worker settings.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase

from modelstore.registry import GEMMA_3_270M, SMOLLM2_135M_INSTRUCT
from speculative.settings import SpeculativeSettings

pytestmark = pytest.mark.slow

NEW_TOKENS = 8
DUTCH_WORDS = {
    "de",
    "het",
    "een",
    "van",
    "en",
    "is",
    "dat",
    "die",
    "te",
    "om",
    "voor",
    "met",
    "zijn",
    "niet",
    "wordt",
}


@dataclass(frozen=True)
class LoadedLM:
    name: str
    folder: str
    model: PreTrainedModel
    tokenizer: PreTrainedTokenizerBase

    def encode(self, text: str) -> torch.Tensor:
        return self.tokenizer(text, return_tensors="pt").input_ids.to(self.model.device)


def load(name: str, folder: str) -> LoadedLM:
    settings = SpeculativeSettings()
    model = AutoModelForCausalLM.from_pretrained(
        folder, dtype=getattr(torch, settings.dtype), local_files_only=True
    )
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    return LoadedLM(name, folder, model.to(settings.device).eval(), tokenizer)


@pytest.fixture(scope="module")
def loaded(provisioned: Callable[[str], str]) -> Callable[[str], LoadedLM]:
    """Each model is loaded once per module, whichever fixture asks first."""
    models: dict[str, LoadedLM] = {}

    def get(name: str) -> LoadedLM:
        if name not in models:
            models[name] = load(name, provisioned(name))
        return models[name]

    return get


@pytest.fixture(scope="module", params=[GEMMA_3_270M, SMOLLM2_135M_INSTRUCT])
def lm(request: pytest.FixtureRequest, loaded: Callable[[str], LoadedLM]) -> LoadedLM:
    return loaded(request.param)


@pytest.fixture(scope="module")
def gemma(loaded: Callable[[str], LoadedLM]) -> LoadedLM:
    return loaded(GEMMA_3_270M)


def greedy_by_hand(model: PreTrainedModel, input_ids: torch.Tensor, steps: int) -> torch.Tensor:
    """Plain greedy decoding: the full sequence through the model, argmax of the last logits, append."""
    with torch.no_grad():
        for _ in range(steps):
            next_token = model(input_ids=input_ids).logits[:, -1, :].argmax(dim=-1, keepdim=True)
            input_ids = torch.cat([input_ids, next_token], dim=-1)
    return input_ids


def test_the_model_resolves_to_its_cache_folder(lm: LoadedLM, model_cache: Path) -> None:
    assert Path(lm.folder) == model_cache / lm.name.replace("/", "--")


def test_manual_greedy_decoding_equals_generate(lm: LoadedLM) -> None:
    input_ids = lm.encode("Het ziekenhuis heeft een nieuwe procedure voor")

    by_hand = greedy_by_hand(lm.model, input_ids, NEW_TOKENS)
    with torch.no_grad():
        generated = lm.model.generate(
            input_ids=input_ids,
            attention_mask=torch.ones_like(input_ids),
            do_sample=False,
            max_new_tokens=NEW_TOKENS,
            pad_token_id=lm.tokenizer.pad_token_id,
        )

    assert generated.shape[1] == input_ids.shape[1] + NEW_TOKENS
    assert by_hand.tolist() == generated.tolist()


def test_the_architecture_is_the_expected_one(lm: LoadedLM) -> None:
    expected = {GEMMA_3_270M: "Gemma3ForCausalLM", SMOLLM2_135M_INSTRUCT: "LlamaForCausalLM"}
    assert type(lm.model).__name__ == expected[lm.name]


def test_gemma_continues_a_dutch_prompt_in_dutch(gemma: LoadedLM) -> None:
    input_ids = gemma.encode("Handhygiëne is belangrijk in het ziekenhuis omdat")

    with torch.no_grad():
        output = gemma.model.generate(
            input_ids=input_ids, attention_mask=torch.ones_like(input_ids), do_sample=False, max_new_tokens=20
        )
    continuation = gemma.tokenizer.decode(output[0, input_ids.shape[1] :], skip_special_tokens=True)

    words = re.findall(r"\w+", continuation.lower())
    assert len([word for word in words if word in DUTCH_WORDS]) >= 4, continuation


def test_smollm2_keeps_its_chatml_template(provisioned: Callable[[str], str]) -> None:
    tokenizer = AutoTokenizer.from_pretrained(provisioned(SMOLLM2_135M_INSTRUCT), local_files_only=True)

    prompt = tokenizer.apply_chat_template(
        [{"role": "user", "content": "Wat is handhygiëne?"}], tokenize=False, add_generation_prompt=True
    )

    assert "<|im_start|>user\nWat is handhygiëne?<|im_end|>" in prompt
    assert prompt.endswith("<|im_start|>assistant\n")
