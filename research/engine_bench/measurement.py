"""What one method's run on one prompt measured, in the same terms for the engine and for transformers."""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Measurement:
    """One answer and its timings.

    `token_ids` is the answer up to its stop (a stop token included, as `generate()` keeps it). Decode-only figures
    start after the first target forward (the prefill, which transformers' prompt lookup merges with its first
    verification), so `decode_tokens` are the answer's tokens produced after it. `target_forwards` counts every
    forward of the target model, the prefill included; the draft/verify profile exists for the engine only.
    """

    token_ids: tuple[int, ...]
    text: str
    stop_reason: str
    total_seconds: float
    decode_seconds: float
    decode_tokens: int
    target_forwards: int
    tau: float
    draft_seconds: float = 0.0
    verify_seconds: float = 0.0
    drafted_nodes: dict[str, int] = field(default_factory=dict)
    acceptance_histogram: dict[str, dict[int, int]] = field(default_factory=dict)

    @property
    def end_to_end_tokens_per_second(self) -> float:
        return len(self.token_ids) / self.total_seconds if self.total_seconds > 0 else 0.0

    @property
    def first_token_seconds(self) -> float:
        """Time to the first answer token: the prefill and the first target forward (TTFT)."""
        return self.total_seconds - self.decode_seconds

    @property
    def decode_tokens_per_second(self) -> float:
        return self.decode_tokens / self.decode_seconds if self.decode_seconds > 0 else 0.0

    @property
    def verify_steps(self) -> int:
        """Target forwards after the prefill, the steps over which τ and the tree profile are averaged."""
        return max(0, self.target_forwards - 1)
