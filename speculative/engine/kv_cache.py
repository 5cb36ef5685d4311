"""The one adapter over transformers' KV cache API; a cache change in a transformers release breaks only this file.

Holds a `DynamicCache` created without a config, so every layer (sliding-window ones included) keeps all rows
and the tree masks can address keys by absolute position. After a tree forward, `keep` compacts the cache to the
committed prefix plus the accepted rows: the accepted rows are copied to the end of the prefix and the rest is
cropped. Positions need no fix-up, because each tree node was run at the position it has once accepted.

`BatchKVCache` holds the caches of several answers as the rows of one batched `DynamicCache`: answer b's prefix
fills its first `lengths[b]` positions, the rest up to the longest one is padding no query sees (the tree masks
hide it). A batched forward appends every answer's tree rows after the longest prefix; `keep` then copies each
answer's accepted rows to the end of its own prefix. Answers join (their prefilled cache padded in) and leave (their
row dropped) between steps.
"""

from collections.abc import Sequence

import torch
from transformers import DynamicCache
from transformers.cache_utils import DynamicLayer

from speculative.engine.upload import upload


class KVCache:
    """The target's KV cache for one request."""

    def __init__(self) -> None:
        self._cache = DynamicCache()

    @property
    def model_cache(self) -> DynamicCache:
        """The object to pass as `past_key_values`."""
        return self._cache

    def __len__(self) -> int:
        return int(self._cache.get_seq_length())

    def clear(self) -> None:
        """Drop every position (a batch has taken them over)."""
        self._cache = DynamicCache()

    @torch.inference_mode()
    def keep(self, start: int, rows: Sequence[int]) -> None:
        """Keep the first `start` positions and then rows `start + r` for r in `rows` (increasing); drop the rest."""
        if list(rows) != sorted(set(rows)) or (rows and (rows[0] < 0 or start + rows[-1] >= len(self))):
            raise ValueError(f"rows must be increasing offsets below {len(self) - start}, got {list(rows)}")
        if list(rows) != list(range(len(rows))):
            self._move_rows(start, rows)
        surplus = len(self) - start - len(rows)
        if surplus:
            self._cache.crop(-surplus)

    def _move_rows(self, start: int, rows: Sequence[int]) -> None:
        """Copy the kept rows to `start, start + 1, …` in every layer."""
        end = start + len(rows)
        for layer in self._cache.layers:
            if not isinstance(layer, DynamicLayer):
                raise TypeError(
                    f"cannot compact a {type(layer).__name__}; tree verification needs DynamicLayer"
                )
            if layer.keys is None or layer.values is None or not layer.is_initialized:
                continue
            source = upload(rows, layer.keys.device) + start
            layer.keys[..., start:end, :] = layer.keys.index_select(-2, source)
            layer.values[..., start:end, :] = layer.values.index_select(-2, source)


class BatchKVCache:
    """The target's KV caches of the answers decoded together, one batch row each (in the order they joined)."""

    def __init__(self) -> None:
        self._cache = DynamicCache()
        self.lengths: list[int] = []  # committed positions of each answer

    @property
    def model_cache(self) -> DynamicCache:
        """The object to pass as `past_key_values`."""
        return self._cache

    @property
    def width(self) -> int:
        """Positions held per row: the longest answer's, plus any tree rows of a forward not yet compacted."""
        return int(self._cache.get_seq_length()) if self.lengths else 0

    def __len__(self) -> int:
        return len(self.lengths)

    @torch.inference_mode()
    def add(self, cache: KVCache) -> None:
        """Take over a prefilled answer's cache as the last row."""
        joining = layer_tensors(cache.model_cache)
        if not self.lengths:
            self._rebuild(joining)
        else:
            width = max(self.width, len(cache))
            self._rebuild(
                [
                    tuple(
                        torch.cat([_pad(mine, width), _pad(new, width)])
                        for mine, new in zip(pair, other, strict=True)
                    )
                    for pair, other in zip(layer_tensors(self._cache), joining, strict=True)
                ]
            )
        self.lengths.append(len(cache))

    @torch.inference_mode()
    def remove(self, index: int) -> None:
        """Drop answer `index`'s row; the rows after it move up one."""
        del self.lengths[index]
        if not self.lengths:
            self._cache = DynamicCache()
            return
        kept = torch.tensor([row for row in range(len(self.lengths) + 1) if row != index])
        width = max(self.lengths)
        self._rebuild(
            [
                tuple(tensor.index_select(0, upload(kept, tensor.device))[..., :width, :] for tensor in pair)
                for pair in layer_tensors(self._cache)
            ]
        )

    @torch.inference_mode()
    def keep(self, start: int, rows: Sequence[Sequence[int]]) -> None:
        """After a forward whose tree rows begin at position `start`: answer b keeps rows `start + r` for r in
        `rows[b]` (increasing), copied to the end of its own prefix; the other tree rows are dropped."""
        if len(rows) != len(self.lengths) or start != max(self.lengths):
            raise ValueError(
                f"need the kept rows of each of the {len(self.lengths)} answers after position {start}"
            )
        for tensors in layer_tensors(self._cache):
            for answer, (length, kept) in enumerate(zip(self.lengths, rows, strict=True)):
                if not kept or (length == start and list(kept) == list(range(len(kept)))):
                    continue
                source = upload(kept, tensors[0].device) + start
                for tensor in tensors:
                    tensor[answer, :, length : length + len(kept)] = tensor[answer, :, source]
        self.lengths = [length + len(kept) for length, kept in zip(self.lengths, rows, strict=True)]
        surplus = self.width - max(self.lengths)
        if surplus:
            self._cache.crop(-surplus)

    def _rebuild(self, tensors: Sequence[tuple[torch.Tensor, ...]]) -> None:
        self._cache = DynamicCache(ddp_cache_data=[(keys, values) for keys, values in tensors])


def layer_tensors(cache: DynamicCache) -> list[tuple[torch.Tensor, torch.Tensor]]:
    tensors = []
    for layer in cache.layers:
        if not isinstance(layer, DynamicLayer) or layer.keys is None or layer.values is None:
            raise TypeError(
                f"cannot batch a {type(layer).__name__} layer; tree verification needs DynamicLayer"
            )
        tensors.append((layer.keys, layer.values))
    return tensors


def _pad(tensor: torch.Tensor, width: int) -> torch.Tensor:
    """`[batch, heads, positions, dim]` padded with zeros to `width` positions."""
    return torch.nn.functional.pad(tensor, (0, 0, 0, width - tensor.shape[-2]))
