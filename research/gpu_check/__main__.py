"""`python -m research.gpu_check`: run on a CUDA machine, it measures in a few minutes how long verifying 1–64
tree rows takes for a Llama-3-8B-shaped model against the HBM limit (eager, static cache, CUDA graphs), the engine's
overhead per decoding step, batched throughput with 1–16 answers at once, and the shipped generator against a
compiled greedy baseline (where it is missing, a model of its shape with random weights: the engine's step time
and the τ it needs for twice the baseline); it checks that the engine is lossless there and that the worker serves
and streams there; last it profiles a few decoding steps with torch.profiler (a Chrome trace next to the report).
It writes a Markdown report and exits non-zero if a check fails (a check that cannot run here is
skipped and says why). Without CUDA (or with --dry-run) the same steps run on the CPU with tiny
shapes.
"""

import argparse
import gc
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

import torch

from research.gpu_check.batched import batched_throughput
from research.gpu_check.checks import CheckResult
from research.gpu_check.engine_overhead import engine_overhead
from research.gpu_check.lossless import run_lossless_tests
from research.gpu_check.plan import Plan, dry_run_plan, gpu_plan
from research.gpu_check.report import render
from research.gpu_check.shaped_generator import generator_check
from research.gpu_check.step_profile import step_profile
from research.gpu_check.tree_rows import time_tree_rows
from research.gpu_check.verify_graphs import time_graph_modes
from research.gpu_check.worker_stream import stream_from_worker

DEFAULT_REPORT = Path("out/gpu_check.md")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m research.gpu_check", description=__doc__)
    parser.add_argument(
        "--report", type=Path, default=DEFAULT_REPORT, help=f"Markdown report (default {DEFAULT_REPORT})"
    )
    parser.add_argument("--device", default="cuda", help="the CUDA device to check (default cuda)")
    parser.add_argument(
        "--dry-run", action="store_true", help="tiny shapes on the CPU (automatic when CUDA is not available)"
    )
    parser.add_argument(
        "--checks",
        type=check_numbers,
        default=None,
        metavar="N,N,…",
        help=f"run only these checks, by their numbers 1–{len(CHECK_NAMES)} in docs/benchmarks.md (default: all)",
    )
    return parser.parse_args(argv)


CHECK_NAMES = (
    "tree rows",
    "graphs vs eager",
    "engine overhead",
    "batched throughput",
    "lossless tests",
    "worker",
    "generator against compiled greedy",
    "step profile",
)


def check_numbers(text: str) -> frozenset[int]:
    """`"7,8"` → {7, 8}; an unknown number or a word is an argparse error naming the valid ones."""
    try:
        numbers = frozenset(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"checks are numbers 1–{len(CHECK_NAMES)} separated by commas, not {text!r}"
        ) from None
    unknown = sorted(number for number in numbers if not 1 <= number <= len(CHECK_NAMES))
    if not numbers or unknown:
        named = ", ".join(map(str, unknown)) if unknown else repr(text)
        raise argparse.ArgumentTypeError(f"no check {named}: the checks are 1–{len(CHECK_NAMES)}")
    return numbers


def run_checks(
    plan: Plan,
    logs: Path,
    work_dir: Path,
    profile_trace: Path,
    after_each: Callable[[list[CheckResult]], None],
    only: frozenset[int] | None = None,
) -> list[CheckResult]:
    """The checks numbered in `only` (default all) in turn, `after_each` called with the results so far (a run
    stopped by a time limit still leaves its report); a check that raises fails with its error instead of ending
    the run. The step profile's Chrome trace goes to `profile_trace`."""
    checks: list[tuple[str, Callable[[], CheckResult]]] = [
        # The step times first: the figures the docs need, before anything that could run into a time limit.
        (
            "tree rows",
            lambda: time_tree_rows(
                plan.verify_model,
                plan.verify_model_name,
                plan.device,
                plan.verify_rows,
                plan.prefix_tokens,
                plan.repeats,
                plan.copy_bytes,
            ),
        ),
        (
            "graphs vs eager",
            lambda: time_graph_modes(
                plan.verify_model,
                plan.verify_model_name,
                plan.device,
                plan.graph_rows,
                plan.prefix_tokens,
                plan.repeats,
                plan.copy_bytes,
                plan.compile_verify,
            ),
        ),
        (
            "engine overhead",
            lambda: engine_overhead(
                plan.verify_model,
                plan.verify_model_name,
                plan.device,
                plan.overhead_batches,
                plan.overhead_rounds,
                plan.decode_prompt_tokens,
                plan.decode_new_tokens,
            ),
        ),
        (
            "batched throughput",
            lambda: batched_throughput(
                plan.verify_model,
                plan.verify_model_name,
                plan.device,
                plan.concurrency,
                plan.decode_prompt_tokens,
                plan.decode_new_tokens,
            ),
        ),
        (
            "lossless tests",
            lambda: run_lossless_tests(plan.device, plan.lossless_tests, logs / "lossless.log"),
        ),
        (
            "worker",
            lambda: stream_from_worker(
                plan.device,
                plan.worker_dtype,
                plan.worker_new_tokens,
                plan.worker_settings,
                work_dir,
                logs / "worker.log",
            ),
        ),
        # A few seconds: a profiled view of the steps check 3 times.
        (
            "step profile",
            lambda: step_profile(
                plan.verify_model,
                plan.verify_model_name,
                plan.device,
                plan.profile_answers,
                plan.profile_steps,
                plan.decode_prompt_tokens,
                plan.decode_new_tokens,
                profile_trace,
            ),
        ),
        # Last, the longest (the baseline compiles on the GPU); a model of its shape runs where the model is missing.
        ("generator against compiled greedy", lambda: generator_check(plan, work_dir)),
    ]
    assert sorted(name for name, _ in checks) == sorted(CHECK_NAMES)
    results = []
    for name, check in checks:
        if only is not None and CHECK_NAMES.index(name) + 1 not in only:
            continue
        started = time.monotonic()
        try:
            result = check()
        except Exception as error:  # a crash is a failed check, reported with the others
            trace = traceback.format_exc()
            (logs / f"{name.replace(' ', '_')}.traceback").write_text(trace, encoding="utf-8")
            result = CheckResult(
                name, False, time.monotonic() - started, [f"`{type(error).__name__}: {error}`"]
            )
        print(f"{result.verdict} {result.name} ({result.seconds:.1f} s)", flush=True)
        results.append(result)
        _release_memory(plan.device)
        after_each(results)
    return results


def _release_memory(device: str) -> None:
    """What a check left on the device (its model, a failed check's frames) is freed before the next one builds."""
    gc.collect()
    if device.startswith("cuda"):
        torch.cuda.empty_cache()


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    command = " ".join(["python -m research.gpu_check", *(sys.argv[1:] if argv is None else argv)])
    started = time.monotonic()
    if args.dry_run or not torch.cuda.is_available():
        if not args.dry_run:
            print("CUDA is not available: running the CPU dry run", file=sys.stderr)
        plan = dry_run_plan()
        # Tiny shapes gain nothing from more threads, and spinning ones on a busy small CPU slowed them up to 20×.
        torch.set_num_threads(1)
    else:
        plan = gpu_plan(args.device)
    logs = args.report.parent / f"{args.report.stem}_logs"
    profile_trace = args.report.parent / f"{args.report.stem}.step_profile.trace.json"
    logs.mkdir(parents=True, exist_ok=True)

    def write_report(results: list[CheckResult]) -> None:
        text = render(results, command, plan.device, plan.dry_run, time.monotonic() - started)
        args.report.write_text(text, encoding="utf-8")

    with tempfile.TemporaryDirectory(prefix="gpu-check-") as work_dir:
        results = run_checks(plan, logs, Path(work_dir), profile_trace, write_report, args.checks)
    print(args.report.read_text(encoding="utf-8"))
    return 0 if all(result.passed for result in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
