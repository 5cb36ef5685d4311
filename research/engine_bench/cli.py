"""Command line of the benchmark: load the model once, run the methods side by side, write JSON and markdown."""

import argparse
import os
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, get_args

import torch
import transformers

from modelstore.device_names import DTypeSetting
from research.engine_bench.methods import HF_GREEDY, PEER_METHODS, build_methods
from research.engine_bench.prompts import (
    SPEC_BENCH_CATEGORIES,
    EncodedPrompt,
    encode_prompts,
    load_prompt_set,
)
from research.engine_bench.recording import command_line
from research.engine_bench.report import markdown_report, summarize, write_reports
from research.engine_bench.runner import run_benchmark
from speculative.budget.cost_model import CostModel
from speculative.build import load_cost_model, load_target, tree_nodes
from speculative.settings import SpeculativeSettings

DEFAULT_METHODS = ",".join([*PEER_METHODS, "vanilla", "casd", "casd_prompt"])


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m research.engine_bench",
        description="Speculative decoding benchmark: transformers peers and the engine's methods side by side.",
    )
    parser.add_argument("--model", required=True, help="target model: a name in the model cache or a folder")
    parser.add_argument(
        "--adapter", help="LoRA adapter merged into the model (GENERATOR_ADAPTER; 'none': the plain model)"
    )
    parser.add_argument("--head", help="EAGLE-1/2 head (folder, cache entry or hub id) for eagle2 methods")
    parser.add_argument(
        "--prompts",
        required=True,
        help="spec-bench:PATH/question.jsonl[:CATEGORY] (categories: "
        f"{', '.join(SPEC_BENCH_CATEGORIES)}) or rag:PATH.jsonl (rendered requests of python -m research.rag_prompts)",
    )
    parser.add_argument(
        "--methods", default=DEFAULT_METHODS, help=f"comma-separated (default {DEFAULT_METHODS})"
    )
    parser.add_argument("--out", required=True, type=Path, help="folder for results.json and results.md")
    parser.add_argument("--max-new-tokens", type=int, default=128)
    parser.add_argument("--limit", type=int, help="only the first N prompts of the set")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--tree-budget", type=int, help="draft nodes per verification (default: the device's)"
    )
    parser.add_argument(
        "--dtype",
        choices=get_args(DTypeSetting),
        help="the target's dtype (default: DTYPE, auto: bfloat16 where the device has bfloat16 matrix units)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        help="torch CPU threads (default: torch's). On a machine shared with other work, 1 avoids the stalls "
        "of threads spin-waiting for a descheduled sibling, which distort the ratios between methods",
    )
    return parser.parse_args(argv)


def method_names(methods: str) -> list[str]:
    """The requested methods in order; hf-greedy is required, being the baseline of speedups and exact match."""
    names = [name.strip() for name in methods.split(",") if name.strip()]
    if HF_GREEDY not in names:
        raise SystemExit(
            f"--methods must include {HF_GREEDY}: it is the baseline of every speedup and exact match"
        )
    if len(set(names)) != len(names):
        raise SystemExit(f"--methods lists a method twice: {methods}")
    return names


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    names = method_names(args.methods)
    if any(value is not None and value < 1 for value in (args.runs, args.limit, args.threads)):
        raise SystemExit("--runs, --limit and --threads must be at least 1")
    prompts = load_prompt_set(args.prompts)[: args.limit]
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    overrides: dict[str, Any] = {"generator_model": args.model, "eagle_head": args.head}
    if args.adapter is not None:
        overrides["generator_adapter"] = args.adapter
    if args.tree_budget is not None:
        overrides["tree_budget"] = args.tree_budget
    if args.dtype is not None:
        overrides["dtype"] = args.dtype
    settings = SpeculativeSettings(**overrides)
    target, tokenizer = load_target(settings)
    # Only the adaptive policy weighs the device's verification costs; a fixed tree runs without measuring them.
    cost_model = load_cost_model(settings, target) if settings.tree_policy == "adaptive" else None
    methods = build_methods(names, settings, target, tokenizer, cost_model)
    encoded = encode_prompts(tokenizer, prompts, settings.chat_template)
    load_before = os.getloadavg()
    records = run_benchmark(
        methods, encoded, args.max_new_tokens, args.runs, lambda line: print(line, file=sys.stderr)
    )
    setup = describe_setup(args, argv, settings, encoded, load_before, cost_model)
    summaries = summarize(records, names)
    json_path, markdown_path = write_reports(args.out, setup, summaries, records)
    print(markdown_report(setup, summaries))
    print(f"wrote {json_path} and {markdown_path}", file=sys.stderr)
    return 0


def describe_setup(
    args: argparse.Namespace,
    argv: Sequence[str] | None,
    settings: SpeculativeSettings,
    prompts: Sequence[EncodedPrompt],
    load_before: tuple[float, float, float],
    cost_model: CostModel | None,
) -> dict[str, Any]:
    """Everything needed to reproduce and judge the figures: command, settings, versions, machine load."""
    return {
        "command": command_line("research.engine_bench", argv),
        "model": args.model,
        "head": args.head,
        "adapter": settings.generator_adapter,
        "prompt_set": args.prompts,
        "chat_template": settings.chat_template,
        "prompts": len(prompts),
        "mean_prompt_tokens": statistics.fmean(len(prompt.token_ids) for prompt in prompts),
        "max_new_tokens": args.max_new_tokens,
        "runs": args.runs,
        "device": settings.device,
        "dtype": settings.dtype,
        "tree_policy": settings.tree_policy,
        "tree_budget": tree_nodes(settings),
        "verify_cost_relative": (
            {str(rows): round(ratio, 2) for rows, ratio in cost_model.relative().items()}
            if cost_model
            else {}
        ),
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "load_before": _load(load_before),
        "load_after": _load(os.getloadavg()),
        "settings": settings.model_dump(mode="json"),
    }


def _load(load: tuple[float, float, float]) -> str:
    return "/".join(f"{value:.2f}" for value in load)
