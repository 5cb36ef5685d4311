"""Summaries per method over prompts and runs, and the JSON and markdown reports.

Spec-Bench's protocol: a run's speed is the mean over prompts of tokens/s, its speedup the ratio to hf-greedy's
speed in the same run; over runs we give the median (robust on a shared machine) and mean ± std. The time to the
first token is a run's median over prompts, then the median over runs. Token counts,
τ and the acceptance histograms do not depend on timing, so they come from the first run.
"""

import json
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from research.engine_bench.degenerate import DEFAULT_RULE, is_degenerate, repeated_ngram_share
from research.engine_bench.measurement import Measurement
from research.engine_bench.methods import HF_GREEDY
from research.engine_bench.runner import Record

PerRunFigure = Callable[[Sequence[Measurement]], float]


@dataclass(frozen=True)
class Spread:
    median: float
    mean: float
    std: float
    values: tuple[float, ...]

    @classmethod
    def of(cls, values: Sequence[float]) -> "Spread":
        std = statistics.stdev(values) if len(values) > 1 else 0.0
        return cls(statistics.median(values), statistics.fmean(values), std, tuple(values))

    def __str__(self) -> str:
        return f"{self.median:.2f} ({self.mean:.2f} ± {self.std:.2f})"


@dataclass(frozen=True)
class DraftProfile:
    """Where an engine method's decoding time goes, per verification step (medians over runs for times)."""

    steps_per_answer: float
    nodes_per_step: dict[str, float]
    draft_ms_per_step: float
    verify_ms_per_step: float
    draft_share_of_decode: float

    @property
    def tree_nodes_per_step(self) -> float:
        return sum(self.nodes_per_step.values())


@dataclass(frozen=True)
class MethodSummary:
    method: str
    prompts: int
    decode_tokens_per_second: Spread
    end_to_end_tokens_per_second: Spread
    decode_speedup: Spread
    prompt_decode_speedup: float
    end_to_end_speedup: Spread
    first_token_seconds: Spread
    tau: float
    exact_match: float
    first_divergences: tuple[int, ...]
    mean_answer_tokens: float
    mean_repeated_ngram_share: float
    degenerate_answers: int
    stop_reasons: dict[str, int]
    acceptance_histogram: dict[str, dict[int, int]]
    profile: DraftProfile | None


def summarize(records: Sequence[Record], methods: Sequence[str]) -> dict[str, MethodSummary]:
    """One summary per method; `hf-greedy` must be among the records (it is the baseline)."""
    by_run = _by_method_and_run(records)
    if HF_GREEDY not in by_run:
        raise ValueError(f"{HF_GREEDY} is the baseline of every speedup and exact match: run it too")
    return {method: _summary(method, by_run[method], by_run[HF_GREEDY]) for method in methods}


def _summary(method: str, runs: list[list[Measurement]], baseline: list[list[Measurement]]) -> MethodSummary:
    first = runs[0]
    decode = [_mean_decode_speed(run) for run in runs]
    end_to_end = [_mean_end_to_end_speed(run) for run in runs]
    return MethodSummary(
        method=method,
        prompts=len(first),
        decode_tokens_per_second=Spread.of(decode),
        end_to_end_tokens_per_second=Spread.of(end_to_end),
        decode_speedup=Spread.of(
            [_ratio(own, _mean_decode_speed(base)) for own, base in zip(decode, baseline, strict=True)]
        ),
        prompt_decode_speedup=_median_prompt_speedup(runs, baseline),
        end_to_end_speedup=Spread.of(
            [
                _ratio(own, _mean_end_to_end_speed(base))
                for own, base in zip(end_to_end, baseline, strict=True)
            ]
        ),
        first_token_seconds=Spread.of(
            [statistics.median(m.first_token_seconds for m in run) for run in runs]
        ),
        tau=statistics.fmean(measurement.tau for measurement in first),
        exact_match=_exact_match(runs, baseline),
        first_divergences=tuple(
            index
            for own, base in zip(first, baseline[0], strict=True)
            if (index := first_divergence(own.token_ids, base.token_ids)) is not None
        ),
        mean_answer_tokens=statistics.fmean(len(measurement.token_ids) for measurement in first),
        mean_repeated_ngram_share=statistics.fmean(repeated_ngram_share(m.token_ids) for m in first),
        degenerate_answers=sum(is_degenerate(measurement.token_ids) for measurement in first),
        stop_reasons=dict(Counter(measurement.stop_reason for measurement in first)),
        acceptance_histogram=_histogram(first),
        profile=_profile(runs) if any(m.drafted_nodes or m.draft_seconds for m in first) else None,
    )


def _by_method_and_run(records: Sequence[Record]) -> dict[str, list[list[Measurement]]]:
    grouped: defaultdict[str, defaultdict[int, list[Measurement]]] = defaultdict(lambda: defaultdict(list))
    for record in records:
        grouped[record.method][record.run].append(record.measurement)
    return {method: [runs[run] for run in sorted(runs)] for method, runs in grouped.items()}


def _mean_decode_speed(run: Sequence[Measurement]) -> float:
    """Mean over prompts of decode tokens/s; answers that ended at their first token have no decode speed."""
    speeds = [m.decode_tokens_per_second for m in run if m.decode_tokens > 0]
    return statistics.fmean(speeds) if speeds else 0.0


def _mean_end_to_end_speed(run: Sequence[Measurement]) -> float:
    return statistics.fmean(m.end_to_end_tokens_per_second for m in run)


def _ratio(value: float, baseline: float) -> float:
    return value / baseline if baseline > 0 else 0.0


def _median_prompt_speedup(runs: list[list[Measurement]], baseline: list[list[Measurement]]) -> float:
    """The median over prompts and runs of the decode speed over hf-greedy's on the same prompt in the same run
    (robust to one slow prompt; answers without a decode speed left out)."""
    ratios = [
        own.decode_tokens_per_second / base.decode_tokens_per_second
        for own_run, base_run in zip(runs, baseline, strict=True)
        for own, base in zip(own_run, base_run, strict=True)
        if own.decode_tokens > 0 and base.decode_tokens > 0 and base.decode_tokens_per_second > 0
    ]
    return statistics.median(ratios) if ratios else 0.0


def _exact_match(runs: list[list[Measurement]], baseline: list[list[Measurement]]) -> float:
    pairs = [
        (own.token_ids, base.token_ids)
        for own_run, base_run in zip(runs, baseline, strict=True)
        for own, base in zip(own_run, base_run, strict=True)
    ]
    return sum(own == base for own, base in pairs) / len(pairs)


def first_divergence(answer: Sequence[int], baseline: Sequence[int]) -> int | None:
    """The index of the first answer token that differs from the baseline's (one answer a prefix of the other:
    where the shorter ends); None when they are equal."""
    if tuple(answer) == tuple(baseline):
        return None
    return next(
        (index for index, (own, base) in enumerate(zip(answer, baseline, strict=False)) if own != base),
        min(len(answer), len(baseline)),
    )


def _histogram(run: Sequence[Measurement]) -> dict[str, dict[int, int]]:
    total: defaultdict[str, Counter[int]] = defaultdict(Counter)
    for measurement in run:
        for source, counts in measurement.acceptance_histogram.items():
            total[source].update(counts)
    return {source: dict(sorted(counts.items())) for source, counts in sorted(total.items())}


def _profile(runs: list[list[Measurement]]) -> DraftProfile:
    first = runs[0]
    steps = sum(m.verify_steps for m in first) or 1
    nodes: Counter[str] = Counter()
    for measurement in first:
        nodes.update(measurement.drafted_nodes)
    return DraftProfile(
        steps_per_answer=steps / len(first),
        nodes_per_step={source: count / steps for source, count in sorted(nodes.items())},
        draft_ms_per_step=_median_per_step(runs, lambda m: m.draft_seconds),
        verify_ms_per_step=_median_per_step(runs, lambda m: m.verify_seconds),
        draft_share_of_decode=statistics.median(
            sum(m.draft_seconds for m in run) / (sum(m.decode_seconds for m in run) or 1) for run in runs
        ),
    )


def _median_per_step(runs: list[list[Measurement]], seconds: Callable[[Measurement], float]) -> float:
    return statistics.median(
        1000 * sum(seconds(m) for m in run) / (sum(m.verify_steps for m in run) or 1) for run in runs
    )


# ---------------------------------------------------------------------------------------------- reports


def write_reports(
    out_dir: Path, setup: dict[str, Any], summaries: dict[str, MethodSummary], records: Sequence[Record]
) -> tuple[Path, Path]:
    """`results.json` (setup, summaries, every measurement, first-run answers) and `results.md` (the tables)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, markdown_path = out_dir / "results.json", out_dir / "results.md"
    report = {
        "setup": setup,
        "degenerate_rule": (
            f"≥ {DEFAULT_RULE.share:.0%} of {DEFAULT_RULE.window} consecutive {DEFAULT_RULE.ngram}-grams of the answer "
            "repeat an earlier one"
        ),
        "methods": {name: asdict(summary) for name, summary in summaries.items()},
        "measurements": [_measurement_row(record) for record in records],
        "answers": [_answer_row(record) for record in records if record.run == 0],
    }
    json_path.write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")
    markdown_path.write_text(markdown_report(setup, summaries), encoding="utf-8")
    return json_path, markdown_path


def _measurement_row(record: Record) -> dict[str, Any]:
    m = record.measurement
    return {
        "run": record.run,
        "prompt_id": record.prompt.prompt.prompt_id,
        "method": record.method,
        "prompt_tokens": len(record.prompt.token_ids),
        "answer_tokens": len(m.token_ids),
        "total_seconds": m.total_seconds,
        "first_token_seconds": m.first_token_seconds,
        "decode_seconds": m.decode_seconds,
        "decode_tokens": m.decode_tokens,
        "target_forwards": m.target_forwards,
        "tau": m.tau,
        "draft_seconds": m.draft_seconds,
        "verify_seconds": m.verify_seconds,
        "drafted_nodes": m.drafted_nodes,
    }


def _answer_row(record: Record) -> dict[str, Any]:
    m = record.measurement
    return {
        "prompt_id": record.prompt.prompt.prompt_id,
        "category": record.prompt.prompt.category,
        "method": record.method,
        "stop_reason": m.stop_reason,
        "repeated_ngram_share": repeated_ngram_share(m.token_ids),
        "text": m.text,
        "token_ids": list(m.token_ids),
    }


def markdown_report(setup: dict[str, Any], summaries: dict[str, MethodSummary]) -> str:
    """The speed table, the engine's draft profile and the acceptance histograms, as markdown."""
    lines = [
        f"`{setup['command']}`",
        "",
        f"{setup['prompts']} prompts ({setup['prompt_set']}), mean {setup['mean_prompt_tokens']:.0f} prompt tokens, "
        f"max_new_tokens {setup['max_new_tokens']}, {setup['runs']} runs, {setup['device']} {setup['dtype']}, "
        f"{setup['threads']} threads, load average {setup['load_before']} before / {setup['load_after']} after.",
        "",
        _cost_line(setup),
        "",
        *_speed_table(summaries),
        "",
        *_divergence_lines(summaries),
        *_profile_table(summaries),
        "",
        *_histogram_table(summaries),
    ]
    return "\n".join(lines) + "\n"


def _cost_line(setup: dict[str, Any]) -> str:
    """The device's measured cost model, which the adaptive tree policy weighs acceptance against."""
    if not setup["verify_cost_relative"]:
        return f"Tree policy {setup['tree_policy']}, {setup['tree_budget']} nodes; no cost model measured."
    costs = ", ".join(f"{rows}: {ratio:.2f}" for rows, ratio in setup["verify_cost_relative"].items())
    return (
        f"Default tree policy {setup['tree_policy']}; one verification forward by tree rows, in single-token "
        f"decodes (measured after a 512-token prefill): {costs}."
    )


def _speed_table(summaries: dict[str, MethodSummary]) -> list[str]:
    lines = [
        "Tokens/s: median over runs (mean ± std); speedup vs hf-greedy in the same run (per prompt: the median over "
        "prompts of the speedup on each).",
        "",
        "| method | decode tok/s | × hf-greedy | × per prompt | end-to-end tok/s | × hf-greedy | first token s | τ | "
        "exact match | answer tokens | degenerate |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in summaries.values():
        lines.append(
            f"| {s.method} | {s.decode_tokens_per_second} | {s.decode_speedup.median:.2f}× | "
            f"{s.prompt_decode_speedup:.2f}× | "
            f"{s.end_to_end_tokens_per_second} | {s.end_to_end_speedup.median:.2f}× | "
            f"{s.first_token_seconds.median:.2f} | {s.tau:.2f} | "
            f"{s.exact_match:.0%} | {s.mean_answer_tokens:.0f} | {s.degenerate_answers}/{s.prompts} |"
        )
    return lines


def _divergence_lines(summaries: dict[str, MethodSummary]) -> list[str]:
    """Where answers that differ from hf-greedy's (first run) start to differ: expected only outside float32."""
    lines = [
        f"{s.method}: {len(s.first_divergences)} of {s.prompts} answers differ from hf-greedy's, first at answer "
        f"token {', '.join(map(str, sorted(s.first_divergences)))}."
        for s in summaries.values()
        if s.first_divergences
    ]
    return [*lines, ""] if lines else []


def _profile_table(summaries: dict[str, MethodSummary]) -> list[str]:
    lines = [
        "Engine profile per verification step (times: median over runs).",
        "",
        "| method | steps/answer | tree nodes/step (by source) | draft ms/step | verify ms/step | draft share |",
        "|---|---|---|---|---|---|",
    ]
    for s in summaries.values():
        if s.profile is None:
            continue
        p = s.profile
        sources = ", ".join(f"{source} {count:.1f}" for source, count in p.nodes_per_step.items()) or "none"
        lines.append(
            f"| {s.method} | {p.steps_per_answer:.1f} | {p.tree_nodes_per_step:.1f} ({sources}) | "
            f"{p.draft_ms_per_step:.1f} | {p.verify_ms_per_step:.1f} | {p.draft_share_of_decode:.0%} |"
        )
    return lines


def _histogram_table(summaries: dict[str, MethodSummary]) -> list[str]:
    """Steps per accepted length (bonus included), per credited source: the CASD paper's figure 4 as a table."""
    histograms = {s.method: s.acceptance_histogram for s in summaries.values() if s.acceptance_histogram}
    longest = max((length for h in histograms.values() for c in h.values() for length in c), default=1)
    lengths = range(1, longest + 1)
    lines = [
        "Acceptance length per step (bonus included) by credited source, first run.",
        "",
        "| method | source | " + " | ".join(map(str, lengths)) + " |",
        "|---|---|" + "---|" * len(lengths),
    ]
    for method, histogram in histograms.items():
        for source, counts in histogram.items():
            cells = " | ".join(str(counts.get(length, 0)) for length in lengths)
            lines.append(f"| {method} | {source} | {cells} |")
    return lines
