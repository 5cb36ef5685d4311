"""The generation workers: pick the least-loaded ready one, stream its answer as typed events (docs/worker.md).

Each worker's `/health` (ready or not, queue depth and limit, answers decoding and its batch size) is asked at
most once per `health_ttl`; between
asks the pool adds the requests it holds a place for itself, so a burst spreads over the workers instead of piling
onto the one that looked idle a moment ago. A worker that cannot be reached, answers 503 or is full is skipped;
when none is left the caller gets `NoWorkerReady` with the seconds to wait, which the route turns into 503 +
Retry-After. A worker that sends nothing at all for `silence` seconds (a real one sends a keep-alive every 15 s
while a request waits in its queue) is given up: before its answer's headers, as one that cannot be reached;
after, as `WorkerSilent`.

The chat reserves its place when a question arrives (`reserve`) and opens the stream on it once the question is
retrieved (`open(request, reservation)`): when the workers are full, a burst is refused before its questions are
embedded, instead of embedding every question only to refuse most of them.
"""

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import httpx
from httpx_sse import EventSource, SSEError, aconnect_sse

log = logging.getLogger(__name__)

NO_WORKER_MESSAGE = "Er is op dit moment geen taalmodel beschikbaar om te antwoorden. Probeer het over enkele seconden opnieuw."


class NoWorkerReady(Exception):
    """No worker can take the request now; try again after `retry_after` seconds."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(NO_WORKER_MESSAGE)
        self.retry_after = retry_after


class GenerationRefused(Exception):
    """A worker refused the request itself (413 prompt too long, 422 bad field): no other worker would differ."""

    def __init__(self, status_code: int, detail: str) -> None:
        super().__init__(detail)
        self.status_code = status_code


class WorkerFailed(Exception):
    """The stream broke after it began (connection lost, malformed event, an `error` event)."""


class WorkerSilent(WorkerFailed):
    """The worker sent nothing at all, not even its keep-alive, for longer than the pool's `silence`."""


@dataclass(frozen=True)
class GenerationRequest:
    """The body of `POST /generate`; None fields are left to the worker's settings."""

    prompt: str
    context: list[str] | None = None
    stop: list[str] = field(default_factory=list)
    max_new_tokens: int | None = None
    method: str | None = None
    deadline_seconds: float | None = None

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"prompt": self.prompt, "context": self.context, "stop": self.stop}
        optional = {
            "max_new_tokens": self.max_new_tokens,
            "method": self.method,
            "deadline_seconds": self.deadline_seconds,
        }
        return body | {key: value for key, value in optional.items() if value is not None}


@dataclass(frozen=True)
class Started:
    queue_seconds: float
    prompt_tokens: int
    method: str


@dataclass(frozen=True)
class Delta:
    text: str


@dataclass(frozen=True)
class Finished:
    stop_reason: str
    text: str
    stats: dict[str, Any]


WorkerEvent = Started | Delta | Finished


@dataclass
class _Worker:
    url: str
    in_flight: int = 0
    ready: bool = False
    loading: bool = False  # its /health says the model is still loading (not failed, not unreachable)
    queue_depth: int = 0
    queue_limit: int | None = None
    model: str | None = None
    checked_at: float = float("-inf")
    ours_at_check: int = 0  # our requests in flight when the worker last said its queue depth
    checking: asyncio.Task[None] | None = None

    def load(self) -> int:
        """Requests ahead of a new one: ours in flight now, plus those of other API processes as last seen (the
        queue depth beyond ours then), so a burst right after our earlier requests finished is not refused on
        their account."""
        return max(0, self.queue_depth - self.ours_at_check) + self.in_flight

    def has_room(self) -> bool:
        return self.queue_limit is None or self.load() < self.queue_limit


class WorkerStream:
    """One open generation: iterate `events()`; `aclose()` (or leaving `async with`) cancels it on the worker."""

    def __init__(self, worker: _Worker, source: EventSource, exits: AsyncExitStack) -> None:
        self.worker_url = worker.url
        self.model = worker.model
        self._worker = worker
        self._source = source
        self._exits = exits

    async def events(self) -> AsyncIterator[WorkerEvent]:
        try:
            async for event in self._source.aiter_sse():
                parsed = _parsed(event.event, event.json())
                if parsed is not None:
                    yield parsed
        except httpx.ReadTimeout as error:
            raise WorkerSilent(f"{self.worker_url}: silent for too long ({error})") from error
        except (httpx.HTTPError, SSEError, ValueError, KeyError, TypeError) as error:
            raise WorkerFailed(f"{self.worker_url}: {error.__class__.__name__}: {error}") from error

    async def aclose(self) -> None:
        if self._worker.in_flight > 0:
            self._worker.in_flight -= 1
        await self._exits.aclose()

    async def __aenter__(self) -> "WorkerStream":
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()


class Reservation:
    """A place held on one worker from the question's arrival until `WorkerPool.open` turns it into the answer's
    stream, or `release` gives it back unused (the question was answered without the model)."""

    def __init__(self, worker: _Worker) -> None:
        self._worker: _Worker | None = worker

    def take(self) -> _Worker:
        worker, self._worker = self._worker, None
        if worker is None:
            raise RuntimeError("this reservation was already used or released")
        return worker

    def release(self) -> None:
        """Give the place back; nothing happens once the stream was opened or the place already given back."""
        if self._worker is not None:
            self._worker.in_flight -= 1
            self._worker = None


class WorkerPool:
    """The workers of one deployment, shared by every chat request of the process."""

    def __init__(
        self,
        urls: Sequence[str],
        client: httpx.AsyncClient,
        *,
        health_ttl: float = 1.0,
        timeout: float = 5.0,
        silence: float = 60.0,
        retry_after: int = 5,
    ) -> None:
        if not urls:
            raise ValueError("at least one worker URL is needed")
        self._workers = [_Worker(url.rstrip("/")) for url in dict.fromkeys(urls)]
        self._client = client
        self._health_ttl = health_ttl
        self._timeout = timeout
        self._silence = silence
        self._retry_after = retry_after

    async def aclose(self) -> None:
        """Close the pool's HTTP connections (a pool made for one run, such as an answer report)."""
        await self._client.aclose()

    async def summary(self) -> dict[str, int]:
        """How many workers are ready, still loading, of how many (for `/api/health`: the chat page says "the
        model is loading" before a question is asked, rather than refuse it)."""
        await self._refresh()
        return {
            "ready": sum(w.ready for w in self._workers),
            "loading": sum(w.loading for w in self._workers),
            "total": len(self._workers),
        }

    async def reserve(self) -> Reservation:
        """A place on the least-loaded ready worker with room; `NoWorkerReady` if none has room."""
        candidates = await self._candidates()
        if not candidates:
            raise NoWorkerReady(self._retry_after)
        worker = candidates[0]
        worker.in_flight += 1
        return Reservation(worker)

    async def open(self, request: GenerationRequest, reservation: Reservation | None = None) -> WorkerStream:
        """A stream from the reserved worker (else the least-loaded ready one) or, if it cannot take the request
        now, from the next least-loaded one with room; `NoWorkerReady` if none does."""
        worker: _Worker | None = (reservation or await self.reserve()).take()
        retry_after = self._retry_after
        tried: set[str] = set()
        while worker is not None:
            try:
                return await self._connect(worker, request)
            except _Busy as busy:
                retry_after = max(retry_after, busy.retry_after)
            except httpx.HTTPError as error:
                log.warning("worker %s skipped: %s", worker.url, error)
                worker.ready = False
            except BaseException:  # refused (prompt too long) or cancelled: the place is given back
                worker.in_flight -= 1
                raise
            worker.in_flight -= 1
            tried.add(worker.url)
            worker = next((w for w in await self._candidates() if w.url not in tried), None)
            if worker is not None:
                worker.in_flight += 1
        raise NoWorkerReady(retry_after)

    async def _candidates(self) -> list[_Worker]:
        await self._refresh()
        ready = [worker for worker in self._workers if worker.ready and worker.has_room()]
        return sorted(ready, key=_Worker.load)

    async def _refresh(self) -> None:
        """Ask the workers whose health is older than the TTL; a request arriving while a worker is being asked
        waits for that answer rather than act on what was known before it (at start-up: nothing)."""
        now = time.monotonic()
        for worker in self._workers:
            idle = worker.checking is None or worker.checking.done()
            if idle and now - worker.checked_at >= self._health_ttl:
                worker.checked_at = now
                worker.checking = asyncio.create_task(self._check(worker))
        pending = [w.checking for w in self._workers if w.checking is not None and not w.checking.done()]
        if pending:
            await asyncio.shield(asyncio.gather(*pending))

    async def _check(self, worker: _Worker) -> None:
        try:
            response = await self._client.get(f"{worker.url}/health", timeout=self._timeout)
            health = response.json() if response.status_code in (200, 503) else {}  # 503: loading or failed
        except (httpx.HTTPError, ValueError) as error:
            log.warning("worker %s unreachable: %s", worker.url, error)
            health = {}
        worker.ready = health.get("status") == "ready"
        worker.loading = health.get("status") == "loading"
        # what the worker holds: those waiting and those it decodes together (MAX_BATCH; a worker that does not
        # say decodes one); it holds at most its queue and its batch, less the one place we always kept spare
        worker.queue_depth = int(health.get("queue_depth") or 0) + int(health.get("decoding") or 0)
        worker.ours_at_check = worker.in_flight
        limit = health.get("queue_limit")
        batch = int(health.get("max_batch") or 1)
        worker.queue_limit = int(limit) + batch - 1 if limit is not None else None
        worker.model = health.get("model")

    async def _connect(self, worker: _Worker, request: GenerationRequest) -> WorkerStream:
        exits = AsyncExitStack()
        timeout = httpx.Timeout(self._timeout, read=self._silence)  # each read, headers and every event
        try:
            source = await exits.enter_async_context(
                aconnect_sse(
                    self._client, "POST", f"{worker.url}/generate", json=request.body(), timeout=timeout
                )
            )
            response = source.response
            if response.status_code == 503:
                raise _Busy(_seconds(response.headers.get("Retry-After")))
            if response.status_code == 401:
                log.error("worker %s refused the API's token: WORKER_TOKEN differs on the two", worker.url)
            if response.status_code in (413, 422):
                await response.aread()
                raise GenerationRefused(response.status_code, response.text)
            response.raise_for_status()
        except BaseException:
            await exits.aclose()
            raise
        return WorkerStream(worker, source, exits)


class _Busy(Exception):
    def __init__(self, retry_after: int) -> None:
        self.retry_after = retry_after


def _seconds(header: str | None) -> int:
    try:
        return max(1, int(header)) if header else 1
    except ValueError:
        return 1


def _parsed(name: str, data: Any) -> WorkerEvent | None:
    """A worker event as a typed value; an `error` event ends the stream as a failure; unknown events pass."""
    if name == "start":
        return Started(float(data["queue_seconds"]), int(data["prompt_tokens"]), str(data["method"]))
    if name == "delta":
        return Delta(str(data["text"]))
    if name == "done":
        return Finished(str(data["stop_reason"]), str(data["text"]), dict(data.get("stats") or {}))
    if name == "error":
        raise WorkerFailed(str(data.get("message", "error")))
    return None
