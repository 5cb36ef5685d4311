"""Liveness and readiness for nginx, compose health checks and `make demo`; open without authentication.

`status` is `ok` when the database answers (the API can serve sign-in, documents and history); the index and
the workers are reported so ops see at a glance what else is missing, without failing the API's own check.
"""

from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from api.chat.runtime import pool_from_settings
from api.chat.settings import ChatSettings
from api.chat.workers import WorkerPool
from api.deps import get_index
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


@router.get("/api/health", responses={503: {"description": "the database does not answer"}})
async def health(request: Request) -> JSONResponse:
    database = await run_in_threadpool(_database, request.app.state.settings.database_url)
    index = await run_in_threadpool(_index, request)
    workers = await _worker_pool(request).summary()
    body = {
        "status": "ok" if database == "ok" else "unavailable",
        "database": database,
        "index": index,
        "workers": workers,
    }
    return JSONResponse(body, status_code=200 if database == "ok" else 503)
