"""The worker's Prometheus metrics (official client), in a registry of its own so several apps can share a process."""

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from speculative.budget.cost_model import CostModel
from speculative.engine.generator import GenerationResult

SECONDS_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120)
RATE_BUCKETS = (1, 2, 5, 10, 20, 50, 100, 200, 500)
TAU_BUCKETS = (1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64)
ROWS_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
BONUS_SOURCE = "bonus"


class WorkerMetrics:
    """Requests by outcome, queue depth and wait, time to first token, tokens/s, τ, accepted tokens by source,
    batch size, rows and tokens per step."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "worker_requests",
            "Generation requests by outcome: done, cancelled, error, queue_full, loading, invalid.",
            ["outcome"],
            registry=self.registry,
        )
        self.queue_depth = Gauge(
            "worker_queue_depth",
            "Requests waiting for the model (not counting the one decoding).",
            registry=self.registry,
        )
        self.queue_wait = Histogram(
            "worker_queue_wait_seconds",
            "Time from arrival until decoding began.",
            buckets=SECONDS_BUCKETS,
            registry=self.registry,
        )
        self.time_to_first_token = Histogram(
            "worker_time_to_first_token_seconds",
            "Time from arrival until the first text was streamed (queue wait and prefill included).",
            buckets=SECONDS_BUCKETS,
            registry=self.registry,
        )
        self.decode_tokens_per_second = Histogram(
            "worker_decode_tokens_per_second",
            "Tokens per second after the prefill, per answer.",
            buckets=RATE_BUCKETS,
            registry=self.registry,
        )
        self.tau = Histogram(
            "worker_tau",
            "Mean tokens per target forward of an answer (bonus token included; vanilla = 1).",
            buckets=TAU_BUCKETS,
            registry=self.registry,
        )
        self.generated_tokens = Counter(
            "worker_generated_tokens", "Tokens of finished answers.", registry=self.registry
        )
        self.accepted_tokens = Counter(
            "worker_accepted_tokens",
            "Accepted tokens by the drafter credited with the step (its drafted tokens; 'bonus' = the target's own).",
            ["source"],
            registry=self.registry,
        )

        self.batch_size = Histogram(
            "worker_batch_size",
            "Answers verified together per decoding step (at most MAX_BATCH).",
            buckets=BATCH_BUCKETS,
            registry=self.registry,
        )
        self.step_rows = Histogram(
            "worker_step_rows",
            "Tree rows of one decoding step's target forward, all its answers together.",
            buckets=ROWS_BUCKETS,
            registry=self.registry,
        )
        self.decoded_tokens = Counter(
            "worker_decoded_tokens",
            "Tokens committed by decoding steps, all answers together (its rate is the total tokens/s).",
            registry=self.registry,
        )

    def record_step(self, answers: int, rows: int, tokens: int) -> None:
        """One batched decoding step: how many answers, tree rows and committed tokens."""
        self.batch_size.observe(answers)
        self.step_rows.observe(rows)
        self.decoded_tokens.inc(tokens)

    def record_cost_model(self, cost_model: CostModel) -> None:
        """The device's measured verification costs, which the adaptive tree budget weighs acceptance against."""
        verify_seconds = Gauge(
            "worker_verify_forward_seconds",
            "Measured seconds of one verification forward by tree rows (root included), after a 512-token prefill.",
            ["rows"],
            registry=self.registry,
        )
        for rows, seconds in zip(cost_model.rows, cost_model.seconds, strict=True):
            verify_seconds.labels(str(rows)).set(seconds)

    def record_answer(self, result: GenerationResult, time_to_first_token: float) -> None:
        stats = result.stats
        self.requests.labels("done").inc()
        self.time_to_first_token.observe(time_to_first_token)
        self.generated_tokens.inc(stats.new_tokens)
        if stats.target_forwards:
            self.decode_tokens_per_second.observe(stats.decode_tokens_per_second)
            self.tau.observe(stats.tau)
        for source, lengths in stats.acceptance_histogram.items():
            drafted = sum((length - 1) * count for length, count in lengths.items())
            if drafted:
                self.accepted_tokens.labels(source).inc(drafted)
            self.accepted_tokens.labels(BONUS_SOURCE).inc(sum(lengths.values()))

    def render(self) -> bytes:
        return generate_latest(self.registry)
