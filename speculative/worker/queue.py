"""The bounded FIFO in front of the one model: a single decoding thread runs one job at a time, in arrival order.

Decoding runs off the event loop, so health, metrics and new arrivals are answered while a job decodes. A job
whose client leaves while it waits gives its place back at once and is skipped when its turn comes.
"""

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from speculative.worker.jobs import Job
from speculative.worker.metrics import WorkerMetrics

T = TypeVar("T")


class QueueFullError(RuntimeError):
    """As many requests wait as the queue holds; the client should retry later."""


class DecodingQueue:
    """FIFO of at most `limit` waiting jobs before the one decoding; `decode` runs each on the decoding thread."""

    def __init__(self, limit: int, decode: Callable[[Job], None], metrics: WorkerMetrics) -> None:
        self.limit = limit
        self._decode = decode
        self._metrics = metrics
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="decoding")
        self._lock = threading.Lock()
        self._waiting = 0
        self.current: Job | None = None  # the job on the decoding thread now

    @property
    def depth(self) -> int:
        """Jobs waiting for the model (the one decoding not counted)."""
        return self._waiting

    def submit(self, job: Job) -> None:
        """Queue `job`, or raise `QueueFullError` when `limit` jobs already wait."""
        with self._lock:
            if self._waiting >= self.limit:
                raise QueueFullError(f"{self._waiting} requests are waiting, the most this worker queues")
            self._waiting += 1
            self._metrics.queue_depth.set(self._waiting)
        self._executor.submit(self._run, job)

    def cancel(self, job: Job) -> None:
        """The client has gone: a waiting job leaves the queue now, a decoding one stops at its next step."""
        job.cancelled.set()
        with self._lock:
            if job.state == "waiting":
                job.state = "withdrawn"
                self._waiting -= 1
                self._metrics.queue_depth.set(self._waiting)
                self._metrics.requests.labels("cancelled").inc()

    def run_blocking(self, work: Callable[[], T]) -> "Future[T]":
        """Run `work` on the decoding thread ahead of later jobs (loading the model)."""
        return self._executor.submit(work)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    def _run(self, job: Job) -> None:
        with self._lock:
            if job.state == "withdrawn":
                return
            job.state = "decoding"
            self._waiting -= 1
            self._metrics.queue_depth.set(self._waiting)
            self.current = job
        try:
            self._decode(job)
        finally:
            self.current = None
