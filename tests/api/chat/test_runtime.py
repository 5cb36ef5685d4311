"""The chat's runtime: built at the API's start when CHAT_WARM_UP is on (the first question then waits for no
embedder), and retrieval runs in threads of its own at a lower CPU priority, so that a burst of questions being
embedded does not hold up the API's own steps (sign-in, storing, relaying answers already streaming)."""

import asyncio
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.chat.runtime import RETRIEVAL_NICENESS, ChatRetriever, ChatRuntime
from api.settings import ApiSettings
from ingest.retrieval import Retrieval
from ingest.search.types import SearchFilter
from modelstore.registry import ALL_MINILM_L6_V2

WARM_UP_SECONDS = 120.0  # loading even the small embedder takes seconds on a busy 2-core machine
# the warm-up reads no database: one is enough for the app to start on
ON_SQLITE = pytest.mark.parametrize("empty_database_url", ["sqlite"], indirect=True)


class RecordingRetriever:
    """The real retriever, noting the thread and the CPU priority (niceness) each question was retrieved at."""

    def __init__(self, retriever: ChatRetriever) -> None:
        self.retriever = retriever
        self.seen: list[tuple[str, int]] = []

    def retrieve(
        self, question: str, *, top_k: int | None = None, filters: SearchFilter | None = None
    ) -> Retrieval:
        niceness = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        self.seen.append((threading.current_thread().name, niceness))
        return self.retriever.retrieve(question, top_k=top_k, filters=filters)


def test_questions_are_retrieved_in_the_retrievals_own_threads_at_a_lower_cpu_priority(
    chat_runtime: ChatRuntime,
) -> None:
    chat_runtime.retriever = recording = RecordingRetriever(chat_runtime.retriever)
    api_niceness = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    async def ask_twice() -> list[Retrieval]:
        return await asyncio.gather(
            chat_runtime.retrieve("Hoe lang handen wrijven met handalcohol?", None),
            chat_runtime.retrieve("dosis glucagon bij hypoglykemie", None),
        )

    retrievals = asyncio.run(ask_twice())

    assert all(len(retrieval.chunks) == 3 for retrieval in retrievals)
    assert [name.startswith("retrieval") for name, _ in recording.seen] == [True, True]
    assert {niceness for _, niceness in recording.seen} == {min(19, api_niceness + RETRIEVAL_NICENESS)}
    assert (
        os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == api_niceness
    )  # the API's is unchanged


def _wait_for(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WARM_UP_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"not within {WARM_UP_SECONDS} s"
        time.sleep(0.1)


@ON_SQLITE
def test_with_chat_warm_up_the_api_loads_the_embedder_and_searches_before_the_first_question(
    api_settings: ApiSettings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("EMBEDDING_MODEL", ALL_MINILM_L6_V2)
    monkeypatch.setenv("INDEX_DIR", str(tmp_path / "index"))
    app = create_app(api_settings.model_copy(update={"chat_warm_up": True}))

    with caplog.at_level(logging.INFO, logger="api.chat.runtime"), TestClient(app) as client:
        health = client.get("/api/health")  # the API answers while the warm-up runs
        _wait_for(lambda: "chat warmed up" in caplog.text)

    assert health.status_code == 200
    assert isinstance(app.state.chat, ChatRuntime)
    assert app.state.chat.embedding_model == ALL_MINILM_L6_V2


@ON_SQLITE
def test_a_failed_warm_up_is_logged_and_the_api_still_serves(
    api_settings: ApiSettings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("EMBEDDING_MODEL", str(tmp_path / "no-such-model"))
    monkeypatch.setenv("INDEX_DIR", str(tmp_path / "index"))
    app = create_app(api_settings.model_copy(update={"chat_warm_up": True}))

    with caplog.at_level(logging.INFO, logger="api.chat.runtime"), TestClient(app) as client:
        _wait_for(lambda: "warm-up failed" in caplog.text)
        health = client.get("/api/health")

    assert health.status_code == 200
    assert getattr(app.state, "chat", None) is None  # the first question builds it, and reports the error
