"""The health route: anonymous callers learn only that the process serves (no database, index or worker is asked,
no count or error class is shown); signed-in users see what the chat needs (database up, workers ready); admins
also see the index's counts and the error classes. The API's own description (OpenAPI) needs sign-in, and no page
the API serves loads anything from another host."""

import re

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from api.app import create_app
from api.models import Role
from api.settings import ApiSettings
from ingest.jobs import JobSummary
from research.local_process import free_port
from tests.api.conftest import SignIn
from tests.api.routes.test_route_auth import app_routes

UNREACHABLE = "postgresql+psycopg://nobody@127.0.0.1:1/none"
ANOTHER_HOST = re.compile(
    r"""(?:src|href)\s*=\s*["']?(?:https?:)?//[^"'\s>]+|url\(\s*["']?(?:https?:)?//""", re.I
)


@pytest.fixture
def two_silent_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKER_URLS", f"http://127.0.0.1:{free_port()},http://127.0.0.1:{free_port()}")


@pytest.mark.usefixtures("two_silent_workers")
def test_anonymous_health_is_liveness_only(client: TestClient, ingested: JobSummary) -> None:
    response = client.get("/api/health")

    assert (response.status_code, response.json()) == (200, {"status": "ok"})


def test_anonymous_health_asks_nothing_of_a_database_that_is_down() -> None:
    client = TestClient(create_app(ApiSettings(database_url=UNREACHABLE)))

    response = client.get("/api/health")

    assert (response.status_code, response.json()) == (200, {"status": "ok"})


@pytest.mark.usefixtures("two_silent_workers")
def test_a_clinician_sees_the_database_and_the_workers_without_counts(
    sign_in: SignIn, ingested: JobSummary
) -> None:
    ann = sign_in("ann", Role.clinician)

    body = ann.get("/api/health").json()

    assert body == {"status": "ok", "database": "ok", "workers": {"ready": 0, "loading": 0, "total": 2}}


@pytest.mark.usefixtures("two_silent_workers")
def test_an_admin_sees_the_index_counts_too(sign_in: SignIn, ingested: JobSummary) -> None:
    ada = sign_in("ada", Role.admin)

    body = ada.get("/api/health").json()

    assert body["status"] == body["database"] == "ok"
    assert body["index"]["status"] == "ok"
    assert body["index"]["documents"] == 5
    assert body["index"]["chunks"] > 5
    assert body["workers"] == {"ready": 0, "loading": 0, "total": 2}  # nothing listens on those ports


def test_signed_in_health_says_503_when_the_database_is_down() -> None:
    client = TestClient(create_app(ApiSettings(database_url=UNREACHABLE)))

    response = client.get("/api/health", headers={"Authorization": "Bearer some-token"})

    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "database": "unavailable"}


def test_the_api_description_needs_a_signed_in_user(client: TestClient, sign_in: SignIn) -> None:
    ann = sign_in("ann", Role.clinician)

    assert client.get("/api/openapi.json").status_code == 401
    assert "/api/conversations" in ann.get("/api/openapi.json").json()["paths"]


def test_no_page_the_api_serves_loads_anything_from_another_host(app: FastAPI, sign_in: SignIn) -> None:
    """A page that takes a script from a CDN runs that CDN's code with the signed-in user's session: the Swagger
    page did (without integrity), so it is gone; scripts' authors read /api/openapi.json with their own tools."""
    everyone = sign_in("ann", Role.clinician, Role.admin, Role.evaluator)
    pages = {}
    for method, path in sorted(app_routes(app)):
        response = everyone.get(path) if method == "GET" and "{" not in path else None
        if response is not None and response.headers.get("content-type", "").startswith("text/html"):
            pages[path] = ANOTHER_HOST.findall(response.text)

    assert {path: found for path, found in pages.items() if found} == {}
    assert everyone.get("/api/docs").status_code == 404
