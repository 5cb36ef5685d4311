"""Several workers on one database: a queued job is run by exactly one of them, and an admin's delete during a job
is not undone when the job records the document (SQLite and PostgreSQL)."""

import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from sqlalchemy import event

from ingest import jobs
from ingest.database import get_engine
from ingest.documents import delete_document, list_documents
from ingest.embedding import Embedder
from ingest.models import FileStatus
from ingest.run_job import Ingestion, Silent
from ingest.search.embedded import EmbeddedIndex
from ingest.settings import IngestSettings
from tests.ingest.conftest import KOORTS
from tests.ingest.ingest_pdfs import text_pdf

CLAIMERS = 2
BARRIER_SECONDS = 10


@contextmanager
def claims_meet_before_writing(database_url: str, parties: int) -> Iterator[None]:
    """Hold each thread's first write to `ingest_jobs` until `parties` threads have reached theirs: every
    claimer has seen the job free before any of them takes it (the race two worker processes run into)."""
    barrier = threading.Barrier(parties, timeout=BARRIER_SECONDS)
    waited = threading.local()

    def meet(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.lstrip().upper().startswith("UPDATE INGEST_JOBS") and not getattr(waited, "done", False):
            waited.done = True
            with suppress(threading.BrokenBarrierError):  # only one claimer got this far: nothing to line up
                barrier.wait()

    engine = get_engine(database_url)
    event.listen(engine, "before_cursor_execute", meet)
    try:
        yield
    finally:
        event.remove(engine, "before_cursor_execute", meet)


def test_two_workers_never_run_the_same_queued_job(
    ingest_settings: IngestSettings, index: EmbeddedIndex, tmp_path: Path
) -> None:
    empty = tmp_path / "lege map"
    empty.mkdir()
    job_id = jobs.create_job(ingest_settings.database_url, [empty])
    runs: list[list[int]] = []

    def worker() -> None:
        def no_embedder() -> Embedder:
            raise AssertionError("the job has no files")

        summaries = Ingestion(ingest_settings, index, no_embedder).resume_interrupted()
        runs.append([summary.id for summary in summaries])

    with claims_meet_before_writing(ingest_settings.database_url, CLAIMERS):
        threads = [threading.Thread(target=worker) for _ in range(CLAIMERS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)

    assert sorted(runs) == [[], [job_id]]
    assert jobs.job_summary(ingest_settings.database_url, job_id).status == "finished"


class DeleteWhenEmbedding(Silent):
    """The admin deletes the document while the job embeds it (after parsing, before the index write)."""

    def __init__(self, settings: IngestSettings, index: EmbeddedIndex, document_id: str) -> None:
        self.settings, self.index, self.document_id = settings, index, document_id

    def chunks_planned(self, count: int) -> None:
        delete_document(self.settings.database_url, self.index, self.document_id)


def test_a_document_deleted_during_its_reindex_stays_deleted(
    ingest_settings: IngestSettings, index: EmbeddedIndex, minilm: Embedder, tmp_path: Path
) -> None:
    pdf = text_pdf(tmp_path / "koorts.pdf", KOORTS, title="Koorts bij kinderen")
    url = ingest_settings.database_url
    first = Ingestion(ingest_settings, index, lambda: minilm).ingest([pdf])
    (document_id,) = {file.document_id for file in first.files}
    index.delete_documents([document_id])  # a reindex, as the admin page asks it
    job_id = jobs.create_job(url, [pdf])

    deleting = Ingestion(
        ingest_settings, index, lambda: minilm, DeleteWhenEmbedding(ingest_settings, index, document_id)
    )
    (reindexed,) = deleting.resume_interrupted()

    assert reindexed.id == job_id
    assert list_documents(url) == []
    assert document_id not in index.document_ids()
    ((status, message),) = [(file.status, file.message) for file in reindexed.files]
    assert status == FileStatus.skipped
    assert message is not None and "verwijderd" in message

    again = Ingestion(ingest_settings, index, lambda: minilm).ingest([pdf])  # uploaded again later: welcome

    assert [file.status for file in again.files] == [FileStatus.indexed]
    assert [document.id for document in list_documents(url)] == [document_id]
    assert document_id in index.document_ids()
