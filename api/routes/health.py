"""Liveness and readiness for nginx, compose health checks and `make demo`; the only unauthenticated route."""

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from ingest.database import get_engine

router = APIRouter()


@router.get("/api/health")
def health(request: Request) -> JSONResponse:
    database_url: str = request.app.state.settings.database_url
    try:
        with get_engine(database_url).connect() as connection:
            connection.execute(text("SELECT 1"))
    except SQLAlchemyError as error:
        return JSONResponse(
            {"status": "unavailable", "database": str(error.__class__.__name__)}, status_code=503
        )
    return JSONResponse({"status": "ok", "database": "ok"})
