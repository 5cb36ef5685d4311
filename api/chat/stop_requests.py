"""Generations in progress, so `POST /api/messages/{id}/stop` can end one from another request, on any API process.

A stop is recorded in the database (`messages.stop_requested_at`), since behind a proxy it may reach another API
process than the one streaming the answer. While this process streams answers, one task reads which of them were
asked to stop, every `STOP_POLL_SECONDS` (one indexed query per process, not per answer; measured in
docs/operations.md), and sets their stop signals; a stop that reaches this process itself sets its signal at once.
Polling rather than PostgreSQL's LISTEN/NOTIFY: it works the same on SQLite (the embedded mode), needs no
connection held open per process, and misses nothing across a lost connection.

`until_stopped` races each next worker event against the message's stop signal and the answer's deadline, so a
stop takes effect as soon as it is seen, even while the request still waits in the worker's queue, and an answer
whose worker keeps its connection alive but never finishes (a hung decode) still ends.
"""

import asyncio
import logging
import math
import time
from collections.abc import AsyncIterator, Callable, Collection
from typing import TypeVar

from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

Item = TypeVar("Item")
StopsRequested = Callable[[Collection[int]], set[int]]

log = logging.getLogger(__name__)


class Generations:
    """Message id → its stop signal, for the messages whose answer this process is streaming now."""

    def __init__(self, stops_requested: StopsRequested, poll_seconds: float) -> None:
        self._signals: dict[int, asyncio.Event] = {}
        self._stops_requested = stops_requested
        self._poll_seconds = poll_seconds
        self._watching: asyncio.Task[None] | None = None

    def start(self, message_id: int) -> asyncio.Event:
        signal = asyncio.Event()
        self._signals[message_id] = signal
        if self._watching is None or self._watching.done():
            self._watching = asyncio.create_task(self._watch())
        return signal

    def stop(self, message_id: int) -> bool:
        """Set the stop signal now when this process streams the answer; False when it does not."""
        signal = self._signals.get(message_id)
        if signal is None:
            return False
        signal.set()
        return True

    def finish(self, message_id: int) -> None:
        self._signals.pop(message_id, None)

    def __len__(self) -> int:
        return len(self._signals)

    async def _watch(self) -> None:
        """Read the stops recorded for this process's answers until none is streaming any more."""
        while self._signals:
            await asyncio.sleep(self._poll_seconds)
            try:
                stopped = await run_in_threadpool(self._stops_requested, list(self._signals))
            except SQLAlchemyError as error:
                log.warning("could not read the stops asked for: %s", error)
                continue
            for message_id in stopped:
                self.stop(message_id)


async def until_stopped(
    items: AsyncIterator[Item], stop: asyncio.Event, deadline: float = math.inf
) -> AsyncIterator[Item]:
    """The items of `items` until it ends, `stop` is set or the `deadline` (a `time.monotonic()` value) passes,
    whichever comes first."""
    stopped = asyncio.ensure_future(stop.wait())
    try:
        while True:
            step = asyncio.ensure_future(anext(items))
            left = deadline - time.monotonic()
            await asyncio.wait(
                {step, stopped},
                timeout=left if left < math.inf else None,
                return_when=asyncio.FIRST_COMPLETED,
            )
            if not step.done():
                step.cancel()
                await asyncio.gather(step, return_exceptions=True)
                return
            try:
                item = step.result()
            except StopAsyncIteration:
                return
            yield item
    finally:
        stopped.cancel()
