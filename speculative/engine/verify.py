"""Greedy verification: accept the longest drafted path the target agrees with, plus its bonus token.

Lossless by construction: a drafted token is accepted only where it equals the target's argmax at its parent,
so the committed tokens are exactly what plain greedy decoding would have produced.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from speculative.engine.tree import ROOT, DraftTree

NO_DRAFT_SOURCE = "none"


@dataclass(frozen=True)
class VerificationResult:
    """What one target forward settled: the accepted path below the root and the target's bonus token."""

    tree: DraftTree
    accepted_nodes: tuple[int, ...]
    accepted_tokens: tuple[int, ...]
    bonus_token: int

    @property
    def new_tokens(self) -> tuple[int, ...]:
        """Tokens this step adds after the root: the accepted drafts and the bonus."""
        return (*self.accepted_tokens, self.bonus_token)

    @property
    def acceptance_length(self) -> int:
        """Tokens gained by this target forward, bonus included (the τ of one step)."""
        return len(self.accepted_tokens) + 1

    @property
    def committed_rows(self) -> tuple[int, ...]:
        """Rows of the forward whose KV stays in the cache: the root and the accepted nodes."""
        return (ROOT, *self.accepted_nodes)

    @property
    def accepted_source(self) -> str:
        """The drafter credited with the step: the one that first proposed the deepest accepted node."""
        if not self.accepted_nodes:
            return NO_DRAFT_SOURCE
        return self.tree.sources[self.accepted_nodes[-1]]


def verify_greedy(tree: DraftTree, target_tokens: Sequence[int]) -> VerificationResult:
    """Walk down from the root while a child holds the target's argmax at its parent.

    `target_tokens[i]` is the target's greedy choice after row i of the forward. The trie keeps children's
    tokens distinct, so at most one child can match at each node and the walk finds the longest accepted path.
    """
    if len(target_tokens) != tree.num_rows:
        raise ValueError(f"need one target token per tree row: {len(target_tokens)} for {tree.num_rows} rows")
    node = ROOT
    accepted: list[int] = []
    while (child := tree.child(node, target_tokens[node])) is not None:
        accepted.append(child)
        node = child
    return VerificationResult(
        tree=tree,
        accepted_nodes=tuple(accepted),
        accepted_tokens=tuple(tree.tokens[n] for n in accepted),
        bonus_token=int(target_tokens[node]),
    )
