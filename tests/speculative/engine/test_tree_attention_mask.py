"""Tree attention masks: each row sees the committed prefix and its ancestors, within its layer's window."""

import pytest
import torch
from transformers import Gemma3TextConfig, LlamaConfig

from speculative.engine.attention_mask import tree_attention_mask, visible_keys
from speculative.engine.target import UnsupportedModelError, layer_windows
from speculative.engine.tree import DraftTree


def _tree() -> DraftTree:
    tree = DraftTree(root_token=7)
    tree.add_path([1, 2], "a")
    tree.add_path([3], "b")
    return tree


def test_rows_see_the_whole_prefix_and_their_own_ancestors() -> None:
    tree = _tree()

    visible = visible_keys(4, tree.ancestor_mask(), tree.position_offsets() + 4, window=None)

    assert visible.tolist() == [
        [True] * 4 + [True, False, False, False],
        [True] * 4 + [True, True, False, False],
        [True] * 4 + [True, True, True, False],
        [True] * 4 + [True, False, False, True],
    ]


def test_a_sliding_window_hides_keys_that_many_positions_back_or_more() -> None:
    tree = _tree()  # positions 6, 7, 8, 7 after a 6-token prefix

    visible = visible_keys(6, tree.ancestor_mask(), tree.position_offsets() + 6, window=3)

    # row 2 (position 8) sees positions 6 < k ≤ 8: prefix none of 0..5, its ancestors at 6 and 7, itself
    assert visible[2].tolist() == [False] * 6 + [True, True, True, False]
    # row 0 (the root, position 6) sees prefix positions 4 and 5
    assert visible[0].tolist() == [False] * 4 + [True, True] + [True, False, False, False]


def test_the_mask_is_additive_in_the_models_dtype() -> None:
    tree = _tree()

    mask = tree_attention_mask(
        2, tree.ancestor_mask(), tree.position_offsets() + 2, {"full_attention": None}, torch.bfloat16
    )

    assert isinstance(mask, torch.Tensor)
    assert mask.shape == (1, 1, 4, 6) and mask.dtype == torch.bfloat16
    assert set(mask.unique().tolist()) == {0.0, torch.finfo(torch.bfloat16).min}
    assert mask[0, 0, 1, 3].item() == 0.0 and mask[0, 0, 1, 4].item() == torch.finfo(torch.bfloat16).min


def test_models_with_several_layer_types_get_one_mask_per_type() -> None:
    tree = _tree()
    windows = {"full_attention": None, "sliding_attention": 2}

    masks = tree_attention_mask(5, tree.ancestor_mask(), tree.position_offsets() + 5, windows, torch.float32)

    assert isinstance(masks, dict) and set(masks) == set(windows)
    assert not torch.equal(masks["full_attention"], masks["sliding_attention"])


def test_layer_windows_come_from_the_config() -> None:
    gemma = Gemma3TextConfig(num_hidden_layers=6, sliding_window=512)

    assert layer_windows(LlamaConfig()) == {"full_attention": None}
    assert layer_windows(gemma) == {"full_attention": None, "sliding_attention": 512}


def test_a_model_with_unmaskable_layers_is_refused_at_load() -> None:
    config = LlamaConfig(num_hidden_layers=2)
    config.layer_types = ["full_attention", "chunked_attention"]

    with pytest.raises(UnsupportedModelError, match="chunked_attention"):
        layer_windows(config)
