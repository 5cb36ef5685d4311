"""Per-request statistics of speculative decoding: what the benchmark and the worker's logs report.

τ is the mean number of tokens one verification forward yields, bonus token included (vanilla decoding: 1).
Each step is credited to the drafter that first proposed the deepest accepted node ("none" when only the bonus
was gained), which gives the acceptance-length histogram per source of the CASD paper's figure 4.
"""

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from speculative.engine.verify import VerificationResult


@dataclass(frozen=True)
class StepRecord:
    """One verification forward: the nodes each drafter contributed and what was accepted."""

    nodes_by_source: dict[str, int]
    acceptance_length: int
    accepted_source: str


@dataclass
class GenerationStats:
    """Counts and timings of one request; `decode_seconds` is the wall time after the prefill."""

    prompt_tokens: int = 0
    new_tokens: int = 0
    prefill_seconds: float = 0.0
    draft_seconds: float = 0.0
    verify_seconds: float = 0.0
    decode_seconds: float = 0.0
    steps: list[StepRecord] = field(default_factory=list)

    @property
    def target_forwards(self) -> int:
        """Verification forwards after the prefill."""
        return len(self.steps)

    @property
    def tau(self) -> float:
        """Mean tokens per verification forward, bonus included (measured before stop truncation)."""
        if not self.steps:
            return 0.0
        return sum(step.acceptance_length for step in self.steps) / len(self.steps)

    @property
    def decode_tokens_per_second(self) -> float:
        """Tokens produced after the prefill's first token, per second of decoding."""
        if self.decode_seconds <= 0:
            return 0.0
        return max(0, self.new_tokens - 1) / self.decode_seconds

    @property
    def acceptance_histogram(self) -> dict[str, Counter[int]]:
        """Per credited source: how many steps accepted each length (bonus included)."""
        histogram: defaultdict[str, Counter[int]] = defaultdict(Counter)
        for step in self.steps:
            histogram[step.accepted_source][step.acceptance_length] += 1
        return dict(histogram)

    @property
    def nodes_by_source(self) -> Counter[str]:
        """Drafted nodes over the whole request, per source."""
        total: Counter[str] = Counter()
        for step in self.steps:
            total.update(step.nodes_by_source)
        return total

    def record_step(self, result: VerificationResult, draft_seconds: float, verify_seconds: float) -> None:
        self.steps.append(
            StepRecord(
                nodes_by_source=dict(result.tree.source_counts()),
                acceptance_length=result.acceptance_length,
                accepted_source=result.accepted_source,
            )
        )
        self.draft_seconds += draft_seconds
        self.verify_seconds += verify_seconds

    def summary(self) -> dict[str, Any]:
        """JSON-ready figures (no per-step records)."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "new_tokens": self.new_tokens,
            "target_forwards": self.target_forwards,
            "tau": self.tau,
            "prefill_seconds": self.prefill_seconds,
            "draft_seconds": self.draft_seconds,
            "verify_seconds": self.verify_seconds,
            "decode_seconds": self.decode_seconds,
            "decode_tokens_per_second": self.decode_tokens_per_second,
            "nodes_by_source": dict(self.nodes_by_source),
            "acceptance_histogram": {
                source: {str(length): count for length, count in sorted(counts.items())}
                for source, counts in self.acceptance_histogram.items()
            },
        }
