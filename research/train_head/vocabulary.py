"""The reduced draft vocabulary: the N most frequent target tokens of the training data (EAGLE-3's recipe).

Drafting ranks only these N rows of the target's lm_head; a token outside them can still be accepted through
another drafter (CASD) or as the bonus token, because verification covers the whole vocabulary.
"""

from collections.abc import Iterable
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class DraftVocabulary:
    """Target ids in draft-id order (most frequent first) and the share of training tokens they cover."""

    target_ids: torch.Tensor
    coverage: float


def most_frequent_tokens(sequences: Iterable[torch.Tensor], vocab_size: int, size: int) -> DraftVocabulary:
    """The `size` most frequent ids over `sequences` (ties: lower id first), padded with unseen ids if needed."""
    if not 0 < size <= vocab_size:
        raise ValueError(f"a draft vocabulary of {size} tokens does not fit a vocabulary of {vocab_size}")
    counts = torch.zeros(vocab_size, dtype=torch.long)
    for tokens in sequences:
        counts += torch.bincount(tokens.long(), minlength=vocab_size)
    target_ids = torch.sort(-counts, stable=True).indices[:size]
    total = int(counts.sum())
    coverage = float(counts[target_ids].sum()) / total if total else 0.0
    return DraftVocabulary(target_ids, coverage)
