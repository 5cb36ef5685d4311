"""Additive 4D attention masks for a tree forward, one per attention layer type.

transformers passes a 4D float mask through to the attention kernel unchanged, so tree attention needs no forked
modeling code: each tree row sees the committed prefix and its own ancestors. A float mask (0 visible, the
dtype's minimum hidden) is required: a bool mask is silently wrong under `eager`. Models whose layers differ
(Gemma 3: sliding-window and full layers) take a dict keyed by layer type; the window applies by position,
a key being visible iff `query position − key position < window`.
"""

from collections.abc import Mapping

import torch

LayerMask = torch.Tensor | dict[str, torch.Tensor]


def visible_keys(
    past_length: int, ancestors: torch.Tensor, positions: torch.Tensor, window: int | None
) -> torch.Tensor:
    """Bool `[rows, past_length + rows]`: which keys each tree row may attend to."""
    rows = ancestors.shape[0]
    prefix = torch.ones(rows, past_length, dtype=torch.bool, device=ancestors.device)
    visible = torch.cat([prefix, ancestors], dim=1)
    if window is not None:
        key_positions = torch.cat([torch.arange(past_length, device=positions.device), positions])
        visible &= (positions[:, None] - key_positions[None, :]) < window
    return visible


def additive_mask(visible: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Float in the model's dtype, 0 where visible, the dtype's minimum elsewhere: `[1, 1, rows, keys]` for a
    `[rows, keys]` `visible`, `[answers, 1, rows, keys]` for an `[answers, rows, keys]` one."""
    mask = torch.zeros(visible.shape, dtype=dtype, device=visible.device)
    mask.masked_fill_(~visible, torch.finfo(dtype).min)
    return mask[None, None] if visible.dim() == 2 else mask[:, None]


def tree_attention_mask(
    past_length: int,
    ancestors: torch.Tensor,
    positions: torch.Tensor,
    layer_windows: Mapping[str, int | None],
    dtype: torch.dtype,
) -> LayerMask:
    """The mask argument for a tree forward: one tensor, or a dict when the model has several layer types."""
    masks = {
        layer_type: additive_mask(visible_keys(past_length, ancestors, positions, window), dtype)
        for layer_type, window in layer_windows.items()
    }
    if len(masks) == 1:
        return next(iter(masks.values()))
    return masks


def batch_tree_attention_mask(
    lengths: torch.Tensor,
    width: torch.Tensor | int,
    ancestors: torch.Tensor,
    positions: torch.Tensor,
    keys: int,
    layer_windows: Mapping[str, int | None],
    dtype: torch.dtype,
) -> LayerMask:
    """The mask argument for a batched tree forward (a `TreeBatch` after `width` cached positions, over `keys`
    positions): one `[answers, 1, rows, keys]` tensor, or a dict when the model has several layer types."""
    masks = {
        layer_type: batch_tree_mask(lengths, width, ancestors, positions, keys, window, dtype)
        for layer_type, window in layer_windows.items()
    }
    if len(masks) == 1:
        return next(iter(masks.values()))
    return masks


def batch_tree_mask(
    lengths: torch.Tensor,
    width: torch.Tensor | int,
    ancestors: torch.Tensor,
    positions: torch.Tensor,
    keys: int,
    window: int | None,
    dtype: torch.dtype,
) -> torch.Tensor:
    """One layer type's mask of a batched tree forward, `[answers, 1, rows, keys]`, built with tensor operations
    only (on the inputs' device, no host round trip: a CUDA graph can compute it).

    Answer b's prefix is its first `lengths[b]` positions; the trees' rows were written at positions `width …
    width + rows − 1` (`width` may be a 0-d tensor); `ancestors[b]` (`[rows, rows]`, every row its own ancestor, a
    padding row only itself) and `positions[b]` give answer b's tree. A tree row sees its answer's prefix and its
    ancestors (within the sliding `window`, by position); a padding row sees only itself; every other key is
    hidden."""
    rows = ancestors.shape[-1]
    slots = torch.arange(keys, device=ancestors.device)
    tree_row = ancestors[:, :, :1]  # [answers, rows, 1]: a tree row descends from the root, a padding row not
    in_prefix = (slots[None, :] < lengths[:, None])[:, None, :] & tree_row  # [answers, rows, keys]
    tree_column = slots - width
    in_tree = (tree_column >= 0) & (tree_column < rows)
    column = tree_column.clamp(0, rows - 1)
    visible = in_prefix | (ancestors[:, :, column] & in_tree)
    if window is not None:
        tree_positions = positions[:, column]  # [answers, keys]
        key_positions = torch.where(in_tree[None, :], tree_positions, slots[None, :])
        visible &= (positions[:, :, None] - key_positions[:, None, :]) < window
    return additive_mask(visible, dtype)
