"""What `POST /generate` checks before its body is read: the bearer token (WORKER_TOKEN, compared in constant
time) from the headers, then the body's size, counted as it arrives (with or without Content-Length), so a caller
without the token, or with a body larger than any valid request, is refused without the worker reading or parsing
it. Health and metrics stay open."""

import secrets

from pydantic import SecretStr
from starlette.datastructures import Headers
from starlette.middleware.body_limit import RequestBodyLimitMiddleware
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

GUARDED_PATH = "/generate"
WRONG_TOKEN = "missing or wrong worker token"
TOO_LARGE = "the request body is larger than any valid request"


class GenerateGuard:
    """An ASGI middleware in front of the worker's app."""

    def __init__(self, app: ASGIApp, token: SecretStr | None, max_body_bytes: int) -> None:
        self.app = app
        self.token = token.get_secret_value().encode() if token is not None else None
        self.max_body_bytes = max_body_bytes
        self.limited = RequestBodyLimitMiddleware(app, max_body_bytes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != GUARDED_PATH:
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        if not self._authorized(headers.get("authorization", "")):
            refusal = JSONResponse({"detail": WRONG_TOKEN}, 401, {"WWW-Authenticate": "Bearer"})
            await refusal(scope, receive, send)
            return
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_body_bytes:
            await JSONResponse({"detail": TOO_LARGE}, 413)(scope, receive, send)
            return
        await self.limited(scope, receive, send)

    def _authorized(self, authorization: str) -> bool:
        if self.token is None:
            return True
        scheme, _, given = authorization.partition(" ")
        return scheme.lower() == "bearer" and secrets.compare_digest(given.strip().encode(), self.token)
