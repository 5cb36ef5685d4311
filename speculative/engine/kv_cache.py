"""The one adapter over transformers' KV cache API; a cache change in a transformers release breaks only this file.

Holds a `DynamicCache` created without a config, so every layer (sliding-window ones included) keeps all rows
and the tree masks can address keys by absolute position. After a tree forward, `keep` compacts the cache to the
committed prefix plus the accepted rows: the accepted rows are copied to the end of the prefix and the rest is
cropped. Positions need no fix-up, because each tree node was run at the position it has once accepted.
"""

from collections.abc import Sequence

import torch
from transformers import DynamicCache
from transformers.cache_utils import DynamicLayer


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
            source = torch.tensor(rows, device=layer.keys.device) + start
            layer.keys[..., start:end, :] = layer.keys.index_select(-2, source)
            layer.values[..., start:end, :] = layer.values.index_select(-2, source)
