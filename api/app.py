"""The FastAPI application: routes are thin and mounted here; logic lives in services."""

import asyncio
import contextlib
import logging
import secrets
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException
from starlette.middleware.sessions import SessionMiddleware

from api import housekeeping
from api.chat import instances
from api.chat.runtime import warm_up
from api.evaluator import reports
from api.frontend import built_frontend
from api.middleware import BodyLimits, NoStore, SignedInBeforeBody, too_large_in_dutch
from api.routes import admin, auth, chat, conversations, documents, evaluator, feedback, health, reference
from api.services import oidc
from api.services.errors import DATABASE_DOWN, DATABASE_RETRY_AFTER_SECONDS, ServiceError
from api.settings import ApiSettings
from ingest.settings import IngestSettings
from ingest.worker import JobWorker

log = logging.getLogger(__name__)


def _service_error(_request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, ServiceError)
    return JSONResponse({"detail": error.detail}, status_code=error.status)


def _database_down(_request: Request, error: Exception) -> JSONResponse:
    """The database does not answer (down, restarting): 503 with a Dutch detail instead of a 500 traceback; the
    pool checks each connection before use (`pool_pre_ping`), so the next request after it is back succeeds."""
    log.warning("database unavailable: %s", getattr(error, "orig", error))
    return JSONResponse(
        {"detail": DATABASE_DOWN},
        status_code=503,
        headers={"Retry-After": str(DATABASE_RETRY_AFTER_SECONDS)},
    )


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    """This process beats its heartbeat while it runs, and closes the answers and evaluation reports that
    processes that are gone left behind (api/chat/instances.py); in the embedded mode ingestion jobs run on a
    thread of this process (production: the ingest container). Evaluation reports never run here: the report
    runner (`python -m api reports`) runs them. With CHAT_WARM_UP the chat's runtime is built in the background."""
    settings: ApiSettings = app.state.settings
    beating = instances.start(
        settings.database_url, settings.instance_stale_seconds, also_close=(reports.fail_orphaned,)
    )
    heartbeat = asyncio.create_task(instances.keep_beating(beating, settings.instance_heartbeat_seconds))
    tidying = asyncio.create_task(housekeeping.keep_tidy(settings))
    if settings.run_ingestion_jobs:
        app.state.job_worker = JobWorker(app.state.ingest_settings)
        app.state.job_worker.start()
    if settings.chat_warm_up:
        threading.Thread(target=warm_up, args=(app.state,), name="chat-warm-up", daemon=True).start()
    try:
        yield
    finally:
        for task in (heartbeat, tidying):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if app.state.job_worker is not None:
            app.state.job_worker.stop(timeout=5)
        if app.state.search_index is not None:
            app.state.search_index.close()


def _keep_sso_flow_in_a_cookie(app: FastAPI, settings: ApiSettings) -> None:
    """authlib keeps a sign-in's state, nonce and PKCE verifier in Starlette's signed session cookie: sent only
    to the SSO routes, for ten minutes, SameSite=Lax because the provider's redirect back is a cross-site
    navigation."""
    secret = settings.secret_key.get_secret_value() if settings.secret_key else secrets.token_urlsafe(32)
    secure = settings.cookie_is_secure(
        "https" if (settings.oidc_redirect_base_url or "").startswith("https://") else "http"
    )
    app.add_middleware(
        SessionMiddleware,
        secret_key=secret,
        session_cookie=oidc.FLOW_COOKIE,
        max_age=oidc.FLOW_SECONDS,
        path="/api/auth/oidc",
        same_site="lax",
        https_only=secure,
    )


def create_app(settings: ApiSettings | None = None, ingest_settings: IngestSettings | None = None) -> FastAPI:
    settings = settings or ApiSettings()
    app = FastAPI(
        title="Vraagbaak",
        version="0.1.0",
        openapi_url=None,  # served to signed-in users only: api/routes/reference.py
        docs_url=None,
        redoc_url=None,
        lifespan=_lifespan,
    )
    app.state.settings = settings
    app.state.ingest_settings = ingest_settings or IngestSettings(database_url=settings.database_url)
    app.state.search_index = None
    app.state.job_worker = None
    app.state.index_lock = threading.Lock()
    app.state.sso = oidc.SingleSignOn(settings) if settings.oidc_enabled else None
    if app.state.sso is not None:
        _keep_sso_flow_in_a_cookie(app, settings)
    app.add_middleware(BodyLimits, max_upload_mb=settings.max_upload_mb)
    app.add_middleware(SignedInBeforeBody, settings=settings)
    app.add_middleware(NoStore)
    app.add_exception_handler(ServiceError, _service_error)
    app.add_exception_handler(OperationalError, _database_down)
    app.add_exception_handler(HTTPException, too_large_in_dutch)
    for router in (
        health.router,
        auth.router,
        conversations.router,
        chat.router,
        feedback.router,
        documents.router,
        evaluator.router,
        admin.router,
        reference.router,
    ):
        app.include_router(router)
    frontend = built_frontend(settings.frontend_dir)
    if frontend is not None:
        app.mount("/", frontend, name="frontend")
    return app
