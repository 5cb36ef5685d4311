"""HTTP policies of the whole API: who may send a large body, request body limits, no caching of its answers.

The routes that take large bodies (the document upload, a chosen document's new version, the evaluation-set
upload) check the caller's session or token and role from the headers before the body is read: an anonymous or unentitled caller is answered 401/403
without a byte of the body being read or spooled to disk (FastAPI would read the whole form first).

Body limits are enforced before any route reads a body (FastAPI parses JSON before the user is known).
Starlette's limiter counts the bytes as they arrive, with or without Content-Length; this picks its limit by path:
a small default for every JSON route, the upload size on the document uploads, a few MB on the evaluation-set
upload.
nginx sets the same limits in production (nginx/templates/vraagbaak.conf.template).
"""

import re

from fastapi import Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware.body_limit import RequestBodyLimitMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.deps import Credentials, check_role
from api.evaluator.reports import MAX_SET_BYTES
from api.models import Role
from api.services.errors import DATABASE_DOWN, DATABASE_RETRY_AFTER_SECONDS
from api.settings import ApiSettings
from ingest.database import get_engine

DEFAULT_BODY_LIMIT = 64 * 1024
MULTIPART_ALLOWANCE = 64 * 1024
EVALUATION_SET_BODY_LIMIT = MAX_SET_BYTES + MULTIPART_ALLOWANCE
UPLOAD_PATH = "/api/admin/uploads"
VERSION_UPLOAD_PATH = re.compile(r"/api/admin/documents/[^/]+/version")
EVALUATION_SET_PATH = "/api/evaluator/sets"
TOO_LARGE = "Het verzoek is te groot."


def large_body_role(path: str) -> Role | None:
    """The role a large-body route needs (the route checks it again: this check only runs first); None for the
    other routes."""
    if path == UPLOAD_PATH or VERSION_UPLOAD_PATH.fullmatch(path):
        return Role.admin
    if path == EVALUATION_SET_PATH:
        return Role.evaluator
    return None


class SignedInBeforeBody:
    """An ASGI middleware: a POST to a large-body route goes on only for a caller signed in with its role."""

    def __init__(self, app: ASGIApp, settings: ApiSettings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        role = large_body_role(scope["path"]) if scope["type"] == "http" else None
        if role is None or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        try:
            await run_in_threadpool(self._check, Credentials.of(Request(scope)), role)
        except HTTPException as refused:
            answer = JSONResponse({"detail": refused.detail}, refused.status_code, refused.headers)
            await answer(scope, receive, send)
            return
        except OperationalError:
            headers = {"Retry-After": str(DATABASE_RETRY_AFTER_SECONDS)}
            await JSONResponse({"detail": DATABASE_DOWN}, 503, headers)(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _check(self, credentials: Credentials, role: Role) -> None:
        with Session(get_engine(self.settings.database_url)) as db:
            check_role(credentials.identify(db, self.settings).user, role)


class BodyLimits:
    """An ASGI middleware: the limit of the request's path, else the default."""

    def __init__(self, app: ASGIApp, max_upload_mb: int) -> None:
        self.app = app
        self.upload_limit = max_upload_mb * 1024 * 1024
        self.limited = {
            limit: RequestBodyLimitMiddleware(app, limit)
            for limit in {DEFAULT_BODY_LIMIT, self.upload_limit, EVALUATION_SET_BODY_LIMIT}
        }

    def limit(self, path: str) -> int:
        """The most bytes a request to `path` may send."""
        role = large_body_role(path)
        if role is Role.admin:
            return self.upload_limit
        if role is Role.evaluator:
            return EVALUATION_SET_BODY_LIMIT
        return DEFAULT_BODY_LIMIT

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit(scope["path"])
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            # Starlette would answer this one in English, after the route ran up to reading the body.
            await JSONResponse({"detail": TOO_LARGE}, status_code=413)(scope, receive, send)
            return
        await self.limited[limit](scope, receive, send)


async def too_large_in_dutch(request: Request, error: Exception) -> Response:
    """Starlette's limiter says 413 in English; the user reads Dutch. Every other HTTP error as FastAPI answers it."""
    assert isinstance(error, HTTPException)
    if error.status_code == 413:
        return JSONResponse({"detail": TOO_LARGE}, status_code=413)
    return await http_exception_handler(request, error)


class NoStore:
    """An ASGI middleware: `Cache-Control: no-store` on every /api answer (questions, sessions and exports are no
    business of a browser's or proxy's cache); the front-end's files keep their own caching."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return

        async def send_no_store(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message)["Cache-Control"] = "no-store"
            await send(message)

        await self.app(scope, receive, send_no_store)
