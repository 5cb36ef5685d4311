"""A worker configured for a base model (no chat template), with a tight repetition guard and a broken EAGLE head:
the prompt goes in as is, loops end with stop reason `repetition` as a prefix of greedy decoding, and a generation
that fails ends its own stream with an error event while the worker keeps serving."""

from collections.abc import Iterator

import pytest
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from speculative.engine.stopping import RepetitionRule
from tests.speculative.worker.conftest import GreedyText, WorkerProcess, start_worker

RULE = RepetitionRule(ngram=2, window=6, share=0.5)
PROMPT = "The nurse checks the infusion pump, then"
LOOP = "one two one two one two one two one two one two"


@pytest.fixture(scope="module")
def base_worker(tmp_path_factory: pytest.TempPathFactory, smollm2_folder: str) -> Iterator[WorkerProcess]:
    broken_head = tmp_path_factory.mktemp("broken-head")
    (broken_head / "config.json").write_text("{not json", encoding="utf-8")
    yield from start_worker(
        tmp_path_factory,
        smollm2_folder,
        CHAT_TEMPLATE="none",
        DRAFT_METHOD="casd",
        EAGLE_HEAD=str(broken_head),
        REPETITION_NGRAM=str(RULE.ngram),
        REPETITION_WINDOW=str(RULE.window),
        REPETITION_SHARE=str(RULE.share),
    )


def test_a_base_model_gets_the_prompt_as_is_and_answers_as_greedy_decoding_cut_by_the_guard(
    base_worker: WorkerProcess,
    smollm2: tuple[PreTrainedModel, PreTrainedTokenizerBase],
    greedy_text: GreedyText,
) -> None:
    _, tokenizer = smollm2
    prompt_ids = list(tokenizer(PROMPT)["input_ids"])
    greedy_ids, _ = greedy_text(prompt_ids, 12)
    loop_end = RULE.loop_end(greedy_ids)

    answer = base_worker.generate(prompt=PROMPT, max_new_tokens=12)

    assert answer.start["prompt_tokens"] == len(prompt_ids)
    expected_ids = greedy_ids if loop_end is None else greedy_ids[:loop_end]
    assert answer.streamed_text == tokenizer.decode(expected_ids, skip_special_tokens=True)
    assert answer.done["stop_reason"] == ("repetition" if loop_end is not None else "length")


def test_a_looping_answer_ends_with_stop_reason_repetition_as_a_prefix_of_greedy(
    base_worker: WorkerProcess,
    smollm2: tuple[PreTrainedModel, PreTrainedTokenizerBase],
    greedy_text: GreedyText,
) -> None:
    _, tokenizer = smollm2
    _, greedy = greedy_text(list(tokenizer(LOOP)["input_ids"]), 30)

    answer = base_worker.generate(prompt=LOOP, max_new_tokens=30)

    assert answer.done["stop_reason"] == "repetition"
    assert answer.done["stats"]["new_tokens"] < 30
    assert greedy.startswith(answer.streamed_text)


def test_a_failing_generation_ends_its_stream_with_an_error_and_the_worker_keeps_serving(
    base_worker: WorkerProcess,
) -> None:
    errors_before = base_worker.metric('worker_requests_total{outcome="error"}')

    failed = base_worker.generate(prompt=PROMPT, max_new_tokens=4, method="eagle2")

    assert failed.names == ["start", "error"]
    assert "generation failed" in failed.events[-1][1]["message"]
    assert base_worker.metric('worker_requests_total{outcome="error"}') == errors_before + 1
    assert base_worker.generate(prompt=PROMPT, max_new_tokens=4).names[-1] == "done"
    assert base_worker.client.get("/health").json()["status"] == "ready"
