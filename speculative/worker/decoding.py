"""What the decoding thread does with the jobs it decodes: start, text deltas as tokens are accepted, done or error.

Up to MAX_BATCH jobs decode together (`speculative/engine/batch.py`: one target forward verifies all their trees);
each step sends every job its delta, and a job that has ended (done), whose client has gone (cancelled) or that
failed leaves the batch at once, so a waiting job can take its place before the next step. The client's disconnect
sets the job's cancellation flag, checked before every step. A failure inside one answer's start ends that stream
with an error event; a failure inside a batched step ends every stream of the step that way. The thread goes on.
"""

import logging
import time
from dataclasses import dataclass
from typing import Any

from speculative.engine.batch import BatchDecoder
from speculative.engine.generator import Generation, GenerationResult
from speculative.engine.stopping import StopReason
from speculative.worker.jobs import Job
from speculative.worker.metrics import WorkerMetrics
from speculative.worker.model import LoadedModel
from speculative.worker.schemas import DeltaEvent, DoneEvent, ErrorEvent, StartEvent

log = logging.getLogger(__name__)

# The protocol's name of a stop reason, where it differs from the engine's.
PROTOCOL_STOP_REASONS = {StopReason.STOP_TOKEN: "eos"}


@dataclass
class _Running:
    job: Job
    generation: Generation
    queue_seconds: float
    first_text_at: float | None = None

    def send(self, delta: str) -> None:
        if delta:
            self.first_text_at = self.first_text_at or time.monotonic()
            self.job.channel.send(DeltaEvent(text=delta))


class ActiveAnswers:
    """The jobs being decoded, at most `max_batch`; used on the decoding thread only (`jobs` may be read anywhere)."""

    def __init__(self, metrics: WorkerMetrics, max_batch: int) -> None:
        self.max_batch = max_batch
        self._metrics = metrics
        self._model: LoadedModel | None = None
        self._batch: BatchDecoder | None = None
        self._running: list[_Running] = []
        self.jobs: tuple[Job, ...] = ()  # replaced, never mutated: other threads read it (health)

    def attach(self, model: LoadedModel) -> None:
        """The loaded model: jobs can start from now on."""
        self._model = model
        self._batch = BatchDecoder(model.target, self.max_batch, model.verifier)

    @property
    def has_room(self) -> bool:
        return self._batch is not None and self._batch.has_room

    @property
    def free_slots(self) -> int:
        """Places in the batch not taken by a job (one starting included)."""
        return self.max_batch - len(self.jobs)

    def start(self, job: Job) -> None:
        """Prefill `job`'s prompt and let it join the batch; sends its start event and first text. Never raises."""
        assert self._model is not None and self._batch is not None, (
            "jobs start only once the model has loaded"
        )
        self.jobs = (*self.jobs, job)  # its place is taken from now on
        queue_seconds = time.monotonic() - job.arrived
        self._metrics.queue_wait.observe(queue_seconds)
        job.channel.send(
            StartEvent(
                queue_seconds=queue_seconds, prompt_tokens=len(job.request.prompt_ids), method=job.method
            )
        )
        try:
            running = _Running(job, self._model.generator(job.method).generate(job.request), queue_seconds)
            running.send(self._batch.join(running.generation))
            if running.generation.finished:
                self._finish(running)
        except Exception as error:
            self._fail([job], error)
        else:
            if not running.generation.finished:
                self._running.append(running)
        self._publish()

    def step(self) -> None:
        """Drop the cancelled jobs, then one batched step for the others: deltas, and done for those that ended."""
        assert self._batch is not None
        for running in [r for r in self._running if r.job.cancelled.is_set()]:
            self._leave(running)
            self._metrics.requests.labels("cancelled").inc()
            running.job.channel.close()
        if not self._running:
            return
        answers = len(self._running)
        try:
            deltas = self._batch.step()
        except Exception as error:
            failed = list(self._running)
            for running in failed:
                self._leave(running)
            self._fail([running.job for running in failed], error)
            return
        self._metrics.record_step(answers, self._batch.last_rows, self._batch.last_tokens)
        by_generation = {id(running.generation): running for running in self._running}
        for generation, delta in deltas:
            running = by_generation[id(generation)]
            running.send(delta)
            if generation.finished:
                self._running.remove(running)
                self._finish(running)
        self._publish()

    def _leave(self, running: _Running) -> None:
        assert self._batch is not None
        if running.generation in self._batch.members:
            self._batch.leave(running.generation)
        self._running.remove(running)
        self._publish()

    def _finish(self, running: _Running) -> None:
        running.send(running.generation.finish())
        result = running.generation.result
        time_to_first_token = (running.first_text_at or time.monotonic()) - running.job.arrived
        self._metrics.record_answer(result, time_to_first_token)
        running.job.channel.send(done_event(result, running.queue_seconds, time_to_first_token))
        running.job.channel.close()

    def _fail(self, jobs: list[Job], error: Exception) -> None:
        log.exception(
            "generation failed (%d answer(s); methods %s)", len(jobs), sorted({job.method for job in jobs})
        )
        for job in jobs:
            self._metrics.requests.labels("error").inc()
            job.channel.send(ErrorEvent(message=f"generation failed: {type(error).__name__}: {error}"))
            job.channel.close()

    def _publish(self) -> None:
        self.jobs = tuple(running.job for running in self._running)


def done_event(result: GenerationResult, queue_seconds: float, time_to_first_token: float) -> DoneEvent:
    stats: dict[str, Any] = result.stats.summary() | {
        "time_to_first_token_seconds": time_to_first_token,
        "queue_seconds": queue_seconds,
    }
    reason = PROTOCOL_STOP_REASONS.get(result.stop_reason, result.stop_reason.value)
    return DoneEvent.model_validate({"stop_reason": reason, "text": result.text, "stats": stats})
