"""The seam between the generation loop and a tree-size policy.

A verification forward costs more with every node, and how much more depends on the hardware (on a 2-core CPU
20 nodes cost 2.1× a single-token decode, on a GPU 60 nodes are almost free) and how many nodes pay off depends
on the answer (copying a passage or writing free text). Each request gets its own `TreeBudget`, which the loop
asks how many nodes to draft, lets trim the drafted tree to what is worth verifying, and tells what was accepted.
"""

from collections.abc import Callable
from typing import Protocol

from speculative.engine.tree import DraftTree
from speculative.engine.verify import VerificationResult


class TreeBudget(Protocol):
    def nodes_for_next_step(self) -> int:
        """Drafted nodes (root excluded) the drafters may propose for the next tree."""
        ...

    def select(self, tree: DraftTree, draft_seconds: float, other_rows: int = 0) -> DraftTree:
        """The part of the drafted tree to verify (ancestor-closed); `draft_seconds` is what drafting it took,
        `other_rows` the rows other answers bring to the same batched forward."""
        ...

    def observe(self, result: VerificationResult, verify_seconds: float, other_rows: int = 0) -> None:
        """What the last verified tree achieved, and what its forward took (with `other_rows` rows of others)."""
        ...


TreeBudgetFactory = Callable[[], TreeBudget]
"""Makes the budget of one request: an adaptive one learns from that request's answer only."""
