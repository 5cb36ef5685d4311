"""Liveness for nginx, compose health checks and `make demo`, and readiness for the people who use it.

Anonymous: `{"status": "ok"}` while the process serves, without touching the database, the index or a worker
(nginx rate-limits it too), so it reveals nothing and costs nothing. Signed in: `status` is `ok` when the
database answers (503 otherwise), with how many workers are ready or loading (the chat page shows "the model is
loading"). Admins also get the index's counts and the error classes of what is unavailable.
"""

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from sqlalchemy import text
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlalchemy.orm import Session

from api.chat.runtime import pool_from_settings
from api.chat.settings import ChatSettings
from api.chat.worker_pool import WorkerPool
from api.deps import Credentials, Identity, get_index
from api.models import Role
from api.settings import ApiSettings
from ingest.database import get_engine

router = APIRouter(tags=["health"])


def _database(database_url: str) -> str:
    try:
        with get_engine(database_url).connect() as connection:
            connection.execute(text("SELECT 1"))
    except SQLAlchemyError as error:
        return f"unavailable ({type(error).__name__})"
    return "ok"


def _index(request: Request) -> dict[str, Any]:
    try:
        stats = get_index(request).stats()
    except Exception as error:  # an unreachable Weaviate or a damaged index folder: reported, not raised
        return {"status": f"unavailable ({type(error).__name__})"}
    return {"status": "ok", "documents": stats.documents, "chunks": stats.chunks}


def _worker_pool(request: Request) -> WorkerPool:
    """The chat's pool once the chat has run; before that a pool of its own (building the chat loads models)."""
    state = request.app.state
    chat = getattr(state, "chat", None)
    if chat is not None:
        pool: WorkerPool = chat.pool
        return pool
    if getattr(state, "health_pool", None) is None:
        state.health_pool = pool_from_settings(ChatSettings())
    own: WorkerPool = state.health_pool
    return own


@router.get("/api/health", responses={503: {"description": "signed in: the database does not answer"}})
async def health(request: Request) -> JSONResponse:
    credentials = Credentials.of(request)
    if not credentials.given:
        return JSONResponse({"status": "ok"})
    settings: ApiSettings = request.app.state.settings
    try:
        identity = await run_in_threadpool(_identity, credentials, settings)
    except OperationalError:
        return JSONResponse({"status": "unavailable", "database": "unavailable"}, status_code=503)
    if identity is None:  # credentials that open nothing: as anonymous
        return JSONResponse({"status": "ok"})
    database = await run_in_threadpool(_database, settings.database_url)
    body: dict[str, Any] = {
        "status": "ok" if database == "ok" else "unavailable",
        "database": database if identity.user.has_role(Role.admin) else database.split(" ")[0],
        "workers": await _worker_pool(request).summary(),
    }
    if identity.user.has_role(Role.admin):
        body["index"] = await run_in_threadpool(_index, request)
    return JSONResponse(body, status_code=200 if database == "ok" else 503)


def _identity(credentials: Credentials, settings: ApiSettings) -> Identity | None:
    with Session(get_engine(settings.database_url)) as db:
        try:
            return credentials.identify(db, settings)
        except HTTPException:
            return None
