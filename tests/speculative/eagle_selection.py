"""EAGLE-2's candidate selection written plainly on host lists: the oracle the device selection is checked against.

It ranks every candidate by (−score, depth, index) and walks that order, taking a candidate once its parent is
taken, until `count` are taken.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from speculative.eagle.dynamic_tree import ROOT_PARENT, CandidateLevel, SelectedNode


@dataclass(frozen=True)
class HostLevel:
    """The candidates at one depth; `parents[i]` is an index into the previous level (`ROOT_PARENT` at depth 1)."""

    tokens: Sequence[int]
    parents: Sequence[int]
    scores: Sequence[float]

    def on(self, device: torch.device | str = "cpu") -> CandidateLevel:
        """The level as the drafter holds it: tensors (int64 ids, float32 scores) on `device`."""
        return CandidateLevel(
            torch.tensor(self.tokens, dtype=torch.long, device=device),
            torch.tensor(self.parents, dtype=torch.long, device=device),
            torch.tensor(self.scores, dtype=torch.float32, device=device),
        )


def host_selection(levels: Sequence[HostLevel], count: int) -> list[SelectedNode]:
    """The best `count` candidates by score, ancestor-closed, ordered by (depth, index)."""
    ranked = sorted(
        (-score, depth, index)
        for depth, level in enumerate(levels)
        for index, score in enumerate(level.scores)
    )
    taken: set[tuple[int, int]] = set()
    for _, depth, index in ranked:
        if len(taken) == count:
            break
        if depth == 0 or (depth - 1, levels[depth].parents[index]) in taken:
            taken.add((depth, index))
    order = sorted(taken)
    position = {key: rank for rank, key in enumerate(order)}
    return [
        SelectedNode(
            token=levels[depth].tokens[index],
            parent=ROOT_PARENT if depth == 0 else position[(depth - 1, levels[depth].parents[index])],
            probability=math.exp(levels[depth].scores[index] - _parent_score(levels, depth, index)),
        )
        for depth, index in order
    ]


def _parent_score(levels: Sequence[HostLevel], depth: int, index: int) -> float:
    """The cumulative log-probability of a candidate's parent (the root's is 0)."""
    return 0.0 if depth == 0 else levels[depth - 1].scores[levels[depth].parents[index]]
