"""Generations in progress, so `POST /api/messages/{id}/stop` can end one from another request.

A generation waits on its worker; `until_stopped` races each next worker event against the message's stop signal,
so a stop takes effect at once, even while the request still waits in the worker's queue. This registry lives in
the API process: a deployment runs one API process per database (uvicorn with one worker, as `python -m api`).
"""

import asyncio
from collections.abc import AsyncIterator
from typing import TypeVar

Item = TypeVar("Item")


class Generations:
    """Message id → its stop signal, for the messages whose answer is streaming now."""

    def __init__(self) -> None:
        self._signals: dict[int, asyncio.Event] = {}

    def start(self, message_id: int) -> asyncio.Event:
        signal = asyncio.Event()
        self._signals[message_id] = signal
        return signal

    def stop(self, message_id: int) -> bool:
        """Ask the generation to stop; False when it is not running (already finished, or never started)."""
        signal = self._signals.get(message_id)
        if signal is None:
            return False
        signal.set()
        return True

    def finish(self, message_id: int) -> None:
        self._signals.pop(message_id, None)

    def __len__(self) -> int:
        return len(self._signals)


async def until_stopped(items: AsyncIterator[Item], stop: asyncio.Event) -> AsyncIterator[Item]:
    """The items of `items` until it ends or `stop` is set, whichever comes first."""
    stopped = asyncio.ensure_future(stop.wait())
    try:
        while True:
            step = asyncio.ensure_future(anext(items))
            await asyncio.wait({step, stopped}, return_when=asyncio.FIRST_COMPLETED)
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
