"""Only the API may generate: `/generate` needs WORKER_TOKEN as a bearer token; health and metrics stay open.
A worker listening beyond loopback refuses to start without a token; tokenising never blocks the event loop."""

import socket
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from pydantic import ValidationError

from speculative.settings import SpeculativeSettings
from speculative.worker.schemas import MAX_BODY_BYTES
from tests.speculative.worker.conftest import WorkerProcess

MAXIMAL_PROMPT = " ".join(f"dosering{i % 97} mg patiënt" for i in range(25_000))[:500_000]


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer wrong-token-of-the-same-size-7f3"},
        {"Authorization": "Basic dXNlcjpwdw=="},
    ],
    ids=["none", "wrong", "not-bearer"],
)
def test_generate_without_the_right_token_is_refused_with_401(
    chat_worker: WorkerProcess, headers: dict[str, str]
) -> None:
    with httpx.Client(base_url=chat_worker.process.url, timeout=60) as stranger:
        response = stranger.post("/generate", json={"prompt": "Hallo", "max_new_tokens": 1}, headers=headers)

    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"


def test_health_and_metrics_answer_without_a_token(chat_worker: WorkerProcess) -> None:
    with httpx.Client(base_url=chat_worker.process.url, timeout=60) as monitor:
        assert monitor.get("/health").status_code == 200
        assert monitor.get("/metrics").status_code == 200


def test_the_token_opens_generate(chat_worker: WorkerProcess) -> None:
    assert chat_worker.generate(prompt="Hallo", max_new_tokens=1).names[-1] == "done"


@pytest.mark.parametrize("host", ["0.0.0.0", "10.0.0.5", "worker"])
def test_a_worker_beyond_loopback_needs_a_token(host: str) -> None:
    with pytest.raises(ValidationError, match="WORKER_TOKEN must be set"):
        SpeculativeSettings(worker_host=host, worker_token=None)

    assert SpeculativeSettings(worker_host=host, worker_token="a-long-random-token-1234").worker_token


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "localhost"])
def test_a_worker_on_loopback_may_go_without_a_token(host: str) -> None:
    assert SpeculativeSettings(worker_host=host, worker_token=None).worker_token is None


@pytest.mark.parametrize("token", ["change-me-to-a-long-random-token", "short"])
def test_a_placeholder_or_short_token_is_refused(token: str) -> None:
    with pytest.raises(ValidationError):
        SpeculativeSettings(worker_host="0.0.0.0", worker_token=token)


def test_health_answers_while_maximal_prompts_are_tokenised(chat_worker: WorkerProcess) -> None:
    """A maximal prompt takes a noticeable time to tokenise (here it is then refused as too long for the context:
    413); /health, asked all the while, must answer far quicker than that."""
    body = {"prompt": MAXIMAL_PROMPT, "max_new_tokens": 1}

    def tokenised() -> float:
        with chat_worker.new_client(timeout=120) as client:
            began = time.perf_counter()
            response = client.post("/generate", json=body)
            assert response.status_code == 413, response.text
            return time.perf_counter() - began

    alone = min(tokenised() for _ in range(2))
    latencies = []
    with ThreadPoolExecutor(3) as pool:
        running = [pool.submit(tokenised) for _ in range(3)]
        while not all(future.done() for future in running):
            began = time.perf_counter()
            assert chat_worker.client.get("/health").status_code == 200
            latencies.append(time.perf_counter() - began)
        for future in running:
            future.result()

    assert len(latencies) >= 3
    assert max(latencies) < alone / 2, (alone, sorted(latencies)[-5:])


def _status_before_the_body(url: str, declared: int, token: str | None) -> str:
    """The status line the worker answers after the headers and 64 KB of a `declared`-byte body."""
    address = httpx.URL(url)
    authorization = f"Authorization: Bearer {token}\r\n" if token else ""
    head = (
        f"POST /generate HTTP/1.1\r\nHost: {address.host}\r\n{authorization}"
        f"Content-Type: application/json\r\nContent-Length: {declared}\r\n\r\n"
    ).encode()
    with socket.create_connection((address.host, address.port), timeout=10) as connection:
        connection.sendall(head + b'{"prompt": "' + b"a" * 65_536)
        try:
            return connection.recv(4096).split(b"\r\n", 1)[0].decode()
        except TimeoutError:
            return "no answer: the worker waits for the rest of the body"


def test_the_token_is_checked_before_the_body_is_read(chat_worker: WorkerProcess) -> None:
    assert _status_before_the_body(chat_worker.process.url, 50_000_000, None) == "HTTP/1.1 401 Unauthorized"


def test_a_body_larger_than_any_valid_request_is_refused_before_it_is_read(
    chat_worker: WorkerProcess,
) -> None:
    status = _status_before_the_body(chat_worker.process.url, MAX_BODY_BYTES + 1, chat_worker.token)

    assert status == "HTTP/1.1 413 Request Entity Too Large"


def test_a_body_without_a_length_is_cut_off_at_the_limit(chat_worker: WorkerProcess) -> None:
    def endless() -> Iterator[bytes]:
        yield b'{"prompt": "'
        for _ in range(MAX_BODY_BYTES // 65_536 + 2):
            yield b"a" * 65_536

    with httpx.Client(base_url=chat_worker.process.url, timeout=60) as client:
        response = client.post(
            "/generate", content=endless(), headers={"Authorization": f"Bearer {chat_worker.token}"}
        )

    assert response.status_code == 413
