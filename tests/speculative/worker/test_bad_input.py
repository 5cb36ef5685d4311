"""Bad input gets a clear refusal before any work (413, 422 naming the field), and the worker keeps serving."""

from typing import Any

import pytest

from speculative.worker.__main__ import main as worker_main
from tests.speculative.worker.conftest import WorkerProcess


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "prompt"),
        ({"prompt": ""}, "prompt"),
        ({"prompt": "Hallo", "max_new_tokens": 0}, "max_new_tokens"),
        ({"prompt": "Hallo", "max_new_tokens": "many"}, "max_new_tokens"),
        ({"prompt": "Hallo", "stop": [""]}, "stop"),
        ({"prompt": "Hallo", "stop": "[einde"}, "stop"),
        ({"prompt": "Hallo", "context": "one passage"}, "context"),
        ({"prompt": "Hallo", "deadline_seconds": 0}, "deadline_seconds"),
        ({"prompt": "Hallo", "temperature": 0.7}, "temperature"),
        # Bounds: nothing may make the worker tokenise, match or wait without end.
        ({"prompt": "x" * 500_001, "max_new_tokens": 1}, "prompt"),
        ({"prompt": "Hallo", "context": ["passage"] * 65, "max_new_tokens": 1}, "context"),
        ({"prompt": "Hallo", "context": ["a" * 250_000, "b" * 250_001], "max_new_tokens": 1}, "context"),
        ({"prompt": "Hallo", "stop": [f"[einde{i}]" for i in range(17)], "max_new_tokens": 1}, "stop"),
        ({"prompt": "Hallo", "stop": ["x" * 101], "max_new_tokens": 1}, "stop"),
        ({"prompt": "Hallo", "max_new_tokens": 32_769}, "max_new_tokens"),
        ({"prompt": "Hallo", "deadline_seconds": 3601, "max_new_tokens": 1}, "deadline_seconds"),
        ({"prompt": "Hallo", "method": "c" * 65, "max_new_tokens": 1}, "method"),
    ],
)
def test_a_bad_field_is_refused_with_422_naming_it(
    chat_worker: WorkerProcess, body: dict[str, Any], field: str
) -> None:
    response = chat_worker.client.post("/generate", json=body)

    assert response.status_code == 422
    assert any(field in error["loc"] for error in response.json()["detail"])


@pytest.mark.parametrize("value", ["Infinity", "-Infinity", "NaN", "1e999"])
def test_a_deadline_that_is_not_a_finite_number_is_refused_with_422(
    chat_worker: WorkerProcess, value: str
) -> None:
    body = f'{{"prompt": "Hallo", "max_new_tokens": 1, "deadline_seconds": {value}}}'

    response = chat_worker.client.post(
        "/generate", content=body.encode(), headers={"content-type": "application/json"}
    )

    assert response.status_code == 422
    assert any("deadline_seconds" in error["loc"] for error in response.json()["detail"])


def test_a_body_that_is_not_json_is_refused_with_422(chat_worker: WorkerProcess) -> None:
    response = chat_worker.client.post(
        "/generate", content=b"prompt=Hallo", headers={"content-type": "application/json"}
    )

    assert response.status_code == 422


@pytest.mark.parametrize("method", ["beam-search", "casd+casd", "casd+"])
def test_an_unknown_method_is_refused_with_the_list_of_methods(
    chat_worker: WorkerProcess, method: str
) -> None:
    response = chat_worker.client.post("/generate", json={"prompt": "Hallo", "method": method})

    assert response.status_code == 422
    assert response.json()["methods"] == ["casd", "casd_prompt", "vanilla"]
    (error,) = response.json()["detail"]
    assert error["loc"] == ["body", "method"]
    assert "available: casd, casd_prompt, vanilla" in error["msg"]


def test_an_eagle_method_without_a_head_says_the_head_is_missing(chat_worker: WorkerProcess) -> None:
    response = chat_worker.client.post("/generate", json={"prompt": "Hallo", "method": "eagle2+casd"})

    assert response.status_code == 422
    assert "EAGLE_HEAD is unset" in response.json()["detail"][0]["msg"]


def test_a_default_method_needing_a_head_without_one_stops_the_worker_at_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No quiet fallback to another method: the configuration is wrong and the start says how to fix it."""
    monkeypatch.setenv("DRAFT_METHOD", "eagle2+casd")
    monkeypatch.setenv("EAGLE_HEAD", "")

    with pytest.raises(
        SystemExit, match=r"DRAFT_METHOD=eagle2\+casd: .*needs an EAGLE head.*EAGLE_HEAD is unset"
    ):
        worker_main([])


def test_an_answer_beyond_the_context_is_refused_with_413_and_the_token_counts(
    chat_worker: WorkerProcess,
) -> None:
    response = chat_worker.client.post("/generate", json={"prompt": "Hallo", "max_new_tokens": 9000})

    assert response.status_code == 413
    body = response.json()
    assert body["max_new_tokens"] == 9000 and body["context_length"] == 8192
    assert 0 < body["prompt_tokens"] < 50
    assert "context holds 8192 tokens" in body["detail"]


def test_a_prompt_beyond_the_context_is_refused_with_413_and_its_token_count(
    chat_worker: WorkerProcess,
) -> None:
    response = chat_worker.client.post("/generate", json={"prompt": "woord " * 9000, "max_new_tokens": 1})

    assert response.status_code == 413
    assert response.json()["prompt_tokens"] > 9000


def test_refused_requests_cost_nothing_and_the_next_one_is_served(chat_worker: WorkerProcess) -> None:
    chat_worker.client.post("/generate", json={"prompt": "Hallo", "method": "nope"})

    answer = chat_worker.generate(prompt="Hallo", max_new_tokens=2)

    assert answer.names[-1] == "done"
    assert chat_worker.client.get("/health").json()["queue_depth"] == 0
    assert chat_worker.metric('worker_requests_total{outcome="invalid"}') >= 1
