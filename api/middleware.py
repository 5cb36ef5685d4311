"""HTTP policies of the whole API: request body limits and no caching of its answers.

Body limits are enforced before any route reads a body (FastAPI parses JSON before the user is known).
Starlette's limiter counts the bytes as they arrive, with or without Content-Length; this picks its limit by path:
a small default for every JSON route, the upload size on the PDF upload, a few MB on the evaluation-set upload.
nginx sets the same limits in production (nginx/templates/vraagbaak.conf.template).
"""

from fastapi import Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import JSONResponse, Response
from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware.body_limit import RequestBodyLimitMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.services.evaluation import MAX_SET_BYTES

DEFAULT_BODY_LIMIT = 64 * 1024
MULTIPART_ALLOWANCE = 64 * 1024
EVALUATION_SET_BODY_LIMIT = MAX_SET_BYTES + MULTIPART_ALLOWANCE
UPLOAD_PATH = "/api/admin/uploads"
EVALUATION_SET_PATH = "/api/evaluator/sets"
TOO_LARGE = "Het verzoek is te groot."


class BodyLimits:
    """An ASGI middleware: the limit of the request's path, else the default."""

    def __init__(self, app: ASGIApp, max_upload_mb: int) -> None:
        self.app = app
        self.limits = {
            UPLOAD_PATH: max_upload_mb * 1024 * 1024,
            EVALUATION_SET_PATH: EVALUATION_SET_BODY_LIMIT,
        }
        self.limited = {
            limit: RequestBodyLimitMiddleware(app, limit)
            for limit in {DEFAULT_BODY_LIMIT, *self.limits.values()}
        }

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limits.get(scope["path"], DEFAULT_BODY_LIMIT)
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
