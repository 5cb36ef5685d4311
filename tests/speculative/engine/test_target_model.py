"""The target runner: logits only for the rows that need them, post-norm features for every token."""

import pytest
import torch

from speculative.engine.kv_cache import KVCache
from speculative.engine.target import TargetModel, UnsupportedModelError
from speculative.engine.tree import DraftTree
from tests.speculative.conftest import FP32_PATHS

PROMPT = [11, 523, 88, 4120, 9, 77, 301, 5]


def test_prefill_gives_the_last_rows_logits_and_every_rows_final_features(
    tiny_llama_target: TargetModel,
) -> None:
    model = tiny_llama_target.model
    with torch.inference_mode():
        plain = model(torch.tensor([PROMPT]), output_hidden_states=True)

    output = tiny_llama_target.prefill(PROMPT, KVCache())

    assert output.logits.shape == (1, model.config.vocab_size)
    torch.testing.assert_close(output.logits[0], plain.logits[0, -1], **FP32_PATHS)
    torch.testing.assert_close(output.hidden_states, plain.hidden_states[-1][0], **FP32_PATHS)


def test_a_chain_verified_as_a_tree_scores_like_running_it_in_the_prompt(
    tiny_llama_target: TargetModel,
) -> None:
    cache = KVCache()
    tiny_llama_target.prefill(PROMPT[:5], cache)
    chain = DraftTree(PROMPT[5])
    chain.add_path(PROMPT[6:], "chain")
    with torch.inference_mode():
        plain = tiny_llama_target.model(torch.tensor([PROMPT])).logits[0, 5:]

    verified = tiny_llama_target.verify(chain, cache)

    torch.testing.assert_close(verified.logits, plain, **FP32_PATHS)
    assert len(cache) == len(PROMPT)


def test_sibling_branches_do_not_see_each_other(tiny_llama_target: TargetModel) -> None:
    cache = KVCache()
    tiny_llama_target.prefill(PROMPT, cache)
    tree = DraftTree(7)
    tree.add_path([100, 101], "a")
    tree.add_path([200, 201], "b")
    alone = KVCache()
    tiny_llama_target.prefill(PROMPT, alone)
    only_b = DraftTree(7)
    only_b.add_path([200, 201], "b")

    both = tiny_llama_target.verify(tree, cache).logits
    single = tiny_llama_target.verify(only_b, alone).logits

    torch.testing.assert_close(both[[0, 3, 4]], single, **FP32_PATHS)


def test_prefill_needs_an_empty_cache(tiny_llama_target: TargetModel) -> None:
    cache = KVCache()
    tiny_llama_target.prefill(PROMPT, cache)

    with pytest.raises(ValueError, match="empty cache"):
        tiny_llama_target.prefill(PROMPT, cache)


def test_an_attention_kernel_that_ignores_tree_masks_is_refused(tiny_llama_target: TargetModel) -> None:
    model = tiny_llama_target.model
    kernel = model.config._attn_implementation
    model.config._attn_implementation = "flash_attention_2"
    try:
        with pytest.raises(UnsupportedModelError, match="'flash_attention_2' ignores tree masks"):
            TargetModel(model)
    finally:
        model.config._attn_implementation = kernel


def test_the_context_length_comes_from_the_config(tiny_llama_target: TargetModel) -> None:
    assert tiny_llama_target.context_length == 2048
    assert tiny_llama_target.hidden_size == 64
