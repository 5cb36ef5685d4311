"""A pre-allocated KV cache for a batch of answers: one tensor allocated once, so a forward's shapes and addresses
never change and it can be replayed from a CUDA graph.

`KVPool` holds `[layers, 2 (keys, values), slots, KV heads, positions, head dim]`. Answer b of the batch lives in
slot b: its committed prefix fills its first `lengths[b]` positions. A tree forward writes every answer's tree rows
at the same positions after the longest prefix (`width`), where no committed key lives; `keep` then copies each
answer's accepted rows to the end of its own prefix in one indexed copy for all layers, and leaves the rest where it
is: the masks hide every position past an answer's length, so nothing needs clearing.

`PoolView` is what a forward passes as `past_key_values`: transformers' `Cache` API over the first B slots and the
first L positions of the pool, writing the new keys and values at the positions of a (static) index tensor.
"""

from collections.abc import Sequence

import torch
from transformers import Cache, PretrainedConfig
from transformers.cache_utils import CacheLayerMixin

from speculative.engine.kv_cache import KVCache, layer_tensors
from speculative.engine.upload import upload


class PoolLayer(CacheLayerMixin):
    """One attention layer's keys and values: views into the pool, written in place at `write_positions`."""

    is_compileable = True

    def __init__(self, keys: torch.Tensor, values: torch.Tensor, write_positions: torch.Tensor) -> None:
        super().__init__()
        self.keys, self.values = keys, values
        self.is_initialized = True
        self._write_positions = write_positions

    def lazy_initialization(self, key_states: torch.Tensor, value_states: torch.Tensor) -> None:
        """Nothing to allocate: the pool exists before any forward."""

    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, *args: object, **kwargs: object
    ) -> tuple[torch.Tensor, torch.Tensor]:
        assert self.keys is not None and self.values is not None
        self.keys.index_copy_(2, self._write_positions, key_states)
        self.values.index_copy_(2, self._write_positions, value_states)
        return self.keys, self.values

    def get_mask_sizes(self, query_length: int) -> tuple[int, int]:
        assert self.keys is not None
        return int(self.keys.shape[-2]), 0

    def get_seq_length(self) -> int:
        """Unused: every forward over the pool gives its positions and its mask."""
        return 0

    def get_max_length(self) -> int:
        assert self.keys is not None
        return int(self.keys.shape[-2])


class PoolView(Cache):
    """The pool's first `answers` slots and `positions` positions as a transformers cache."""

    def __init__(self, pool: "KVPool", answers: int, positions: int, write_positions: torch.Tensor) -> None:
        storage = pool.storage[:, :, :answers, :, :positions]
        super().__init__(
            layers=[PoolLayer(layer[0], layer[1], write_positions) for layer in storage.unbind(0)]
        )


class KVPool:
    """Keys and values of up to `slots` answers of up to `positions` positions each, on the target's device."""

    def __init__(
        self,
        config: PretrainedConfig,
        slots: int,
        positions: int,
        device: torch.device,
        dtype: torch.dtype,
    ) -> None:
        heads = int(config.num_key_value_heads)
        head_dim = int(getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads)
        self.slots = slots
        self.positions = positions
        self.storage = torch.zeros(
            int(config.num_hidden_layers), 2, slots, heads, positions, head_dim, device=device, dtype=dtype
        )

    @property
    def nbytes(self) -> int:
        return self.storage.numel() * self.storage.element_size()

    @torch.inference_mode()
    def load(self, slot: int, cache: KVCache) -> None:
        """Copy a prefilled answer's cache into `slot`."""
        length = len(cache)
        if length > self.positions:
            raise ValueError(f"a prefix of {length} positions does not fit the pool's {self.positions}")
        for layer, (keys, values) in enumerate(layer_tensors(cache.model_cache)):
            if keys.shape[1:2] + keys.shape[3:] != self.storage.shape[3:4] + self.storage.shape[5:]:
                raise ValueError(
                    f"layer {layer} holds keys of shape {tuple(keys.shape)}, the pool expects "
                    f"{self.storage.shape[3]} heads of {self.storage.shape[5]}"
                )
            self.storage[layer, 0, slot, :, :length] = keys[0]
            self.storage[layer, 1, slot, :, :length] = values[0]

    @torch.inference_mode()
    def shift_down(self, slot: int, used: int, positions: int) -> None:
        """Move slots `slot + 1 … used − 1` one slot down (over `slot`), their first `positions` positions."""
        if slot + 1 < used:
            moved = self.storage[:, :, slot + 1 : used, :, :positions].clone()
            self.storage[:, :, slot : used - 1, :, :positions] = moved

    @torch.inference_mode()
    def copy_rows(self, slots: Sequence[int], sources: Sequence[int], targets: Sequence[int]) -> None:
        """For each i: position `sources[i]` of slot `slots[i]` to its position `targets[i]`, every layer at once."""
        if not slots:
            return
        device = self.storage.device
        slot_index = upload(slots, device)
        source = upload(sources, device)
        target = upload(targets, device)
        self.storage[:, :, slot_index, :, target] = self.storage[:, :, slot_index, :, source]
