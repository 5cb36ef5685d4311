"""Batched throughput on the device: N answers arriving at once and decoded together (continuous batching, one
`BatchDecoder`), for each N of the plan, with the plan's random-weight model (Llama-3-8B-shaped on a GPU), bf16,
`casd` and a fixed tree.

Reported per N: total answer tokens per second (all answers over the wall time), p50 and p95 of the per-answer
latency (arrival to last token, prefill and waiting to join included), and both against one answer alone (the
first N of the plan). The goals of issue 32 at 8 answers: total tokens/s ≥ 4× one answer's, p50 ≤ 2× one answer's
latency; they are reported, not enforced (the check fails only when answers go missing or time cannot be measured).
One decoder serves every row; every row runs twice and only the second time is timed (greedy decoding repeats its
trees, so the first pass meets every shape: allocating buffers and capturing graphs is not timed).
"""

import math
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from research.gpu_check.checks import CheckResult
from research.gpu_check.decoding import (
    Workload,
    batch_decoder,
    casd_workload,
    decode_together,
    release,
    synthetic_requests,
)

GOAL_ANSWERS = 8
GOAL_THROUGHPUT = 4.0  # × one answer's total tokens/s
GOAL_P50 = 2.0  # × one answer's latency


@dataclass(frozen=True)
class BatchRow:
    answers: int
    tokens: int
    wall_seconds: float
    p50_seconds: float
    p95_seconds: float

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.wall_seconds


def batched_throughput(
    shape: dict[str, Any],
    model_name: str,
    device: str,
    concurrency: Sequence[int],
    prompt_tokens: int,
    new_tokens: int,
) -> CheckResult:
    """Decode `n` synthetic answers together for each `n` of `concurrency` (the first one the reference)."""
    started = time.monotonic()
    name = f"batched throughput, {model_name}, bf16, casd: {', '.join(map(str, concurrency))} answers at once"
    workload = casd_workload(shape, device)
    try:
        rows, mode = _decode_rows(workload, concurrency, prompt_tokens, new_tokens)
        nodes = workload.generator.tree_budget().nodes_for_next_step()
    finally:
        del workload
        release(device)
    problems = [
        f"{row.answers} at once: {row.tokens} tokens in {row.wall_seconds:.3f} s"
        for row in rows
        if row.tokens < row.answers or not (math.isfinite(row.wall_seconds) and row.wall_seconds > 0)
    ]
    details = [
        f"synthetic prompts of {prompt_tokens} tokens, {new_tokens} new tokens each, fixed tree of {nodes} nodes "
        f"per answer; one decoder of {max(concurrency)} slots for all rows (verifier: {mode}), each row timed "
        "on its second run",
        goal_line(rows),
        *problems,
        "",
        *batch_table(rows),
    ]
    return CheckResult(name, not problems, time.monotonic() - started, details)


def _decode_rows(
    workload: Workload, concurrency: Sequence[int], prompt_tokens: int, new_tokens: int
) -> tuple[list[BatchRow], str]:
    """The rows, and how the verifier ran (eager, static or graphs: after the run, so a failed capture shows)."""
    generator = workload.generator
    slots = max(concurrency)
    requests = synthetic_requests(slots, prompt_tokens, new_tokens, int(generator.target.config.vocab_size))
    decoder = batch_decoder(workload, slots, prompt_tokens + new_tokens)
    for answers in concurrency:  # warm-up: the same answers decode the same trees, so every shape is met here
        decode_together(generator, decoder, requests[:answers])
    rows = []
    for answers in concurrency:
        began = time.perf_counter()
        outcomes = decode_together(generator, decoder, requests[:answers])
        wall = time.perf_counter() - began
        latencies = sorted(outcome.latency_seconds for outcome in outcomes)
        rows.append(
            BatchRow(
                answers,
                sum(len(outcome.token_ids) for outcome in outcomes),
                wall,
                statistics.median(latencies),
                nearest_rank(latencies, 0.95),
            )
        )
    return rows, decoder.verifier.mode


def nearest_rank(sorted_values: Sequence[float], share: float) -> float:
    """The value below which `share` of the values lie (nearest rank, rounded up)."""
    return sorted_values[max(1, math.ceil(share * len(sorted_values))) - 1]


def goal_line(rows: Sequence[BatchRow]) -> str:
    """Issue 32's goals at GOAL_ANSWERS answers (or the most answers the plan has, said so)."""
    alone = rows[0]
    row = next((row for row in rows if row.answers == GOAL_ANSWERS), rows[-1])
    throughput = row.tokens_per_second / alone.tokens_per_second
    p50 = row.p50_seconds / alone.p50_seconds
    where = (
        ""
        if row.answers == GOAL_ANSWERS
        else f" (no {GOAL_ANSWERS}-answer row in this plan: at {row.answers})"
    )
    return (
        f"goals at {GOAL_ANSWERS} answers{where}: total tokens/s ≥ {GOAL_THROUGHPUT:.0f}× one answer: "
        f"{throughput:.2f}× ({'met' if throughput >= GOAL_THROUGHPUT else 'not met'}); p50 latency ≤ "
        f"{GOAL_P50:.0f}× alone: {p50:.2f}× ({'met' if p50 <= GOAL_P50 else 'not met'})"
    )


def batch_table(rows: Sequence[BatchRow]) -> list[str]:
    alone = rows[0]
    lines = [
        f"| answers at once | tokens | wall (s) | total tokens/s | × {alone.answers} answer | p50 (s) | p95 (s) | "
        "p50 × alone |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row.answers} | {row.tokens} | {row.wall_seconds:.3f} | {row.tokens_per_second:.1f} | "
            f"{row.tokens_per_second / alone.tokens_per_second:.2f}× | {row.p50_seconds:.3f} | "
            f"{row.p95_seconds:.3f} | {row.p50_seconds / alone.p50_seconds:.2f}× |"
        )
    return lines
