"""The bounded FIFO in front of the one model, and the decoding thread that serves it.

The decoding thread admits waiting jobs in arrival order while the batch has room (MAX_BATCH answers decode
together, `decoding.py`), then runs one batched step, and again: a job that arrives while others decode joins
between two steps, and one that ends frees its place at once. Decoding runs off the event loop, so health,
metrics and new arrivals are answered meanwhile. A job whose client leaves while it waits gives its place back at
once and is never started.

Idle work (measuring the device's cost model) runs on the same thread in small slices while no job waits or
decodes: a job that arrives meanwhile waits for at most the slice under way.
"""

import logging
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from speculative.worker.decoding import ActiveAnswers
from speculative.worker.jobs import Job
from speculative.worker.metrics import WorkerMetrics

T = TypeVar("T")
log = logging.getLogger(__name__)


class QueueFullError(RuntimeError):
    """As many requests wait as the queue holds; the client should retry later."""


class DecodingQueue:
    """FIFO of at most `limit` waiting jobs before the `answers` being decoded, and the thread decoding them."""

    def __init__(
        self,
        limit: int,
        answers: ActiveAnswers,
        metrics: WorkerMetrics,
        idle: Callable[[], bool] = lambda: False,
    ) -> None:
        self.limit = limit
        self.answers = answers
        self._metrics = metrics
        self._idle = idle  # one slice of idle work; True while more remains
        self._idle_started = False
        self._idle_finished = False
        self._waiting: deque[Job] = deque()
        self._calls: deque[tuple[Callable[[], Any], Future[Any]]] = deque()
        self._changed = threading.Condition()
        self._stopped = False
        self._thread = threading.Thread(target=self._loop, name="decoding", daemon=True)
        self._thread.start()

    @property
    def depth(self) -> int:
        """Jobs waiting for the model (those decoding not counted)."""
        return len(self._waiting)

    def submit(self, job: Job) -> None:
        """Queue `job`, or raise `QueueFullError` when `limit` jobs already wait beyond the batch's free places
        (a job that arrives while the thread is busy, e.g. with a slice of idle work, waits here for a free place)."""
        with self._changed:
            if len(self._waiting) >= self.limit + self.answers.free_slots:
                raise QueueFullError(
                    f"{len(self._waiting)} requests are waiting, the most this worker queues"
                )
            self._waiting.append(job)
            self._metrics.queue_depth.set(len(self._waiting))
            self._changed.notify()

    def cancel(self, job: Job) -> None:
        """The client has gone: a waiting job leaves the queue now, a decoding one before the next step."""
        job.cancelled.set()
        with self._changed:
            if job.state == "waiting":
                job.state = "withdrawn"
                self._waiting.remove(job)
                self._metrics.queue_depth.set(len(self._waiting))
                self._metrics.requests.labels("cancelled").inc()

    def run_blocking(self, work: Callable[[], T]) -> "Future[T]":
        """Run `work` on the decoding thread before any job (loading the model)."""
        future: Future[T] = Future()
        with self._changed:
            self._calls.append((work, future))
            self._changed.notify()
        return future

    def resume_idle_work(self) -> None:
        """Let the idle work run whenever nothing waits or decodes."""
        with self._changed:
            self._idle_started = True
            self._changed.notify()

    def shutdown(self) -> None:
        with self._changed:
            self._stopped = True
            self._changed.notify()

    def _loop(self) -> None:
        while True:
            with self._changed:
                while not self._stopped and not self._has_work():
                    self._changed.wait()
                if self._stopped:
                    for _, future in self._calls:
                        future.cancel()
                    return
                call = self._calls.popleft() if self._calls else None
                job = None
                if call is None and self._waiting and self.answers.has_room:
                    job = self._waiting.popleft()
                    job.state = "decoding"
                    self._metrics.queue_depth.set(len(self._waiting))
            if call is not None:
                _run_call(*call)
            elif job is not None:
                self.answers.start(job)
            elif self.answers.jobs:
                self.answers.step()
            else:
                self._idle_slice()

    def _has_work(self) -> bool:
        idle_work = self._idle_started and not self._idle_finished and not self._waiting
        return bool(
            self._calls or (self._waiting and self.answers.has_room) or self.answers.jobs or idle_work
        )

    def _idle_slice(self) -> None:
        try:
            more = self._idle()
        except Exception:
            log.exception("the idle work failed; the worker goes on without it")
            more = False
        if not more:
            self._idle_finished = True


def _run_call(work: Callable[[], Any], future: "Future[Any]") -> None:
    if not future.set_running_or_notify_cancel():
        return
    try:
        future.set_result(work())
    except BaseException as error:  # handed to the caller, who awaits the future
        future.set_exception(error)
