"""An API on a fresh database (SQLite and PostgreSQL), signed-in clients with chosen roles, and the sample
procedures (samples/documents) ingested for real with all-MiniLM-L6-v2 into an embedded index."""

import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from api.app import create_app
from api.chat import instances
from api.chat.runtime import ChatRuntime
from api.deps import CSRF_HEADER
from api.models import ProcessRole, Role
from api.report_runner import ReportRunner
from api.services import users
from api.settings import ApiSettings
from ingest.database import get_engine
from ingest.embedding import Embedder
from ingest.jobs import JobSummary
from ingest.run_job import Ingestion
from ingest.search.embedded import EmbeddedIndex
from ingest.settings import IngestSettings

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLES = REPO_ROOT / "samples" / "documents"

PASSWORD = "correct horse battery"

SignIn = Callable[..., TestClient]


@pytest.fixture
def api_settings(database_url: str, tmp_path: Path) -> ApiSettings:
    return ApiSettings(
        database_url=database_url,
        upload_dir=tmp_path / "uploads",
        report_dir=tmp_path / "reports",
        frontend_dir=tmp_path / "no-frontend",
        run_ingestion_jobs=False,
    )


@pytest.fixture
def app(api_settings: ApiSettings, ingest_settings: IngestSettings) -> FastAPI:
    return create_app(api_settings, ingest_settings)


@pytest.fixture
def sample_folder(tmp_path: Path) -> Path:
    """A copy of the shipped sample procedures (with their metadata sidecars)."""
    return Path(shutil.copytree(SAMPLES, tmp_path / "procedures"))


@pytest.fixture
def ingested(ingest_settings: IngestSettings, minilm: Embedder, sample_folder: Path) -> JobSummary:
    """The sample procedures ingested for real (parsed, chunked, embedded, indexed, recorded)."""
    index = EmbeddedIndex(ingest_settings.index_dir, ingest_settings.embedding_model)
    try:
        summary = Ingestion(ingest_settings, index, lambda: minilm).ingest([sample_folder])
    finally:
        index.close()
    assert summary.failed == ()
    return summary


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as anonymous:
        yield anonymous


def run_queued_jobs(settings: IngestSettings, minilm: Embedder) -> list[JobSummary]:
    """What the ingest container does with the jobs uploads queued."""
    index = EmbeddedIndex(settings.index_dir, settings.embedding_model)
    try:
        return Ingestion(settings, index, lambda: minilm).resume_interrupted()
    finally:
        index.close()


@contextmanager
def running_reports(
    settings: ApiSettings, ingest: IngestSettings, chat: ChatRuntime | None = None
) -> Iterator[ReportRunner]:
    """What the `reports` service does, on a thread of the test: takes the queued reports and runs them (answer
    reports through `chat` when given); stopped after the report in progress."""
    runner = ReportRunner(settings, ingest, (lambda: chat) if chat is not None else None, poll_seconds=0.2)
    runner.start()
    try:
        yield runner
    finally:
        runner.stop(timeout=120)


@pytest.fixture
def report_runner(api_settings: ApiSettings, ingest_settings: IngestSettings) -> Iterator[ReportRunner]:
    with running_reports(api_settings, ingest_settings) as runner:
        yield runner


def idle_report_runner(database_url: str) -> str:
    """A report runner registered as alive (for the stale period) that takes no report: queued reports stay
    queued. Its instance id."""
    instance_id = uuid.uuid4().hex
    instances.beat(database_url, instance_id, ProcessRole.reports)
    return instance_id


def login_wait(response: httpx.Response) -> float:
    """The seconds a login answer waited before its password was checked (its `Server-Timing: login-wait`)."""
    metric = next(part for part in response.headers["server-timing"].split(",") if "login-wait" in part)
    return int(metric.split("dur=")[1]) / 1000


def add_user(database_url: str, username: str, *roles: Role, password: str = PASSWORD) -> int:
    with Session(get_engine(database_url)) as db:
        user = users.create_user(db, username, password, roles)
        db.commit()
        return user.id


@pytest.fixture
def sign_in(app: FastAPI, api_settings: ApiSettings) -> Iterator[SignIn]:
    """`sign_in("ann", Role.admin)`: a new user, and a client signed in as them that sends the CSRF header."""
    clients: list[TestClient] = []

    def signed_in(username: str, *roles: Role) -> TestClient:
        add_user(api_settings.database_url, username, *roles)
        browser = TestClient(app)
        clients.append(browser)
        response = browser.post("/api/auth/login", json={"username": username, "password": PASSWORD})
        assert response.status_code == 200, response.text
        browser.headers[CSRF_HEADER] = response.json()["csrf_token"]
        return browser

    yield signed_in
    for browser in clients:
        browser.close()


def finished_report(evaluator: TestClient, report_id: int, timeout_seconds: float) -> dict[str, object]:
    """The report once the report runner has finished or failed it (polled)."""
    deadline = time.monotonic() + timeout_seconds
    while time.monotonic() < deadline:
        report: dict[str, object] = evaluator.get(f"/api/evaluator/reports/{report_id}").json()
        if report["status"] in ("finished", "failed"):
            return report
        time.sleep(0.5)
    raise AssertionError(f"report {report_id} did not finish in {timeout_seconds} s")
