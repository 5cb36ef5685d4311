"""One admitted request on its way through the queue, and the channel carrying its events to the event loop."""

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Literal

from speculative.engine.request import GenerationRequest
from speculative.worker.schemas import WorkerEvent


class EventChannel:
    """Events from the decoding thread to the request's stream on the event loop; `close` ends the stream."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._events: asyncio.Queue[WorkerEvent | None] = asyncio.Queue()

    def send(self, event: WorkerEvent) -> None:
        """Thread-safe; a stream whose loop has gone (shutdown) drops the event."""
        self._put(event)

    def close(self) -> None:
        self._put(None)

    async def __aiter__(self) -> AsyncIterator[WorkerEvent]:
        while (event := await self._events.get()) is not None:
            yield event

    def _put(self, item: WorkerEvent | None) -> None:
        with contextlib.suppress(RuntimeError):  # the event loop is closed: nobody is listening any more
            self._loop.call_soon_threadsafe(self._events.put_nowait, item)


@dataclass
class Job:
    """A validated request: engine request, method, arrival time (monotonic), where it is, its cancellation flag."""

    request: GenerationRequest
    method: str
    arrived: float
    channel: EventChannel
    state: Literal["waiting", "decoding", "withdrawn"] = "waiting"
    cancelled: threading.Event = field(default_factory=threading.Event)
