"""The engine's overhead per decoding step: what a step costs besides the target's verify forward.

Answers decode through one `BatchDecoder` (the worker's path) with the plan's random-weight model (Llama-3-8B-shaped
on a GPU), bf16, `casd` and a fixed tree; after every step the decoder's `last_step` timings are read: drafting,
the verify forward, acceptance, KV-cache compaction and the step's total, the rest of which is Python around them.
Each row decodes its batch `rounds` times after one warm-up round (allocations, graph capture) that is not counted.
Overhead share = (total − verify) / total, the median over the counted steps; issue 32's goal is ≤ 15 %, reported, not enforced
(the check fails only when no step was timed or a timing is not a finite, non-negative number).
"""

import math
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
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
from speculative.engine.batch import BatchDecoder, StepTimings

GOAL_SHARE = 0.15
PARTS = ("draft", "verify", "accept", "cache", "rest")


@dataclass(frozen=True)
class OverheadRow:
    """The counted steps of one batch size."""

    answers: int
    steps: tuple[StepTimings, ...]

    def part_seconds(self, step: StepTimings) -> dict[str, float]:
        named = {
            "draft": step.draft_seconds,
            "verify": step.verify_seconds,
            "accept": step.accept_seconds,
            "cache": step.cache_seconds,
        }
        return named | {"rest": step.total_seconds - sum(named.values())}

    def medians(self) -> dict[str, float]:
        """Each part's median over the steps, and the total's."""
        parts = [self.part_seconds(step) for step in self.steps]
        medians = {part: statistics.median(seconds[part] for seconds in parts) for part in PARTS}
        return medians | {"total": statistics.median(step.total_seconds for step in self.steps)}

    @property
    def overhead_share(self) -> float:
        """The median over the steps of (total − verify) / total (a median: a step that captured a new graph
        bucket does not sway it)."""
        return statistics.median(
            (step.total_seconds - step.verify_seconds) / step.total_seconds for step in self.steps
        )


def engine_overhead(
    shape: dict[str, Any],
    model_name: str,
    device: str,
    batches: Sequence[int],
    rounds: int,
    prompt_tokens: int,
    new_tokens: int,
) -> CheckResult:
    """The per-step breakdown for each number of answers per step in `batches`."""
    started = time.monotonic()
    name = f"engine overhead per step, {model_name}, bf16, casd, on {device}"
    workload = casd_workload(shape, device)
    try:
        rows, mode = _overhead_rows(workload, batches, rounds, prompt_tokens, new_tokens)
        nodes = workload.generator.tree_budget().nodes_for_next_step()
    finally:
        del workload
        release(device)
    problems = timing_problems(rows)
    details = [
        f"synthetic prompts of {prompt_tokens} tokens, {new_tokens} new tokens per answer, fixed tree of {nodes} "
        f"nodes per answer; verifier: {mode}; {rounds} round(s) per row after a warm-up round; medians per step, "
        "overhead share = (step − verify) / step, median over the steps; rest = the step's total minus its timed parts (Python)",
        *problems,
        "",
        *overhead_table(rows),
    ]
    return CheckResult(name, not problems, time.monotonic() - started, details)


def _overhead_rows(
    workload: Workload, batches: Sequence[int], rounds: int, prompt_tokens: int, new_tokens: int
) -> tuple[list[OverheadRow], str]:
    """The rows, and how the verifier ran (eager, static or graphs: after the run, so a failed capture shows)."""
    generator = workload.generator
    vocab = int(generator.target.config.vocab_size)
    requests = synthetic_requests(max(batches), prompt_tokens, new_tokens, vocab)
    decoder = batch_decoder(workload, max(batches), prompt_tokens + new_tokens)
    rows = []
    for answers in batches:
        counted: list[StepTimings] = []
        decode_together(generator, decoder, requests[:answers])  # warm-up
        for _ in range(rounds):
            decode_together(generator, decoder, requests[:answers], partial(_record, counted))
        rows.append(OverheadRow(answers, tuple(counted)))
    return rows, decoder.verifier.mode


def _record(counted: list[StepTimings], decoder: BatchDecoder) -> None:
    counted.append(decoder.last_step)


def timing_problems(rows: Sequence[OverheadRow]) -> list[str]:
    """Rows without a counted step, and steps whose timings are not finite and ≥ 0 (a broken clock)."""
    problems = []
    for row in rows:
        if not row.steps:
            problems.append(f"{row.answers} answers per step: no step was timed")
            continue
        broken = [
            step
            for step in row.steps
            if not all(
                math.isfinite(value) and value >= 0
                for value in (
                    step.draft_seconds,
                    step.verify_seconds,
                    step.accept_seconds,
                    step.cache_seconds,
                    step.total_seconds,
                )
            )
            or step.total_seconds <= 0
        ]
        if broken:
            problems.append(
                f"{row.answers} answers per step: {len(broken)} of {len(row.steps)} steps mistimed"
            )
    return problems


def overhead_table(rows: Sequence[OverheadRow]) -> list[str]:
    lines = [
        "| answers per step | steps | draft (ms) | verify forward (ms) | accept (ms) | cache compaction (ms) | "
        "rest, Python (ms) | step (ms) | overhead share | goal ≤ 15 % |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        if not row.steps:
            lines.append(f"| {row.answers} | 0 | | | | | | | | |")
            continue
        medians = row.medians()
        share = row.overhead_share
        lines.append(
            f"| {row.answers} | {len(row.steps)} | "
            + " | ".join(f"{medians[part] * 1000:.2f}" for part in (*PARTS, "total"))
            + f" | {share:.0%} | {'met' if share <= GOAL_SHARE else 'not met'} |"
        )
    return lines
