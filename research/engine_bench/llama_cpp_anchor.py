"""llama.cpp's greedy decoding on the benchmark's prompts: the anchor a CPU user would pick instead of the engine.

`python -m research.engine_bench.llama_cpp_anchor --gguf FILE.gguf --model M --prompts rag:FILE.jsonl --out DIR
--llama-cpp-path SITE_PACKAGES [--compare DIR/results.json …]` answers every prompt greedily with llama-cpp-python,
which is no dependency of the project: `--llama-cpp-path` names the folder holding its `llama_cpp` package (a
virtualenv's site-packages), appended to the import path after this environment's own packages.

The prompt ids are the engine benchmark's (`encode_prompts` with the tokenizer of `--model`, the worker's chat turn),
handed to llama.cpp as ids, so both read the same tokens; the GGUF must hold the same model (its weights may be
quantised). The answer ends at the model's stop ids (the engine's set), at a stop string (cut as the benchmark cuts
transformers' answers) or at max_new_tokens. Each answer starts from an empty KV cache (llama-cpp-python would
otherwise reuse a cached prefix of the last prompt). The time to the first token runs from the call to the first
sampled token (prefill included); decode tokens/s counts the tokens after it. With `--compare`, the methods of each
`python -m research.engine_bench` results.json are set beside llama.cpp: their decode speed over llama.cpp's and
how many of llama.cpp's answers equal that run's hf-greedy answers.
"""

import argparse
import importlib
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from transformers import AutoConfig, AutoTokenizer, GenerationConfig, PreTrainedTokenizerBase

from modelstore.production import require_model
from research.engine_bench.measurement import Measurement
from research.engine_bench.methods import HF_GREEDY, cut_at_stop_string
from research.engine_bench.prompts import EncodedPrompt, encode_prompts, load_prompt_set
from research.engine_bench.recording import command_line
from speculative.engine.stopping import StopReason, model_stop_token_ids
from speculative.settings import SpeculativeSettings

LLAMA_CPP = "llama.cpp greedy"
TokenStream = Callable[[Sequence[int]], Iterator[int]]


class AnchorError(RuntimeError):
    """llama.cpp or the inputs to compare with cannot be used; the message says what to give instead."""


@dataclass(frozen=True)
class AnchorSummary:
    """llama.cpp's figures over the prompts: per run the mean decode speed over prompts and the median time to the
    first token, then the median over runs."""

    prompts: int
    runs: int
    decode_tokens_per_second: float
    decode_tokens_per_second_by_run: tuple[float, ...]
    first_token_seconds: float
    mean_answer_tokens: float
    stop_reasons: dict[str, int]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m research.engine_bench.llama_cpp_anchor", description=__doc__
    )
    parser.add_argument("--gguf", required=True, type=Path, help="the model as a GGUF file")
    parser.add_argument(
        "--model", required=True, help="the same model in the cache: its tokenizer encodes the prompts"
    )
    parser.add_argument("--prompts", required=True, help="as for python -m research.engine_bench")
    parser.add_argument("--out", required=True, type=Path, help="folder for results.json and results.md")
    parser.add_argument(
        "--llama-cpp-path",
        type=Path,
        help="folder holding the llama_cpp package (e.g. a venv's site-packages)",
    )
    parser.add_argument("--max-new-tokens", type=int, default=128)
    parser.add_argument("--limit", type=int, help="only the first N prompts of the set")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument(
        "--threads", type=int, default=1, help="llama.cpp's threads, for decoding and prefill"
    )
    parser.add_argument("--context", type=int, default=4096, help="llama.cpp's context (n_ctx)")
    parser.add_argument(
        "--compare",
        type=Path,
        action="append",
        default=[],
        help="an engine_bench results.json on the same prompts, to set beside (repeatable)",
    )
    return parser.parse_args(argv)


def import_llama_cpp(path: Path | None) -> Any:
    """The `llama_cpp` module, from this environment or from `path` (appended to the import path)."""
    if path is not None:
        if not (path / "llama_cpp").is_dir():
            raise AnchorError(
                f"{path} holds no llama_cpp package; give the site-packages of an environment with llama-cpp-python"
            )
        sys.path.append(str(path))
    try:
        return importlib.import_module("llama_cpp")
    except ImportError as error:
        raise AnchorError(
            f"cannot import llama_cpp ({error}); install llama-cpp-python in a separate environment and pass its "
            "site-packages with --llama-cpp-path"
        ) from None


def llama_stream(gguf: Path, threads: int, context: int, llama_cpp_path: Path | None) -> TokenStream:
    """Greedy tokens of llama.cpp for prompt ids, each answer from an empty KV cache."""
    if not gguf.is_file():
        raise AnchorError(f"no GGUF file at {gguf}")
    llama_cpp = import_llama_cpp(llama_cpp_path)
    llm = llama_cpp.Llama(
        model_path=str(gguf), n_ctx=context, n_threads=threads, n_threads_batch=threads, verbose=False
    )

    def stream(prompt_ids: Sequence[int]) -> Iterator[int]:
        llm.reset()  # generate() would reuse the KV cache of a previous prompt's common prefix
        for token in llm.generate(list(prompt_ids), temp=0.0, repeat_penalty=1.0, reset=True):
            yield int(token)

    return stream


def answer(
    stream: TokenStream,
    tokenizer: PreTrainedTokenizerBase,
    prompt: EncodedPrompt,
    stop_token_ids: frozenset[int],
    max_new_tokens: int,
) -> Measurement:
    """One greedy answer, timed; it ends at a stop id (kept, as `generate()` keeps it), a stop string or the limit."""
    stop_strings = prompt.prompt.stop_strings
    token_ids: list[int] = []
    started = time.perf_counter()
    first_token_at = started
    for token in stream(prompt.token_ids):
        token_ids.append(token)
        if len(token_ids) == 1:
            first_token_at = time.perf_counter()
        if (
            token in stop_token_ids
            or len(token_ids) >= max_new_tokens
            or _holds_stop(tokenizer, token_ids, stop_strings)
        ):
            break
    ended = time.perf_counter()
    kept, text, stopped_by_string = cut_at_stop_string(tokenizer, token_ids, stop_strings)
    return Measurement(
        token_ids=tuple(kept),
        text=text,
        stop_reason=_stop_reason(kept, stop_token_ids, stopped_by_string),
        total_seconds=ended - started,
        decode_seconds=ended - first_token_at,
        decode_tokens=max(0, len(kept) - 1),
        target_forwards=len(token_ids),
        tau=1.0,
    )


def _holds_stop(
    tokenizer: PreTrainedTokenizerBase, token_ids: Sequence[int], stop_strings: Sequence[str]
) -> bool:
    if not stop_strings:
        return False
    text = str(tokenizer.decode(list(token_ids), skip_special_tokens=True))
    return any(stop in text for stop in stop_strings)


def _stop_reason(token_ids: Sequence[int], stop_token_ids: frozenset[int], stopped_by_string: bool) -> str:
    if stopped_by_string:
        return str(StopReason.STOP_STRING)
    if token_ids and token_ids[-1] in stop_token_ids:
        return str(StopReason.STOP_TOKEN)
    return str(StopReason.LENGTH)


def run_anchor(
    stream: TokenStream,
    tokenizer: PreTrainedTokenizerBase,
    prompts: Sequence[EncodedPrompt],
    stop_token_ids: frozenset[int],
    max_new_tokens: int,
    runs: int,
) -> list[list[Measurement]]:
    """Every prompt answered in every run, after one untimed warm-up answer."""
    if not prompts or runs < 1:
        raise AnchorError("the anchor needs at least one prompt and one run")
    answer(stream, tokenizer, prompts[0], stop_token_ids, min(max_new_tokens, 16))
    results = []
    for run in range(runs):
        measurements = []
        for index, prompt in enumerate(prompts):
            measurement = answer(stream, tokenizer, prompt, stop_token_ids, max_new_tokens)
            measurements.append(measurement)
            print(
                f"run {run + 1} prompt {index + 1}/{len(prompts)}: {len(measurement.token_ids)} tokens, "
                f"{measurement.decode_tokens_per_second:.2f} tok/s decode, first token "
                f"{measurement.first_token_seconds:.2f} s",
                file=sys.stderr,
            )
        results.append(measurements)
    return results


def summarize_anchor(runs: Sequence[Sequence[Measurement]]) -> AnchorSummary:
    by_run = [
        statistics.fmean([m.decode_tokens_per_second for m in run if m.decode_tokens > 0] or [0.0])
        for run in runs
    ]
    first = runs[0]
    reasons: dict[str, int] = {}
    for measurement in first:
        reasons[measurement.stop_reason] = reasons.get(measurement.stop_reason, 0) + 1
    return AnchorSummary(
        prompts=len(first),
        runs=len(runs),
        decode_tokens_per_second=statistics.median(by_run),
        decode_tokens_per_second_by_run=tuple(by_run),
        first_token_seconds=statistics.median(
            statistics.median(m.first_token_seconds for m in run) for run in runs
        ),
        mean_answer_tokens=statistics.fmean(len(m.token_ids) for m in first),
        stop_reasons=reasons,
    )


def comparison(
    report: dict[str, Any], anchor: AnchorSummary, answers: Mapping[str, Sequence[int]]
) -> dict[str, Any]:
    """An engine_bench run beside llama.cpp: each method's median decode speed over llama.cpp's, and how many of
    llama.cpp's answers equal the run's hf-greedy answers (prompts of both only)."""
    greedy = {row["prompt_id"]: row["token_ids"] for row in report["answers"] if row["method"] == HF_GREEDY}
    shared = sorted(set(greedy) & set(answers))
    if not shared:
        raise AnchorError(
            "the compared results.json holds none of these prompts; run both on the same prompt set"
        )
    setup = report["setup"]
    return {
        "command": setup["command"],
        "dtype": setup["dtype"],
        "threads": setup["threads"],
        "load": f"{setup['load_before']} / {setup['load_after']}",
        "equal_to_hf_greedy": sum(list(answers[p]) == list(greedy[p]) for p in shared),
        "prompts": len(shared),
        "methods": {
            name: {
                "decode_tokens_per_second": summary["decode_tokens_per_second"]["median"],
                "over_llama_cpp": summary["decode_tokens_per_second"]["median"]
                / anchor.decode_tokens_per_second
                if anchor.decode_tokens_per_second > 0
                else 0.0,
                "first_token_seconds": summary["first_token_seconds"]["median"],
            }
            for name, summary in report["methods"].items()
        },
    }


def read_report(path: Path) -> dict[str, Any]:
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise AnchorError(f"cannot read {path} as an engine_bench results.json: {error}") from None
    if not isinstance(report, dict) or not {"setup", "methods", "answers"} <= set(report):
        raise AnchorError(f"{path} is not an engine_bench results.json (setup, methods, answers)")
    return report


def markdown(setup: dict[str, Any], anchor: AnchorSummary, comparisons: Sequence[dict[str, Any]]) -> str:
    lines = [
        f"`{setup['command']}`",
        "",
        f"{anchor.prompts} prompts ({setup['prompt_set']}), mean {setup['mean_prompt_tokens']:.0f} prompt tokens, "
        f"max_new_tokens {setup['max_new_tokens']}, {anchor.runs} runs, {setup['threads']} threads, load average "
        f"{setup['load_before']} before / {setup['load_after']} after.",
        "",
        f"{LLAMA_CPP}: decode {anchor.decode_tokens_per_second:.2f} tok/s (runs: "
        f"{', '.join(f'{v:.2f}' for v in anchor.decode_tokens_per_second_by_run)}), first token "
        f"{anchor.first_token_seconds:.2f} s (median), {anchor.mean_answer_tokens:.0f} answer tokens on average.",
    ]
    for compared in comparisons:
        lines += [
            "",
            f"Beside `{compared['command']}` ({compared['dtype']}, {compared['threads']} threads, load "
            f"{compared['load']}): llama.cpp's answers equal to its hf-greedy: {compared['equal_to_hf_greedy']} of "
            f"{compared['prompts']}.",
            "",
            "| method | decode tok/s | × llama.cpp greedy | first token s |",
            "|---|---|---|---|",
            *(
                f"| {name} | {figures['decode_tokens_per_second']:.2f} | {figures['over_llama_cpp']:.2f}× | "
                f"{figures['first_token_seconds']:.2f} |"
                for name, figures in compared["methods"].items()
            ),
        ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if any(
        value is not None and value < 1
        for value in (args.runs, args.limit, args.threads, args.max_new_tokens)
    ):
        raise SystemExit("--runs, --limit, --threads and --max-new-tokens must be at least 1")
    try:
        reports = [read_report(path) for path in args.compare]
        settings = SpeculativeSettings(generator_model=args.model)
        folder = require_model(settings.generator_model, settings.model_cache, "--model")
        tokenizer = AutoTokenizer.from_pretrained(folder)
        stop_ids = model_stop_token_ids(
            AutoConfig.from_pretrained(folder), GenerationConfig.from_pretrained(folder), tokenizer
        )
        prompts = encode_prompts(
            tokenizer, load_prompt_set(args.prompts)[: args.limit], settings.chat_template
        )
        stream = llama_stream(args.gguf, args.threads, args.context, args.llama_cpp_path)
        load_before = os.getloadavg()
        runs = run_anchor(stream, tokenizer, prompts, stop_ids, args.max_new_tokens, args.runs)
        anchor = summarize_anchor(runs)
        answers = {prompt.prompt.prompt_id: m.token_ids for prompt, m in zip(prompts, runs[0], strict=True)}
        comparisons = [comparison(report, anchor, answers) for report in reports]
    except AnchorError as error:
        raise SystemExit(f"error: {error}") from None
    setup = {
        "command": command_line("research.engine_bench.llama_cpp_anchor", argv),
        "gguf": str(args.gguf),
        "model": args.model,
        "prompt_set": args.prompts,
        "prompts": len(prompts),
        "mean_prompt_tokens": statistics.fmean(len(p.token_ids) for p in prompts),
        "max_new_tokens": args.max_new_tokens,
        "threads": args.threads,
        "load_before": _load(load_before),
        "load_after": _load(os.getloadavg()),
    }
    write_results(args.out, setup, anchor, comparisons, prompts, runs)
    print(markdown(setup, anchor, comparisons))
    return 0


def write_results(
    out: Path,
    setup: dict[str, Any],
    anchor: AnchorSummary,
    comparisons: Sequence[dict[str, Any]],
    prompts: Sequence[EncodedPrompt],
    runs: Sequence[Sequence[Measurement]],
) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rows = [
        {
            "run": run,
            "prompt_id": prompt.prompt.prompt_id,
            **asdict(m),
            "first_token_seconds": m.first_token_seconds,
        }
        for run, measurements in enumerate(runs)
        for prompt, m in zip(prompts, measurements, strict=True)
    ]
    report = {
        "setup": setup,
        "anchor": asdict(anchor),
        "comparisons": list(comparisons),
        "measurements": rows,
    }
    (out / "results.json").write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")
    (out / "results.md").write_text(markdown(setup, anchor, comparisons), encoding="utf-8")


def _load(load: tuple[float, float, float]) -> str:
    return "/".join(f"{value:.2f}" for value in load)


if __name__ == "__main__":
    raise SystemExit(main())
