"""The chat's routes (docs/api.md, "Chat"): ask a question and get the answer as server-sent events; stop one."""

import time
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Response, status
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, field_validator
from sse_starlette import EventSourceResponse
from starlette.concurrency import run_in_threadpool

from api.chat import answering, storage
from api.chat.limits import TooManyQuestions
from api.chat.runtime import ChatRuntime, get_chat_runtime, get_generations
from api.chat.stop_requests import Generations
from api.chat.worker_pool import GenerationRefused, NoWorkerReady
from api.deps import ClinicianUser, RowId, SessionDep, SettingsDep
from api.schemas import MAX_QUESTION_CHARS, Text

router = APIRouter(prefix="/api", tags=["chat"])
RuntimeDep = Annotated[ChatRuntime, Depends(get_chat_runtime)]

RETRIEVAL_ONLY_DISABLED = "Alleen documenten tonen (zonder antwoord) is in deze installatie uitgeschakeld."
QUESTION_TOO_LONG = "De vraag is te lang voor het taalmodel. Maak ze korter."
NOT_GENERATING = "Dit antwoord wordt niet (meer) geschreven: er valt niets te stoppen."
STOP_RECORDED = (
    "Het stoppen is vastgelegd. De server die dit antwoord schrijft, is nu niet bereikbaar via de database; het "
    "antwoord stopt zodra die server de database weer bereikt."
)
MAX_FILTER_VALUES = 50
FilterValue = Annotated[Text, Field(min_length=1, max_length=200)]


class AskRequest(BaseModel):
    question: Text = Field(
        min_length=1, max_length=MAX_QUESTION_CHARS, description="The clinician's question, in Dutch."
    )
    retrieval_only: bool | None = Field(
        None, description="Documents and passages only, no generated answer (null: the deployment's default)."
    )
    audiences: list[FilterValue] | None = Field(
        None, max_length=MAX_FILTER_VALUES, description="Only documents for any of these audiences."
    )
    departments: list[FilterValue] | None = Field(
        None, max_length=MAX_FILTER_VALUES, description="Only documents of any of these departments."
    )

    @field_validator("question")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("de vraag is leeg")
        return value.strip()


async def _arrival() -> float:
    """When the request came in, before sign-in (solved first): the API's share of the time counts from here."""
    return time.perf_counter()


@router.post(
    "/conversations/{conversation_id}/messages",
    response_class=EventSourceResponse,
    responses={
        200: {
            "content": {"text/event-stream": {}},
            "description": "message, sources, delta…, done (or error)",
        },
        403: {"description": "retrieval-only refused by the deployment"},
        404: {"description": "no such conversation for this user"},
        429: {"description": "this user already has CHAT_CONCURRENT_PER_USER questions being answered"},
        503: {"description": "no worker ready; see Retry-After"},
    },
)
async def ask(
    conversation_id: RowId,
    body: AskRequest,
    received: Annotated[float, Depends(_arrival)],
    user: ClinicianUser,
    db: SessionDep,
    settings: SettingsDep,
    runtime: RuntimeDep,
) -> Response:
    """Ask a question in a conversation; the answer streams as server-sent events and is stored as it goes."""
    await run_in_threadpool(storage.check_conversation, db, user, conversation_id)
    question = answering.Question(
        conversation_id=conversation_id,
        text=body.question,
        retrieval_only=_retrieval_only(body.retrieval_only, runtime.settings.retrieval_only),
        audiences=frozenset(body.audiences) if body.audiences is not None else None,
        departments=frozenset(body.departments) if body.departments is not None else None,
    )
    slots = runtime.user_slots
    elsewhere = await run_in_threadpool(
        storage.answers_elsewhere, runtime.database_url, user.id, settings.instance_stale_seconds
    )
    try:
        slots.take(user.id, runtime.settings.chat_concurrent_per_user, elsewhere)
    except TooManyQuestions as refused:
        raise HTTPException(status.HTTP_429_TOO_MANY_REQUESTS, str(refused)) from None
    try:
        prepared = await answering.prepare(runtime, question, received)
        message_id = await answering.store(runtime, prepared)
    except NoWorkerReady as busy:
        slots.release(user.id)
        return JSONResponse(
            {"detail": str(busy)},
            status_code=status.HTTP_503_SERVICE_UNAVAILABLE,
            headers={"Retry-After": str(busy.retry_after)},
        )
    except GenerationRefused as refused:
        slots.release(user.id)
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, QUESTION_TOO_LONG) from refused
    except BaseException:
        slots.release(user.id)
        raise
    events = slots.holding(user.id, answering.stream(runtime, prepared, message_id))
    return EventSourceResponse(events, ping=15)


@router.post(
    "/messages/{message_id}/stop",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={
        202: {
            "description": "the stop is recorded, but no live API process is known to generate the answer (the one "
            "streaming it may have lost the database): it stops once that process reads the stop"
        },
        404: {"description": "no such message for this user"},
        409: {"description": "no answer is being generated for this message (it ended)"},
    },
)
async def stop(
    message_id: RowId,
    user: ClinicianUser,
    settings: SettingsDep,
    generations: Annotated[Generations | None, Depends(get_generations)],
) -> Response:
    """Stop the answer being generated for this message, by whichever API process streams it (a finished answer
    stays as it is). The message shows the stop (`stop_requested_at`) to its owner."""
    recorded = await run_in_threadpool(
        storage.request_stop, settings.database_url, user, message_id, settings.instance_stale_seconds
    )
    # Streamed here: stop at once instead of at the next poll, also when the database no longer counts this process
    # as the one generating it (another process took it for dead during a database outage and closed it).
    stopped_here = generations is not None and generations.stop(message_id)
    if recorded is storage.StopRecorded.live or stopped_here:
        return Response(status_code=status.HTTP_204_NO_CONTENT)
    if recorded is storage.StopRecorded.unconfirmed:
        return JSONResponse({"detail": STOP_RECORDED}, status_code=status.HTTP_202_ACCEPTED)
    raise HTTPException(status.HTTP_409_CONFLICT, NOT_GENERATING)


def _retrieval_only(requested: bool | None, deployment: bool | None) -> bool:
    """The deployment's setting wins: forced on, or refused (403) when it is switched off."""
    if deployment is True:
        return True
    if deployment is False and requested:
        raise HTTPException(status.HTTP_403_FORBIDDEN, RETRIEVAL_ONLY_DISABLED)
    return bool(requested)
