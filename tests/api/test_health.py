"""The health route answers without authentication and tells whether the database is reachable."""

from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import ApiSettings


def test_health_reports_ok_when_the_database_answers(database_url: str) -> None:
    client = TestClient(create_app(ApiSettings(database_url=database_url)))

    response = client.get("/api/health")

    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}


def test_health_reports_unavailable_when_the_database_is_down() -> None:
    unreachable = "postgresql+psycopg://nobody@127.0.0.1:1/none"
    client = TestClient(create_app(ApiSettings(database_url=unreachable)))

    response = client.get("/api/health")

    assert response.status_code == 503
    assert response.json()["status"] == "unavailable"
