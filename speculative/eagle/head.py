"""The EAGLE-1/2 draft head: predicts the target's next feature from its current feature and the next token.

`fc` maps `[embedding of x_{t+1} ; target feature f_t]` (2H) to H, then one Llama decoder layer runs without
the input RMSNorm of layer 0 and without a final norm; the result is the predicted feature f_{t+1}, which the
target's own lm_head turns into logits. The head has no embeddings or lm_head of its own: they are the target's.
Attention takes an explicit additive mask and explicit positions, so the drafter can run a draft tree in one call.
"""

import copy
from typing import cast

import torch
from torch import nn
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaDecoderLayer, LlamaRotaryEmbedding

from speculative.engine.kv_cache import KVCache


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

    @property
    def hidden_size(self) -> int:
        return int(self.config.hidden_size)

    @property
    def vocab_size(self) -> int:
        return int(self.config.vocab_size)

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
        cache: KVCache,
    ) -> torch.Tensor:
        """Predicted next features `[rows, H]` for rows of (feature `[rows, H]`, next token's embedding).

        `positions` (`[rows]`) and the additive `attention_mask` (`[1, 1, rows, len(cache) + rows]`) place
        the rows after the cached ones; their keys and values are appended to `cache`.
        """
        if positions.numel() and int(positions.max()) >= self.max_positions:
            raise PositionOutOfRangeError(
                f"position {int(positions.max())} is past the {self.max_positions} positions of the context"
            )
        hidden = self.fc(torch.cat([token_embeddings, features], dim=-1))[None]
        position_embeddings = self.rotary(hidden, positions[None])
        output = self.layers[0](
            hidden,
            attention_mask=attention_mask,
            position_embeddings=position_embeddings,
            past_key_values=cache.model_cache,
            use_cache=True,
        )
        return cast(torch.Tensor, output)[0]


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
