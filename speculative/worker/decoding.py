"""What the decoding thread does with one job: start, text deltas as tokens are accepted, then done or error.

The client's disconnect sets the job's cancellation flag; decoding checks it between steps and frees the model.
A failure inside one generation ends that stream with an error event; the thread goes on to the next job.
"""

import logging
import time
from typing import Any

from speculative.engine.generator import GenerationResult
from speculative.engine.stopping import StopReason
from speculative.worker.jobs import Job
from speculative.worker.metrics import WorkerMetrics
from speculative.worker.model import LoadedModel
from speculative.worker.schemas import DeltaEvent, DoneEvent, ErrorEvent, StartEvent

log = logging.getLogger(__name__)

# The protocol's name of a stop reason, where it differs from the engine's.
PROTOCOL_STOP_REASONS = {StopReason.STOP_TOKEN: "eos"}


def decode(job: Job, model: LoadedModel, metrics: WorkerMetrics) -> None:
    """Run `job` to its end (or until its client has gone), sending its events; never raises."""
    try:
        _decode(job, model, metrics)
    except Exception as error:
        log.exception(
            "generation failed (method %s, %d prompt tokens)", job.method, len(job.request.prompt_ids)
        )
        metrics.requests.labels("error").inc()
        job.channel.send(ErrorEvent(message=f"generation failed: {type(error).__name__}: {error}"))
    finally:
        job.channel.close()


def _decode(job: Job, model: LoadedModel, metrics: WorkerMetrics) -> None:
    queue_seconds = time.monotonic() - job.arrived
    metrics.queue_wait.observe(queue_seconds)
    job.channel.send(
        StartEvent(queue_seconds=queue_seconds, prompt_tokens=len(job.request.prompt_ids), method=job.method)
    )
    generation = model.generator(job.method).generate(job.request)
    first_text_at: float | None = None
    for delta in generation.steps():
        if job.cancelled.is_set():
            metrics.requests.labels("cancelled").inc()
            return
        if delta:
            first_text_at = first_text_at or time.monotonic()
            job.channel.send(DeltaEvent(text=delta))
    time_to_first_token = (first_text_at or time.monotonic()) - job.arrived
    result = generation.result
    metrics.record_answer(result, time_to_first_token)
    job.channel.send(done_event(result, queue_seconds, time_to_first_token))


def done_event(result: GenerationResult, queue_seconds: float, time_to_first_token: float) -> DoneEvent:
    stats: dict[str, Any] = result.stats.summary() | {
        "time_to_first_token_seconds": time_to_first_token,
        "queue_seconds": queue_seconds,
    }
    reason = PROTOCOL_STOP_REASONS.get(result.stop_reason, result.stop_reason.value)
    return DoneEvent.model_validate({"stop_reason": reason, "text": result.text, "stats": stats})
