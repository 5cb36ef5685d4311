"""`WorkerService`: loads the model in the background, admits requests and streams their events.

Admission happens before the response starts, so every refusal has its own status: 503 while loading or with the
queue full, 413 when prompt and answer do not fit the context, 422 for an unknown method. An admitted request
is decoded on the decoding thread, batched with up to MAX_BATCH others; leaving its stream (the client
disconnected) cancels it.
"""

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import torch

from speculative.drafters.registry import available_methods, check_method
from speculative.engine.request import GenerationRequest
from speculative.engine.stopping import RepetitionRule
from speculative.settings import SpeculativeSettings
from speculative.worker.decoding import ActiveAnswers
from speculative.worker.jobs import EventChannel, Job
from speculative.worker.metrics import WorkerMetrics
from speculative.worker.model import LoadedModel
from speculative.worker.queue import DecodingQueue, QueueFullError
from speculative.worker.schemas import GenerateBody, WorkerEvent

log = logging.getLogger(__name__)


class NotReadyError(RuntimeError):
    """The model is still loading (or failed to load)."""


class PromptTooLongError(ValueError):
    """Prompt and answer together exceed the model's context."""

    def __init__(self, prompt_tokens: int, max_new_tokens: int, context_length: int) -> None:
        super().__init__(
            f"the prompt has {prompt_tokens} tokens and max_new_tokens is {max_new_tokens}, but the model's "
            f"context holds {context_length} tokens (prompt and answer together)"
        )
        self.prompt_tokens = prompt_tokens
        self.max_new_tokens = max_new_tokens
        self.context_length = context_length


class WorkerService:
    def __init__(self, settings: SpeculativeSettings) -> None:
        self.settings = settings
        self.metrics = WorkerMetrics()
        self.answers = ActiveAnswers(self.metrics, settings.max_batch)
        self.queue = DecodingQueue(
            settings.queue_limit, self.answers, self.metrics, idle=self._measure_when_idle
        )
        self.model: LoadedModel | None = None
        self.load_error: str | None = None

    async def load(self) -> None:
        """Load and warm up on the decoding thread; until then health says `loading` (or `failed`)."""
        try:
            self.model = await asyncio.wrap_future(self.queue.run_blocking(self._load))
        except Exception as error:
            log.exception("the model failed to load")
            self.load_error = f"{type(error).__name__}: {error}"
            return
        description = self.model.describe()  # the cost model's timings stay in /health, out of the log line
        logged = {key: value for key, value in description.items() if key not in ("cost_model", "warm_up")}
        log.info("ready: %s", logged)
        if self.model.cost_model is not None:
            self.metrics.record_cost_model(self.model.cost_model)
        if self.model.measuring:
            log.info(
                "serving with the prior tree budget while the verification cost model is measured when idle"
            )
        self.queue.resume_idle_work()

    def health(self) -> dict[str, Any]:
        queue = {
            "queue_depth": self.queue.depth,
            "queue_limit": self.queue.limit,
            "decoding": len(self.answers.jobs),
            "max_batch": self.answers.max_batch,
        }
        overdue = self._overdue_seconds()
        if overdue is not None and overdue > self.settings.health_stall_seconds:
            error = f"the answer being decoded is {overdue:.0f} s past its deadline (a hung decode)"
            return {"status": "stalled", "error": error} | queue
        if self.model is None:
            status = (
                {"status": "failed", "error": self.load_error} if self.load_error else {"status": "loading"}
            )
            return status | queue
        return {"status": "ready"} | self.model.describe() | queue

    async def admit(self, body: GenerateBody) -> AsyncIterator[WorkerEvent]:
        """Validate and queue `body`; its events, to be iterated by the response (leaving early cancels it).

        Tokenising runs on a thread (the tokenizer releases the GIL): a long prompt takes a noticeable fraction of
        a second, during which the event loop keeps answering `/health` and the other streams."""
        arrived = time.monotonic()
        try:
            model = self.model
            if model is None:
                raise NotReadyError(
                    "the model is still loading" if self.load_error is None else self.load_error
                )
            method = body.method or model.method
            check_method(method, available_methods(self.settings))
            request = await asyncio.to_thread(engine_request, model, body, arrived)
            job = Job(request, method, arrived, EventChannel(asyncio.get_running_loop()))
            self.queue.submit(job)
        except Exception as error:
            self.metrics.requests.labels(_refusal(error)).inc()
            raise
        return self._events(job)

    def _overdue_seconds(self) -> float | None:
        """How far the most overdue job being decoded is past its deadline (decoding checks deadlines between
        steps, so a job far past it is stuck inside one: a CUDA hang, a deadlock); None when none is decoding."""
        deadlines = [job.request.deadline for job in self.answers.jobs if job.request.deadline is not None]
        return time.monotonic() - min(deadlines) if deadlines else None

    def shutdown(self) -> None:
        self.queue.shutdown()

    async def _events(self, job: Job) -> AsyncIterator[WorkerEvent]:
        try:
            async for event in job.channel:
                yield event
        finally:
            self.queue.cancel(job)

    def _load(self) -> LoadedModel:
        if self.settings.torch_threads is not None:
            torch.set_num_threads(self.settings.torch_threads)
        model = LoadedModel(self.settings)
        model.warm_up()
        self.answers.attach(model)
        return model

    def _measure_when_idle(self) -> bool:
        """One forward of the cost-model measurement; True while more remain."""
        model = self.model
        if model is None or not model.measuring:
            return False
        cost_model = model.measure_step()
        if cost_model is None:
            return True
        self.metrics.record_cost_model(cost_model)
        log.info(
            "the measured verification cost model is in use for new answers (one row %.1f ms, %d rows %.1f ms)",
            1000 * cost_model.seconds[0],
            cost_model.max_rows,
            1000 * cost_model.seconds[-1],
        )
        return False


def engine_request(model: LoadedModel, body: GenerateBody, arrived: float) -> GenerationRequest:
    """The engine's request for `body`, with the settings' defaults; raises `PromptTooLongError` or the
    engine's `InvalidRequestError`. `arrived` (monotonic) starts the deadline."""
    settings = model.settings
    max_new_tokens = body.max_new_tokens or settings.max_new_tokens
    prompt_ids = model.encoder.prompt_ids(body.prompt)
    if len(prompt_ids) + max_new_tokens > model.context_length:
        raise PromptTooLongError(len(prompt_ids), max_new_tokens, model.context_length)
    request = GenerationRequest(
        prompt_ids=prompt_ids,
        max_new_tokens=max_new_tokens,
        stop_strings=settings.stop_strings if body.stop is None else body.stop,
        context_ids=None if body.context is None else model.encoder.context_ids(body.context),
        repetition=repetition_rule(settings),
        deadline=arrived + (body.deadline_seconds or settings.request_deadline_seconds),
    )
    model.validate(request)
    return request


def repetition_rule(settings: SpeculativeSettings) -> RepetitionRule | None:
    if settings.repetition_window == 0:
        return None
    return RepetitionRule(settings.repetition_ngram, settings.repetition_window, settings.repetition_share)


def _refusal(error: Exception) -> str:
    """The metrics outcome of a request refused at admission."""
    if isinstance(error, QueueFullError):
        return "queue_full"
    return "loading" if isinstance(error, NotReadyError) else "invalid"
