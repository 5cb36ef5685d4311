"""The target model runner: a stock Hugging Face causal LM driven for prefill and tree verification.

The base model runs without its lm_head (`last_hidden_state` is post final norm, the feature EAGLE consumes) and
the lm_head is applied only to the rows whose logits are needed: the last prompt row after prefill, every tree
row during verification. With Gemma's 262k-token vocabulary this halves the cost of a short forward. Attention is
forced to `sdpa` or `eager`, the kernels that honour a custom 4D mask.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, cast

import torch
from transformers import AutoModelForCausalLM, Cache, PretrainedConfig, PreTrainedModel

from modelstore.device import torch_dtype
from speculative.engine.attention_mask import LayerMask, batch_tree_attention_mask, tree_attention_mask
from speculative.engine.kv_cache import BatchKVCache, KVCache
from speculative.engine.tree import DraftTree
from speculative.engine.tree_batch import TreeBatch
from speculative.engine.upload import upload

AttentionKernel = Literal["sdpa", "eager"]
SUPPORTED_LAYER_TYPES = ("full_attention", "sliding_attention")


class UnsupportedModelError(ValueError):
    """The model cannot be verified with tree masks (e.g. it has attention layers we do not mask)."""


@dataclass(frozen=True)
class TargetOutput:
    """Logits `[rows, vocab]` of the requested rows and the features `[tokens, hidden]` of every input token."""

    logits: torch.Tensor
    hidden_states: torch.Tensor


def layer_windows(config: PretrainedConfig) -> dict[str, int | None]:
    """Each attention layer type of the model and its sliding window (None: full attention)."""
    sliding_window = getattr(config, "sliding_window", None)
    layer_types = getattr(config, "layer_types", None) or (
        ["sliding_attention" if sliding_window else "full_attention"] * config.num_hidden_layers
    )
    unsupported = sorted(set(layer_types) - set(SUPPORTED_LAYER_TYPES))
    if unsupported:
        raise UnsupportedModelError(
            f"layer types {unsupported} are not supported by tree verification; "
            f"supported: {', '.join(SUPPORTED_LAYER_TYPES)}"
        )
    return {
        kind: sliding_window if kind == "sliding_attention" else None for kind in sorted(set(layer_types))
    }


class TargetModel:
    """Runs prefill and tree-verification forwards of one causal LM on its device and dtype."""

    def __init__(self, model: PreTrainedModel) -> None:
        kernel = model.config._attn_implementation
        if kernel not in ("sdpa", "eager"):
            raise UnsupportedModelError(
                f"attention {kernel!r} ignores tree masks; load the model with attn_implementation sdpa or eager"
            )
        self.model = model.eval()
        self.config = model.config.get_text_config(decoder=True)
        self.layer_windows = layer_windows(self.config)
        self._decoder = model.get_decoder()
        self._lm_head = cast(torch.nn.Module, model.get_output_embeddings())
        self._softcap: float | None = getattr(self.config, "final_logit_softcapping", None)

    @classmethod
    def load(
        cls, folder: str | Path, device: str, dtype: str, attention: AttentionKernel = "sdpa"
    ) -> "TargetModel":
        """Load a causal LM from a local folder onto `device` in `dtype` (names as in the settings)."""
        model = AutoModelForCausalLM.from_pretrained(
            folder, dtype=torch_dtype(dtype), attn_implementation=attention, device_map=device
        )
        return cls(model)

    @property
    def device(self) -> torch.device:
        return self.model.device

    @property
    def dtype(self) -> torch.dtype:
        return self.model.dtype

    @property
    def context_length(self) -> int:
        """The most positions the model was built for (prompt and answer together)."""
        return int(self.config.max_position_embeddings)

    @property
    def hidden_size(self) -> int:
        return int(self.config.hidden_size)

    @torch.inference_mode()
    def prefill(self, token_ids: Sequence[int], cache: KVCache) -> TargetOutput:
        """Run the prompt into an empty cache; logits of the last prompt row only."""
        if len(cache):
            raise ValueError("prefill needs an empty cache")
        input_ids = upload(list(token_ids), self.device)[None]
        positions = torch.arange(len(token_ids), device=self.device)[None]
        hidden = self._decode(input_ids, positions, None, cache)
        return TargetOutput(logits=self.logits(hidden[-1:]), hidden_states=hidden)

    @torch.inference_mode()
    def verify(self, tree: DraftTree, cache: KVCache) -> TargetOutput:
        """Run the root and every drafted node after the cached prefix, each seeing only its ancestors."""
        past_length = len(cache)
        input_ids = upload(tree.tokens, self.device)[None]
        positions = upload(tree.position_offsets(), self.device) + past_length
        ancestors = upload(tree.ancestor_mask(), self.device)
        mask = tree_attention_mask(past_length, ancestors, positions, self.layer_windows, self.dtype)
        hidden = self._decode(input_ids, positions[None], mask, cache)
        return TargetOutput(logits=self.logits(hidden), hidden_states=hidden)

    @torch.inference_mode()
    def verify_batch(self, trees: Sequence[DraftTree], cache: BatchKVCache) -> list[TargetOutput]:
        """`verify` for several answers in one forward: answer b's tree after its own prefix in row b of `cache`
        (trees padded to the largest; a padding row's output is dropped)."""
        if len(trees) != len(cache):
            raise ValueError(f"{len(trees)} trees for the {len(cache)} answers of the batch")
        width, rows = cache.width, max(tree.num_rows for tree in trees)
        batch = TreeBatch.of(trees, cache.lengths, len(trees), rows).to(self.device)
        mask = batch_tree_attention_mask(
            batch.lengths,
            width,
            batch.ancestors,
            batch.positions,
            width + rows,
            self.layer_windows,
            self.dtype,
        )
        hidden = self.decode_rows(batch.input_ids, batch.positions, mask, cache.model_cache)
        features = [hidden[answer, : tree.num_rows] for answer, tree in enumerate(trees)]
        logits = self.logits(torch.cat(features)).split([tree.num_rows for tree in trees])
        return [
            TargetOutput(logits=rows_logits, hidden_states=rows)
            for rows_logits, rows in zip(logits, features, strict=True)
        ]

    def decode_rows(
        self, input_ids: torch.Tensor, positions: torch.Tensor, mask: LayerMask | None, cache: Cache
    ) -> torch.Tensor:
        """The decoder's features `[answers, rows, hidden]` of `input_ids` at `positions` after what `cache` holds,
        each row attending as `mask` says; the new keys and values go into `cache`."""
        output = self._decoder(
            input_ids=input_ids,
            attention_mask=mask,
            position_ids=positions,
            past_key_values=cache,
            use_cache=True,
        )
        return cast(torch.Tensor, output.last_hidden_state)

    def logits(self, hidden_states: torch.Tensor) -> torch.Tensor:
        """The lm_head (and the model's final logit soft-capping, if any) on the given feature rows."""
        logits = self._lm_head(hidden_states)
        if self._softcap:
            logits = torch.tanh(logits / self._softcap) * self._softcap
        return cast(torch.Tensor, logits)

    def _decode(
        self, input_ids: torch.Tensor, positions: torch.Tensor, mask: LayerMask | None, cache: KVCache
    ) -> torch.Tensor:
        return self.decode_rows(input_ids, positions, mask, cache.model_cache)[0]
