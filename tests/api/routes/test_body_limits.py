"""Request bodies are limited before any route reads them: 64 KB by default (the public login route included),
MAX_UPLOAD_MB on the PDF upload, a few MB on the evaluation-set upload. nginx applies the same limits in production
(tests/deploy/test_nginx.py). And no cache keeps an API answer."""

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from api.middleware import DEFAULT_BODY_LIMIT, EVALUATION_SET_BODY_LIMIT, TOO_LARGE
from api.models import Role
from api.settings import ApiSettings
from tests.api.conftest import SignIn

# What made the login route grow to gigabytes: a JSON list of empty objects is parsed before anything is checked.
MANY_OBJECTS = b"[" + b"{}," * 40_000 + b"{}]"


@pytest.fixture
def api_settings(api_settings: ApiSettings) -> ApiSettings:
    return api_settings.model_copy(update={"max_upload_mb": 1})


def chunks(body: bytes, size: int = 8192) -> Iterator[bytes]:
    """A body sent without Content-Length (chunked transfer encoding)."""
    for start in range(0, len(body), size):
        yield body[start : start + size]


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_an_oversized_json_body_to_login_gets_413_before_it_is_parsed(
    client: TestClient, chunked: bool
) -> None:
    assert len(MANY_OBJECTS) > DEFAULT_BODY_LIMIT
    content = chunks(MANY_OBJECTS) if chunked else MANY_OBJECTS

    response = client.post("/api/auth/login", content=content, headers={"Content-Type": "application/json"})

    assert response.status_code == 413
    assert response.json() == {"detail": TOO_LARGE}


def test_a_body_under_the_default_limit_reaches_the_route(client: TestClient) -> None:
    padded = b'{"username": "ann", "password": "x"' + b" " * (DEFAULT_BODY_LIMIT - 100) + b"}"

    response = client.post("/api/auth/login", content=padded, headers={"Content-Type": "application/json"})

    assert response.status_code == 401


def test_uploads_get_the_upload_limit_and_evaluation_sets_a_few_megabytes(
    sign_in: SignIn, api_settings: ApiSettings
) -> None:
    admin = sign_in("ada", Role.admin, Role.evaluator)
    pdf = b"%PDF-1.7\n" + b"0" * (2 * DEFAULT_BODY_LIMIT)
    csv_over = b"question,relevant_documents\n" + b"x" * EVALUATION_SET_BODY_LIMIT

    upload = admin.post("/api/admin/uploads", files={"files": ("groot.pdf", pdf, "application/pdf")})
    too_large_set = admin.post("/api/evaluator/sets", files={"file": ("vragen.csv", csv_over, "text/csv")})
    too_large_upload = admin.post(
        "/api/admin/uploads",
        content=chunks(b"0" * (api_settings.max_upload_mb * 1024 * 1024 + 1), 1024 * 1024),
        headers={"Content-Type": "multipart/form-data; boundary=x"},
    )

    assert upload.status_code == 201, upload.text
    assert too_large_set.status_code == too_large_upload.status_code == 413


def test_api_answers_are_not_stored_by_caches(client: TestClient, sign_in: SignIn) -> None:
    admin = sign_in("ada", Role.admin)

    assert client.get("/api/health").headers["cache-control"] == "no-store"
    assert admin.get("/api/auth/me").headers["cache-control"] == "no-store"
    assert client.post("/api/auth/login", content=MANY_OBJECTS).headers["cache-control"] == "no-store"
