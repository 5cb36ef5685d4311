"""In the embedded mode the API serves the built front-end at /, falling back to index.html for the app's own
routes, while unknown API routes stay JSON 404s and nothing outside the build folder is served."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import ApiSettings

PAGE = "<!doctype html><title>Vraagbaak</title><div id=root></div>"


@pytest.fixture
def built(tmp_path: Path) -> Path:
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text(PAGE)
    (dist / "assets" / "app.js").write_text("console.log('vraagbaak')")
    (tmp_path / "secret.txt").write_text("not for the browser")
    return dist


def test_the_built_frontend_is_served_with_a_single_page_fallback(
    api_settings: ApiSettings, built: Path
) -> None:
    client = TestClient(create_app(api_settings.model_copy(update={"frontend_dir": built})))

    assert client.get("/").text == PAGE
    assert client.get("/assets/app.js").text == "console.log('vraagbaak')"
    assert client.get("/gesprekken/12").text == PAGE
    unknown_api = client.get("/api/bestaat-niet")
    assert unknown_api.status_code == 404
    assert unknown_api.headers["content-type"] == "application/json"
    assert "not for the browser" not in client.get("/../secret.txt").text
    assert "not for the browser" not in client.get("/assets/..%2F..%2Fsecret.txt").text


def test_without_a_build_only_the_api_answers(client: TestClient) -> None:
    assert client.get("/").status_code == 404
    assert client.get("/api/health").status_code == 200
