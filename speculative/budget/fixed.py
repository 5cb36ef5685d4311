"""How many draft nodes one verification forward may carry: the seam for a device-adapted tree budget.

A verification forward costs more with every node, and how much more depends on the hardware (on this 2-core CPU
20 nodes cost 2.1× a single-token decode, on a GPU 60 nodes are almost free). The generation loop asks a
`TreeBudget` before each step and tells it what was accepted, so a policy that adapts online (from recent
acceptance, as in the on-the-fly adaptation paper) can replace the fixed one without touching the loop.
"""

from typing import Protocol

from speculative.engine.verify import VerificationResult

CPU_TREE_BUDGET = 16
ACCELERATOR_TREE_BUDGET = 60


class TreeBudget(Protocol):
    def nodes_for_next_step(self) -> int:
        """Drafted nodes (root excluded) the next tree may hold."""
        ...

    def observe(self, result: VerificationResult) -> None:
        """What the last tree achieved."""
        ...


class FixedTreeBudget:
    """The same budget every step."""

    def __init__(self, nodes: int) -> None:
        if nodes < 0:
            raise ValueError(f"a tree budget must be ≥ 0 nodes, got {nodes}")
        self.nodes = nodes

    def nodes_for_next_step(self) -> int:
        return self.nodes

    def observe(self, result: VerificationResult) -> None:
        """A fixed budget learns nothing."""


def default_tree_nodes(device: str) -> int:
    """The budget for a device when none is configured: CPUs have little spare compute for verification."""
    return CPU_TREE_BUDGET if device.startswith("cpu") else ACCELERATOR_TREE_BUDGET
