"""Compaction: after verification the cache must hold exactly the committed prefix and the accepted path."""

import pytest
import torch

from speculative.engine.kv_cache import KVCache
from speculative.engine.target import TargetModel
from speculative.engine.tree import DraftTree
from tests.speculative.conftest import FP32_PATHS

PROMPT = [11, 523, 88, 4120, 9, 77, 301, 5, 18000, 42]


def _next_logits(target: TargetModel, cache: KVCache, root: int) -> torch.Tensor:
    """What the target predicts after its cache and `root`: a one-row verification forward."""
    return target.verify(DraftTree(root), cache).logits[0]


def _tree_with_accepted_path_in_its_second_branch() -> tuple[DraftTree, list[int]]:
    """root 7 → 100 → 101 (rejected), root 7 → 200 → 201 → 202 (accepted up to 201): rows 3, 4 are kept."""
    tree = DraftTree(root_token=7)
    tree.add_path([100, 101], "a")
    accepted = tree.add_path([200, 201, 202], "b")[:2]
    return tree, accepted


def test_the_compacted_cache_continues_exactly_like_running_the_accepted_path(
    tiny_llama_target: TargetModel,
) -> None:
    tree, accepted = _tree_with_accepted_path_in_its_second_branch()
    cache = KVCache()
    tiny_llama_target.prefill(PROMPT, cache)
    tiny_llama_target.verify(tree, cache)
    direct = KVCache()
    tiny_llama_target.prefill([*PROMPT, 7, 200, 201], direct)

    cache.keep(len(PROMPT), [0, *accepted])

    assert len(cache) == len(direct) == len(PROMPT) + 3
    torch.testing.assert_close(
        _next_logits(tiny_llama_target, cache, 9),
        _next_logits(tiny_llama_target, direct, 9),
        **FP32_PATHS,
    )


def test_keeping_the_wrong_rows_changes_what_the_next_forward_sees(tiny_llama_target: TargetModel) -> None:
    tree, _ = _tree_with_accepted_path_in_its_second_branch()
    cache = KVCache()
    tiny_llama_target.prefill(PROMPT, cache)
    tiny_llama_target.verify(tree, cache)
    direct = KVCache()
    tiny_llama_target.prefill([*PROMPT, 7, 200, 201], direct)

    cache.keep(len(PROMPT), [0, 1, 2])  # the rejected branch 100, 101 instead of 200, 201

    assert not torch.allclose(
        _next_logits(tiny_llama_target, cache, 9), _next_logits(tiny_llama_target, direct, 9)
    )


def test_a_contiguous_accepted_prefix_is_kept_by_cropping_alone(tiny_llama_target: TargetModel) -> None:
    tree = DraftTree(root_token=7)
    tree.add_path([100, 101, 102], "a")
    cache = KVCache()
    tiny_llama_target.prefill(PROMPT, cache)
    tiny_llama_target.verify(tree, cache)
    direct = KVCache()
    tiny_llama_target.prefill([*PROMPT, 7, 100], direct)

    cache.keep(len(PROMPT), [0, 1])

    torch.testing.assert_close(
        _next_logits(tiny_llama_target, cache, 9),
        _next_logits(tiny_llama_target, direct, 9),
        **FP32_PATHS,
    )


@pytest.mark.parametrize("rows", [[1, 0], [0, 0], [0, 9]])
def test_rows_must_be_increasing_offsets_inside_the_tree(
    tiny_llama_target: TargetModel, rows: list[int]
) -> None:
    cache = KVCache()
    tiny_llama_target.prefill(PROMPT, cache)
    tiny_llama_target.verify(DraftTree(7), cache)

    with pytest.raises(ValueError, match="increasing offsets"):
        cache.keep(len(PROMPT), rows)
