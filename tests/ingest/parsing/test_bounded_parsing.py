"""No file can block ingestion: parsing runs in a child bounded in time, memory and pages, and a file that keeps
killing its job is given up (issue 25 item 3)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from sqlalchemy import select

from ingest import isolation, jobs
from ingest.database import session_scope
from ingest.embedding import Embedder
from ingest.isolation import Limits, run_isolated
from ingest.models import FileStatus, JobFile
from ingest.pdf_reader import UnusableFile
from ingest.run_job import Ingestion
from ingest.search.embedded import EmbeddedIndex
from ingest.settings import IngestSettings
from tests.ingest.conftest import KOORTS, WONDZORG
from tests.ingest.ingest_pdfs import shared_stream_pdf, text_pdf

REPO_ROOT = Path(__file__).resolve().parents[3]
HOSTILE_PAGES = 20_000


def _statuses(summary: jobs.JobSummary) -> dict[str, tuple[FileStatus, str | None]]:
    return {Path(file.path).name: (file.status, file.message) for file in summary.files}


@pytest.mark.timeout(180)  # without a bound the hostile file parses for hours: the test fails here
def test_a_hostile_pdf_ends_as_its_own_error_while_the_other_files_are_indexed(
    ingest_settings: IngestSettings, index: EmbeddedIndex, minilm: Embedder, tmp_path: Path
) -> None:
    folder = tmp_path / "procedures"
    folder.mkdir()
    text_pdf(folder / "a-koorts.pdf", KOORTS, title="Koorts bij kinderen")
    shared_stream_pdf(folder / "b-bom.pdf", HOSTILE_PAGES)
    text_pdf(folder / "c-wondzorg.pdf", WONDZORG, title="Wondzorg na een operatie")
    settings = ingest_settings.model_copy(update={"parse_timeout_seconds": 3.0, "max_pdf_pages": 50_000})

    summary = Ingestion(settings, index, lambda: minilm).ingest([folder])

    statuses = _statuses(summary)
    assert statuses["a-koorts.pdf"] == (FileStatus.indexed, None)
    assert statuses["c-wondzorg.pdf"] == (FileStatus.indexed, None)
    assert statuses["b-bom.pdf"] == (
        FileStatus.failed,
        "lezen duurde te lang (langer dan 3 seconden): afgebroken",
    )
    assert not _parsing_children(), "a parsing child outlived its file (only the fork server itself stays)"


def _parsing_children() -> list[psutil.Process]:
    """Processes the fork server started (parsing children), not other fixtures' servers' workers (nginx)."""
    fork_servers = [
        child for child in psutil.Process().children() if "forkserver" in " ".join(child.cmdline())
    ]
    return [grandchild for server in fork_servers for grandchild in server.children(recursive=True)]


def test_a_pdf_over_the_page_cap_is_refused_before_its_pages_are_read(
    ingestion: Ingestion, tmp_path: Path
) -> None:
    folder = tmp_path / "procedures"
    folder.mkdir()
    text_pdf(folder / "lang.pdf", [[f"Pagina {n} van het handboek infectiepreventie."] for n in range(30)])
    text_pdf(folder / "koorts.pdf", KOORTS, title="Koorts bij kinderen")
    ingestion.settings = ingestion.settings.model_copy(update={"max_pdf_pages": 10})

    statuses = _statuses(ingestion.ingest([folder]))

    assert statuses["lang.pdf"] == (FileStatus.failed, "te veel pagina's: 30 (maximum 10)")
    assert statuses["koorts.pdf"] == (FileStatus.indexed, None)


def _attempts(database_url: str, job_id: int) -> tuple[FileStatus, int]:
    with session_scope(database_url) as session:
        file = session.scalars(select(JobFile).where(JobFile.job_id == job_id)).one()
        return FileStatus(file.status), file.attempts


def _kill_while_parsing(settings: IngestSettings, job_id: int, attempt: int) -> None:
    """Run the job in `python -m ingest run`, kill it (SIGKILL) while it parses, check no child survives it."""
    environment = {key: value for key, value in os.environ.items() if key != "WEAVIATE_URL"}
    environment.update(
        DATABASE_URL=settings.database_url,
        INDEX_DIR=str(settings.index_dir),
        EMBEDDING_MODEL=settings.embedding_model,
        MODEL_CACHE=str(settings.model_cache),
        HF_HUB_OFFLINE="1",
        PARSE_TIMEOUT_SECONDS="600",
        PARSE_ATTEMPTS="2",
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "ingest", "run"],
        cwd=REPO_ROOT,
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while _attempts(settings.database_url, job_id) != (FileStatus.parsing, attempt):
        assert process.poll() is None, "the ingest process ended before it could be killed"
        assert time.monotonic() < deadline, f"attempt {attempt} never started"
        time.sleep(0.1)
    time.sleep(1.0)  # the child starts just after the attempt is counted
    children = psutil.Process(process.pid).children(recursive=True)
    process.send_signal(signal.SIGKILL)
    process.wait()
    _, alive = psutil.wait_procs(children, timeout=10)
    assert not alive, "a parsing child outlived its killed job"


@pytest.mark.timeout(300)
def test_a_file_that_kills_its_job_is_given_up_after_the_set_attempts(
    ingest_settings: IngestSettings, index: EmbeddedIndex, minilm: Embedder, tmp_path: Path
) -> None:
    hostile = shared_stream_pdf(tmp_path / "bom.pdf", 2_000)
    job_id = jobs.create_job(ingest_settings.database_url, [hostile])
    for attempt in (1, 2):
        _kill_while_parsing(ingest_settings, job_id, attempt)
    settings = ingest_settings.model_copy(update={"parse_attempts": 2})

    (summary,) = Ingestion(settings, index, lambda: minilm).resume_interrupted()

    assert _statuses(summary)["bom.pdf"] == (
        FileStatus.failed,
        "opgegeven na 2 pogingen: het lezen brak af doordat het ingestproces stopte",
    )
    # given up without parsing it a third time: each attempt is counted before its parse starts
    assert _attempts(ingest_settings.database_url, job_id) == (FileStatus.failed, 2)


def test_a_child_that_needs_more_memory_than_allowed_ends_as_a_file_error() -> None:
    four_gigabytes = 4 * 1024**3

    with pytest.raises(UnusableFile, match=r"^te veel geheugen nodig bij het lezen \(meer dan 512 MB\)"):
        run_isolated(bytearray, (four_gigabytes,), Limits(timeout_seconds=60, memory_mb=512), lambda: None)


def test_the_heartbeat_moves_while_a_child_works_and_a_timed_out_child_is_reaped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(isolation, "TICK_SECONDS", 0.1)
    beats: list[float] = []

    with pytest.raises(UnusableFile, match=r"^lezen duurde te lang \(langer dan 1.5 seconden\)"):
        run_isolated(time.sleep, (60,), Limits(timeout_seconds=1.5, memory_mb=1024), lambda: beats.append(1))

    assert len(beats) >= 5
    assert not _parsing_children()
