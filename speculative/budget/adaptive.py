"""The adaptive tree budget: verify, each step, the part of the drafted tree that maximises tokens per second.

For a tree of drafted nodes the expected tokens of a verification forward are 1 (the bonus token) plus the sum of
the nodes' acceptance probabilities (`AcceptanceHistory`, learnt from this answer's last steps, starting from the
long-run record of the earlier answers that a generator's budgets share). Verifying the k
most probable nodes costs the drafting already done plus the forward of k + 1 rows (`CostModel`, measured on this
device). The policy keeps the k that maximises expected tokens per second, from 0 (the root alone: a plain decoding
step, when nothing is likely to be accepted) to every drafted node. Because a node is never more probable than its
parent, the k most probable nodes always form a tree.

In a batched forward (several answers verified together) the forward's time is that of all its rows: each answer
weighs its nodes against the rows the others bring (`other_rows`), so a tree node is worth less in a full batch,
where a GPU's spare compute is shared, than alone.

The cost table was measured after a 512-token prefill; the forwards of this request (a longer context, a busy
machine) may cost more or less, so the table is scaled by a running ratio of observed to predicted forward times.

When drafting is a noticeable part of a step (EAGLE-2's head rounds, not CASD's look-ups), the drafters' next pool
follows the choices: twice the largest recent choice plus a margin, so an answer that is not being copied stops
paying for deep EAGLE-2 rounds, and the capped pool grows back as acceptance recovers. Cheap drafting always gets
the whole pool: a long copied branch must not be cut by the caution of the steps before it.
"""

from collections import deque

from speculative.budget.acceptance import AcceptanceHistory
from speculative.budget.cost_model import CostModel
from speculative.engine.tree import DraftTree
from speculative.engine.verify import VerificationResult

HISTORY_STEPS = 16
LONG_RUN_STEPS = 512
PRIOR_RATE = 0.6
PRIOR_WEIGHT = 2.0
POOL_MARGIN = 4
RECENT_CHOICES = 4
MIN_SPEED_GAIN = 1e-9
COST_SCALE_SMOOTHING = 0.2
CHEAP_DRAFT_SHARE = 0.1


def long_run_history() -> AcceptanceHistory:
    """The record the budgets of one generator share across its answers (all on the decoding thread)."""
    return AcceptanceHistory(LONG_RUN_STEPS, PRIOR_RATE, PRIOR_WEIGHT)


class AdaptiveTreeBudget:
    """Chooses per step how many drafted nodes to verify, from recent acceptance and the device's cost model."""

    def __init__(
        self, cost_model: CostModel, max_nodes: int, long_run: AcceptanceHistory | None = None
    ) -> None:
        if max_nodes < 0:
            raise ValueError(f"the adaptive budget's cap must be ≥ 0 nodes, got {max_nodes}")
        self.cost_model = cost_model
        self.max_nodes = max_nodes
        self.long_run = long_run
        self.history = AcceptanceHistory(HISTORY_STEPS, PRIOR_RATE, PRIOR_WEIGHT, fallback=long_run)
        self._recent_choices: deque[int] = deque([max_nodes], maxlen=RECENT_CHOICES)
        self._cost_scale = 1.0
        self._draft_is_cheap = True

    def nodes_for_next_step(self) -> int:
        if self._draft_is_cheap:
            return self.max_nodes
        return min(self.max_nodes, 2 * max(self._recent_choices) + POOL_MARGIN)

    def select(self, tree: DraftTree, draft_seconds: float, other_rows: int = 0) -> DraftTree:
        self._draft_is_cheap = draft_seconds < CHEAP_DRAFT_SHARE * self._verify_seconds(1)
        probabilities = self.history.node_probabilities(tree)
        ranked = sorted(range(1, tree.num_rows), key=lambda node: (-probabilities[node], node))
        chosen = self._best_count([probabilities[node] for node in ranked], draft_seconds, other_rows)
        self._recent_choices.append(chosen)
        if chosen == tree.num_drafted:
            return tree
        return tree.kept(ranked[:chosen])

    def observe(self, result: VerificationResult, verify_seconds: float, other_rows: int = 0) -> None:
        self.history.record(result)
        if self.long_run is not None:
            self.long_run.record(result)
        predicted = self.cost_model.verify_seconds(other_rows + result.tree.num_rows)
        if predicted > 0 and verify_seconds > 0:
            self._cost_scale += COST_SCALE_SMOOTHING * (verify_seconds / predicted - self._cost_scale)

    def _verify_seconds(self, rows: int) -> float:
        return self._cost_scale * self.cost_model.verify_seconds(rows)

    def _best_count(self, ranked_probabilities: list[float], draft_seconds: float, other_rows: int) -> int:
        """How many of the ranked nodes to verify: the count with the most expected tokens per second, the
        forward's time being that of all its rows (this tree's and `other_rows` of the other answers)."""
        best_count = 0
        best_speed = 1.0 / (draft_seconds + self._verify_seconds(other_rows + 1))
        expected_tokens = 1.0
        for count, probability in enumerate(ranked_probabilities[: self.max_nodes], start=1):
            expected_tokens += probability
            speed = expected_tokens / (draft_seconds + self._verify_seconds(other_rows + count + 1))
            if speed > best_speed * (1 + MIN_SPEED_GAIN):
                best_count, best_speed = count, speed
        return best_count
