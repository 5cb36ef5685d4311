"""The worker's FastAPI app: loads the model in the background and maps refusals to their HTTP answers."""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from speculative.drafters.registry import MethodUnavailableError
from speculative.engine.request import InvalidRequestError
from speculative.settings import SpeculativeSettings
from speculative.worker.guard import GenerateGuard
from speculative.worker.queue import QueueFullError
from speculative.worker.routes import router
from speculative.worker.schemas import MAX_BODY_BYTES
from speculative.worker.service import NotReadyError, PromptTooLongError, WorkerService


def create_app(settings: SpeculativeSettings) -> FastAPI:
    service = WorkerService(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        loading = asyncio.create_task(service.load())
        yield
        loading.cancel()
        service.shutdown()

    app = FastAPI(title="Vraagbaak generation worker", lifespan=lifespan)
    app.state.worker = service
    app.add_middleware(GenerateGuard, token=settings.worker_token, max_body_bytes=MAX_BODY_BYTES)
    app.include_router(router)
    _add_refusals(app, settings.retry_after_seconds)
    return app


def _add_refusals(app: FastAPI, retry_after_seconds: int) -> None:
    retry_after = {"Retry-After": str(retry_after_seconds)}

    @app.exception_handler(QueueFullError)
    @app.exception_handler(NotReadyError)
    async def unavailable(request: Request, error: Exception) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, status_code=503, headers=retry_after)

    @app.exception_handler(RequestValidationError)
    async def bad_field(request: Request, error: RequestValidationError) -> JSONResponse:
        """Which field and why, without echoing the value: it may be a prompt of half a megabyte, or a number
        JSON cannot carry back (Infinity)."""
        detail = [
            {key: item[key] for key in ("type", "loc", "msg") if key in item} for item in error.errors()
        ]
        return JSONResponse({"detail": detail}, status_code=422)

    @app.exception_handler(PromptTooLongError)
    async def too_long(request: Request, error: PromptTooLongError) -> JSONResponse:
        body = {
            "detail": str(error),
            "prompt_tokens": error.prompt_tokens,
            "max_new_tokens": error.max_new_tokens,
            "context_length": error.context_length,
        }
        return JSONResponse(body, status_code=413)

    @app.exception_handler(MethodUnavailableError)
    async def unknown_method(request: Request, error: MethodUnavailableError) -> JSONResponse:
        detail = [{"type": "value_error", "loc": ["body", "method"], "msg": str(error)}]
        return JSONResponse({"detail": detail, "methods": error.methods}, status_code=422)

    @app.exception_handler(InvalidRequestError)
    async def invalid(request: Request, error: InvalidRequestError) -> JSONResponse:
        return JSONResponse(
            {"detail": [{"type": "value_error", "loc": ["body"], "msg": str(error)}]}, status_code=422
        )
