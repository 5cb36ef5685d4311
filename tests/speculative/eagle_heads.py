"""EAGLE heads for the tests: random ones saved in the public format, and an exact one for a bigram target.

The bigram target is a one-layer Llama whose attention output is zeroed, so its next token depends on the current
token only. Its head can then be written down exactly: `fc` passes the token embedding through, and the head's
layer carries the target's MLP and post-attention norm with a zeroed attention output. The head's feature is the
target's feature before the final RMSNorm (weight 1), a positive multiple of it, so the lm_head ranks tokens
identically and the head's greedy chain is exactly what the target will accept.
"""

from pathlib import Path

import torch
from transformers import LlamaConfig, LlamaForCausalLM, PretrainedConfig

from speculative.eagle.checkpoint import save_head
from speculative.eagle.head import EagleHead
from speculative.settings import SpeculativeSettings
from tests.speculative.conftest import TINY_VOCAB

HEAD_CONFIG_POSITIONS = 2048  # what public head configs say
ATTENTION_SHARPNESS = 4.0


def head_config(target_config: PretrainedConfig, **overrides: object) -> LlamaConfig:
    """A one-layer Llama config sized for `target_config`, as public EAGLE heads ship it."""
    values: dict[str, object] = {
        "vocab_size": target_config.vocab_size,
        "hidden_size": target_config.hidden_size,
        "intermediate_size": target_config.intermediate_size,
        "num_hidden_layers": 1,
        "num_attention_heads": target_config.num_attention_heads,
        "num_key_value_heads": target_config.num_key_value_heads,
        "max_position_embeddings": HEAD_CONFIG_POSITIONS,
        "rope_theta": getattr(target_config, "rope_parameters", {}).get("rope_theta", 10_000.0),
    }
    return LlamaConfig(**(values | overrides))


def random_head(
    target_config: PretrainedConfig, seed: int, fc_bias: bool = False, **overrides: object
) -> EagleHead:
    """A head with random weights, fp32 on the CPU.

    Torch's default initialisation gives near-uniform attention, which would hide wrong masks or positions;
    larger query and key weights make attention sharp enough for such mistakes to change the drafts.
    """
    torch.manual_seed(seed)
    config = head_config(target_config, **overrides)
    head = EagleHead(config, fc_bias, max_positions=HEAD_CONFIG_POSITIONS, attention="sdpa")
    with torch.no_grad():
        head.layers[0].self_attn.q_proj.weight.mul_(ATTENTION_SHARPNESS)
        head.layers[0].self_attn.k_proj.weight.mul_(ATTENTION_SHARPNESS)
    return head


def saved_random_head(
    folder: Path, target_config: PretrainedConfig, seed: int, fc_bias: bool = False
) -> Path:
    save_head(random_head(target_config, seed, fc_bias), folder)
    return folder


def bigram_llama(seed: int) -> LlamaForCausalLM:
    """A one-layer random Llama without attention output: greedy decoding follows a fixed next-token map."""
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=TINY_VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=1,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        tie_word_embeddings=True,
        initializer_range=0.3,
        attn_implementation="sdpa",
    )
    model = LlamaForCausalLM(config).eval()
    with torch.no_grad():
        model.model.layers[0].self_attn.o_proj.weight.zero_()
    return model


def saved_exact_head(folder: Path, target: LlamaForCausalLM) -> Path:
    """The head that predicts `bigram_llama`'s next feature exactly (up to the final norm's scale)."""
    head = random_head(target.config, seed=0)
    hidden = target.config.hidden_size
    layer, target_layer = head.layers[0], target.model.layers[0]
    with torch.no_grad():
        head.fc.weight.zero_()
        head.fc.weight[:, :hidden] = torch.eye(hidden)
        layer.self_attn.o_proj.weight.zero_()
        layer.mlp.load_state_dict(target_layer.mlp.state_dict())
        layer.post_attention_layernorm.load_state_dict(target_layer.post_attention_layernorm.state_dict())
    save_head(head, folder)
    return folder


def eagle_settings(head: Path | None, **values: object) -> SpeculativeSettings:
    """Settings that ignore the machine's environment and `.env`, with the given head."""
    return SpeculativeSettings(_env_file=None, eagle_head=None if head is None else str(head), **values)  # type: ignore[call-arg]
