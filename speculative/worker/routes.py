"""The worker's three routes (docs/worker.md); the work happens in `WorkerService`."""

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from sse_starlette import EventSourceResponse, ServerSentEvent

from speculative.worker.schemas import EVENT_NAMES, GenerateBody
from speculative.worker.service import WorkerService

router = APIRouter()


def _service(request: Request) -> WorkerService:
    service: WorkerService = request.app.state.worker
    return service


@router.post(
    "/generate",
    response_class=EventSourceResponse,
    responses={
        401: {"description": "no or a wrong WORKER_TOKEN (checked before the body is read, worker/guard.py)"},
        413: {"description": "a body larger than any valid request"},
    },
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
