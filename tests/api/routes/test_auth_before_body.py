"""The large bodies (a document upload or a chosen document's new version, up to MAX_UPLOAD_MB; an evaluation set, a
few MB) are read only for a caller signed in with the route's role: anyone else is answered 401 or 403 before a byte of the body is read, so anonymous
uploads cannot fill the API's disk with spooled bodies. Checked on the real API under uvicorn with a raw socket
that sends the headers and the first block of a large body, then waits for the answer."""

import socket
from collections.abc import Iterator
from datetime import timedelta

import pytest
from fastapi import FastAPI
from sqlalchemy.orm import Session

from api.models import Role
from api.services import sessions, users
from api.settings import ApiSettings
from ingest.database import get_engine
from tests.api.chat.servers import api_server
from tests.api.conftest import add_user

MEGABYTE = 1024 * 1024
VERSION_PATH = "/api/admin/documents/1/version"
ANSWER_SECONDS = 10  # the old API waited for the whole body: no answer in this time


@pytest.fixture
def api_url(app: FastAPI) -> Iterator[tuple[str, int]]:
    with api_server(app) as url:
        host, port = url.removeprefix("http://").split(":")
        yield host, int(port)


def _token(database_url: str, username: str, *roles: Role) -> str:
    add_user(database_url, username, *roles)
    with Session(get_engine(database_url)) as db:
        token = sessions.create_api_token(db, users.require_user(db, username), "test", timedelta(days=1))
        db.commit()
        return token


def _answer_before_the_body(address: tuple[str, int], path: str, declared: int, token: str | None) -> str:
    """The status line the API answers after only the headers and 64 KB of a `declared`-byte multipart body."""
    boundary = "grens"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="groot.pdf"\r\n'
        "Content-Type: application/pdf\r\n\r\n%PDF-1.7\n"
    ).encode()
    authorization = f"Authorization: Bearer {token}\r\n" if token else ""
    request = (
        f"POST {path} HTTP/1.1\r\nHost: {address[0]}\r\n{authorization}"
        f"Content-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {declared}\r\n\r\n"
    ).encode()
    with socket.create_connection(address, timeout=ANSWER_SECONDS) as connection:
        connection.sendall(request + head + b"0" * (64 * 1024))
        try:
            return connection.recv(4096).split(b"\r\n", 1)[0].decode()
        except TimeoutError:
            return "no answer: the API waits for the rest of the body"


@pytest.mark.parametrize(
    ("path", "declared"),
    [
        ("/api/admin/uploads", 40 * MEGABYTE),
        (VERSION_PATH, 40 * MEGABYTE),
        ("/api/evaluator/sets", 4 * MEGABYTE),
    ],
    ids=["upload", "new-version", "evaluation-set"],
)
def test_a_large_body_of_an_anonymous_caller_is_refused_before_it_is_read(
    api_url: tuple[str, int], path: str, declared: int
) -> None:
    assert _answer_before_the_body(api_url, path, declared, None) == "HTTP/1.1 401 Unauthorized"


@pytest.mark.parametrize(
    ("path", "role"),
    [("/api/admin/uploads", Role.admin), (VERSION_PATH, Role.admin), ("/api/evaluator/sets", Role.evaluator)],
    ids=["upload", "new-version", "evaluation-set"],
)
def test_a_large_body_of_a_user_without_the_role_is_refused_before_it_is_read(
    api_url: tuple[str, int], api_settings: ApiSettings, path: str, role: Role
) -> None:
    others = [other for other in Role if other != role]
    token = _token(api_settings.database_url, "zonder-rol", *others)

    assert _answer_before_the_body(api_url, path, 4 * MEGABYTE, token) == "HTTP/1.1 403 Forbidden"
    assert (
        _answer_before_the_body(api_url, path, 4 * MEGABYTE, "a-made-up-token") == "HTTP/1.1 401 Unauthorized"
    )


@pytest.mark.parametrize("path", ["/api/admin/uploads", VERSION_PATH], ids=["upload", "new-version"])
def test_the_role_holder_s_body_is_read_up_to_the_upload_limit(
    api_url: tuple[str, int], api_settings: ApiSettings, path: str
) -> None:
    token = _token(api_settings.database_url, "beheerder", Role.admin)

    answer = _answer_before_the_body(api_url, path, 5 * MEGABYTE, token)

    assert answer == "no answer: the API waits for the rest of the body"
