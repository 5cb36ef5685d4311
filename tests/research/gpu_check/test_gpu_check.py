"""The GPU check (`python -m research.gpu_check`): its CPU dry run passes end to end, and its parts judge what
they measure (a broken timing, a missing test folder) instead of reporting it as a pass."""

import argparse
import json
import math
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import torch
from torch.profiler import ProfilerActivity, profile, record_function
from transformers import CompileConfig, Gemma3TextConfig, LlamaConfig, LlamaForCausalLM

from api.prompting import build_rag_prompt
from research.gpu_check.__main__ import check_numbers
from research.gpu_check.batched import BatchRow, goal_line, nearest_rank
from research.gpu_check.checks import CheckResult, skipped
from research.gpu_check.engine_overhead import OverheadRow, overhead_table, timing_problems
from research.gpu_check.generator_speed import (
    BASELINE,
    GreedyBaseline,
    MethodFigures,
    compare_with_greedy,
    local_folder,
    mismatches,
)
from research.gpu_check.lossless import run_lossless_tests
from research.gpu_check.plan import DRY_RUN_GEMMA3, GEMMA3_270M, dry_run_plan
from research.gpu_check.rag_prompts import rag_prompts
from research.gpu_check.report import render
from research.gpu_check.shaped_generator import (
    SHIPPED_HEAD,
    generator_check,
    head_fits,
    needed_tau,
    needed_tau_with_prefill,
    shaped_rows,
)
from research.gpu_check.step_profile import RANGES, step_profile, step_profiles
from research.gpu_check.tree_rows import StepTiming, bytes_per_step, implausible_steps
from research.gpu_check.verify_graphs import (
    COMPILED,
    EAGER,
    GRAPHS,
    STATIC,
    ModeTimes,
    captured_logs,
    chain_tree,
    graph_table,
)
from research.gpu_check.worker_model import byte_tokenizer, write_worker_model
from speculative.engine.batch import StepTimings
from speculative.engine.kv_cache import KVCache
from speculative.engine.static_verifier import StaticBatchVerifier
from speculative.engine.step_graphs import GraphCaptureError
from speculative.engine.target import TargetModel
from tests.speculative.conftest import greedy_reference

REPO_ROOT = Path(__file__).resolve().parents[3]
SMALL_LLAMA = LlamaConfig(
    vocab_size=300,
    hidden_size=32,
    intermediate_size=64,
    num_hidden_layers=1,
    num_attention_heads=2,
    num_key_value_heads=1,
    max_position_embeddings=128,
)


@pytest.mark.slow
def test_the_dry_run_passes_every_check_and_writes_the_report(tmp_path: Path) -> None:
    text = _dry_run_report(tmp_path)

    assert "**PASS**" in text and "**Dry run**" in text
    assert text.count(": PASS (") == 8 and "SKIPPED" not in text and "FAIL" not in text
    assert "bfloat16 casd: exact match" in text  # the bf16 match rate is quoted from the test's output
    assert "decode" in text and "tokens/s" in text  # the worker's answer was streamed
    for rows in (1, 8, 16):
        assert f"\n| {rows} | " in text
    # graphs vs eager: every mode but the compiled one timed at every size (no CUDA: the graphed mode runs without
    # graphs and says so, its tree rows' tokens are the eager path's; compiling is left to the GPU and says so)
    graphs = _section(text, "## verify step: CUDA graphs vs eager")
    assert f"{GRAPHS}: ran as `static`; warm-up" in graphs
    assert f"{COMPILED}: not compiled (dry run" in graphs
    assert f"{GRAPHS}: target tokens equal to the eager path's at 14 of 14 tree rows" in graphs
    for rows in (2, 4, 8):
        row = next(line for line in graphs.splitlines() if line.startswith(f"| {rows} | "))
        assert row.count("| — |") == 2  # the compiled mode's time and its ratio to the limit, nothing else
    assert "| answers per step |" in text and "overhead share" in text
    assert "| answers at once |" in text and "goals at 8 answers" in text
    # the generator against plain greedy, on the stand-in of its shape (the dry run does not look for the model):
    # every method in both dtypes, fp32 token-exact, no compiling on a CPU, the τ needed for 2× next to the real τ
    generator = _section(text, "## tiny Gemma-3-shaped (dry run, random weights)")
    for dtype in ("float32", "bfloat16"):
        for method in ("greedy generate()", "casd", "eagle2+casd"):
            assert f"| {dtype} | {method} | " in generator
        assert f"{dtype} casd: decoding twice as fast as the baseline needs τ " in generator
    assert "not compiled (dry run" in generator and "| τ for 2× decoding |" in generator
    assert "casd τ 5.11" in generator and "docs/benchmarks.md" in generator
    # the step profile: its table, and its Chrome trace next to the report
    profiled = _section(text, "## step profile (torch.profiler)")
    assert "| step.verify | " in profiled and "| **step** | " in profiled
    trace = tmp_path / "gpu_check.step_profile.trace.json"
    assert f"`{trace}`" in profiled
    assert "traceEvents" in json.loads(trace.read_text(encoding="utf-8"))


def test_checks_picks_the_checks_to_run_by_their_numbers(tmp_path: Path) -> None:
    text = _dry_run_report(tmp_path, "--checks", "1")

    assert text.count(": PASS (") == 1 and "## verification step time per tree size" in text


def _dry_run_report(folder: Path, *arguments: str) -> str:
    """The report of `python -m research.gpu_check --dry-run` with `arguments`, which must pass."""
    report = folder / "gpu_check.md"
    completed = subprocess.run(
        [sys.executable, "-m", "research.gpu_check", "--dry-run", *arguments, "--report", str(report)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return report.read_text(encoding="utf-8")


@pytest.mark.parametrize("given", ["0", "9", "7,x", ""])
def test_checks_refuses_what_is_not_a_check_number_and_names_the_valid_ones(given: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="1–8"):
        check_numbers(given)
    assert check_numbers("8,7") == {7, 8}


def _section(report: str, heading: str) -> str:
    """The report's text from `heading` to the next check's heading."""
    start = report.index(heading)
    end = report.find("\n## ", start + 1)
    return report[start : end if end != -1 else len(report)]


def test_a_step_faster_than_reading_the_weights_is_reported_as_a_broken_timing_on_a_gpu() -> None:
    # 8 rows: faster than half the copy-measured limit; 16 rows: a bit faster than the limit, which a matrix-vector
    # kernel streaming memory better than a plain copy can reach.
    timings = [StepTiming(1, 0.004, 0.0035), StepTiming(8, 0.001, 0.0035), StepTiming(16, 0.003, 0.0035)]

    problems = implausible_steps(timings, torch.device("cuda"))

    assert len(problems) == 1 and "8 rows" in problems[0]
    assert implausible_steps(timings, torch.device("cpu")) == []  # a tiny model sits in the CPU's caches
    assert implausible_steps([StepTiming(1, float("nan"), 0.1)], torch.device("cpu"))


def test_the_bytes_of_a_step_are_the_weights_but_the_input_embedding_and_the_prefix_kv() -> None:
    config = LlamaConfig(
        vocab_size=1000,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        tie_word_embeddings=False,
    )
    target = TargetModel(LlamaForCausalLM(config).to(torch.bfloat16))
    every_weight = 2 * sum(parameter.numel() for parameter in target.model.parameters())
    kv_per_token = 2 * 2 * 2 * 16 * 2  # keys and values × layers × KV heads × head dim × bf16 bytes

    assert bytes_per_step(target, 100) == every_weight - 2 * 1000 * 64 + 100 * kv_per_token


def test_the_worker_models_tokenizer_round_trips_any_text_and_matches_the_model(tmp_path: Path) -> None:
    text = "Nuchter vóór de ingreep: 2× 500 mg — €12 ✓"
    tokenizer = byte_tokenizer()

    assert tokenizer.decode(tokenizer(text, add_special_tokens=False).input_ids) == text
    folder = write_worker_model(tmp_path / "model")
    config = LlamaConfig.from_pretrained(folder)
    assert config.vocab_size == len(tokenizer) and config.eos_token_id == tokenizer.eos_token_id


def test_the_lossless_check_fails_outside_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)

    result = run_lossless_tests("cpu", None, tmp_path / "lossless.log")

    assert not result.passed and "repository root" in result.details[0]


def test_a_generator_in_no_cache_is_skipped_with_the_command_that_provides_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MODEL_CACHE", str(tmp_path / "empty-cache"))

    result = compare_with_greedy("vraagbaak/no-such-generator", "cpu", ("float32",), 1, 4, 200, False)

    assert result.skipped and result.passed and result.verdict == "SKIPPED"
    assert "not in the model cache" in result.details[0]
    assert "python -m modelstore provision --only vraagbaak/no-such-generator" in result.details[1]


def test_a_skipped_check_does_not_fail_the_report_but_is_named_in_its_summary() -> None:
    checks = [
        CheckResult("tree rows", True, 1.0, ["| 1 | 2 |"]),
        skipped("generator against compiled greedy", 0.1, ["the model is missing"]),
    ]

    text = render(checks, "python -m research.gpu_check", "cpu", dry_run=False, seconds=2.0)

    assert "**PASS** (1 skipped: generator against compiled greedy)" in text
    assert "| generator against compiled greedy | SKIPPED | 0.1 |" in text
    assert "## generator against compiled greedy: SKIPPED (0.1 s)" in text


def test_the_check_prompts_are_the_products_rag_template_around_sample_passages() -> None:
    prompts = rag_prompts(6, passage_chars=1200)

    assert len({prompt.id for prompt in prompts}) == 5  # one document after the other
    for prompt in prompts:
        passages = prompt.context or ()
        assert prompt.prompt == build_rag_prompt(prompt.record["question"], passages)
        assert passages and all(
            passage.startswith("Titel: ") and "\nTekst: " in passage for passage in passages
        )
        assert sum(len(passage.split("\nTekst: ", 1)[1]) for passage in passages) <= 1200
        assert "<!--" not in prompt.prompt


def test_batched_goals_are_judged_at_eight_answers_against_one_answer_alone() -> None:
    rows = [
        BatchRow(1, 64, 1.0, 1.0, 1.0),
        BatchRow(8, 512, 1.6, 1.5, 1.6),
        BatchRow(16, 1024, 4.0, 3.0, 4.0),
    ]

    line = goal_line(rows)

    assert "5.00× (met)" in line and "1.50× (met)" in line
    assert "not met" in goal_line([rows[0], BatchRow(8, 512, 4.0, 2.5, 4.0)])
    assert "at 16" in goal_line([rows[0], rows[2]])  # no 8-answer row: the largest one, said so
    assert nearest_rank([1.0, 2.0, 3.0, 4.0], 0.95) == 4.0 and nearest_rank([1.0, 2.0, 3.0, 4.0], 0.5) == 2.0


def test_the_greedy_baseline_says_when_it_did_not_run_compiled() -> None:
    torch.manual_seed(0)
    model = LlamaForCausalLM(SMALL_LLAMA).eval()
    prompt = list(range(5, 25))
    plain = GreedyBaseline(model, frozenset({2}), compile=False)
    asked_to_compile = GreedyBaseline(model, frozenset({2}), compile=True)  # a CPU: transformers declines

    assert (
        asked_to_compile(prompt, 6) == plain(prompt, 6) == greedy_reference(model, prompt, 6, frozenset({2}))
    )
    assert "NOT compiled" in asked_to_compile.describe() and not asked_to_compile.compiled
    assert "not compiled" in plain.describe()


def test_the_engine_overhead_is_each_steps_time_beside_the_verify_forward() -> None:
    # 10 ms steps of which 8.5 ms verify (15 %), one step that captured a graph (90 ms verify) and one faster step
    usual = StepTimings(0.0005, 0.0085, 0.0002, 0.0003, 0.010)
    steps = (
        usual,
        usual,
        StepTimings(0.0005, 0.090, 0.0002, 0.0003, 0.0915),
        StepTimings(0.0, 0.004, 0.0, 0.0, 0.005),
    )
    row = OverheadRow(1, steps)

    assert row.overhead_share == pytest.approx(0.15)  # the median step's: the capture does not sway it
    assert row.medians()["verify"] == pytest.approx((0.0085 + 0.0085) / 2)
    assert row.part_seconds(usual)["rest"] == pytest.approx(0.0005)
    assert "met |" in overhead_table([row])[-1] and "15%" in overhead_table([row])[-1]
    assert timing_problems([row]) == []
    assert timing_problems([OverheadRow(4, ())]) == ["4 answers per step: no step was timed"]
    assert (
        "1 of 1 steps mistimed"
        in timing_problems([OverheadRow(2, (StepTimings(0.0, float("nan"), 0.0, 0.0, 0.01),))])[0]
    )


def test_the_graph_goal_takes_the_faster_mode_that_ran_in_graphs_within_1_3_times_the_limit() -> None:
    times = {
        EAGER: ModeTimes({1: 0.020, 64: 0.021}, {}),
        STATIC: ModeTimes({1: 0.018, 64: 0.019}, {}),
        GRAPHS: ModeTimes({1: 0.0060, 64: 0.0070}, {}),
        COMPILED: ModeTimes({1: 0.0045, 64: 0.0050}, {}),
    }
    limit = 0.0036  # compiled 1-row step 1.25× the limit, 64 rows 1.39×
    in_graphs = {GRAPHS: "graphs", COMPILED: "compiled graphs"}

    met, missed = graph_table(times, [1, 64], limit, in_graphs)[2:]
    compiled_without_graphs = graph_table(times, [1], limit, {**in_graphs, COMPILED: "compiled static"})[2]
    inactive = graph_table(times, [1], limit, {GRAPHS: "static", COMPILED: "compiled static"})[2]

    # graphs ÷ limit, compiled ÷ limit, eager ÷ compiled
    assert met.endswith("| met |") and "1.67× | 1.25× | 4.44×" in met
    assert missed.endswith("| not met |")
    assert compiled_without_graphs.endswith("| not met |")  # only the graphs mode's 6 ms counts for the goal
    assert inactive.endswith("| — (no mode ran in CUDA graphs) |")
    only_eager = graph_table({EAGER: times[EAGER]}, [1], limit, {})[2]
    assert only_eager == "| 1 | 20.00 | — | — | — | 3.60 | — | — | — | — (no mode ran in CUDA graphs) |"


class _FailingCapture:
    def capture(self, forward: Callable[[], None], outputs: Callable[[], torch.Tensor]) -> Any:
        raise GraphCaptureError("out of memory (a test's capture)")


def test_the_graph_check_quotes_the_verifiers_log_when_a_capture_falls_back_to_eager() -> None:
    target = TargetModel(LlamaForCausalLM(SMALL_LLAMA).eval())
    verifier = StaticBatchVerifier(target, slots=1, capacity=64, graphs=True, capture=_FailingCapture())
    cache = KVCache()
    target.prefill(list(range(5, 25)), cache)
    verifier.add(cache)

    with captured_logs("speculative") as lines:
        tokens = verifier.verify([chain_tree(24, 4, SMALL_LLAMA.vocab_size)])[0].target_tokens

    assert len(tokens) == 4 and not verifier.graphs_active  # what the check reads after its run
    assert (
        len(lines) == 1
        and "capture of the verify forward" in lines[0]
        and "every verify forward runs" in lines[0]
    )
    assert "\n" not in lines[0]


def test_a_baseline_whose_compile_fails_runs_uncompiled_and_quotes_the_error() -> None:
    torch.manual_seed(0)
    model = LlamaForCausalLM(SMALL_LLAMA).eval()
    prompt = list(range(5, 25))
    baseline = GreedyBaseline(model, frozenset({2}), compile=True)
    baseline.compile_config = CompileConfig(backend="no_such_backend")
    baseline.compile_config._compile_all_devices = (
        True  # transformers' switch to compile on a CPU (for tests)
    )

    baseline.warm_up(prompt, 6)

    assert not baseline.compiled and baseline.compile_error is not None
    assert "torch.compile failed" in baseline.describe()
    assert baseline(prompt, 6) == greedy_reference(model, prompt, 6, frozenset({2}))


def test_without_the_generator_a_model_of_its_shape_runs_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MODEL_CACHE", str(tmp_path / "empty-cache"))
    plan = replace(
        dry_run_plan(),
        generator_model="vraagbaak/no-such-generator",
        generator_dtypes=("float32",),
        shaped_prompts=1,
        generator_new_tokens=6,
    )

    result = generator_check(plan, tmp_path)

    assert result.passed and not result.skipped  # float32 answers equal the baseline's token for token
    assert "so its shape runs instead" in result.details[0] and "not in the model cache" in result.details[0]
    assert any("modelstore provision --only vraagbaak/no-such-generator" in line for line in result.details)
    rows = [line for line in result.details if line.startswith("| float32 | ")]
    assert [row.split(" | ")[1] for row in rows] == ["greedy generate()", "casd", "eagle2+casd"]
    assert rows[1].endswith("| 1 of 1 |")


def test_the_tau_needed_for_twice_the_baseline_follows_from_the_step_and_token_times() -> None:
    # the baseline: 100 tokens in 0.4 s of which 4 ms prefill (99 decoded at 4 ms); casd: the same 100 tokens, a
    # 0.05 s prefill, then 50 steps of 10 ms
    figures = {
        BASELINE: MethodFigures(tokens=100, seconds=0.4, equal=1, answers=1, prefill_seconds=0.004),
        "casd": MethodFigures(
            tokens=100,
            seconds=0.55,
            equal=1,
            answers=1,
            steps=50,
            accepted=100,
            nodes=300,
            prefill_seconds=0.05,
        ),
    }

    baseline, casd = (row.split(" | ") for row in shaped_rows("float32", figures)[:2])

    assert baseline[3:6] == ["4.00", "4.00", "—"]  # prefill ms, ms per decoded token
    # τ 5 with 10 ms steps decodes at 2 ms a token: twice the baseline's 4 ms
    assert needed_tau(0.010, 0.004) == pytest.approx(5.0)
    assert casd[3:10] == ["50.00", "10.00", "6.0", "2.00", "5.50", "0.73×", "5.00"]
    # with both prefills: 99 decoded tokens × 10 ms ÷ (0.4 s ÷ 2 − 0.05 s)
    assert casd[10] == "6.60"
    assert needed_tau_with_prefill(99, 0.010, 0.4, 0.25) == math.inf
    assert (
        "| unreachable |"
        in shaped_rows("float32", {**figures, "casd": replace(figures["casd"], prefill_seconds=0.3)})[1]
    )
    assert shaped_rows("float32", figures)[2].endswith("| skipped (no EAGLE head) | | | | | | | | | |")


def test_float32_answers_that_differ_from_the_baseline_fail_the_check_and_bfloat16_ones_are_counted() -> None:
    figures = {
        BASELINE: MethodFigures(tokens=10, seconds=1.0, equal=2, answers=2),
        "casd": MethodFigures(tokens=10, seconds=1.0, equal=1, answers=2),
    }

    assert mismatches("float32", figures) == ["float32 casd: 1 of 2 answers equal the baseline's tokens"]
    assert mismatches("bfloat16", figures) == []


def test_the_committed_shape_is_gemma_3_270ms_and_fits_the_committed_head() -> None:
    head = local_folder(SHIPPED_HEAD, Path("/no-model-cache"))  # its folder under modelstore/trained

    assert head is not None
    assert head_fits(head, Gemma3TextConfig(**GEMMA3_270M))
    assert not head_fits(head, Gemma3TextConfig(**DRY_RUN_GEMMA3))  # the dry run drafts with a random head
    real = REPO_ROOT / ".models" / "google--gemma-3-270m" / "config.json"
    if not real.is_file():
        pytest.skip(f"{real} is not here (make models) to compare the shape with")
    config = json.loads(real.read_text(encoding="utf-8"))
    assert {key: config[key] for key in GEMMA3_270M} == GEMMA3_270M


def _table_rows(lines: list[str]) -> dict[str, list[str]]:
    """A Markdown table's body rows by their first cell."""
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines if line.startswith("| ")]
    return {row[0]: row[1:] for row in rows[1:]}


def test_the_step_profile_splits_each_step_into_its_four_ranges_and_writes_a_chrome_trace(
    tmp_path: Path,
) -> None:
    plan = dry_run_plan()
    trace = tmp_path / "report" / "x.step_profile.trace.json"

    result = step_profile(
        plan.verify_model,
        plan.verify_model_name,
        "cpu",
        answers=2,
        steps=3,
        prompt_tokens=plan.decode_prompt_tokens,
        new_tokens=plan.decode_new_tokens,
        trace=trace,
    )

    assert result.passed, result.details
    assert "3 steps recorded (of 3 asked)" in result.details[0]
    rows = _table_rows(result.details)
    assert list(rows) == [*(f"step.{part}" for part in RANGES), "python (step less its ranges)", "**step**"]
    host = {label: float(cells[0]) for label, cells in rows.items()}
    assert all(math.isfinite(ms) and ms >= 0 for ms in host.values())
    ranges = sum(host[f"step.{part}"] for part in RANGES)
    assert 0 < ranges <= host["**step**"] + 4 * 0.0005  # the table rounds to µs
    assert float(rows["step.verify"][1]) > 0  # aten ops: the forward dispatches them on a CPU
    events = json.loads(trace.read_text(encoding="utf-8"))["traceEvents"]
    names = [event.get("name") for event in events]
    assert names.count("step") == 3 and all(names.count(f"step.{part}") == 3 for part in RANGES)


def test_a_step_without_one_of_its_ranges_fails_the_step_profile() -> None:
    with profile(activities=[ProfilerActivity.CPU]) as profiler, record_function("step"):
        for part in ("draft", "verify", "cache"):  # no step.accept
            with record_function(f"step.{part}"):
                torch.ones(4).sum()

    recorded, problems = step_profiles(list(profiler.events()), on_cuda=False)

    assert recorded == [] and problems == ["step 1: step.accept × 0 (expected each once)"]
    assert step_profiles([], on_cuda=False) == ([], ["no step was recorded"])
