"""What the chat needs for the life of the process: the retriever, the worker pool, the rules, the registry of
running generations. Built once, on first use (loading the embedder takes seconds), and shared by all requests."""

import threading
from dataclasses import dataclass, field
from typing import Protocol

import anyio
import httpx
from fastapi import Request
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import State

from api.chat.abstention import AbstentionRule
from api.chat.settings import ChatSettings
from api.chat.stopping import Generations
from api.chat.workers import WorkerPool
from api.settings import ApiSettings
from ingest.embedding import Embedder
from ingest.retrieval import Retrieval, Retriever
from ingest.search.backends import open_search_index
from ingest.search.types import SearchFilter
from ingest.settings import IngestSettings

_building = threading.Lock()


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
    generations: Generations = field(default_factory=Generations)
    retrieval_threads: int = 2
    _retrieval_slots: anyio.CapacityLimiter | None = None

    def retrieval_slots(self) -> anyio.CapacityLimiter:
        """Retrievals running at once: embedding is CPU-bound, and more threads than cores only thrash, while
        waiting retrievals would otherwise fill the shared thread pool that sign-in and storage need. Made on
        first use, inside the event loop."""
        if self._retrieval_slots is None:
            self._retrieval_slots = anyio.CapacityLimiter(self.retrieval_threads)
        return self._retrieval_slots

    @property
    def abstention(self) -> AbstentionRule:
        chat = self.settings
        return AbstentionRule(chat.abstain_min_dense, chat.abstain_min_bm25, chat.abstain_min_coverage)

    @classmethod
    def from_settings(cls, api: ApiSettings, chat: ChatSettings, ingest: IngestSettings) -> "ChatRuntime":
        """The deployment's retriever (its index and embedder) and a pool over its workers."""
        index = open_search_index(ingest)
        retriever = Retriever.from_settings(ingest, index, Embedder.from_settings(ingest))
        return cls(retriever, pool_from_settings(chat), chat, api.database_url, api.hospital_name)


def pool_from_settings(chat: ChatSettings) -> WorkerPool:
    return WorkerPool(
        [str(url) for url in chat.worker_urls],
        httpx.AsyncClient(limits=httpx.Limits(max_connections=None, max_keepalive_connections=64)),
        health_ttl=chat.worker_health_ttl_seconds,
        timeout=chat.worker_timeout_seconds,
        retry_after=chat.worker_retry_after_seconds,
    )


async def get_chat_runtime(request: Request) -> ChatRuntime:
    """The app's chat runtime (`app.state.chat`), built from the settings the first time it is needed: in a worker
    thread then (loading the embedder takes seconds), on the event loop once built (no thread-pool trip)."""
    runtime: ChatRuntime | None = getattr(request.app.state, "chat", None)
    if runtime is None:
        runtime = await run_in_threadpool(_built, request.app.state)
    return runtime


def _built(state: State) -> ChatRuntime:
    with _building:
        if getattr(state, "chat", None) is None:
            state.chat = ChatRuntime.from_settings(state.settings, ChatSettings(), IngestSettings())
    runtime: ChatRuntime = state.chat
    return runtime


async def get_generations(request: Request) -> Generations:
    """The registry of running generations. Before the first question of this process nothing can be running, so
    stopping then needs no runtime (building it loads the embedder, which a stop must never wait for)."""
    runtime: ChatRuntime | None = getattr(request.app.state, "chat", None)
    return runtime.generations if runtime is not None else Generations()
