"""Two API processes behind the real nginx (one name resolving to both, as compose's `api` does) over one PostgreSQL
database and one worker behave as one (issue 25): a stop reaches the stream on either process, the login limits
and the per-user chat cap count over both, and when one is killed mid-answer the other keeps serving and closes the
killed one's answer.

The worker's answers pass a relay that holds each answer after its first words, so an answer is still streaming
whenever a test stops it or kills its process. The tests share the processes and run in file order: the last one
kills a process.
"""

import os
import signal
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpx_sse import connect_sse
from sqlalchemy.orm import Session

from api import database_schema
from api.models import Message, MessageState
from ingest.database import get_engine
from modelstore.registry import ALL_MINILM_L6_V2
from research.local_process import free_port
from research.loopback import running_api
from tests.api.chat.conftest import clinician_token
from tests.api.chat.servers import RecordingRelay
from tests.api.conftest import PASSWORD, login_wait
from tests.conftest import REPO_ROOT, fresh_postgres_database
from tests.deploy.dns import loopback_dns
from tests.deploy.nginx_site import NginxSite
from tests.deploy.servers import start_nginx

# A stream that is never stopped would hang (its keep-alive pings beat the read timeout): fail it instead. The
# processes' start (the module's fixture) is not counted.
pytestmark = pytest.mark.timeout(120, func_only=True)

API_NAME = "api.vraagbaak.test"  # resolved by a DNS server of the test, as Docker's resolves `api`
FIRST, SECOND = "127.0.0.2", "127.0.0.3"
QUESTION = "Hoe lang moet ik mijn handen wrijven met handalcohol?"
HEARTBEAT_SECONDS = 1.0
STALE_SECONDS = 4.0
WAIT_SECONDS = 60.0  # the first question of a process loads its embedder; the machine may be busy


@dataclass
class Replica:
    url: str
    process: subprocess.Popen[bytes]


@dataclass
class Deployment:
    database_url: str
    first: Replica
    second: Replica
    site: NginxSite
    cafile: Path

    def direct(self, replica: Replica, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else None
        return httpx.Client(base_url=replica.url, headers=headers, timeout=WAIT_SECONDS)

    def through_nginx(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else None
        return httpx.Client(
            base_url=f"https://localhost:{self.site.https_port}",
            headers=headers,
            verify=ssl.create_default_context(cafile=self.cafile),
            timeout=WAIT_SECONDS,
        )

    def clinician(self, username: str) -> tuple[str, int]:
        """A clinician's API token and a new conversation of theirs."""
        return clinician_token(self.database_url, username)

    def message(self, message_id: int) -> Message:
        with Session(get_engine(self.database_url)) as db:
            found = db.get(Message, message_id)
            assert found is not None
            return found


@pytest.fixture(scope="module")
def deployment(
    nginx_binary: Path,
    tls_pair: Path,
    frontend_build: Path,
    worker_url: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Deployment]:
    folder = tmp_path_factory.mktemp("replicas")
    with fresh_postgres_database() as database_url, RecordingRelay(worker_url) as relay:
        relay.after_first_delta = "pause"
        settings = {
            "DATABASE_URL": database_url,
            "INDEX_DIR": str(folder / "index"),
            "EMBEDDING_MODEL": ALL_MINILM_L6_V2,
            "UPLOAD_DIR": str(folder / "uploads"),
            "REPORT_DIR": str(folder / "reports"),
        }
        _ingest_a_sample(settings)
        database_schema.migrate(database_url)
        api_settings = {
            **settings,
            "WORKER_URLS": relay.url,
            "WORKER_HEALTH_TTL_SECONDS": "0",
            "SECRET_KEY": "test-secret-key-for-the-replica-tests",
            "RUN_INGESTION_JOBS": "false",
            "LOGIN_ATTEMPTS": "3",
            "CHAT_CONCURRENT_PER_USER": "1",
            "INSTANCE_HEARTBEAT_SECONDS": str(HEARTBEAT_SECONDS),
            "INSTANCE_STALE_SECONDS": str(STALE_SECONDS),
            # Always answer (the thresholds were measured for another embedder): these tests are about streams.
            "ABSTAIN_MIN_DENSE": "0",
            "ABSTAIN_MIN_BM25": "0",
            "ABSTAIN_MIN_COVERAGE": "",
        }
        port = str(free_port())  # both replicas listen on it, each on an address of its own, as in compose
        with (
            loopback_dns() as (dns, resolver),
            running_api(folder / "first.log", **api_settings, API_HOST=FIRST, API_PORT=port) as (
                first_url,
                first,
            ),
            running_api(folder / "second.log", **api_settings, API_HOST=SECOND, API_PORT=port) as (
                second_url,
                second,
            ),
        ):
            dns.set(API_NAME, FIRST, SECOND)
            upstream = f"{API_NAME}:{port}"
            for site in start_nginx(
                nginx_binary, folder / "nginx", tls_pair, frontend_build, upstream, resolver=resolver
            ):
                yield Deployment(
                    database_url,
                    Replica(first_url, first),
                    Replica(second_url, second),
                    site,
                    tls_pair / "cert.pem",
                )


def _ingest_a_sample(settings: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "-m", "ingest", "run", str(REPO_ROOT / "samples" / "documents" / "handhygiene.pdf")],
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT), **settings},
        check=True,
        capture_output=True,
    )


def _ask_until_first_words(client: httpx.Client, conversation_id: int) -> Iterator[dict[str, Any]]:
    """The stream's events as (name, data) dicts; the caller stops or kills once a `delta` came."""
    url = f"/api/conversations/{conversation_id}/messages"
    with connect_sse(client, "POST", url, json={"question": QUESTION}) as source:
        assert source.response.status_code == 200, source.response.read()
        for event in source.iter_sse():
            yield {"event": event.event, **event.json()}


def _stopped_by(
    deployment: Deployment, asking: httpx.Client, stopping: httpx.Client, conversation_id: int
) -> int:
    """Ask through one client, stop through the other once the first words came; the stopped message's id."""
    events = []
    for event in _ask_until_first_words(asking, conversation_id):
        events.append(event)
        if event["event"] == "delta":
            assert stopping.post(f"/api/messages/{events[0]['message_id']}/stop").status_code == 204
    assert (events[-1]["event"], events[-1]["state"], events[-1]["stop_reason"]) == (
        "done",
        "stopped",
        "user_stopped",
    )
    message_id: int = events[0]["message_id"]
    assert deployment.message(message_id).state == MessageState.stopped
    return message_id


def test_a_stream_on_one_process_is_stopped_through_the_other(deployment: Deployment) -> None:
    token, conversation_id = deployment.clinician("ann")
    with (
        deployment.direct(deployment.first, token) as first,
        deployment.direct(deployment.second, token) as second,
    ):
        message_id = _stopped_by(deployment, first, second, conversation_id)
        _stopped_by(deployment, second, first, conversation_id)
        assert second.post(f"/api/messages/{message_id}/stop").status_code == 409  # finished: nothing to stop
    with deployment.through_nginx(token) as proxied:
        _stopped_by(deployment, proxied, proxied, conversation_id)


def test_the_per_user_cap_counts_the_answers_of_both_processes(deployment: Deployment) -> None:
    token, conversation_id = deployment.clinician("bea")
    with (
        deployment.direct(deployment.first, token) as first,
        deployment.direct(deployment.second, token) as second,
    ):
        for event in _ask_until_first_words(first, conversation_id):
            if event["event"] == "message":
                message_id = event["message_id"]
            if event["event"] == "delta":
                refused = second.post(
                    f"/api/conversations/{conversation_id}/messages", json={"question": QUESTION}
                )
                assert refused.status_code == 429, refused.text
                assert second.post(f"/api/messages/{message_id}/stop").status_code == 204


def test_the_login_failures_on_both_processes_count_alike(deployment: Deployment) -> None:
    deployment.clinician("cas")
    wrong = {"username": "cas", "password": "niet het wachtwoord"}
    right = {"username": "cas", "password": PASSWORD}
    with deployment.direct(deployment.first) as first, deployment.direct(deployment.second) as second:
        failures = [client.post("/api/auth/login", json=wrong) for client in (first, second, first)]
        assert [(failure.status_code, login_wait(failure)) for failure in failures] == [(401, 0.0)] * 3
        signed_in = second.post("/api/auth/login", json=right)
        # the third failure, on the other process, used up the allowance: the right password waits, then signs in
        assert (signed_in.status_code, login_wait(signed_in)) == (200, 1.0)  # LOGIN_DELAY_SECONDS unset: 1
    with deployment.through_nginx() as proxied:
        again = proxied.post("/api/auth/login", json=right)
        assert (again.status_code, login_wait(again)) == (200, 1.0)


def test_a_killed_process_leaves_the_other_serving_and_its_answer_closed_as_interrupted(
    deployment: Deployment,
) -> None:
    token, conversation_id = deployment.clinician("dirk")
    with deployment.direct(deployment.first, token) as first:
        events = _ask_until_first_words(first, conversation_id)
        message_id = next(events)["message_id"]
        assert next(event for event in events if event["event"] == "delta")
        deployment.first.process.send_signal(signal.SIGKILL)
        deployment.first.process.wait(timeout=10)
        with pytest.raises(httpx.TransportError):  # the stream breaks with its process
            list(events)
    assert deployment.message(message_id).state == MessageState.generating

    with deployment.through_nginx(token) as proxied:
        assert {proxied.get("/api/conversations").status_code for _ in range(6)} == {200}

    deadline = time.monotonic() + STALE_SECONDS + 10 * HEARTBEAT_SECONDS
    while deployment.message(message_id).state == MessageState.generating:
        assert time.monotonic() < deadline, "the killed process's answer is still generating"
        time.sleep(0.2)
    closed = deployment.message(message_id)
    assert (closed.state, closed.stop_reason) == (MessageState.failed, "api_interrupted")
    assert closed.finished_at is not None
    with deployment.through_nginx(token) as proxied:
        # the database cannot tell a killed process from one that lost only the database: the stop is recorded
        assert proxied.post(f"/api/messages/{message_id}/stop").status_code == 202
        # The closed answer no longer counts against the user's cap: the survivor answers (and stops) the next.
        _stopped_by(deployment, proxied, proxied, conversation_id)
