"""A decode that hangs (here: every forward pass of a real worker's model blocks once it has warmed up) while the
worker's event loop keeps sending keep-alives: the API ends the answer at its own limit (ANSWER_TIMEOUT_SECONDS),
keeps what was written and tells the user; the worker's `/health` answers 503 `stalled` once the job is
HEALTH_STALL_SECONDS past its deadline, so the next question is refused at once instead of waiting behind it."""

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from api.chat.answering import WORKER_TIMEOUT_MESSAGE
from api.chat.settings import ChatSettings
from api.chat.worker_pool import NO_WORKER_MESSAGE
from api.models import MessageState
from api.settings import ApiSettings
from research.local_process import free_port
from research.loopback import REPO_ROOT, TINY_GENERATOR
from tests.api.chat.conftest import Clinician, ask, stored_messages
from tests.api.chat.test_chat_flow import ANSWERABLE

DEADLINE = 2.0  # the worker's deadline of each answer (ANSWER_DEADLINE_SECONDS)
TIMEOUT = 5.0  # the API's own limit (ANSWER_TIMEOUT_SECONDS)
STALL = 3.0  # the worker's HEALTH_STALL_SECONDS
SILENCE = 30.0  # above the worker's 15 s keep-alive: the keep-alives alone keep the stream open

# Without the API's limit the answer never ends (the keep-alives beat WORKER_SILENCE_SECONDS): fail instead.
pytestmark = pytest.mark.timeout(180, func_only=True)


@pytest.fixture(scope="module")
def blocking_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real worker with the tiny model whose forward passes block once warmed up (blocking_worker.py); killed
    at the end, since its blocked decoding thread would hold its exit."""
    port = free_port()
    log = tmp_path_factory.mktemp("blocking-worker") / "worker.log"
    environment = os.environ | {
        "PYTHONPATH": str(REPO_ROOT),
        "GENERATOR_MODEL": TINY_GENERATOR,
        **{"WORKER_HOST": "127.0.0.1", "WORKER_PORT": str(port), "WORKER_TOKEN": "", "EAGLE_HEAD": ""},
        **{"DEVICE": "cpu", "DTYPE": "float32", "TORCH_THREADS": "1", "DRAFT_METHOD": "casd"},
        "HEALTH_STALL_SECONDS": str(STALL),
    }
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "tests.api.chat.blocking_worker"],
            cwd=REPO_ROOT,
            env=environment,
            stdout=output,
            stderr=output,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(url, process, log)
        yield url
    finally:
        process.kill()
        process.wait()


def _wait_ready(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text(errors="replace")[-3000:]
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise AssertionError(log.read_text(errors="replace")[-3000:])


@pytest.fixture
def chat_settings(blocking_worker: str) -> ChatSettings:
    return ChatSettings(
        worker_urls=[blocking_worker],
        worker_health_ttl_seconds=0.0,
        worker_silence_seconds=SILENCE,
        answer_deadline_seconds=DEADLINE,
        answer_timeout_seconds=TIMEOUT,
    )


@pytest.mark.parametrize("empty_database_url", ["sqlite"], indirect=True)
def test_a_hung_decode_ends_at_the_apis_limit_and_the_worker_reports_itself_stalled(
    clinician: Clinician, blocking_worker: str, api_settings: ApiSettings
) -> None:
    client, conversation_id = clinician("ann")

    began = time.monotonic()
    events = ask(client, conversation_id, question=ANSWERABLE)
    took = time.monotonic() - began

    names = [name for name, _ in events]
    assert names[-3:] == ["error", "support", "done"], names
    assert events[-3][1]["message"] == WORKER_TIMEOUT_MESSAGE
    assert (events[-1][1]["state"], events[-1][1]["stop_reason"]) == ("failed", "worker_timeout")
    assert took >= TIMEOUT - 1  # ended by the API at its limit (the stop reason above), never before
    [stored] = stored_messages(api_settings)
    assert (stored.state, stored.stop_reason) == (MessageState.failed, "worker_timeout")

    health = httpx.get(f"{blocking_worker}/health", timeout=5)
    waited = time.monotonic() + 20
    while health.status_code == 200 and time.monotonic() < waited:
        time.sleep(0.2)
        health = httpx.get(f"{blocking_worker}/health", timeout=5)
    assert (health.status_code, health.json()["status"]) == (503, "stalled")
    assert "past its deadline" in health.json()["error"]

    refused = client.post(f"/api/conversations/{conversation_id}/messages", json={"question": ANSWERABLE})
    assert (refused.status_code, refused.json()["detail"]) == (503, NO_WORKER_MESSAGE)
