"""Fixtures of the engine tests: tiny random models built in-process, real models from the offline cache.

The tiny models run in fp32 (where greedy speculative decoding must equal `generate()` token for token) on the
device of the settings' `DEVICE`: the CPU unless set, `DEVICE=cuda` in the GPU check (`python -m
research.gpu_check`), which runs the same lossless tests there.
"""

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol, cast

import pytest
import torch
from torch._dynamo.utils import counters
from transformers import (
    AutoTokenizer,
    Gemma3ForCausalLM,
    Gemma3TextConfig,
    LlamaConfig,
    LlamaForCausalLM,
    PreTrainedModel,
    PreTrainedTokenizerBase,
)

from modelstore import resolve_model
from speculative.engine.target import TargetModel
from speculative.settings import SpeculativeSettings

REPO_ROOT = Path(__file__).resolve().parents[2]
SMOLLM2 = "HuggingFaceTB/SmolLM2-135M-Instruct"
GEMMA3 = "google/gemma-3-270m"
TINY_VOCAB = 49_152  # SmolLM2's vocabulary, so the tiny models can share its tokenizer
# The same fp32 logits computed two ways (cached prefix + tree mask vs one pass) differ by reduction order: up to
# 1.4e-5 seen on a busy 2-core machine. A wrong mask, position or cache row moves them by orders of magnitude more.
FP32_PATHS = {"rtol": 1e-4, "atol": 1e-4}
TEST_DEVICE = torch.device(SpeculativeSettings(_env_file=None).device)


class ReferenceGreedy(Protocol):
    def __call__(
        self,
        model: PreTrainedModel,
        prompt_ids: Sequence[int],
        max_new_tokens: int,
        stop_token_ids: frozenset[int] | None = None,
    ) -> list[int]: ...


def cached_model(name: str) -> str:
    """The cache folder of `name`, or skip: these tests need the real weights, which `make models` provides."""
    cache = Path(os.environ.get("MODEL_CACHE", REPO_ROOT / ".models"))
    folder = resolve_model(name, cache)
    if not Path(folder).is_dir():
        pytest.skip(f"{name} is not in the model cache {cache}: run `make models`")
    return folder


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread() -> Iterator[None]:
    """One intra-op thread: the tiny forwards gain nothing from more, and spinning threads on a busy 2-core
    machine made `generate()` up to 20× slower."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def compilations() -> int:
    """The graphs torch.compile has compiled in this process so far (the backend's real compilations)."""
    return int(counters["stats"]["unique_graphs"])


@contextmanager
def compiling_from_nothing() -> Iterator[None]:
    """No program compiled by an earlier test: what compiles inside is counted from nothing, and counts toward
    torch's limit of programs per function (8) from nothing."""
    torch._dynamo.reset()
    try:
        yield
    finally:
        torch._dynamo.reset()


@pytest.fixture
def fresh_compiler() -> Iterator[None]:
    with compiling_from_nothing():
        yield


@pytest.fixture(scope="session")
def smollm2_tokenizer() -> PreTrainedTokenizerBase:
    return AutoTokenizer.from_pretrained(cached_model(SMOLLM2))


def tiny_llama(seed: int, initializer_range: float = 0.3, vocab_size: int = TINY_VOCAB) -> LlamaForCausalLM:
    """A 3M-parameter random Llama on TEST_DEVICE; a wide initialisation gives varied (not constant) greedy output.

    The weights are drawn on the CPU and then moved, so a seed gives the same model on every device."""
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=vocab_size,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        tie_word_embeddings=True,
        initializer_range=initializer_range,
    )
    return LlamaForCausalLM(config).to(TEST_DEVICE).eval()


def tiny_gemma3(seed: int, sliding_window: int = 16) -> Gemma3ForCausalLM:
    """A random Gemma 3 on TEST_DEVICE with sliding-window and full layers and a window short enough for quick
    prompts."""
    torch.manual_seed(seed)
    config = Gemma3TextConfig(
        vocab_size=TINY_VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=4,
        num_attention_heads=4,
        num_key_value_heads=1,
        head_dim=16,
        sliding_window=sliding_window,
        layer_types=["sliding_attention", "full_attention", "sliding_attention", "full_attention"],
        max_position_embeddings=2048,
        initializer_range=0.3,
    )
    return Gemma3ForCausalLM(config).to(TEST_DEVICE).eval()


@pytest.fixture(scope="session")
def make_tiny_llama() -> Callable[[int, float], LlamaForCausalLM]:
    return tiny_llama


@pytest.fixture(scope="session")
def make_tiny_gemma3() -> Callable[[int, int], Gemma3ForCausalLM]:
    return tiny_gemma3


@pytest.fixture(scope="module")
def tiny_llama_target() -> TargetModel:
    return TargetModel(tiny_llama(seed=0))


def greedy_reference(
    model: PreTrainedModel,
    prompt_ids: Sequence[int],
    max_new_tokens: int,
    stop_token_ids: frozenset[int] | None = None,
) -> list[int]:
    """What plain transformers greedy decoding produces: the ids after the prompt, the stop token included.

    Without `stop_token_ids` transformers stops where it stops by itself, at the EOS ids of the model's generation
    config: the reference never borrows the engine's stop handling, so a stop-handling bug shows as a mismatch.
    """
    input_ids = torch.tensor([list(prompt_ids)], device=model.device)
    generate = cast(Callable[..., torch.Tensor], model.generate)
    stops = {} if stop_token_ids is None else {"eos_token_id": sorted(stop_token_ids)}
    with torch.inference_mode():
        output = generate(
            input_ids,
            attention_mask=torch.ones_like(input_ids),
            max_new_tokens=max_new_tokens,
            do_sample=False,
            pad_token_id=0,
            **stops,
        )
    return [int(token) for token in output[0, len(prompt_ids) :]]


@pytest.fixture(scope="session")
def reference_greedy() -> ReferenceGreedy:
    return greedy_reference
