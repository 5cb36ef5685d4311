"""A real worker streams start, text deltas and done, and its text is plain greedy decoding's, token for token."""

from transformers import PreTrainedModel, PreTrainedTokenizerBase

from speculative.worker.encoding import chat_turn_ids
from tests.speculative.worker.conftest import GreedyText, WorkerProcess

QUESTION = "What is the capital of France? Answer in one sentence."


def test_events_come_in_order_start_deltas_done_with_the_statistics(chat_worker: WorkerProcess) -> None:
    answer = chat_worker.generate(prompt=QUESTION, max_new_tokens=10)

    assert answer.names[0] == "start" and answer.names[-1] == "done"
    assert set(answer.names[1:-1]) == {"delta"}
    assert answer.start["method"] == "casd", "casd is the embedded default DRAFT_METHOD"
    done = answer.done
    assert done["text"] == answer.streamed_text
    assert done["stop_reason"] in {"eos", "length"}
    stats = done["stats"]
    assert stats["prompt_tokens"] == answer.start["prompt_tokens"]
    assert 1 <= stats["new_tokens"] <= 10
    assert stats["tau"] >= 1.0 and stats["target_forwards"] >= 1
    assert stats["prefill_seconds"] > 0 and stats["decode_seconds"] > 0
    assert stats["time_to_first_token_seconds"] >= stats["prefill_seconds"]
    assert stats["queue_seconds"] == answer.start["queue_seconds"] >= 0
    assert set(stats["nodes_by_source"]) <= {"casd"}


def test_the_chat_template_is_applied_exactly_once_and_the_text_is_greedy_decodings(
    chat_worker: WorkerProcess,
    smollm2: tuple[PreTrainedModel, PreTrainedTokenizerBase],
    greedy_text: GreedyText,
) -> None:
    _, tokenizer = smollm2
    prompt_ids = chat_turn_ids(tokenizer, QUESTION)
    assert tokenizer.decode(prompt_ids).count("<|im_start|>user") == 1

    answer = chat_worker.generate(prompt=QUESTION, max_new_tokens=12)

    expected_ids, expected_text = greedy_text(prompt_ids, 12)
    assert answer.start["prompt_tokens"] == len(prompt_ids)
    assert answer.done["stats"]["new_tokens"] == len(expected_ids)
    assert answer.streamed_text == expected_text


def test_a_stop_string_ends_the_text_before_it(chat_worker: WorkerProcess) -> None:
    full = chat_worker.generate(prompt=QUESTION, max_new_tokens=10).done["text"]
    stop = full.split()[2]

    answer = chat_worker.generate(prompt=QUESTION, max_new_tokens=10, stop=[stop])

    assert answer.done["stop_reason"] == "stop_string"
    assert answer.streamed_text == full[: full.index(stop)]


def test_context_passages_change_what_casd_drafts_from_not_the_answer(chat_worker: WorkerProcess) -> None:
    plain = chat_worker.generate(prompt=QUESTION, max_new_tokens=10).done
    passages = chat_worker.generate(prompt=QUESTION, max_new_tokens=10, context=[plain["text"]]).done

    assert passages["text"] == plain["text"]
    assert passages["stats"]["target_forwards"] < plain["stats"]["target_forwards"]


def test_a_deadline_ends_the_answer_early_with_what_was_accepted(chat_worker: WorkerProcess) -> None:
    full = chat_worker.generate(prompt=QUESTION, max_new_tokens=10).done["text"]

    late = chat_worker.generate(prompt=QUESTION, max_new_tokens=10, deadline_seconds=0.001).done

    assert late["stop_reason"] == "deadline"
    assert late["stats"]["target_forwards"] == 1
    assert full.startswith(late["text"])
