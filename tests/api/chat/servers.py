"""Real servers on loopback for the chat tests: the API under uvicorn in this process (so a test can hand it its
runtime), and a recording TCP relay in front of the worker process that shows the exact bytes the worker got
(and can break the worker's answer mid-stream, as a crashed worker or a cut cable would), and a scripted worker
that speaks the worker's protocol and can hang mid-answer or before answering at all."""

import asyncio
import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI

FIRST_DELTA = re.compile(rb"event: delta\r?\n.*?\r?\n\r?\n", re.DOTALL)  # sse-starlette ends lines with \r\n


@contextmanager
def api_server(app: FastAPI) -> Iterator[str]:
    """The app served by uvicorn on a free loopback port, in a thread; yields its base URL."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the API server did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


class RecordingRelay:
    """A loopback TCP relay in front of a worker that records every byte sent to it. After relaying the first
    `delta` event of an answer it can `break` both connections (the worker died) or `pause` the answer there
    (the worker is still at work) until the API hangs up."""

    def __init__(self, target_url: str) -> None:
        parsed = httpx.URL(target_url)
        self._target = (parsed.host, parsed.port or 80)
        self.sent = bytearray()
        self.after_first_delta: str | None = None  # None, "break" or "pause"
        self.interrupted = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> "RecordingRelay":
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *_: object) -> None:
        _stop_loop(self._loop, self._thread)

    def generate_bodies(self) -> list[dict[str, Any]]:
        """The JSON bodies of every `POST /generate` relayed so far, in order."""
        bodies = []
        data = bytes(self.sent)
        start = data.find(b"POST /generate ")
        while start >= 0:
            head_end = data.index(b"\r\n\r\n", start)
            headers = data[start:head_end].decode("latin-1").lower()
            length = int(headers.split("content-length:")[1].split("\r\n")[0])
            bodies.append(json.loads(data[head_end + 4 : head_end + 4 + length]))
            start = data.find(b"POST /generate ", head_end)
        return bodies

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._relay, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()

    async def _relay(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection(*self._target)

        async def to_worker() -> None:
            while data := await client_reader.read(65536):
                self.sent += data
                upstream_writer.write(data)
                await upstream_writer.drain()

        async def to_api() -> None:
            seen = b""
            while data := await upstream_reader.read(65536):
                seen += data
                delta = FIRST_DELTA.search(seen)
                if self.after_first_delta and delta is not None:
                    client_writer.write(data[: len(data) - (len(seen) - delta.end())])
                    await client_writer.drain()
                    self.interrupted += 1
                    if self.after_first_delta == "pause":
                        await asyncio.Event().wait()  # until the API hangs up and this task is cancelled
                    return
                client_writer.write(data)
                await client_writer.drain()

        tasks = [asyncio.ensure_future(to_worker()), asyncio.ensure_future(to_api())]
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in tasks:
            task.cancel()
        for writer in (client_writer, upstream_writer):
            writer.close()


class ScriptedWorker:
    """A real HTTP server on loopback that speaks the worker's protocol (docs/worker.md) from a script: `/health`
    says ready; `POST /generate` answers `start` and one `delta` (`first`), then waits until `finish()` is called and ends
    with a second delta and `done`. Until then it sends nothing at all, not even the keep-alive a real worker
    sends: a worker that hangs. With `mute` it sends nothing at all, not even the response's headers. `hung_up` counts
    the answers whose connection the API closed while they waited."""

    FIRST = "Wrijf de handen "
    REST = "minstens dertig seconden."

    def __init__(self, *, mute: bool = False, first: str = FIRST, rest: str = REST) -> None:
        self.mute = mute
        self.first, self.rest = first, rest
        self.generate_requests = 0
        self.hung_up = 0
        self._loop = asyncio.new_event_loop()
        self._finish: asyncio.Event | None = None  # made on the server's loop
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def finish(self) -> None:
        """Let every answer waiting after its first delta go on to its end."""
        asyncio.run_coroutine_threadsafe(self._release(), self._loop).result(timeout=10)

    async def _release(self) -> None:
        assert self._finish is not None
        self._finish.set()

    def __enter__(self) -> "ScriptedWorker":
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *_: object) -> None:
        _stop_loop(self._loop, self._thread)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._finish = asyncio.Event()
        server = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while request := await reader.readuntil(b"\r\n\r\n"):
                head = request.decode("latin-1").lower()
                length = (
                    int(head.split("content-length:")[1].split("\r\n")[0]) if "content-length:" in head else 0
                )
                await reader.readexactly(length)
                if head.startswith("get /health"):
                    writer.write(_json_response({"status": "ready", "queue_depth": 0, "queue_limit": 8}))
                    await writer.drain()
                    continue
                self.generate_requests += 1
                await self._generate(reader, writer)
                return
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            return  # the API hung up, or the test is over (a cancelled handler would be logged as an error)
        finally:
            writer.close()

    async def _generate(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.mute:
            await asyncio.Event().wait()  # until the API hangs up and this task is cancelled
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n")
        writer.write(_sse("start", {"queue_seconds": 0.0, "prompt_tokens": 100, "method": "scripted"}))
        writer.write(_sse("delta", {"text": self.first}))
        await writer.drain()
        assert self._finish is not None
        finished, hung_up = asyncio.ensure_future(self._finish.wait()), asyncio.ensure_future(reader.read())
        await asyncio.wait({finished, hung_up}, return_when=asyncio.FIRST_COMPLETED)
        if not finished.done():
            finished.cancel()
            self.hung_up += 1
            return
        hung_up.cancel()
        writer.write(_sse("delta", {"text": self.rest}))
        writer.write(_sse("done", {"stop_reason": "eos", "text": self.first + self.rest, "stats": {}}))
        await writer.drain()


def _stop_loop(loop: asyncio.AbstractEventLoop, thread: threading.Thread) -> None:
    """Cancel every connection the server's loop still serves, then stop the loop and its thread."""
    asyncio.run_coroutine_threadsafe(_cancel_tasks(), loop).result(timeout=10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=10)


async def _cancel_tasks() -> None:
    tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def _sse(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\r\ndata: {json.dumps(data)}\r\n\r\n".encode()


def _json_response(body: dict[str, Any]) -> bytes:
    data = json.dumps(body).encode()
    head = f"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {len(data)}\r\n\r\n"
    return head.encode() + data
