"""The head to train: a new one sized for the target (with a draft vocabulary) or an existing one to fine-tune.

A new head takes the target's hidden size and vocabulary (it reads the target's features and embeddings) but
may be smaller inside (MLP width, attention heads) so that it is cheap to draft with and small enough to ship.
An existing head keeps its shape and draft vocabulary; `load_head` refuses one that does not fit the target,
naming both shapes.
"""

from dataclasses import dataclass
from pathlib import Path

import torch

from research.train_head.vocabulary import DraftVocabulary
from speculative.eagle.checkpoint import load_head, save_head
from speculative.eagle.head import EagleHead, head_config
from speculative.engine.target import TargetModel


@dataclass(frozen=True)
class HeadShape:
    """Overrides of the target's own layer shape; None keeps the target's value."""

    intermediate_size: int | None = None
    attention_heads: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None

    def overrides(self) -> dict[str, object]:
        values = {
            "intermediate_size": self.intermediate_size,
            "num_attention_heads": self.attention_heads,
            "num_key_value_heads": self.kv_heads,
            "head_dim": self.head_dim,
        }
        return {name: value for name, value in values.items() if value is not None}


def new_head(target: TargetModel, vocabulary: DraftVocabulary, shape: HeadShape, seed: int) -> EagleHead:
    """A randomly initialised head for `target` drafting from `vocabulary`, fp32 on the target's device."""
    torch.manual_seed(seed)
    config = head_config(target.config, draft_vocab_size=len(vocabulary.target_ids), **shape.overrides())
    attention = str(target.model.config._attn_implementation)
    head = EagleHead(config, fc_bias=False, max_positions=target.context_length, attention=attention)
    head.set_draft_vocabulary(vocabulary.target_ids)
    return head.place(target.device, torch.float32)


def existing_head(name: str, cache_dir: Path, target: TargetModel) -> EagleHead:
    """A published or earlier-trained head to fine-tune; raises `HeadLoadError` if it does not fit `target`."""
    return load_head(name, cache_dir, target).place(target.device, torch.float32)


def draft_rows(target: TargetModel, head: EagleHead) -> torch.Tensor:
    """The rows of the target's lm_head the head drafts from (the whole matrix without a draft vocabulary)."""
    lm_head = target.model.get_output_embeddings()
    if not isinstance(lm_head, torch.nn.Linear):
        raise TypeError(f"training needs a linear lm_head, not {type(lm_head).__name__}")
    weight = lm_head.weight.detach().float()
    ids = head.draft_token_ids
    return weight if ids is None else weight[ids.to(weight.device)].clone()


def save_trained(head: EagleHead, folder: Path, dtype: torch.dtype) -> None:
    """The public format, floating-point weights in `dtype`."""
    save_head(head, folder, dtype=dtype)
