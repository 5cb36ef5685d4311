"""The benchmark end to end on a tiny in-process model: every method side by side, counted to the same stop.

The tiny random Llama shares SmolLM2's tokenizer, so stop strings work as on the real models; its greedy output
loops, which gives CASD and prompt lookup something to copy and the degenerate-output detector something to flag.
"""

import json
import shlex
from pathlib import Path

import pytest
from transformers import PreTrainedTokenizerBase

from research.engine_bench.cli import method_names, parse_args
from research.engine_bench.methods import HF_GREEDY, build_methods, cut_at_stop_string, engine_method
from research.engine_bench.prompts import BenchPrompt, EncodedPrompt, encode_prompts
from research.engine_bench.random_head import write_random_head
from research.engine_bench.recording import command_line
from research.engine_bench.report import (
    MethodSummary,
    first_divergence,
    markdown_report,
    summarize,
    write_reports,
)
from research.engine_bench.runner import Record, rotated, run_benchmark
from speculative.engine.target import TargetModel
from speculative.settings import SpeculativeSettings
from tests.speculative.conftest import tiny_llama

MAX_NEW_TOKENS = 40
ENGINE_METHODS = ["vanilla", "casd", "casd_prompt", "casd+casd_prompt"]
METHODS = [HF_GREEDY, "hf-prompt-lookup", *ENGINE_METHODS]
SETUP = {
    "command": "python -m research.engine_bench …",
    "prompt_set": "tiny",
    "prompts": 3,
    "mean_prompt_tokens": 30.0,
    "max_new_tokens": MAX_NEW_TOKENS,
    "runs": 2,
    "device": "cpu",
    "dtype": "float32",
    "threads": 2,
    "load_before": "0.50/0.50/0.50",
    "load_after": "0.60/0.60/0.60",
    "tree_policy": "adaptive",
    "verify_cost_relative": {"1": 1.0, "16": 2.1},
}


@pytest.fixture(scope="module")
def target() -> TargetModel:
    return TargetModel(tiny_llama(seed=1, initializer_range=0.1))  # its greedy output falls into loops


@pytest.fixture(scope="module")
def prompts(smollm2_tokenizer: PreTrainedTokenizerBase) -> list[EncodedPrompt]:
    texts = [
        "De patiënt krijgt insuline volgens schema. De patiënt krijgt insuline volgens schema.",
        "Question: how long should hands be rubbed with alcohol? Answer:",
        "[begin vraag]\nwanneer handen wassen\n[einde vraag]\n\n[begin antwoord]\n",
    ]
    bench_prompts = [BenchPrompt(f"p{i}", "test", text) for i, text in enumerate(texts)]
    return encode_prompts(smollm2_tokenizer, bench_prompts, chat_template="none")  # texts to continue


def _run(
    target: TargetModel, tokenizer: PreTrainedTokenizerBase, prompts: list[EncodedPrompt], runs: int = 1
) -> list[Record]:
    # A fixed tree: the adaptive budget may rightly stop drafting when a loaded machine makes verifying look dear,
    # and these tests are about what the benchmark reports, not about the budget (tests/speculative/budget).
    settings = SpeculativeSettings(_env_file=None, tree_policy="fixed")  # type: ignore[call-arg]
    methods = build_methods(METHODS, settings, target, tokenizer)
    return run_benchmark(methods, prompts, MAX_NEW_TOKENS, runs)


@pytest.fixture(scope="module")
def records(
    target: TargetModel, smollm2_tokenizer: PreTrainedTokenizerBase, prompts: list[EncodedPrompt]
) -> list[Record]:
    return _run(target, smollm2_tokenizer, prompts, runs=2)


@pytest.fixture(scope="module")
def summaries(records: list[Record]) -> dict[str, MethodSummary]:
    return summarize(records, METHODS)


def test_every_method_answers_every_prompt_in_every_run(records: list[Record]) -> None:
    assert len(records) == len(METHODS) * 3 * 2
    assert {(r.method, r.prompt.prompt.prompt_id, r.run) for r in records} == {
        (method, f"p{i}", run) for method in METHODS for i in range(3) for run in range(2)
    }


def test_every_method_answers_exactly_as_hf_greedy(summaries: dict[str, MethodSummary]) -> None:
    assert {name: summary.exact_match for name, summary in summaries.items()} == dict.fromkeys(METHODS, 1.0)
    assert {name: summary.first_divergences for name, summary in summaries.items()} == dict.fromkeys(
        METHODS, ()
    )


def test_where_an_answer_first_differs_from_the_baseline_is_its_first_other_token_or_the_shorter_end() -> (
    None
):
    assert first_divergence([1, 2, 3], [1, 2, 3]) is None
    assert first_divergence([1, 2, 4, 5], [1, 2, 3, 5]) == 2
    assert first_divergence([1, 2], [1, 2, 3]) == 2


def test_tau_is_one_for_greedy_decoding_and_at_least_one_for_every_drafting_method(
    summaries: dict[str, MethodSummary],
) -> None:
    assert summaries[HF_GREEDY].tau == 1.0
    assert summaries["vanilla"].tau == 1.0
    assert all(summaries[name].tau >= 1.0 for name in ["hf-prompt-lookup", "casd", "casd_prompt"])
    assert summaries["casd"].tau > 1.0, "the looping output is copyable, so CASD must gain tokens"


def test_speedups_are_relative_to_hf_greedy_in_the_same_run(summaries: dict[str, MethodSummary]) -> None:
    assert summaries[HF_GREEDY].decode_speedup.values == (1.0, 1.0)
    assert summaries[HF_GREEDY].prompt_decode_speedup == 1.0
    assert summaries[HF_GREEDY].end_to_end_speedup.values == (1.0, 1.0)
    assert all(summary.first_token_seconds.median > 0 for summary in summaries.values())
    assert all(len(summary.decode_tokens_per_second.values) == 2 for summary in summaries.values())
    assert all(summary.decode_tokens_per_second.median > 0 for summary in summaries.values())


def test_engine_methods_report_their_draft_profile_and_acceptance_histogram(
    summaries: dict[str, MethodSummary],
) -> None:
    casd = summaries["casd"]
    assert casd.profile is not None
    assert set(casd.profile.nodes_per_step) == {"casd"}
    assert casd.profile.verify_ms_per_step > 0
    assert sum(casd.acceptance_histogram["casd"].values()) > 0
    assert all(summaries[name].profile is not None for name in ENGINE_METHODS)
    assert summaries[HF_GREEDY].profile is None and summaries["hf-prompt-lookup"].profile is None


def test_looping_answers_are_flagged_as_degenerate_for_every_method(
    summaries: dict[str, MethodSummary],
) -> None:
    assert {summary.degenerate_answers for summary in summaries.values()} == {1}


def test_every_method_stops_at_the_same_stop_string_and_counts_tokens_up_to_it(
    target: TargetModel, smollm2_tokenizer: PreTrainedTokenizerBase, records: list[Record]
) -> None:
    greedy = next(
        r.measurement for r in records if r.method == HF_GREEDY and r.prompt.prompt.prompt_id == "p1"
    )
    stop = smollm2_tokenizer.decode(greedy.token_ids[6:8]).strip()
    prompt = next(r.prompt for r in records if r.prompt.prompt.prompt_id == "p1")
    stopped = EncodedPrompt(BenchPrompt("p1", "test", prompt.prompt.text, (stop,)), prompt.token_ids)

    answers = [record.measurement for record in _run(target, smollm2_tokenizer, [stopped])]

    expected_text = greedy.text[: greedy.text.index(stop)]
    assert {answer.text for answer in answers} == {expected_text}
    assert len({answer.token_ids for answer in answers}) == 1
    assert {answer.stop_reason for answer in answers} == {"stop_string"}
    assert len(answers[0].token_ids) <= 8 < MAX_NEW_TOKENS


def test_a_peers_answer_is_cut_at_the_token_completing_a_stop_string(
    smollm2_tokenizer: PreTrainedTokenizerBase,
) -> None:
    """Prompt lookup can accept tokens past a stop string in one step; they are not part of the answer."""
    ids = smollm2_tokenizer(
        "Was de handen.\n[einde antwoord] en nog meer", add_special_tokens=False
    ).input_ids
    completing = next(
        length for length in range(len(ids) + 1) if "[einde" in smollm2_tokenizer.decode(ids[:length])
    )

    cut, text, found = cut_at_stop_string(smollm2_tokenizer, ids, ["[einde"])

    assert (cut, text, found) == (ids[:completing], "Was de handen.\n", True)
    assert cut_at_stop_string(smollm2_tokenizer, ids, ["[begin"]) == (
        ids,
        smollm2_tokenizer.decode(ids),
        False,
    )


def test_reports_hold_every_method_in_json_and_markdown(
    tmp_path: Path, summaries: dict[str, MethodSummary], records: list[Record]
) -> None:
    json_path, markdown_path = write_reports(tmp_path, SETUP, summaries, records)

    report = json.loads(json_path.read_text(encoding="utf-8"))
    assert list(report["methods"]) == METHODS
    assert len(report["measurements"]) == len(records)
    assert len(report["answers"]) == len(METHODS) * 3
    markdown = markdown_path.read_text(encoding="utf-8")
    assert markdown == markdown_report(SETUP, summaries)
    assert all(f"| {method} |" in markdown for method in METHODS)
    assert "1: 1.00, 16: 2.10" in markdown


def test_a_run_with_a_fixed_tree_reports_that_no_cost_model_was_measured(
    summaries: dict[str, MethodSummary],
) -> None:
    fixed = {**SETUP, "tree_policy": "fixed", "tree_budget": 24, "verify_cost_relative": {}}
    assert "Tree policy fixed, 24 nodes; no cost model measured." in markdown_report(fixed, summaries)


def test_a_summary_without_the_hf_greedy_baseline_is_refused(records: list[Record]) -> None:
    with pytest.raises(ValueError, match="hf-greedy is the baseline"):
        summarize([r for r in records if r.method != HF_GREEDY], ["casd"])


def test_method_order_rotates_from_prompt_to_prompt() -> None:
    assert [rotated(["a", "b", "c"], shift) for shift in range(4)] == [
        ["a", "b", "c"],
        ["b", "c", "a"],
        ["c", "a", "b"],
        ["a", "b", "c"],
    ]


def test_eagle2_methods_with_a_random_head_answer_exactly_as_hf_greedy(
    tmp_path: Path,
    target: TargetModel,
    smollm2_tokenizer: PreTrainedTokenizerBase,
    prompts: list[EncodedPrompt],
) -> None:
    head = write_random_head(target.config, tmp_path / "head", seed=0)
    # fixed trees: the adaptive policy rightly verifies hardly any of a random head's drafts
    settings = SpeculativeSettings(_env_file=None, eagle_head=str(head), tree_policy="fixed")  # type: ignore[call-arg]
    names = [HF_GREEDY, "eagle2", "eagle2+casd"]
    methods = build_methods(names, settings, target, smollm2_tokenizer)

    summaries = summarize(run_benchmark(methods, prompts, MAX_NEW_TOKENS, runs=1), names)

    assert {name: summary.exact_match for name, summary in summaries.items()} == dict.fromkeys(names, 1.0)
    eagle2, merged = summaries["eagle2"].profile, summaries["eagle2+casd"].profile
    assert eagle2 is not None and set(eagle2.nodes_per_step) == {"eagle2"}
    assert merged is not None and set(merged.nodes_per_step) == {"eagle2", "casd"}


def test_the_command_line_requires_the_hf_greedy_baseline_and_distinct_methods() -> None:
    assert method_names("hf-greedy, casd ,eagle2+casd") == ["hf-greedy", "casd", "eagle2+casd"]
    with pytest.raises(SystemExit, match="must include hf-greedy"):
        method_names("vanilla,casd")
    with pytest.raises(SystemExit, match="twice"):
        method_names("hf-greedy,casd,casd")


def test_the_command_line_takes_every_documented_option() -> None:
    command = "--model M --head H --prompts rag:p.jsonl --out o --max-new-tokens 64 --limit 5 --runs 2"
    args = parse_args([*shlex.split(command), "--tree-budget", "12", "--threads", "1"])

    assert (args.model, args.head, args.prompts, args.out) == ("M", "H", "rag:p.jsonl", Path("o"))
    assert (args.max_new_tokens, args.limit, args.runs, args.tree_budget, args.threads) == (64, 5, 2, 12, 1)
    assert args.methods.split(",") == ["hf-greedy", "hf-prompt-lookup", "vanilla", "casd", "casd_prompt"]


def test_an_engine_method_may_name_its_tree_policy() -> None:
    settings = SpeculativeSettings(_env_file=None, tree_budget=None)  # type: ignore[call-arg]

    assert engine_method("casd", settings)[:2] == ("casd", "adaptive")
    assert engine_method("eagle2+casd@adaptive", settings)[:2] == ("eagle2+casd", "adaptive")
    method, policy, sixteen = engine_method("casd@16", settings)
    assert (method, policy, sixteen.tree_budget) == ("casd", "fixed", 16)
    with pytest.raises(SystemExit, match="unknown tree policy"):
        engine_method("casd@big", settings)


def test_the_recorded_command_reproduces_the_run_quoted_for_a_shell() -> None:
    quoted = command_line("research.engine_bench", ["--model", "M", "--out", "out dir"])
    without = command_line("research.engine_bench.worker_http", [])  # no arguments given, not this process's

    assert quoted == "python -m research.engine_bench --model M --out 'out dir'"
    assert without == "python -m research.engine_bench.worker_http"
