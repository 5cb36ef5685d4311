"""EAGLE-1/2 heads in the public checkpoint format (SafeAILab's, as published on the hub): load and save.

A head folder holds `config.json`, a Llama config with `num_hidden_layers: 1` and a `bias` flag for `fc` (heads
from before the flag have an fc bias, so an absent flag means true), and the weights in `model.safetensors` or
`pytorch_model.bin`: `fc.weight` (`fc.bias`), `layers.0.self_attn.{q,k,v,o}_proj.weight`,
`layers.0.mlp.{gate,up,down}_proj.weight`, `layers.0.post_attention_layernorm.weight`, and optionally
`embed_tokens.weight`, which is ignored because the head shares the target's embeddings. The config's
`max_position_embeddings` (2048 on public heads) is kept for saving but never sizes positions.

Extension, as EAGLE-3 stores it: a head with a reduced draft vocabulary has `draft_vocab_size` N in its config
and `d2t` (`[N]` offsets: draft id i is target id `i + d2t[i]`) and `t2d` (`[V]` booleans) beside the weights;
`t2d` may be absent (it follows from `d2t`). Heads without these keys draft over the full vocabulary.
"""

import json
from pathlib import Path
from typing import Any, cast

import torch
from huggingface_hub import snapshot_download
from safetensors.torch import load_file, save_file
from transformers import LlamaConfig

from modelstore import resolve_model
from speculative.eagle.head import EagleHead
from speculative.engine.target import TargetModel

CONFIG_NAME = "config.json"
SAFETENSORS_NAME = "model.safetensors"
PICKLE_NAME = "pytorch_model.bin"
IGNORED_KEYS = frozenset({"embed_tokens.weight"})


class HeadLoadError(ValueError):
    """The EAGLE head cannot be found, is not in the EAGLE-1/2 format, or does not fit the target."""


def load_head(name: str, cache_dir: Path, target: TargetModel) -> EagleHead:
    """The head `name` (folder, cache entry or hub id) on the target's device and dtype, positions sized by it."""
    folder = head_folder(name, cache_dir)
    config, fc_bias = read_config(folder)
    check_fits_target(config, target, folder)
    attention = str(target.model.config._attn_implementation)
    head = EagleHead(config, fc_bias, max_positions=target.context_length, attention=attention)
    load_weights(head, read_weights(folder), folder)
    return head.place(target.device, target.dtype).eval()


def save_head(head: EagleHead, folder: Path, dtype: torch.dtype | None = None) -> None:
    """Write `head` in the public format (safetensors), readable by `load_head` and by EAGLE's own code.

    `dtype` stores the floating-point weights in another precision (float16 halves a committed file);
    loading casts them to the target's dtype.
    """
    folder.mkdir(parents=True, exist_ok=True)
    config = head.config.to_dict() | {"bias": head.fc_bias, "architectures": ["LlamaForCausalLM"]}
    rope_theta = (head.config.rope_parameters or {}).get("rope_theta")
    if rope_theta is not None:
        config["rope_theta"] = rope_theta  # older readers look for it at the top level
    (folder / CONFIG_NAME).write_text(json.dumps(config, indent=2, sort_keys=True), encoding="utf-8")
    weights = {
        key: _stored(value.detach().to("cpu"), dtype).contiguous() for key, value in head.state_dict().items()
    }
    save_file(weights, str(folder / SAFETENSORS_NAME))


def _stored(tensor: torch.Tensor, dtype: torch.dtype | None) -> torch.Tensor:
    return tensor.to(dtype) if dtype is not None and tensor.is_floating_point() else tensor


def head_folder(name: str, cache_dir: Path) -> Path:
    """A local folder or model-cache entry as is; otherwise a hub download (which fails when offline)."""
    resolved = resolve_model(name, cache_dir)
    if Path(resolved).is_dir():
        return Path(resolved)
    try:
        return Path(snapshot_download(resolved, allow_patterns=[CONFIG_NAME, SAFETENSORS_NAME, PICKLE_NAME]))
    except (OSError, ValueError) as error:
        raise HeadLoadError(
            f"EAGLE head {name!r} is neither a local folder nor in the model cache {cache_dir}, and the hub "
            f"download failed: {error}"
        ) from error


def read_config(folder: Path) -> tuple[LlamaConfig, bool]:
    """The head's Llama config and whether `fc` has a bias."""
    path = folder / CONFIG_NAME
    if not path.is_file():
        raise HeadLoadError(f"{folder} has no {CONFIG_NAME}: not an EAGLE head folder")
    raw: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    layers = raw.get("num_hidden_layers", 1)
    if layers != 1:
        raise HeadLoadError(
            f"{path} says num_hidden_layers={layers}; an EAGLE-1/2 head has exactly one layer"
        )
    fc_bias = bool(raw.pop("bias", True))
    return LlamaConfig.from_dict(raw), fc_bias


def check_fits_target(config: LlamaConfig, target: TargetModel, folder: Path) -> None:
    """The head reads the target's features and embeddings and feeds its lm_head: hidden size and vocabulary match."""
    head_shape = (int(config.hidden_size), int(config.vocab_size))
    target_shape = (target.hidden_size, int(target.config.vocab_size))
    draft_vocab_size = getattr(config, "draft_vocab_size", None)
    if head_shape != target_shape:
        raise HeadLoadError(
            f"EAGLE head {folder} does not fit the target: head hidden size {head_shape[0]} and vocabulary "
            f"{head_shape[1]}, target hidden size {target_shape[0]} and vocabulary {target_shape[1]}"
        )
    if draft_vocab_size is not None and not 0 < int(draft_vocab_size) <= target_shape[1]:
        raise HeadLoadError(
            f"EAGLE head {folder} drafts from {draft_vocab_size} tokens; the target's vocabulary has "
            f"{target_shape[1]}"
        )


def read_weights(folder: Path) -> dict[str, torch.Tensor]:
    """The checkpoint's tensors on the CPU, from safetensors if present, else the pickled state dict."""
    if (folder / SAFETENSORS_NAME).is_file():
        return load_file(str(folder / SAFETENSORS_NAME))
    if (folder / PICKLE_NAME).is_file():
        state = torch.load(folder / PICKLE_NAME, map_location="cpu", weights_only=True)
        return cast(dict[str, torch.Tensor], state)
    raise HeadLoadError(f"{folder} has no {SAFETENSORS_NAME} or {PICKLE_NAME}: no EAGLE head weights")


def load_weights(head: EagleHead, weights: dict[str, torch.Tensor], folder: Path) -> None:
    """Copy the checkpoint into `head`, refusing missing, unknown or wrongly shaped tensors by name."""
    expected = head.state_dict()
    weights = {key: value for key, value in weights.items() if key not in IGNORED_KEYS}
    if "d2t" in weights and "t2d" not in weights and "t2d" in expected:
        weights["t2d"] = expected["t2d"]  # follows from d2t; set_draft_vocabulary below recomputes it
    missing, unexpected = sorted(expected.keys() - weights.keys()), sorted(weights.keys() - expected.keys())
    if missing or unexpected:
        raise HeadLoadError(
            f"{folder} is not an EAGLE-1/2 head matching its config (bias={head.fc_bias}): "
            f"missing {missing}, unexpected {unexpected}"
        )
    wrong = [
        f"{key}: checkpoint {tuple(value.shape)}, config {tuple(expected[key].shape)}"
        for key, value in weights.items()
        if value.shape != expected[key].shape
    ]
    if wrong:
        raise HeadLoadError(f"{folder}: weight shapes do not match its config: {'; '.join(wrong)}")
    head.load_state_dict(weights)
    draft_ids = head.draft_token_ids
    if draft_ids is not None:
        try:
            head.set_draft_vocabulary(draft_ids)
        except ValueError as error:
            raise HeadLoadError(f"{folder}: the draft→target map d2t is invalid: {error}") from error
