"""The EAGLE-1/2 draft head: predicts the target's next feature from its current feature and the next token.

`fc` maps `[embedding of x_{t+1} ; target feature f_t]` (2H) to H, then one Llama decoder layer runs without
the input RMSNorm of layer 0 and without a final norm; the result is the predicted feature f_{t+1}, which the
target's own lm_head turns into logits. The head has no embeddings or lm_head of its own: they are the target's.
Attention takes an explicit additive mask and explicit positions, so the drafter can run a draft tree in one call.

A head may carry a reduced draft vocabulary, as EAGLE-3 heads do: config `draft_vocab_size` N and the buffers
`d2t` (`[N]`, draft id i is target id `i + d2t[i]`) and `t2d` (`[V]`, whether a target id is drafted). Drafting
then ranks only those N rows of the target's lm_head; verification still uses the whole vocabulary.
"""

import copy
from typing import Any, cast

import torch
from torch import nn
from transformers import LlamaConfig, PretrainedConfig
from transformers.models.llama.modeling_llama import LlamaDecoderLayer, LlamaRotaryEmbedding

from speculative.engine.kv_cache import KVCache

PUBLIC_HEAD_POSITIONS = 2048  # what public head configs say; the drafter sizes positions from the target


class PositionOutOfRangeError(ValueError):
    """The head was asked for a position past the context it was placed for."""


class EagleHead(nn.Module):
    """One EAGLE-1/2 head; `config` is the checkpoint's (kept as is for saving), `fc_bias` its `bias` flag.

    Positions are sized by `max_positions`, the target's context length: heads are trained at 2048 tokens and
    their configs say so, but RAG prompts are longer, and RoPE itself has no such limit.
    """

    def __init__(self, config: LlamaConfig, fc_bias: bool, max_positions: int, attention: str) -> None:
        super().__init__()
        self.config = config
        self.fc_bias = fc_bias
        self.max_positions = max_positions
        runtime = _runtime_config(config, max_positions, attention)
        self.fc = nn.Linear(2 * config.hidden_size, config.hidden_size, bias=fc_bias)
        self.layers = nn.ModuleList([_first_layer(runtime)])
        self.rotary = LlamaRotaryEmbedding(runtime)
        draft_vocab_size = getattr(config, "draft_vocab_size", None)
        if draft_vocab_size is not None:
            self.register_buffer("d2t", torch.zeros(int(draft_vocab_size), dtype=torch.long))
            self.register_buffer("t2d", torch.zeros(self.vocab_size, dtype=torch.bool))

    @property
    def hidden_size(self) -> int:
        return int(self.config.hidden_size)

    @property
    def vocab_size(self) -> int:
        return int(self.config.vocab_size)

    @property
    def draft_token_ids(self) -> torch.Tensor | None:
        """The target ids the head drafts from, in draft-id order; None: the whole vocabulary."""
        d2t = self._buffers.get("d2t")
        return None if d2t is None else torch.arange(len(d2t), device=d2t.device) + d2t

    def set_draft_vocabulary(self, target_ids: torch.Tensor) -> None:
        """Store the draft→target map for `target_ids` (distinct, in draft-id order) as `d2t`/`t2d`."""
        current = self._buffers.get("d2t")
        if current is None or len(target_ids) != len(current):
            raise ValueError(f"the config's draft_vocab_size does not match {len(target_ids)} draft ids")
        device = current.device
        target_ids = target_ids.to(device=device, dtype=torch.long)
        distinct = len(torch.unique(target_ids)) == len(target_ids)
        if not distinct or int(target_ids.min()) < 0 or int(target_ids.max()) >= self.vocab_size:
            raise ValueError(f"draft ids must be distinct target ids below {self.vocab_size}")
        self._buffers["d2t"] = target_ids - torch.arange(len(target_ids), device=device)
        t2d = torch.zeros(self.vocab_size, dtype=torch.bool, device=device)
        t2d[target_ids] = True
        self._buffers["t2d"] = t2d

    def place(self, device: torch.device, dtype: torch.dtype) -> "EagleHead":
        """Move to `device` and cast the weights to `dtype`; the rotary frequencies stay in fp32 for precision."""
        self.to(device)
        self.fc.to(dtype)
        self.layers.to(dtype)
        return self

    def forward(
        self,
        features: torch.Tensor,
        token_embeddings: torch.Tensor,
        positions: torch.Tensor,
        attention_mask: torch.Tensor,
        cache: KVCache | None,
        *,
        highest_position: int | None = None,
    ) -> torch.Tensor:
        """Predicted next features `[rows, H]` for rows of (feature `[rows, H]`, next token's embedding).

        `positions` (`[rows]`) and the additive `attention_mask` (`[1, 1, rows, len(cache) + rows]`) place
        the rows after the cached ones; their keys and values are appended to `cache` (None: no cache, as in
        training over whole sequences). `highest_position` is the largest of `positions` when the caller knows
        it: the range check then needs no read from the device (a host sync on a GPU); None reads it.
        """
        self._check_range(positions, highest_position)
        hidden = self.fc(torch.cat([token_embeddings, features], dim=-1))[None]
        position_embeddings = self.rotary(hidden, positions[None])
        output = self.layers[0](
            hidden,
            attention_mask=attention_mask,
            position_embeddings=position_embeddings,
            past_key_values=None if cache is None else cache.model_cache,
            use_cache=cache is not None,
        )
        return cast(torch.Tensor, output)[0]

    def _check_range(self, positions: torch.Tensor, highest: int | None) -> None:
        """Refuse positions past the context the head was placed for."""
        if highest is None:
            if not positions.numel():
                return
            highest = int(positions.max())
        if highest >= self.max_positions:
            raise PositionOutOfRangeError(
                f"position {highest} is past the {self.max_positions} positions of the context"
            )


def _runtime_config(config: LlamaConfig, max_positions: int, attention: str) -> LlamaConfig:
    """The checkpoint's config with the target's context length and attention kernel."""
    runtime = copy.deepcopy(config)
    runtime.max_position_embeddings = max_positions
    runtime._attn_implementation = attention
    return runtime


def _first_layer(config: LlamaConfig) -> LlamaDecoderLayer:
    """A Llama decoder layer without its input RMSNorm: EAGLE's layer 0 reads `fc`'s output directly."""
    layer = LlamaDecoderLayer(config, layer_idx=0)
    layer.input_layernorm = nn.Identity()  # type: ignore[assignment]  # EAGLE drops this norm
    return layer


def head_config(target: PretrainedConfig, **overrides: object) -> LlamaConfig:
    """A one-layer Llama config with the target's hidden size, vocabulary, attention shape and RoPE base.

    `overrides` change any field, e.g. a smaller `intermediate_size` or fewer attention heads for a head small
    enough to commit, or `draft_vocab_size` for a reduced draft vocabulary.
    """
    text = target.get_text_config(decoder=True)
    rope = getattr(text, "rope_parameters", None) or {}
    rope = rope.get(
        "full_attention", rope
    )  # Gemma 3 keys RoPE by layer type; the head attends like a full layer
    values: dict[str, Any] = {
        "vocab_size": text.vocab_size,
        "hidden_size": text.hidden_size,
        "intermediate_size": text.intermediate_size,
        "num_hidden_layers": 1,
        "num_attention_heads": text.num_attention_heads,
        "num_key_value_heads": text.num_key_value_heads,
        "head_dim": getattr(text, "head_dim", None) or text.hidden_size // text.num_attention_heads,
        "max_position_embeddings": PUBLIC_HEAD_POSITIONS,
        "rope_parameters": {"rope_type": "default", "rope_theta": rope.get("rope_theta", 10_000.0)},
    }
    return LlamaConfig.from_dict(values | overrides)
