"""EAGLE-2's dynamic draft tree: how big it grows, and which of the grown candidates are verified.

The drafter grows candidates level by level with their cumulative log-probability as score: level 0 holds the
root's `top_k` most likely children; each of the `depth` rounds runs the head on the `top_k` best nodes of the
last level and adds each one's `top_k` children (`top_k²` candidates). `select_nodes` then keeps the best
`total_tokens − 1` candidates overall. A child never scores above its parent (a log-probability is ≤ 0), so the
best candidates form a tree; ties are ranked shallower first and a node is only taken after its parent, so a child
never enters without its parent even when rounding makes their scores equal.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

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
    """The candidates at one depth; `parents[i]` is an index into the previous level (`ROOT_PARENT` at depth 1)."""

    tokens: Sequence[int]
    parents: Sequence[int]
    scores: Sequence[float]


@dataclass(frozen=True)
class SelectedNode:
    """A node to draft: its token, its parent (an index into the selection; `ROOT_PARENT`: the root) and the
    head's probability of the token given its parent."""

    token: int
    parent: int
    probability: float


def select_nodes(levels: Sequence[CandidateLevel], count: int) -> list[SelectedNode]:
    """The best `count` candidates by score, ancestor-closed, ordered so that every parent precedes its children."""
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


def _parent_score(levels: Sequence[CandidateLevel], depth: int, index: int) -> float:
    """The cumulative log-probability of a candidate's parent (the root's is 0)."""
    return 0.0 if depth == 0 else levels[depth - 1].scores[levels[depth].parents[index]]
