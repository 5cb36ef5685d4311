"""The adaptive tree policy before and after the device's cost model is known.

Measuring the cost model takes seconds on a GPU and minutes on a busy small CPU; a server should not wait for it.
Until it is in the `CostModelSlot`, each new answer gets the device's fixed prior budget (`default_tree_nodes`:
16 nodes on a CPU, 60 on an accelerator, or TREE_BUDGET); once it is installed (from any thread), each new answer
gets the adaptive budget. An answer keeps the budget it started with. The tree policy changes only how fast an
answer is decoded, never its tokens: verification is greedy and lossless whatever the tree.
"""

import threading

from speculative.budget.acceptance import AcceptanceHistory
from speculative.budget.adaptive import AdaptiveTreeBudget
from speculative.budget.cost_model import CostModel
from speculative.budget.fixed import FixedTreeBudget
from speculative.engine.tree_budget import TreeBudget


class CostModelSlot:
    """The device's cost model once measured (or read from the cache); None until then. Thread-safe."""

    def __init__(self, cost_model: CostModel | None = None) -> None:
        self._lock = threading.Lock()
        self._cost_model = cost_model

    def get(self) -> CostModel | None:
        with self._lock:
            return self._cost_model

    def install(self, cost_model: CostModel) -> None:
        with self._lock:
            self._cost_model = cost_model


class PriorThenAdaptive:
    """Makes each answer's budget: the fixed prior while the slot is empty, the adaptive budget once it is filled.

    `cap`: the adaptive budget's most nodes (None: the cost model's largest tree). The adaptive budgets of one
    factory share `long_run`, the acceptance record of earlier answers."""

    def __init__(
        self, slot: CostModelSlot, prior_nodes: int, cap: int | None, long_run: AcceptanceHistory
    ) -> None:
        self.slot = slot
        self.prior_nodes = prior_nodes
        self.cap = cap
        self.long_run = long_run

    def __call__(self) -> TreeBudget:
        cost_model = self.slot.get()
        if cost_model is None:
            return FixedTreeBudget(self.prior_nodes)
        cap = self.cap if self.cap is not None else cost_model.max_rows - 1
        return AdaptiveTreeBudget(cost_model, cap, self.long_run)
