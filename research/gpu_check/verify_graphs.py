"""The verify step with CUDA graphs against eager and against the HBM limit, for a large model and each tree size.

Three ways to run one verification step of the plan's random-weight model (Llama-3-8B-shaped on a GPU, bf16, built
on the device as in `tree_rows`) after a prefix, each timed as the engine uses it (forward, lm_head on the tree's
rows, argmax, the target's tokens copied to the host):
(a) eager, dynamic cache: the engine's `TargetModel.verify` on a `KVCache` (what `tree_rows` times);
(b) static cache, eager: `StaticBatchVerifier(graphs=False)`, the pre-allocated KV pool at bucketed shapes;
(c) static cache + CUDA graphs: `StaticBatchVerifier(graphs=True)`, one graph per bucket (eager where capture fails
or there is no CUDA: `graphs_active` says which, and the verifier's log lines are quoted);
(d) the same with the forward fused by `torch.compile` (`fused=True`, VERIFY_MODE `compiled`), compiled at the
warm-up (the report says what each graphed mode ran as: `compiled graphs`, or without what failed); the dry run
leaves it out (compiling takes most of a minute on a CPU) and says so.
Sizes and modes are interleaved over the repeats and the medians kept; the committed length never changes (a
verify without `keep` leaves the cache as it was). The HBM limit is `tree_rows`'s: the bytes a step must read over
the measured copy bandwidth. Issue 32's goal, the faster of (c) and (d) ≤ 1.3× the limit, is reported, not enforced; the check fails
when a mode cannot run, or a step is faster than reading the weights allows (a broken timing).
"""

import logging
import math
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import torch

from modelstore.device import synced_clock
from research.gpu_check.checks import CheckResult
from research.gpu_check.decoding import release
from research.gpu_check.tree_rows import (
    StepTiming,
    bytes_per_step,
    copy_bandwidth,
    implausible_steps,
    random_llama,
)
from speculative.engine.kv_cache import KVCache
from speculative.engine.static_verifier import StaticBatchVerifier
from speculative.engine.target import TargetModel
from speculative.engine.tree import ROOT, DraftTree

GOAL_TIMES_LIMIT = 1.3
EAGER, STATIC, GRAPHS = "eager, dynamic cache", "static cache, eager", "static cache + CUDA graphs"
COMPILED = "static cache + torch.compile + CUDA graphs"
MODES = (EAGER, STATIC, GRAPHS, COMPILED)
GRAPHED = (GRAPHS, COMPILED)
NOT_COMPILED = "not compiled (dry run: compiling takes most of a minute on a CPU)"

Step = Callable[[DraftTree], list[int]]


@dataclass(frozen=True)
class GraphedRun:
    """What a graphed mode ran as after the run (`StaticBatchVerifier.mode`: a failed capture or compilation shows
    there) and the seconds its warm-up took (building it, compiling, capturing every size)."""

    ran_as: str
    warm_up_seconds: float


@dataclass(frozen=True)
class ModeTimes:
    """One mode's median seconds per tree size, and the target tokens of each size's tree."""

    seconds: dict[int, float]
    tokens: dict[int, list[int]]


def time_graph_modes(
    shape: dict[str, Any],
    model_name: str,
    device: str,
    rows: Sequence[int],
    prefix_tokens: int,
    repeats: int,
    copy_bytes: int,
    compile_verify: bool,
) -> CheckResult:
    """Median step time of each mode for each number of `rows` after `prefix_tokens`, with the HBM limit (the
    compiled mode only with `compile_verify`)."""
    started = time.monotonic()
    name = f"verify step: CUDA graphs vs eager vs the HBM limit, {model_name}, bf16, on {device}"
    torch_device = torch.device(device)
    bandwidth = copy_bandwidth(torch_device, copy_bytes)
    target = random_llama(shape, device, "bfloat16")
    try:
        step_bytes = bytes_per_step(target, prefix_tokens)
        with captured_logs("speculative") as log_lines:
            times, errors, graphed = _time_modes(target, rows, prefix_tokens, repeats, compile_verify)
    finally:
        del target
        release(device)
    limit = step_bytes / bandwidth
    problems = [f"{mode}: `{error}`" for mode, error in errors.items()]
    for mode, figures in times.items():
        timings = [StepTiming(size, figures.seconds[size], limit) for size in rows]
        problems += [f"{mode}: {problem}" for problem in implausible_steps(timings, torch_device)]
    details = [
        f"prefix {prefix_tokens} tokens; median of {repeats} repeats, sizes and modes interleaved; a step = "
        "forward, lm_head on the tree rows, argmax, tokens to the host",
        f"device-to-device copy: {bandwidth / 1e9:.0f} GB/s (read + write); bytes read per step "
        f"{step_bytes / 1e6:,.0f} MB → HBM limit {limit * 1000:.2f} ms",
        *[
            f"{mode}: ran as `{run.ran_as}`; warm-up (build, compile, capture every size) {run.warm_up_seconds:.1f} s"
            for mode, run in graphed.items()
        ],
        *([] if compile_verify else [f"{COMPILED}: {NOT_COMPILED}"]),
        *agreement_lines(times, rows),
        *[f"log: `{line}`" for line in log_lines[:5]],
        *problems,
        "",
        *graph_table(times, rows, limit, {mode: run.ran_as for mode, run in graphed.items()}),
    ]
    return CheckResult(name, not problems, time.monotonic() - started, details)


def _time_modes(
    target: TargetModel, rows: Sequence[int], prefix_tokens: int, repeats: int, compile_verify: bool
) -> tuple[dict[str, ModeTimes], dict[str, str], dict[str, GraphedRun]]:
    """Build each mode (a mode that fails to build or to step is left out, its error returned), warm each size
    up once (allocations, compilation, graph capture), then time them interleaved; also how each graphed mode
    ran."""
    vocab = int(target.config.vocab_size)
    prompt = [1 + (7919 * position) % (vocab - 1) for position in range(prefix_tokens)]
    trees = {size: chain_tree(prompt[-1], size, vocab) for size in rows}
    capacity = prefix_tokens + max(rows)
    steps: dict[str, Step] = {}
    errors: dict[str, str] = {}
    builders: dict[str, Callable[[], tuple[Step, StaticBatchVerifier | None]]] = {
        EAGER: lambda: (eager_step(target, prompt), None),
        STATIC: lambda: static_step(target, prompt, capacity, graphs=False),
        GRAPHS: lambda: static_step(target, prompt, capacity, graphs=True),
    }
    if compile_verify:
        builders[COMPILED] = lambda: static_step(target, prompt, capacity, graphs=True, fused=True)
    graphed: dict[str, tuple[StaticBatchVerifier, float]] = {}
    tokens: dict[str, dict[int, list[int]]] = {}
    for mode, build in builders.items():
        try:
            begun = synced_clock(target.device)
            step, verifier = build()
            tokens[mode] = {size: step(trees[size]) for size in rows}  # warm-up: every size once (captures)
            steps[mode] = step
            if mode in GRAPHED and verifier is not None:
                graphed[mode] = (verifier, synced_clock(target.device) - begun)
        except Exception as error:  # one mode failing (e.g. out of memory) must not hide the others
            errors[mode] = f"{type(error).__name__}: {error}"
    times: dict[str, dict[int, list[float]]] = {mode: {size: [] for size in rows} for mode in steps}
    for _ in range(repeats):
        for size in rows:
            for mode, step in steps.items():
                begun = synced_clock(target.device)
                step(trees[size])
                times[mode][size].append(synced_clock(target.device) - begun)
    # read after the run: a capture or compilation that failed on the way left the verifier without it
    runs = {mode: GraphedRun(verifier.mode, seconds) for mode, (verifier, seconds) in graphed.items()}
    return (
        {
            mode: ModeTimes(
                {
                    size: statistics.median(seconds) if seconds else math.nan
                    for size, seconds in sizes.items()
                },
                tokens[mode],
            )
            for mode, sizes in times.items()
        },
        errors,
        runs,
    )


def eager_step(target: TargetModel, prompt: Sequence[int]) -> Step:
    """(a): `TargetModel.verify` on a dynamic cache holding the prefix; the tree's rows are dropped after each."""
    cache = KVCache()
    target.prefill(prompt, cache)

    def step(tree: DraftTree) -> list[int]:
        output = target.verify(tree, cache)
        cache.keep(len(prompt), ())
        return [int(token) for token in output.logits.argmax(dim=-1).tolist()]

    return step


def static_step(
    target: TargetModel, prompt: Sequence[int], capacity: int, graphs: bool, fused: bool = False
) -> tuple[Step, StaticBatchVerifier]:
    """(b), (c) and (d): one answer in a `StaticBatchVerifier` of one slot."""
    verifier = StaticBatchVerifier(target, slots=1, capacity=capacity, graphs=graphs, fused=fused)
    cache = KVCache()
    target.prefill(prompt, cache)
    verifier.add(cache)
    cache.clear()

    def step(tree: DraftTree) -> list[int]:
        return list(verifier.verify([tree])[0].target_tokens)

    return step, verifier


def chain_tree(root: int, rows: int, vocab: int) -> DraftTree:
    """A tree of `rows` rows (root included) in one chain: the mask's shape, not its tokens, sets a step's cost."""
    tree = DraftTree(root)
    tree.add_path([1 + (104729 * depth) % (vocab - 1) for depth in range(1, rows)], "gpu-check", ROOT)
    return tree


@contextmanager
def captured_logs(logger_name: str) -> Iterator[list[str]]:
    """The messages of `logger_name` (INFO and above) while the block runs, e.g. a verifier's capture fallback."""
    lines: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage().splitlines()[0] if record.getMessage() else "")

    logger = logging.getLogger(logger_name)
    handler = Collect(logging.INFO)
    level = logger.level
    logger.addHandler(handler)
    if logger.getEffectiveLevel() > logging.INFO:
        logger.setLevel(logging.INFO)
    try:
        yield lines
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def agreement_lines(times: dict[str, ModeTimes], rows: Sequence[int]) -> list[str]:
    """How many tree rows' target tokens each static mode shares with the eager path (bf16: a near-tied argmax of
    a random model may flip between kernels, so this is reported, not enforced)."""
    if EAGER not in times:
        return []
    reference = times[EAGER].tokens
    total = sum(len(reference[size]) for size in rows)
    return [
        f"{mode}: target tokens equal to the eager path's at "
        f"{sum(a == b for size in rows for a, b in zip(times[mode].tokens[size], reference[size], strict=True))}"
        f" of {total} tree rows"
        for mode in times
        if mode != EAGER
    ]


def graph_table(
    times: dict[str, ModeTimes], rows: Sequence[int], limit: float, active: dict[str, str]
) -> list[str]:
    """Each size's median per mode, the graphed modes against the HBM limit, and the goal on the faster of them
    (met only by a mode that ran in CUDA graphs: `active` holds what each graphed mode ran as, e.g. `graphs` or
    `compiled static`)."""

    def ms(mode: str, size: int) -> str:
        return f"{times[mode].seconds[size] * 1000:.2f}" if mode in times else "—"

    def seconds(mode: str, size: int) -> float:
        return times[mode].seconds[size] if mode in times else math.nan

    in_graphs = [mode for mode in GRAPHED if active.get(mode, "").endswith("graphs")]
    lines = [
        f"| tree rows | {' (ms) | '.join(MODES)} (ms) | HBM limit (ms) | graphs ÷ limit | compiled ÷ limit | "
        f"eager ÷ faster of graphs and compiled | goal: fastest in CUDA graphs ≤ {GOAL_TIMES_LIMIT}× limit |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for size in rows:
        fastest = min((seconds(mode, size) for mode in GRAPHED if mode in times), default=math.nan)
        if not in_graphs:
            goal = "— (no mode ran in CUDA graphs)"
        else:
            fastest_in_graphs = min(seconds(mode, size) for mode in in_graphs)
            goal = "met" if fastest_in_graphs <= GOAL_TIMES_LIMIT * limit else "not met"
        lines.append(
            f"| {size} | {' | '.join(ms(mode, size) for mode in MODES)} | {limit * 1000:.2f} | "
            f"{_ratio(seconds(GRAPHS, size), limit)} | {_ratio(seconds(COMPILED, size), limit)} | "
            f"{_ratio(seconds(EAGER, size), fastest)} | {goal} |"
        )
    return lines


def _ratio(numerator: float, denominator: float) -> str:
    return "—" if math.isnan(numerator) or math.isnan(denominator) else f"{numerator / denominator:.2f}×"
