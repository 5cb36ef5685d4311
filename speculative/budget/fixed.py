"""The fixed tree budget: the same number of nodes every step (EAGLE-2's and CASD's papers' setup)."""

from speculative.engine.tree import DraftTree
from speculative.engine.verify import VerificationResult

CPU_TREE_BUDGET = 16
ACCELERATOR_TREE_BUDGET = 60


class FixedTreeBudget:
    """The same budget every step; the drafted tree is verified whole."""

    def __init__(self, nodes: int) -> None:
        if nodes < 0:
            raise ValueError(f"a tree budget must be ≥ 0 nodes, got {nodes}")
        self.nodes = nodes

    def nodes_for_next_step(self) -> int:
        return self.nodes

    def select(self, tree: DraftTree, draft_seconds: float, other_rows: int = 0) -> DraftTree:
        return tree

    def observe(self, result: VerificationResult, verify_seconds: float, other_rows: int = 0) -> None:
        """A fixed budget learns nothing."""


def default_tree_nodes(device: str) -> int:
    """The budget for a device when none is configured: CPUs have little spare compute for verification."""
    return CPU_TREE_BUDGET if device.startswith("cpu") else ACCELERATOR_TREE_BUDGET
