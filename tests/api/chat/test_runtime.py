"""The chat's runtime: retrieval runs in threads of its own at a lower CPU priority, so that a burst of questions
being embedded does not hold up the API's own steps (sign-in, storing, relaying answers already streaming)."""

import asyncio
import os
import threading

from api.chat.runtime import RETRIEVAL_NICENESS, ChatRetriever, ChatRuntime
from ingest.retrieval import Retrieval
from ingest.search.types import SearchFilter


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
