"""EAGLE-2's dynamic draft tree: how big it grows, and which of the grown candidates are verified.

The drafter grows candidates level by level with their cumulative log-probability as score: level 0 holds the
root's `top_k` most likely children; each of the `depth` rounds runs the head on the `top_k` best nodes of the
last level and adds each one's `top_k` children (`top_k²` candidates). `select_on_device` then keeps the best
`total_tokens − 1` candidates overall, on the candidates' device, and `selected_nodes` reads the selection back in
one device-to-host copy. A child never scores above its parent (a log-probability is ≤ 0), so the best candidates
form a tree; ties are ranked shallower first, so a child never enters without its parent even when rounding makes
their scores equal.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import torch

ROOT_PARENT = -1


@dataclass(frozen=True)
class DynamicTreeConfig:
    """EAGLE-2's tree parameters; the defaults are the reference values (60 tokens, 5 rounds, top 10)."""

    total_tokens: int = 60
    depth: int = 5
    top_k: int = 10

    def __post_init__(self) -> None:
        if self.total_tokens < 1 or self.depth < 0 or self.top_k < 1:
            raise ValueError(f"invalid EAGLE-2 tree parameters: {self}")

    def nodes(self, max_nodes: int) -> int:
        """Drafted nodes of a step: the tree's tokens minus the root, capped by the step's budget."""
        return max(0, min(self.total_tokens - 1, max_nodes))

    def rounds(self, nodes: int, max_depth: int) -> int:
        """Expansion rounds worth running: the tree cannot be deeper than its node count or the allowed depth."""
        return max(0, min(self.depth, max_depth - 1, nodes - 1))


@dataclass(frozen=True)
class CandidateLevel:
    """The candidates at one depth, as 1-d tensors on one device: target token ids, parents (`parents[i]` is an
    index into the previous level; `ROOT_PARENT` at depth 1) and cumulative log-probabilities."""

    tokens: torch.Tensor
    parents: torch.Tensor
    scores: torch.Tensor


@dataclass(frozen=True)
class SelectedNode:
    """A node to draft: its token, its parent (an index into the selection; `ROOT_PARENT`: the root) and the
    head's probability of the token given its parent."""

    token: int
    parent: int
    probability: float


def select_on_device(levels: Sequence[CandidateLevel], count: int) -> torch.Tensor:
    """The best `count` candidates by score, ancestor-closed, selected on the levels' device without a host sync.

    Returns a float64 tensor of shape (3, selected) — the nodes' token ids (exact below 2⁵³), their parents (indices
    into the selection, `ROOT_PARENT` for the root's children) and their probabilities given the parent — ordered
    by (depth, index), so every parent precedes its children. Ties rank shallower first, then by index (a stable
    sort of the levels concatenated in order). A candidate ranks by the lowest score on its path, which for real
    scores is its own; for scores that rise along a path it keeps a parent ranked before its child.
    """
    ranks = torch.cat(_path_minima(levels))
    chosen = torch.sort(ranks, descending=True, stable=True).indices[:count].sort().values
    parents = torch.cat(_parents_across_levels(levels))[chosen]
    is_root_child = parents == ROOT_PARENT
    scores = torch.cat([level.scores for level in levels]).double()
    parent_scores = torch.where(is_root_child, 0.0, scores[parents.clamp(min=0)])
    return torch.stack(
        [
            torch.cat([level.tokens for level in levels])[chosen].double(),
            torch.where(is_root_child, ROOT_PARENT, torch.searchsorted(chosen, parents)).double(),
            (scores[chosen] - parent_scores).exp(),
        ]
    )


def selected_nodes(selection: torch.Tensor) -> list[SelectedNode]:
    """The nodes of a `select_on_device` selection, read to the host in one device-to-host copy."""
    tokens, parents, probabilities = selection.tolist()
    return [
        SelectedNode(int(token), int(parent), probability)
        for token, parent, probability in zip(tokens, parents, probabilities, strict=True)
    ]


def _parents_across_levels(levels: Sequence[CandidateLevel]) -> list[torch.Tensor]:
    """Per level, the parents as indices into all levels concatenated (`ROOT_PARENT` at depth 1)."""
    parents, offset = [levels[0].parents], 0
    for previous, level in pairwise(levels):
        parents.append(level.parents + offset)
        offset += len(previous.tokens)
    return parents


def _path_minima(levels: Sequence[CandidateLevel]) -> list[torch.Tensor]:
    """Per level, each candidate's lowest score on its path from the root: the score it ranks by."""
    minima = [levels[0].scores]
    for level in levels[1:]:
        minima.append(torch.minimum(level.scores, minima[-1][level.parents]))
    return minima
