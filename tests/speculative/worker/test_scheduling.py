"""One model, batch 1: a bounded FIFO queue, cancellation by disconnect, health while loading and decoding."""

import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack

from httpx_sse import connect_sse

from tests.speculative.worker.conftest import Answer, WorkerProcess

STORY = "Write a very long story about a dragon who learns to cook, with many chapters."
QUESTIONS = ["What is the capital of France?", "Name three colours.", "What is 2 + 2?"]
CANCELLED = 'worker_requests_total{outcome="cancelled"}'


def test_health_says_loading_and_generate_answers_503_until_the_model_has_loaded(
    chat_worker: WorkerProcess,
) -> None:
    assert chat_worker.startup_health[0] == 503 and chat_worker.startup_health[-1] == 200
    (while_loading,) = chat_worker.startup_generate
    assert while_loading.status_code == 503 and int(while_loading.headers["retry-after"]) >= 1

    health = chat_worker.client.get("/health").json()

    assert health["status"] == "ready"
    assert health["method"] == "casd" and "casd" in health["methods"] and "eagle2" not in health["methods"]
    assert (health["device"], health["dtype"], health["chat_template"]) == ("cpu", "float32", True)
    assert (health["queue_depth"], health["queue_limit"]) == (0, 2)


def test_a_client_that_disconnects_frees_the_model_for_the_next_request(chat_worker: WorkerProcess) -> None:
    warm = chat_worker.generate(prompt=QUESTIONS[0], max_new_tokens=6).done["stats"]
    step_seconds = warm["decode_seconds"] / warm["target_forwards"]
    cancelled_before = chat_worker.metric(CANCELLED)

    with connect_sse(
        chat_worker.client, "POST", "/generate", json={"prompt": STORY, "max_new_tokens": 400}
    ) as source:
        events = source.iter_sse()
        assert next(events).event == "start"
        assert next(events).event == "delta"
    next_answer = chat_worker.generate(prompt=QUESTIONS[1], max_new_tokens=4)

    assert next_answer.names[-1] == "done"
    assert next_answer.start["queue_seconds"] < 3 * step_seconds + 1.0, "it waited for more than one step"
    assert chat_worker.metric(CANCELLED) == cancelled_before + 1


def test_a_full_queue_answers_503_with_retry_after_and_loses_no_queued_request(
    chat_worker: WorkerProcess,
) -> None:
    body = {"prompt": STORY, "max_new_tokens": 400}
    with ExitStack() as streams:
        decoding = streams.enter_context(connect_sse(chat_worker.client, "POST", "/generate", json=body))
        assert next(decoding.iter_sse()).event == "start"
        waiting = [
            streams.enter_context(connect_sse(chat_worker.client, "POST", "/generate", json=body))
            for _ in range(2)
        ]
        assert all(stream.response.status_code == 200 for stream in waiting)
        assert chat_worker.client.get("/health").json()["queue_depth"] == 2

        refused = chat_worker.client.post("/generate", json=body)

        assert refused.status_code == 503
        assert int(refused.headers["retry-after"]) >= 1
        assert "waiting" in refused.json()["detail"]
    assert chat_worker.metric('worker_requests_total{outcome="queue_full"}') >= 1
    assert chat_worker.generate(prompt=QUESTIONS[0], max_new_tokens=2).names[-1] == "done"
    assert chat_worker.client.get("/health").json()["queue_depth"] == 0


def test_concurrent_requests_all_complete_each_with_the_answer_it_gives_alone(
    chat_worker: WorkerProcess,
) -> None:
    alone = [chat_worker.generate(prompt=question, max_new_tokens=6).done["text"] for question in QUESTIONS]
    waits_before = chat_worker.metric("worker_queue_wait_seconds_count")

    def ask(question: str) -> Answer:
        with chat_worker.new_client(timeout=300) as client:
            return WorkerProcess.generate_with(client, prompt=question, max_new_tokens=6)

    started = time.monotonic()
    with ThreadPoolExecutor(len(QUESTIONS)) as pool:
        together = list(pool.map(ask, QUESTIONS))

    assert [answer.done["text"] for answer in together] == alone
    assert max(answer.start["queue_seconds"] for answer in together) > 0, "someone had to wait"
    assert all(answer.start["queue_seconds"] < time.monotonic() - started for answer in together)
    assert chat_worker.metric("worker_queue_wait_seconds_count") == waits_before + len(QUESTIONS)


def test_health_and_metrics_answer_while_a_request_decodes(chat_worker: WorkerProcess) -> None:
    body = {"prompt": STORY, "max_new_tokens": 400}
    with connect_sse(chat_worker.client, "POST", "/generate", json=body) as source:
        assert next(source.iter_sse()).event == "start"
        health = chat_worker.client.get("/health")
        metrics = chat_worker.client.get("/metrics")
        health_after_metrics = chat_worker.client.get("/health")

    assert health.status_code == metrics.status_code == 200
    assert "worker_time_to_first_token_seconds_count" in metrics.text
    # answered while the 400-token answer was still being decoded, not after it (on any CPU's speed)
    assert health.json()["decoding"] == health_after_metrics.json()["decoding"] == 1
