"""How likely a drafted node is to be accepted, learnt from the last steps of the answer.

Following the on-the-fly adaptation paper (section 4), acceptance is estimated by maximum likelihood over a sliding
window of the last `window` verification steps, separately per class of evidence: the drafter that proposed the
node, the order of magnitude of its evidence (EAGLE-2: the head's probability of the token given its parent;
CASD: the length of the context match it copies) and its depth (the CASD authors' match length × depth: once the
answer copies, the next copied token is far likelier to hold than the first). A node is *tested* when its parent was accepted (or is the root):
only then did verification decide about it. The estimate of a class is

    (accepted + prior_rate · prior_weight) / (tested + prior_weight)

so a class never seen, or not tested within the window, falls back to the prior: a drafter whose nodes stopped
being verified is tried again once its bad record has left the window. The prior is optimistic, so that a class
gets tested at all: for a probability class (EAGLE-2's buckets below 1) the top of its range, else `prior_rate`;
or the `fallback` history's rate where that is higher (the long-run record over earlier answers, so a new answer
starts copying as fast as this model usually does here). Never lower: a class the long-run record gave up on would
never be tested again, and inside a loop or a quoted list its branches do hold (Gemma on mt_bench: τ 1.17 with a
pessimistic long-run prior against 3.7 for a fixed tree).
"""

import math
from collections import Counter, deque
from dataclasses import dataclass

from speculative.engine.tree import ROOT, DraftTree
from speculative.engine.verify import VerificationResult

EvidenceClass = tuple[str, int, int]

MIN_EVIDENCE_BUCKET = -8
MAX_EVIDENCE_BUCKET = 5
MAX_DEPTH_CLASS = 3


def evidence_class(source: str, evidence: float, depth: int = 1) -> EvidenceClass:
    """The drafter, ⌊log2 evidence⌋ clipped (probabilities fall in −8…0, match lengths in 0…5) and the depth
    (1, 2, then 3 for every deeper node)."""
    depth_class = min(depth, MAX_DEPTH_CLASS)
    if evidence <= 0:
        return source, MIN_EVIDENCE_BUCKET, depth_class
    bucket = math.floor(math.log2(evidence))
    return source, min(MAX_EVIDENCE_BUCKET, max(MIN_EVIDENCE_BUCKET, bucket)), depth_class


@dataclass(frozen=True)
class StepOutcome:
    """Per evidence class, the nodes one step tested and how many of them were accepted."""

    tested: Counter[EvidenceClass]
    accepted: Counter[EvidenceClass]


def step_outcome(result: VerificationResult) -> StepOutcome:
    """Which nodes of the verified tree were tested (their parent accepted) and which were accepted."""
    tree = result.tree
    on_path = {ROOT, *result.accepted_nodes}
    tested: Counter[EvidenceClass] = Counter()
    accepted: Counter[EvidenceClass] = Counter()
    for node in range(1, tree.num_rows):
        if tree.parents[node] in on_path:
            key = node_class(tree, node)
            tested[key] += 1
            accepted[key] += node in on_path
    return StepOutcome(tested, accepted)


def node_class(tree: DraftTree, node: int) -> EvidenceClass:
    return evidence_class(tree.sources[node], tree.evidence[node], tree.depths[node])


class AcceptanceHistory:
    """Windowed maximum-likelihood acceptance rates per evidence class, with a prior for unseen classes."""

    def __init__(
        self, window: int, prior_rate: float, prior_weight: float, fallback: "AcceptanceHistory | None" = None
    ) -> None:
        if window < 1 or not 0 <= prior_rate <= 1 or prior_weight <= 0:
            raise ValueError(
                f"invalid acceptance history: window={window}, prior={prior_rate}×{prior_weight}"
            )
        self.window = window
        self.prior_rate = prior_rate
        self.prior_weight = prior_weight
        self.fallback = fallback
        self._steps: deque[StepOutcome] = deque()
        self._tested: Counter[EvidenceClass] = Counter()
        self._accepted: Counter[EvidenceClass] = Counter()

    def record(self, result: VerificationResult) -> None:
        """Add the step's outcome; the oldest step leaves the window."""
        outcome = step_outcome(result)
        self._steps.append(outcome)
        self._tested.update(outcome.tested)
        self._accepted.update(outcome.accepted)
        if len(self._steps) > self.window:
            oldest = self._steps.popleft()
            self._tested.subtract(oldest.tested)
            self._accepted.subtract(oldest.accepted)

    def rate(self, key: EvidenceClass) -> float:
        """P(a node of this class is accepted | its parent is)."""
        prior = self.prior(key) * self.prior_weight
        return (self._accepted[key] + prior) / (self._tested[key] + self.prior_weight)

    def prior(self, key: EvidenceClass) -> float:
        _, bucket, _ = key
        optimistic = min(self.prior_rate, 2.0 ** (bucket + 1))
        if self.fallback is None:
            return optimistic
        return max(optimistic, self.fallback.rate(key))

    def node_probabilities(self, tree: DraftTree) -> list[float]:
        """P(node accepted) for every node of `tree` (the root: 1): the product of the rates along its path.

        Siblings exclude each other (at most one child holds the target's token), so where the rates of a
        node's children sum past 1 they are scaled down to sum to 1.
        """
        rates = [1.0] + [self.rate(node_class(tree, node)) for node in range(1, tree.num_rows)]
        child_sums = [0.0] * tree.num_rows
        for node in range(1, tree.num_rows):
            child_sums[tree.parents[node]] += rates[node]
        probabilities = [1.0] * tree.num_rows
        for node in range(1, tree.num_rows):
            parent = tree.parents[node]
            probabilities[node] = probabilities[parent] * rates[node] / max(1.0, child_sums[parent])
        return probabilities
