"""The worker's three routes (docs/worker.md); the work happens in `WorkerService`."""

import secrets
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request, Response, status
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sse_starlette import EventSourceResponse, ServerSentEvent

from speculative.worker.schemas import EVENT_NAMES, GenerateBody
from speculative.worker.service import WorkerService

router = APIRouter()
_bearer = HTTPBearer(auto_error=False, description="WORKER_TOKEN, when the worker has one.")


def _service(request: Request) -> WorkerService:
    service: WorkerService = request.app.state.worker
    return service


async def _authorized(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> None:
    """With WORKER_TOKEN set, `/generate` needs it as a bearer token (compared in constant time)."""
    expected = _service(request).settings.worker_token
    if expected is None:
        return
    given = credentials.credentials if credentials is not None else ""
    if not secrets.compare_digest(given.encode(), expected.get_secret_value().encode()):
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED, "missing or wrong worker token", {"WWW-Authenticate": "Bearer"}
        )


@router.post(
    "/generate",
    response_class=EventSourceResponse,
    dependencies=[Depends(_authorized)],
    responses={401: {"description": "no or a wrong WORKER_TOKEN"}},
)
async def generate(body: GenerateBody, request: Request) -> EventSourceResponse:
    events = await _service(request).admit(body)
    return EventSourceResponse(
        ServerSentEvent(data=event.model_dump_json(), event=EVENT_NAMES[type(event)])
        async for event in events
    )


@router.get("/health")
async def health(request: Request) -> JSONResponse:
    report = _service(request).health()
    return JSONResponse(report, status_code=200 if report["status"] == "ready" else 503)


@router.get("/metrics")
async def metrics(request: Request) -> Response:
    return Response(_service(request).metrics.render(), media_type="text/plain; version=0.0.4; charset=utf-8")
