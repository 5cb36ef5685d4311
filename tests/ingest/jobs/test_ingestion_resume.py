"""A job killed mid-way resumes on the next run with no duplicates and no lost documents."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from sqlalchemy import update

from ingest import jobs
from ingest.database import session_scope
from ingest.documents import list_documents, record_document
from ingest.embedding import Embedder
from ingest.metadata import DocumentTags
from ingest.models import FileStatus, Job, JobStatus
from ingest.pdf_reader import open_pdf
from ingest.pipeline import ParsedDocument, chunk_records, parse_pdf
from ingest.run_job import Ingestion
from ingest.search.embedded import EmbeddedIndex
from ingest.settings import IngestSettings
from tests.ingest.ingest_pdfs import text_pdf

REPO_ROOT = Path(__file__).resolve().parents[3]
TOPICS = ["koorts", "wondzorg", "sepsis", "insuline", "decubitus"]


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "procedures"
    folder.mkdir()
    for topic in TOPICS:
        pages = [
            [f"Protocol {topic}, deel {page}."]
            + [f"Afspraak {n} over {topic} op pagina {page}." for n in range(25)]
            for page in range(1, 4)
        ]
        text_pdf(folder / f"{topic}.pdf", pages, title=f"Protocol {topic}")
    return folder


def _environment(settings: IngestSettings) -> dict[str, str]:
    environment = {key: value for key, value in os.environ.items() if key != "WEAVIATE_URL"}
    environment.update(
        DATABASE_URL=settings.database_url,
        INDEX_DIR=str(settings.index_dir),
        EMBEDDING_MODEL=settings.embedding_model,
        MODEL_CACHE=str(settings.model_cache),
        HF_HUB_OFFLINE="1",
        EMBEDDING_BATCH_SIZE="1",  # one file per embedding group: the kill lands before the last file is done
    )
    return environment


def _kill_after_first_indexed_file(process: subprocess.Popen[bytes], settings: IngestSettings) -> None:
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        summaries = jobs.recent_jobs(settings.database_url) if process.poll() is None else []
        if summaries and summaries[0].counts.get(FileStatus.indexed, 0) >= 1:
            process.send_signal(signal.SIGKILL)
            process.wait()
            return
        assert process.poll() is None, "the ingest process ended before it could be killed"
        time.sleep(0.05)
    process.kill()
    raise AssertionError("no file was indexed within four minutes")


def test_a_killed_job_resumes_without_duplicates_or_losses(
    ingest_settings: IngestSettings, minilm: Embedder, tmp_path: Path
) -> None:
    folder = _folder(tmp_path)
    process = subprocess.Popen(
        [sys.executable, "-m", "ingest", "run", str(folder)],
        cwd=REPO_ROOT,
        env=_environment(ingest_settings),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _kill_after_first_indexed_file(process, ingest_settings)
    (killed,) = jobs.recent_jobs(ingest_settings.database_url)
    assert killed.status == JobStatus.running and killed.done < len(TOPICS)

    index = EmbeddedIndex(ingest_settings.index_dir, ingest_settings.embedding_model)
    (resumed,) = Ingestion(ingest_settings, index, lambda: minilm).resume_interrupted()

    assert resumed.id == killed.id and resumed.status == JobStatus.finished
    assert {file.status for file in resumed.files} == {FileStatus.indexed}
    documents = list_documents(ingest_settings.database_url)
    assert sorted(Path(d.source_path).stem for d in documents) == sorted(TOPICS)
    assert index.document_ids() == {document.id for document in documents}
    for document in documents:
        chunks = index.chunks(document.id)
        assert [chunk.chunk_index for chunk in chunks] == list(range(document.chunk_count))


def _dead_owner() -> str:
    """The owner tag of a process that has certainly ended on this host."""
    probe = subprocess.Popen(["true"])
    probe.wait()
    return f"{socket.gethostname()}:{probe.pid}"


def _crash_after_indexing(
    settings: IngestSettings, index: EmbeddedIndex, minilm: Embedder, pdf: Path, *, recorded: bool
) -> tuple[ParsedDocument, int]:
    """What a job killed right after indexing `pdf` leaves behind: its chunks searchable, its file still marked
    embedding, its owner dead; with `recorded`, the job had also written the document's row. Returns the parsed
    document and its chunk count."""
    job_id = jobs.create_job(settings.database_url, [pdf])
    (pending,) = jobs.pending_files(settings.database_url, job_id)
    file_id = pending.id
    with open_pdf(pdf, 10**8) as opened:
        parsed = parse_pdf(opened)
    records = chunk_records(parsed, DocumentTags(), 800, 160)
    index.put_document(records, minilm.embed_passages([r.text for r in records]))
    if recorded:
        record_document(settings.database_url, parsed, len(records), (), (), (), job_id)
    jobs.set_file_status(settings.database_url, file_id, FileStatus.embedding, document_id=parsed.sha256)
    with session_scope(settings.database_url) as session:
        session.execute(update(Job).where(Job.id == job_id).values(owner=_dead_owner()))
    return parsed, len(records)


def test_a_crash_between_indexing_and_recording_is_finished_without_embedding_again(
    ingest_settings: IngestSettings, index: EmbeddedIndex, minilm: Embedder, tmp_path: Path
) -> None:
    pdf = text_pdf(tmp_path / "koorts.pdf", [["Koorts bij kinderen: geef paracetamol."]], title="Koorts")
    parsed, chunk_count = _crash_after_indexing(ingest_settings, index, minilm, pdf, recorded=False)

    def must_not_embed() -> Embedder:
        raise AssertionError("the chunks were already in the index: embedding them again is wasted work")

    (resumed,) = Ingestion(ingest_settings, index, must_not_embed).resume_interrupted()

    assert [file.status for file in resumed.files] == [FileStatus.indexed]
    assert [d.id for d in list_documents(ingest_settings.database_url)] == [parsed.sha256]
    assert len(index.chunks(parsed.sha256)) == chunk_count


def test_a_crash_after_recording_but_before_the_status_counts_the_file_as_indexed(
    ingest_settings: IngestSettings, index: EmbeddedIndex, minilm: Embedder, tmp_path: Path
) -> None:
    pdf = text_pdf(tmp_path / "sepsis.pdf", [["Sepsis: start binnen het uur antibiotica."]], title="Sepsis")
    parsed, _ = _crash_after_indexing(ingest_settings, index, minilm, pdf, recorded=True)

    (resumed,) = Ingestion(ingest_settings, index, lambda: minilm).resume_interrupted()

    assert [(file.status, file.document_id) for file in resumed.files] == [
        (FileStatus.indexed, parsed.sha256)
    ]


def test_a_job_whose_owner_is_alive_is_not_taken_over(
    ingest_settings: IngestSettings, tmp_path: Path
) -> None:
    pdf = text_pdf(tmp_path / "a.pdf", [["Tekst."]])
    jobs.create_job(ingest_settings.database_url, [pdf], owned=True)

    assert jobs.claim_next(ingest_settings.database_url) is None
