"""The draft trees of a batched verify forward as padded tensors: what the forward and its attention mask read.

Answer b's tree follows its `lengths[b]` committed positions: its node i is token `input_ids[b, i]` at position
`positions[b, i]` (its length plus the node's depth) and sees the nodes `ancestors[b, i]` flags (itself included).
The batch is padded to `answers` × `rows`: a padding row (or every row of a padding answer) is its own only
ancestor, at its answer's length, and its output is dropped.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from speculative.engine.tree import DraftTree
from speculative.engine.upload import upload


@dataclass(frozen=True)
class TreeBatch:
    input_ids: torch.Tensor  # [answers, rows]
    positions: torch.Tensor  # [answers, rows]
    lengths: torch.Tensor  # [answers]
    ancestors: torch.Tensor  # [answers, rows, rows], bool

    @classmethod
    def of(cls, trees: Sequence[DraftTree], lengths: Sequence[int], answers: int, rows: int) -> "TreeBatch":
        """`trees` after their answers' `lengths`, padded to `answers` × `rows` (on the CPU)."""
        if len(trees) != len(lengths) or len(trees) > answers or max(t.num_rows for t in trees) > rows:
            raise ValueError(f"{len(trees)} trees for {len(lengths)} answers do not fit {answers} × {rows}")
        input_ids = torch.zeros(answers, rows, dtype=torch.long)
        positions = torch.zeros(answers, rows, dtype=torch.long)
        ancestors = torch.eye(rows, dtype=torch.bool).repeat(answers, 1, 1)
        for answer, (tree, length) in enumerate(zip(trees, lengths, strict=True)):
            count = tree.num_rows
            input_ids[answer, :count] = torch.tensor(tree.tokens)
            positions[answer] = length
            positions[answer, :count] += tree.position_offsets()
            ancestors[answer, :count, :count] = tree.ancestor_mask()
        padded_lengths = torch.zeros(answers, dtype=torch.long)
        padded_lengths[: len(lengths)] = torch.tensor(list(lengths), dtype=torch.long)
        return cls(input_ids, positions, padded_lengths, ancestors)

    def to(self, device: torch.device) -> "TreeBatch":
        return TreeBatch(*(upload(tensor, device) for tensor in self.tensors()))

    def tensors(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        return self.input_ids, self.positions, self.lengths, self.ancestors
