"""Continuous batching in a real worker: answers decoded together stream what each gives alone; a full batch
queues, a full queue answers 503, and an answer that ends or is cancelled frees its place for the next at once."""

import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack

from httpx_sse import connect_sse
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from speculative.worker.encoding import chat_turn_ids
from tests.speculative.worker.conftest import STATIC_KV_CACHE_TOKENS, Answer, GreedyText, WorkerProcess

QUESTIONS = ["What is the capital of France?", "Name three colours.", "Why is the sky blue?"]
STORY = "Write a very long story about a dragon who learns to cook, with many chapters."
NEW_TOKENS = 16


def test_answers_decoded_together_are_each_plain_greedy_decoding(
    batch_worker: WorkerProcess,
    smollm2: tuple[PreTrainedModel, PreTrainedTokenizerBase],
    greedy_text: GreedyText,
) -> None:
    _, tokenizer = smollm2
    expected = [greedy_text(chat_turn_ids(tokenizer, question), NEW_TOKENS)[1] for question in QUESTIONS]
    steps_before = batch_worker.metric("worker_batch_size_count")
    answers_before = batch_worker.metric("worker_batch_size_sum")

    def ask(question: str) -> Answer:
        with batch_worker.new_client(timeout=300) as client:
            return WorkerProcess.generate_with(client, prompt=question, max_new_tokens=NEW_TOKENS)

    with ThreadPoolExecutor(len(QUESTIONS)) as pool:
        together = list(pool.map(ask, QUESTIONS))

    assert [answer.streamed_text for answer in together] == expected
    assert [answer.done["text"] for answer in together] == expected
    steps = batch_worker.metric("worker_batch_size_count") - steps_before
    answers_per_step = (batch_worker.metric("worker_batch_size_sum") - answers_before) / steps
    assert 1 < answers_per_step <= 2, "answers were verified together, never more than MAX_BATCH"
    assert batch_worker.metric("worker_step_rows_count") >= steps
    assert batch_worker.metric("worker_decoded_tokens_total") > 0
    health = batch_worker.client.get("/health").json()
    assert (health["max_batch"], health["decoding"], health["queue_depth"]) == (2, 0, 0)


def test_a_full_batch_queues_a_full_queue_answers_503_and_a_cancelled_answer_frees_its_place(
    batch_worker: WorkerProcess,
) -> None:
    body = {"prompt": STORY, "max_new_tokens": 400}
    with ExitStack() as streams:
        decoding = [
            streams.enter_context(connect_sse(batch_worker.new_client(300), "POST", "/generate", json=body))
            for _ in range(2)
        ]
        assert all(next(stream.iter_sse()).event == "start" for stream in decoding)
        with connect_sse(batch_worker.new_client(300), "POST", "/generate", json=body) as waiting:
            assert waiting.response.status_code == 200
            deadline = time.monotonic() + 30
            while (
                batch_worker.client.get("/health").json()["queue_depth"] != 1 and time.monotonic() < deadline
            ):
                time.sleep(0.05)
            health = batch_worker.client.get("/health").json()
            assert (health["decoding"], health["queue_depth"]) == (2, 1)

            refused = batch_worker.client.post("/generate", json=body)
            assert refused.status_code == 503 and int(refused.headers["retry-after"]) >= 1

            decoding[0].response.close()  # the client goes: its place is free before the next step
            cancelled = time.monotonic()
            events = waiting.iter_sse()
            assert next(events).event == "start"
            assert time.monotonic() - cancelled < 30
            assert next(events).event == "delta"


def test_a_static_kv_cache_bounds_the_context_and_a_longer_request_gets_413(
    batch_worker: WorkerProcess,
) -> None:
    health = batch_worker.client.get("/health").json()
    assert (health["verify_mode"], health["context_length"]) == ("static", STATIC_KV_CACHE_TOKENS)

    refused = batch_worker.client.post("/generate", json={"prompt": "woord " * 1100, "max_new_tokens": 16})

    assert refused.status_code == 413
    assert f"context holds {STATIC_KV_CACHE_TOKENS} tokens" in refused.text
