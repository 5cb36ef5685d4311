"""Trace the adaptive tree budget over one long answer: drafted, verified and accepted nodes per step.

    python -m research.engine_bench.budget_trace --model google/gemma-3-270m --prompts rag:out/bench/dutch-rag.jsonl \
        --prompt 0 --max-new-tokens 256 --out out/bench/budget-trace

writes `trace.csv` (one row per verification step) and `trace.png` (the plot in docs/benchmarks.md), so one can see
the policy verify whole branches while the answer copies its sources and the root alone while it does not.
"""

import argparse
import csv
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from research.engine_bench.prompts import encode_prompts, load_prompt_set
from speculative.build import build_generator, load_cost_model, load_target
from speculative.engine.request import GenerationRequest
from speculative.settings import SpeculativeSettings


@dataclass(frozen=True)
class TracedStep:
    step: int
    verified_nodes: int
    accepted_tokens: int
    accepted_source: str


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m research.engine_bench.budget_trace", description=__doc__)
    parser.add_argument("--model", required=True, help="target model: a name in the model cache or a folder")
    parser.add_argument("--head", help="EAGLE head, for methods with eagle2")
    parser.add_argument("--prompts", required=True, help="as for python -m research.engine_bench")
    parser.add_argument("--prompt", type=int, default=0, help="index of the prompt to answer")
    parser.add_argument("--method", default="casd")
    parser.add_argument("--max-new-tokens", type=int, default=256)
    parser.add_argument("--out", required=True, type=Path)
    return parser.parse_args(argv)


def trace(args: argparse.Namespace) -> list[TracedStep]:
    settings = SpeculativeSettings(generator_model=args.model, eagle_head=args.head, tree_policy="adaptive")
    target, tokenizer = load_target(settings)
    generator = build_generator(settings, target, tokenizer, args.method, load_cost_model(settings, target))
    chosen = load_prompt_set(args.prompts)[args.prompt : args.prompt + 1]
    [prompt] = encode_prompts(tokenizer, chosen, settings.chat_template)
    request = GenerationRequest(
        prompt.token_ids, args.max_new_tokens, list(prompt.prompt.stop_strings), prompt.context_ids
    )
    result = generator.generate(request).run()
    return [
        TracedStep(
            index + 1, sum(step.nodes_by_source.values()), step.acceptance_length, step.accepted_source
        )
        for index, step in enumerate(result.stats.steps)
    ]


def write_trace(steps: list[TracedStep], out: Path, title: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with (out / "trace.csv").open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["step", "verified_nodes", "accepted_tokens", "accepted_source"])
        writer.writerows((s.step, s.verified_nodes, s.accepted_tokens, s.accepted_source) for s in steps)
    figure, axes = plt.subplots(figsize=(10, 3.5))
    numbers = [s.step for s in steps]
    axes.bar(numbers, [s.verified_nodes for s in steps], color="#9ab", label="verified draft nodes")
    axes.plot(numbers, [s.accepted_tokens for s in steps], "o-", color="#c33", ms=3, label="tokens gained")
    axes.set_xlabel("verification step")
    axes.set_title(title)
    axes.legend(loc="upper right")
    figure.tight_layout()
    figure.savefig(out / "trace.png", dpi=110)
    plt.close(figure)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    steps = trace(args)
    tokens = sum(s.accepted_tokens for s in steps)
    write_trace(
        steps, args.out, f"{args.model}, {args.method}, adaptive tree: {tokens} tokens in {len(steps)} steps"
    )
    print(f"{len(steps)} steps, {tokens} tokens; wrote {args.out / 'trace.csv'} and {args.out / 'trace.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
