"""What the chat needs for the life of the process: the retriever, the worker pool, the rules, this process's
running generations. Built once, shared by all requests: at start in the background (`warm_up`, CHAT_WARM_UP), or
on the first question (loading the embedder takes seconds)."""

import asyncio
import logging
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Protocol

import httpx
from fastapi import Request
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import State

from api.chat import storage
from api.chat.abstention import AbstentionRule
from api.chat.calibration import deployed_rule
from api.chat.limits import UserSlots
from api.chat.settings import ChatSettings
from api.chat.stop_requests import Generations
from api.chat.worker_pool import WorkerPool
from api.settings import ProcessSettings
from ingest.embedding import Embedder
from ingest.retrieval import Retrieval, Retriever
from ingest.search.backends import open_search_index
from ingest.search.types import SearchFilter
from ingest.settings import IngestSettings

_building = threading.Lock()
log = logging.getLogger(__name__)
WARM_UP_QUESTION = "Hoe lang duurt het?"  # any question: it is embedded and searched, its answer unused
RETRIEVAL_NICENESS = 10  # measured: 8-question bursts' API overhead p95 −23 % (docs/benchmarks.md)


def _yield_cpu() -> None:
    """Lower this thread's CPU priority by RETRIEVAL_NICENESS (Linux schedules threads one by one); where that is
    not possible the thread keeps the process's priority."""
    try:
        thread = threading.get_native_id()
        niceness = os.getpriority(os.PRIO_PROCESS, thread)
        os.setpriority(os.PRIO_PROCESS, thread, min(19, niceness + RETRIEVAL_NICENESS))
    except (AttributeError, OSError) as error:
        log.warning("retrieval threads keep the API's CPU priority: %s", error)


class ChatRetriever(Protocol):
    def retrieve(
        self, question: str, *, top_k: int | None = None, filters: SearchFilter | None = None
    ) -> Retrieval: ...


@dataclass
class ChatRuntime:
    retriever: ChatRetriever
    pool: WorkerPool
    settings: ChatSettings
    database_url: str
    hospital: str
    embedding_model: str  # whose calibrated dense gate stands in for an unset ABSTAIN_MIN_DENSE
    user_slots: UserSlots = field(default_factory=UserSlots)
    retrieval_threads: int = 2  # embedding is CPU-bound: more threads than cores only thrash
    _retrieval_pool: ThreadPoolExecutor | None = None
    generations: Generations = field(init=False)

    def __post_init__(self) -> None:
        stops_requested = partial(storage.stops_requested, self.database_url)
        self.generations = Generations(stops_requested, self.settings.stop_poll_seconds)

    async def retrieve(self, question: str, filters: SearchFilter | None) -> Retrieval:
        """Retrieve in threads of the retrieval's own, at a lower CPU priority than the API's own steps: embedding
        is CPU-bound, and a burst of questions would otherwise hold up sign-in, storing and relaying the answers
        that are already streaming (and fill the shared thread pool those need)."""
        if self._retrieval_pool is None:
            self._retrieval_pool = ThreadPoolExecutor(
                self.retrieval_threads, thread_name_prefix="retrieval", initializer=_yield_cpu
            )
        job = partial(self.retriever.retrieve, question, filters=filters)
        return await asyncio.get_running_loop().run_in_executor(self._retrieval_pool, job)

    def close(self) -> None:
        """End the retrieval threads (a runtime made for one run, such as an answer report)."""
        if self._retrieval_pool is not None:
            self._retrieval_pool.shutdown()
            self._retrieval_pool = None

    @property
    def abstention(self) -> AbstentionRule:
        return deployed_rule(self.settings, self.embedding_model)

    @classmethod
    def from_settings(cls, api: ProcessSettings, chat: ChatSettings, ingest: IngestSettings) -> "ChatRuntime":
        """The deployment's retriever (its index and embedder) and a pool over its workers."""
        index = open_search_index(ingest)
        retriever = Retriever.from_settings(ingest, index, Embedder.from_settings(ingest))
        return cls(
            retriever,
            pool_from_settings(chat),
            chat,
            api.database_url,
            api.hospital_name,
            ingest.embedding_model,
        )


def pool_from_settings(chat: ChatSettings) -> WorkerPool:
    """The workers of the settings, each request carrying the workers' token (`Authorization: Bearer`)."""
    token = chat.worker_token
    headers = {"Authorization": f"Bearer {token.get_secret_value()}"} if token is not None else None
    return WorkerPool(
        [str(url) for url in chat.worker_urls],
        httpx.AsyncClient(
            headers=headers, limits=httpx.Limits(max_connections=None, max_keepalive_connections=64)
        ),
        health_ttl=chat.worker_health_ttl_seconds,
        timeout=chat.worker_timeout_seconds,
        silence=chat.worker_silence_seconds,
        retry_after=chat.worker_retry_after_seconds,
    )


async def get_chat_runtime(request: Request) -> ChatRuntime:
    """The app's chat runtime (`app.state.chat`), built from the settings the first time it is needed: in a worker
    thread then (loading the embedder takes seconds), on the event loop once built (no thread-pool trip)."""
    runtime: ChatRuntime | None = getattr(request.app.state, "chat", None)
    if runtime is None:
        runtime = await run_in_threadpool(built_runtime, request.app.state)
    return runtime


def built_runtime(state: State) -> ChatRuntime:
    """The app's chat runtime, built now if it is not yet (seconds: call it from a worker thread)."""
    with _building:
        if getattr(state, "chat", None) is None:
            state.chat = ChatRuntime.from_settings(state.settings, ChatSettings(), IngestSettings())
    runtime: ChatRuntime = state.chat
    return runtime


def warm_up(state: State) -> None:
    """Build the app's chat runtime and search once with it, so the first question finds the embedder loaded and
    run (its first pass is slower than the next). A failure is logged, never raised: the first question then
    builds the runtime itself and reports the error to the user."""
    started = time.monotonic()
    try:
        runtime = built_runtime(state)
        runtime.retriever.retrieve(WARM_UP_QUESTION)
    except Exception:
        log.exception("the chat's warm-up failed; the first question will build its runtime")
        return
    log.info(
        "chat warmed up in %.1f s: the embedder is loaded and the index searched", time.monotonic() - started
    )


async def get_generations(request: Request) -> Generations | None:
    """This process's running generations; None before its first question, when it streams none (building the
    runtime loads the embedder, which a stop must never wait for: the stop may be for another process)."""
    runtime: ChatRuntime | None = getattr(request.app.state, "chat", None)
    return runtime.generations if runtime is not None else None
