"""`python -m research.engine_bench.concurrency`: N answers at once, decoded together (continuous batching) against one
at a time (MAX_BATCH=1: the others wait), for each N of `--concurrency`; batched with the settings' VERIFY_MODE.

The engine is called directly (no HTTP), as the worker's decoding thread calls it: N prompts arrive at the same
instant; batched, they join one `BatchDecoder` of N slots (each prefilled as it joins) and step together; one at a
time, each is decoded alone after the one before, so its latency includes the wait. Reported per N and mode: total
answer tokens per second (all answers over the wall time), and the p50/p95 of the per-answer latency (arrival to
last token). In float32 the modes must give the same tokens for every prompt (the run stops otherwise); in bf16 a
near-tied argmax may flip between a batched and a lone forward, so each row counts the answers that are equal.
"""

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from research.engine_bench.prompts import encode_prompts, load_prompt_set
from research.engine_bench.recording import command_line
from speculative.build import build_generator, build_verifier, load_target, verify_mode
from speculative.engine.batch import BatchDecoder
from speculative.engine.batch_verifier import BatchVerifier
from speculative.engine.generator import SpeculativeGenerator
from speculative.engine.request import GenerationRequest
from speculative.settings import SpeculativeSettings


@dataclass(frozen=True)
class Outcome:
    """One answer: its tokens and the seconds from the common arrival to its last token."""

    token_ids: tuple[int, ...]
    latency_seconds: float


def one_at_a_time(generator: SpeculativeGenerator, requests: Sequence[GenerationRequest]) -> list[Outcome]:
    arrived = time.perf_counter()
    outcomes = []
    for request in requests:
        result = generator.generate(request).run()
        outcomes.append(Outcome(tuple(result.token_ids), time.perf_counter() - arrived))
    return outcomes


def together(
    generator: SpeculativeGenerator,
    requests: Sequence[GenerationRequest],
    verifier: BatchVerifier | None = None,
) -> list[Outcome]:
    """The requests decoded in one batch, verified by `verifier` (default: eager)."""
    arrived = time.perf_counter()
    decoder = BatchDecoder(generator.target, len(requests), verifier)
    generations = [generator.generate(request) for request in requests]
    ended: dict[int, float] = {}
    for index, generation in enumerate(generations):
        decoder.join(generation)
        if generation.finished:
            generation.finish()
            ended[index] = time.perf_counter()
    while decoder.members:
        for generation, _ in decoder.step():
            if generation.finished:
                generation.finish()
                ended[generations.index(generation)] = time.perf_counter()
    return [
        Outcome(tuple(generation.result.token_ids), ended[index] - arrived)
        for index, generation in enumerate(generations)
    ]


def summarize(outcomes: Sequence[Outcome], wall_seconds: float) -> dict[str, float]:
    latencies = sorted(outcome.latency_seconds for outcome in outcomes)
    tokens = sum(len(outcome.token_ids) for outcome in outcomes)
    return {
        "total_tokens_per_second": round(tokens / wall_seconds, 2),
        "p50_latency_seconds": round(statistics.median(latencies), 2),
        "p95_latency_seconds": round(_percentile(latencies, 0.95), 2),
        "answer_tokens": tokens,
    }


def _percentile(sorted_values: Sequence[float], share: float) -> float:
    """Nearest rank (the value below which `share` of the values lie, rounded up)."""
    rank = max(1, -(-int(share * 100) * len(sorted_values) // 100))
    return sorted_values[rank - 1]


def run(args: argparse.Namespace, argv: Sequence[str] | None) -> dict[str, Any]:
    settings = SpeculativeSettings(
        generator_model=args.model, tree_policy=args.tree_policy, max_batch=max(args.concurrency)
    )
    target, tokenizer = load_target(settings)
    generator = build_generator(settings, target, tokenizer, args.method)
    prompts = encode_prompts(tokenizer, load_prompt_set(args.prompts), settings.chat_template)
    requests = [
        GenerationRequest(
            prompt.token_ids, args.max_new_tokens, prompt.prompt.stop_strings, prompt.context_ids
        )
        for prompt in prompts
    ]
    one_at_a_time(generator, requests[:1])  # warm-up: first calls pay for allocations
    together(generator, requests[:2], build_verifier(settings, target, 2))
    load_before = os.getloadavg()
    rows = []
    for concurrency in args.concurrency:
        batch = [requests[index % len(requests)] for index in range(concurrency)]
        figures = {}
        answers = {}
        verifier = build_verifier(settings, target, concurrency)
        for mode in ("one_at_a_time", "together"):
            started = time.perf_counter()
            outcomes = (
                one_at_a_time(generator, batch)
                if mode == "one_at_a_time"
                else together(generator, batch, verifier)
            )
            figures[mode] = summarize(outcomes, time.perf_counter() - started)
            answers[mode] = [outcome.token_ids for outcome in outcomes]
            print(f"{concurrency} at once, {mode}: {figures[mode]}", file=sys.stderr)
        equal = sum(a == b for a, b in zip(answers["together"], answers["one_at_a_time"], strict=True))
        if equal < concurrency and settings.dtype == "float32":
            raise SystemExit(f"{concurrency} at once: the batched answers differ from the ones decoded alone")
        rows.append({"concurrency": concurrency, "answers_equal": equal, **figures})
    return {
        "command": command_line("research.engine_bench.concurrency", argv),
        "model": args.model,
        "method": args.method,
        "tree_policy": args.tree_policy,
        "verify_mode": verify_mode(settings),
        "device": settings.device,
        "dtype": settings.dtype,
        "threads": torch.get_num_threads(),
        "max_new_tokens": args.max_new_tokens,
        "load_average_before": [round(value, 2) for value in load_before],
        "load_average_after": [round(value, 2) for value in os.getloadavg()],
        "answers_equal": all(row["answers_equal"] == row["concurrency"] for row in rows),
        "rows": rows,
    }


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "| answers at once | one at a time: total tok/s | p50 s | p95 s | together: total tok/s | p50 s | p95 s "
        "| throughput × |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in report["rows"]:
        alone, batched = row["one_at_a_time"], row["together"]
        gain = batched["total_tokens_per_second"] / alone["total_tokens_per_second"]
        lines.append(
            f"| {row['concurrency']} | {alone['total_tokens_per_second']} | {alone['p50_latency_seconds']} | "
            f"{alone['p95_latency_seconds']} | {batched['total_tokens_per_second']} | "
            f"{batched['p50_latency_seconds']} | {batched['p95_latency_seconds']} | {gain:.2f}× |"
        )
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m research.engine_bench.concurrency", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--model", required=True, help="target model: a name in the model cache or a folder")
    parser.add_argument("--prompts", required=True, help="rag:FILE.jsonl or spec-bench:PATH[:CATEGORY]")
    parser.add_argument("--method", default="casd")
    parser.add_argument("--tree-policy", choices=("adaptive", "fixed"), default="fixed")
    parser.add_argument(
        "--concurrency", default="1,4,8", help="comma-separated answers at once (default 1,4,8)"
    )
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--threads", type=int, help="torch CPU threads (default: torch's)")
    parser.add_argument("--out", type=Path, help="also write the report as JSON here")
    args = parser.parse_args(argv)
    try:
        args.concurrency = [int(value) for value in args.concurrency.split(",")]
    except ValueError:
        parser.error(f"--concurrency takes comma-separated whole numbers, got {args.concurrency!r}")
    if (
        min(args.concurrency) < 1
        or args.max_new_tokens < 1
        or (args.threads is not None and args.threads < 1)
    ):
        parser.error("--concurrency, --max-new-tokens and --threads must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    report = run(args, argv)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
