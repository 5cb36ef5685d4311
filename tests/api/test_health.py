"""The health route answers without authentication and tells whether the database, the index and the workers
are there."""

import socket

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import ApiSettings
from ingest.jobs import JobSummary


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_health_reports_the_database_the_index_and_the_workers(
    client: TestClient, ingested: JobSummary, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WORKER_URLS", f"http://127.0.0.1:{_free_port()},http://127.0.0.1:{_free_port()}")

    response = client.get("/api/health")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == body["database"] == "ok"
    assert body["index"]["status"] == "ok"
    assert body["index"]["documents"] == 5
    assert body["index"]["chunks"] > 5
    assert body["workers"] == {"ready": 0, "loading": 0, "total": 2}  # nothing listens on those ports


def test_health_reports_unavailable_when_the_database_is_down() -> None:
    unreachable = "postgresql+psycopg://nobody@127.0.0.1:1/none"
    client = TestClient(create_app(ApiSettings(database_url=unreachable)))

    response = client.get("/api/health")

    assert response.status_code == 503
    assert response.json()["status"] == "unavailable"
