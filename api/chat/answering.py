"""Answering a question: retrieve, decide (answer, "not found", or documents only), stream, store.

`prepare` does everything that can still refuse the request with an HTTP status (no worker ready → 503, nothing
stored); `stream` then yields the chat's events (docs/api.md) and stores the message from the first event to the
last, including when the client goes away, the user stops it, the worker dies or falls silent mid-answer, or the
database does not answer when the answer ends (it is tried again for a while; the user is told when it was not
stored).
"""

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import anyio
from sqlalchemy.exc import OperationalError
from starlette.concurrency import run_in_threadpool

from api.answers.quotes import select_quote
from api.answers.source import Source
from api.answers.support import Support, support
from api.chat import storage
from api.chat.abstention import NOT_FOUND_MESSAGE, Confidence, may_say_not_found, says_not_found
from api.chat.runtime import ChatRuntime
from api.chat.sources import prompt_passages, source
from api.chat.stop_requests import until_stopped
from api.chat.worker_pool import (
    Delta,
    Finished,
    GenerationRequest,
    Reservation,
    Started,
    WorkerEvent,
    WorkerFailed,
    WorkerSilent,
    WorkerStream,
)
from api.models import MessageState
from api.prompting import ANSWER_STOP_STRINGS, build_rag_prompt
from ingest.search.types import SearchFilter

log = logging.getLogger(__name__)

WORKER_FAILED_MESSAGE = (
    "Het antwoord werd onderbroken door een fout in het taalmodel. Wat al geschreven was, is bewaard; stel de vraag "
    "opnieuw."
)
WORKER_SILENT_MESSAGE = (
    "De generator reageert niet meer; het antwoord is afgebroken. Wat al geschreven was, is bewaard; stel de vraag "
    "opnieuw."
)
WORKER_TIMEOUT_MESSAGE = (
    "Het taalmodel werd niet op tijd klaar; het antwoord is afgebroken. Wat al geschreven was, is bewaard; stel de "
    "vraag opnieuw."
)
NOT_SAVED_MESSAGE = (
    "Dit antwoord kon nog niet worden bewaard: de database is niet bereikbaar. Het wordt bewaard zodra de database "
    "terug is; neem over wat je nodig hebt voor je deze pagina verlaat."
)
USER_STOPPED = "user_stopped"
CLIENT_DISCONNECTED = "client_disconnected"
WORKER_FAILED = "worker_failed"
WORKER_SILENT = "worker_silent"
WORKER_TIMEOUT = "worker_timeout"
FAILURE_MESSAGES = {
    WORKER_FAILED: WORKER_FAILED_MESSAGE,
    WORKER_SILENT: WORKER_SILENT_MESSAGE,
    WORKER_TIMEOUT: WORKER_TIMEOUT_MESSAGE,
}
SAVE_RETRY_INTERVAL = 0.5  # seconds between tries to store an answer while the database does not answer
LATE_SAVE_INTERVAL = 5.0  # seconds between tries once the stream has ended and the answer waits in memory
# Answers still waiting to be stored after their stream ended (a task without a reference may be collected).
_late_saves: set[asyncio.Task[None]] = set()


@dataclass(frozen=True)
class Question:
    conversation_id: int
    text: str
    retrieval_only: bool
    audiences: frozenset[str] | None = None
    departments: frozenset[str] | None = None

    def filters(self) -> SearchFilter | None:
        if self.audiences is None and self.departments is None:
            return None
        return SearchFilter(audiences=self.audiences, departments=self.departments)


@dataclass
class Prepared:
    """A question retrieved and decided, with its worker stream open when it is to be answered."""

    question: Question
    state: MessageState
    sources: list[Source]
    stats: dict[str, Any]
    started: float
    quote: dict[str, Any] | None = None
    prompt: str | None = None
    stream: WorkerStream | None = None
    worker_seconds: float = 0.0  # waiting on the workers so far: reserving a place, opening the stream


@dataclass
class _Ending:
    """How a streamed answer is going: the text so far, and once known, its final state and why."""

    parts: list[str] = field(default_factory=list)
    state: MessageState | None = None
    stop_reason: str | None = None
    method: str | None = None
    worker_stats: dict[str, Any] = field(default_factory=dict)
    worker_seconds: float = 0.0  # waiting on the worker: opening the stream and each next event

    @property
    def answer(self) -> str:
        return "".join(self.parts)


async def prepare(runtime: ChatRuntime, question: Question, received: float) -> Prepared:
    """Retrieve and decide; open a worker stream when the question is to be answered by the model.

    `received` (a `time.perf_counter()` value) is when the request arrived: the timings count from there. A place
    on a worker is reserved before retrieval, so that when the workers are full the request is refused at once
    instead of after its question was embedded (a "not found" answer then waits too: it is known only after
    retrieval). Raises `NoWorkerReady` / `GenerationRefused` (from the pool) before anything is stored.
    """
    reserving = time.perf_counter()
    reservation = None if question.retrieval_only else await runtime.pool.reserve()
    reserve_seconds = time.perf_counter() - reserving
    try:
        return await _decided(runtime, question, received, reservation, reserve_seconds)
    finally:
        if reservation is not None:
            reservation.release()


async def _decided(
    runtime: ChatRuntime,
    question: Question,
    received: float,
    reservation: Reservation | None,
    reserve_seconds: float,
) -> Prepared:
    retrieval_began = time.perf_counter()
    retrieval = await runtime.retrieve(question.text, question.filters())
    retrieval_seconds = time.perf_counter() - retrieval_began
    confidence = Confidence.of(
        ((chunk.dense, chunk.bm25) for chunk in retrieval.chunks),
        question.text,
        (f"{chunk.title}\n{chunk.text}" for chunk in retrieval.chunks),
    )
    stats: dict[str, Any] = {
        "retrieval": {
            "seconds": retrieval_seconds,
            "best_dense": confidence.dense,
            "best_bm25": confidence.bm25,
            "coverage": confidence.coverage,
            "truncated": retrieval.truncated,
        }
    }
    sources = [source(chunk) for chunk in retrieval.chunks]
    if not question.retrieval_only and (not retrieval.chunks or runtime.abstention.abstains(confidence)):
        return Prepared(
            question, MessageState.not_found, sources, stats, received, worker_seconds=reserve_seconds
        )
    quoting = time.perf_counter()
    quote = await run_in_threadpool(select_quote, question.text, sources)
    stats["quote_seconds"] = time.perf_counter() - quoting
    if question.retrieval_only:
        return Prepared(question, MessageState.retrieval_only, sources, stats, received, quote)
    passages = prompt_passages(retrieval.chunks, quote, runtime.settings.answer_quote_first)
    prompt = build_rag_prompt(question.text, passages, runtime.hospital)
    request = GenerationRequest(
        prompt=prompt,
        context=passages,
        stop=list(ANSWER_STOP_STRINGS),
        max_new_tokens=runtime.settings.answer_max_new_tokens,
        deadline_seconds=runtime.settings.answer_deadline_seconds,
    )
    opening = time.perf_counter()
    stream = await runtime.pool.open(request, reservation)
    worker_seconds = reserve_seconds + time.perf_counter() - opening
    return Prepared(
        question, MessageState.generating, sources, stats, received, quote, prompt, stream, worker_seconds
    )


async def store(runtime: ChatRuntime, prepared: Prepared) -> int:
    """Store the message as it stands before the first event; the id every later event names."""
    stream = prepared.stream
    try:
        message_id = await run_in_threadpool(
            storage.create_message,
            runtime.database_url,
            prepared.question.conversation_id,
            prepared.question.text,
            state=prepared.state,
            retrieval_only=prepared.state == MessageState.retrieval_only,
            sources=prepared.sources,
            stats=prepared.stats,
            answer=NOT_FOUND_MESSAGE if prepared.state == MessageState.not_found else "",
            model=stream.model if stream is not None else None,
            quote=prepared.quote,
        )
    except BaseException:
        if stream is not None:
            await stream.aclose()
        raise
    if stream is not None:  # the worker's internal address goes to the log, never to the user
        log.info("message %d: answered by worker %s", message_id, stream.worker_url)
    return message_id


async def stream(runtime: ChatRuntime, prepared: Prepared, message_id: int) -> AsyncIterator[dict[str, Any]]:
    """The chat's SSE events for one stored message (dicts for sse-starlette). The worker stream is closed and the
    message stored as ended on every way out, also when the client leaves before the answer's first word."""
    worker = prepared.stream
    ending = _Ending(worker_seconds=prepared.worker_seconds)
    try:
        yield _event(
            "message", {"message_id": message_id, "conversation_id": prepared.question.conversation_id}
        )
        not_found = prepared.state == MessageState.not_found
        yield _event("sources", {"sources": prepared.sources, "not_found": not_found})
        yield _event("quote", {"quote": prepared.quote})
        if worker is None:
            if not_found:
                yield _event("delta", {"text": NOT_FOUND_MESSAGE})
            stats = _with_timings(prepared.stats, prepared.started, prepared.worker_seconds)
            yield _event("done", _done(message_id, prepared.state, None, stats))
            return
        async for event in _generated(runtime, prepared, worker, message_id, ending):
            yield event
    finally:
        if worker is not None:
            with anyio.CancelScope(shield=True):
                await worker.aclose()
                if ending.state is None:  # the client went away (the stream was cancelled or closed)
                    ending.state, ending.stop_reason = MessageState.stopped, CLIENT_DISCONNECTED
                    await _finish(runtime, prepared, message_id, ending)


async def _generated(
    runtime: ChatRuntime, prepared: Prepared, worker: WorkerStream, message_id: int, ending: _Ending
) -> AsyncIterator[dict[str, Any]]:
    stop = runtime.generations.start(message_id)
    # The API's own limit, whatever the worker sends (its keep-alives come from its event loop, not its decoding).
    deadline = (
        time.monotonic() + runtime.settings.answer_timeout_seconds - (time.perf_counter() - prepared.started)
    )
    held = _HeldBack()
    try:
        try:
            async for event in until_stopped(_waited(worker.events(), ending), stop, deadline):
                if isinstance(event, Started):
                    ending.method = event.method
                elif isinstance(event, Delta):
                    ending.parts.append(event.text)
                    if text := held.release(ending.answer):
                        yield _event("delta", {"text": text})
                elif isinstance(event, Finished):
                    ending.state, ending.stop_reason = MessageState.answered, event.stop_reason
                    ending.worker_stats = event.stats
                    if says_not_found(ending.answer):  # the model found no answer in the passages either
                        ending.state, ending.stop_reason = MessageState.not_found, None
                        ending.parts = [NOT_FOUND_MESSAGE]
            if ending.state is None:
                ending.state, ending.stop_reason = _unfinished(stop.is_set(), time.monotonic() >= deadline)
                if ending.stop_reason == WORKER_TIMEOUT:
                    log.error(
                        "message %d: no end from worker %s within ANSWER_TIMEOUT_SECONDS (%g s)",
                        message_id,
                        worker.worker_url,
                        runtime.settings.answer_timeout_seconds,
                    )
        except WorkerFailed as error:
            log.warning("message %d: worker failed: %s", message_id, error)
            silent = isinstance(error, WorkerSilent)
            ending.state, ending.stop_reason = MessageState.failed, WORKER_SILENT if silent else WORKER_FAILED
        if text := held.flush(ending.answer):
            yield _event("delta", {"text": text})
        if ending.state == MessageState.failed:
            yield _event("error", {"message": FAILURE_MESSAGES[ending.stop_reason or WORKER_FAILED]})
        stats, checked, saved = await _finish(runtime, prepared, message_id, ending)
        if not saved:
            yield _event("error", {"message": NOT_SAVED_MESSAGE})
        yield _event("support", {"sentences": checked.sentences, "warning": checked.warning})
        yield _event("done", _done(message_id, ending.state, ending.stop_reason, stats))
    finally:
        runtime.generations.finish(message_id)


class _HeldBack:
    """The generated text sent to the client so far: a beginning that may still be the model's "not found" is held
    back until the text goes another way (then it is sent) or the answer ends (then the chat's fixed message
    replaces it), so a clinician never sees the model's own wording of it."""

    def __init__(self) -> None:
        self.sent = 0
        self.deciding = True

    def release(self, answer: str) -> str:
        """What of `answer` may be sent now."""
        if self.deciding and may_say_not_found(answer):
            return ""
        self.deciding = False
        return self.flush(answer)

    def flush(self, answer: str) -> str:
        """Everything of `answer` not sent yet (at the end of the stream)."""
        text, self.sent = answer[self.sent :], len(answer)
        return text


def _unfinished(stopped: bool, expired: bool) -> tuple[MessageState, str]:
    """Why a worker stream ended without its `done`: the user's stop, the API's deadline, or the worker."""
    if stopped:
        return MessageState.stopped, USER_STOPPED
    return MessageState.failed, WORKER_TIMEOUT if expired else WORKER_FAILED


async def _waited(events: AsyncIterator[WorkerEvent], ending: _Ending) -> AsyncIterator[WorkerEvent]:
    """The worker's events, adding the time spent waiting for each to the worker's share: the time between them
    (sending deltas to the client, storing) is the API's own."""
    while True:
        waiting = time.perf_counter()
        try:
            event = await anext(events)
        except StopAsyncIteration:
            return
        finally:
            ending.worker_seconds += time.perf_counter() - waiting
        yield event


async def _finish(
    runtime: ChatRuntime, prepared: Prepared, message_id: int, ending: _Ending
) -> tuple[dict[str, Any], Support, bool]:
    """Check the answer's sentences against the sources and store how the answer ended; the stats for the `done`
    event (whose timings also count that write), the support for the `support` event, and whether it was
    stored."""
    checked = (
        Support(sentences=[], warning=False)  # the fixed message claims nothing to check
        if ending.state == MessageState.not_found
        else await run_in_threadpool(
            partial(support, question=prepared.question.text, quote=_quote_text(prepared.quote)),
            ending.answer,
            prepared.sources,
        )
    )
    stats = _with_timings(prepared.stats, prepared.started, ending.worker_seconds)
    stats["worker"] = {**stats.get("worker", {}), **ending.worker_stats}
    write = partial(
        storage.finish_message,
        runtime.database_url,
        message_id,
        answer=ending.answer,
        state=ending.state or MessageState.failed,
        stop_reason=ending.stop_reason,
        method=ending.method,
        stats=stats,
        sentences=checked.sentences,
        support_warning=checked.warning,
    )
    saved = await _stored(write, message_id, runtime.settings.answer_save_retry_seconds)
    if not saved:
        _save_later(write, message_id)
    return _with_timings(stats, prepared.started, ending.worker_seconds), checked, saved


async def _stored(write: Callable[[], None], message_id: int, patience: float) -> bool:
    """Run `write` in a thread; while the database does not answer (down, restarting), try again every
    SAVE_RETRY_INTERVAL for `patience` seconds. False when it never answered: the caller tells the user."""
    deadline = time.monotonic() + patience
    retrying = False
    while True:
        try:
            await run_in_threadpool(write)
            return True
        except OperationalError as error:
            if time.monotonic() >= deadline:
                log.error("message %d: not stored, the database did not answer: %s", message_id, error.orig)
                return False
            if not retrying:
                log.warning(
                    "message %d: the database does not answer; trying again: %s", message_id, error.orig
                )
                retrying = True
        await anyio.sleep(SAVE_RETRY_INTERVAL)


def _save_later(write: Callable[[], None], message_id: int) -> None:
    """Keep trying to store an answer the stream could not wait for, until the database is back: the answer is
    lost only if this process ends first (then the message is closed as interrupted, api/chat/instances.py)."""

    async def keep_trying() -> None:
        while not await _stored(write, message_id, patience=0):
            await anyio.sleep(LATE_SAVE_INTERVAL)
        log.info("message %d: stored after the database came back", message_id)

    task = asyncio.create_task(keep_trying())
    _late_saves.add(task)
    task.add_done_callback(_late_saves.discard)


def _quote_text(quote: dict[str, Any] | None) -> str | None:
    return None if quote is None else str(quote["text"])


def _with_timings(stats: dict[str, Any], started: float, worker_seconds: float) -> dict[str, Any]:
    """The stats plus the API's own share of the time: the total (from the request's arrival, before sign-in)
    less retrieval (waiting for a slot included) and the time spent waiting on the worker."""
    total = time.perf_counter() - started
    retrieval = float(stats["retrieval"]["seconds"])
    timings = {
        "total_seconds": total,
        "retrieval_seconds": retrieval,
        "worker_seconds": worker_seconds,
        "overhead_seconds": max(0.0, total - retrieval - worker_seconds),
    }
    return {**stats, "timings": timings}


def _done(
    message_id: int, state: MessageState, stop_reason: str | None, stats: dict[str, Any]
) -> dict[str, Any]:
    return {"message_id": message_id, "state": state.value, "stop_reason": stop_reason, "stats": stats}


def _event(name: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"event": name, "data": json.dumps(data, ensure_ascii=False)}
