"""Bad input: each file gets a clear status and reason, the job goes on, and nothing already indexed is lost."""

import os
import tracemalloc
from pathlib import Path

import pytest

from ingest.documents import find_document
from ingest.models import FileStatus, JobStatus
from ingest.run_job import Ingestion
from ingest.search.embedded import EmbeddedIndex
from tests.ingest.ingest_pdfs import long_pdf, scanned_pdf, text_pdf


@pytest.fixture
def indexed_before(ingestion: Ingestion, procedures: Path) -> set[str]:
    """The procedures folder, already ingested: none of it may be lost by a later bad job."""
    ingestion.ingest([procedures])
    return ingestion.index.document_ids()


def _outcome(ingestion: Ingestion, path: Path) -> tuple[FileStatus, str]:
    summary = ingestion.ingest([path])
    assert summary.status == JobStatus.finished
    (file,) = summary.files
    return file.status, file.message or ""


@pytest.mark.parametrize(
    ("name", "write", "reason"),
    [
        (
            "versleuteld.pdf",
            lambda p: text_pdf(p, [["Geheim protocol."]], user_password="geheim"),
            "versleuteld",
        ),
        (
            "afgekapt.pdf",
            lambda p: p.write_bytes(text_pdf(p, [["Regel."]] * 3).read_bytes()[:900]),
            "afgekapt",
        ),
        (
            "verslag.pdf",
            lambda p: p.write_bytes(b"PK\x03\x04 een Word-bestand met de verkeerde naam"),
            "geen PDF",
        ),
        ("scan.pdf", lambda p: scanned_pdf(p), "geen tekstlaag"),
        ("leeg.pdf", lambda p: p.write_bytes(b""), "leeg bestand"),
        ("weg.pdf", lambda p: p.symlink_to(p.with_name("bestaat-niet.pdf")), "onleesbaar"),
    ],
)
def test_a_bad_file_fails_with_its_reason_and_loses_nothing(
    ingestion: Ingestion,
    indexed_before: set[str],
    tmp_path: Path,
    name: str,
    write,
    reason: str,  # type: ignore[no-untyped-def]
) -> None:
    path = tmp_path / name
    write(path)

    status, message = _outcome(ingestion, path)

    assert status == FileStatus.failed
    assert reason in message
    assert ingestion.index.document_ids() == indexed_before


def test_the_job_goes_on_after_a_bad_file(ingestion: Ingestion, tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a-leeg.pdf").write_bytes(b"")
    scanned_pdf(tmp_path / "docs" / "b-scan.pdf")
    text_pdf(tmp_path / "docs" / "c-goed.pdf", [["Een goed leesbaar protocol over handhygiëne."]])

    summary = ingestion.ingest([tmp_path / "docs"])

    assert [file.status for file in summary.files] == [
        FileStatus.failed,
        FileStatus.failed,
        FileStatus.indexed,
    ]
    assert summary.progress == 1.0


def test_a_corrupt_new_version_leaves_the_indexed_version_searchable(
    ingestion: Ingestion, indexed_before: set[str], procedures: Path, ingest_settings
) -> None:
    before = find_document(ingest_settings.database_url, str(procedures / "wondzorg.pdf"))
    (procedures / "wondzorg.pdf").write_bytes(b"%PDF-1.7\n" + os.urandom(2000) + b"\n%%EOF\n")

    status, message = _outcome(ingestion, procedures / "wondzorg.pdf")

    assert (status, "beschadigd" in message) == (FileStatus.failed, True)
    assert before.id in ingestion.index.document_ids()
    assert find_document(ingest_settings.database_url, before.id) == before


def test_a_broken_metadata_sidecar_fails_the_file_instead_of_guessing_tags(
    ingestion: Ingestion, tmp_path: Path
) -> None:
    pdf = text_pdf(tmp_path / "protocol.pdf", [["Protocol met kapotte metadata."]])
    (tmp_path / "protocol.meta.json").write_text('{"audience": ["kinderen"')

    status, message = _outcome(ingestion, pdf)

    assert (status, "protocol.meta.json" in message) == (FileStatus.failed, True)


def test_a_file_that_does_not_exist_is_reported_not_ignored(ingestion: Ingestion, tmp_path: Path) -> None:
    status, message = _outcome(ingestion, tmp_path / "getypt-verkeerd.pdf")

    assert (status, "onleesbaar" in message) == (FileStatus.failed, True)


@pytest.mark.parametrize("empty_database_url", ["sqlite"], indirect=True)  # about streaming, not the database
def test_a_thousand_page_pdf_is_ingested_page_by_page_in_bounded_memory(
    ingestion: Ingestion, index: EmbeddedIndex, tmp_path: Path
) -> None:
    pdf = long_pdf(tmp_path / "handboek.pdf", 1000, lines_per_page=1)
    tracemalloc.start()
    try:
        status, _ = _outcome(ingestion, pdf)
        _, python_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert status == FileStatus.indexed
    (document,) = index.document_ids()
    chunks = index.chunks(document)
    assert chunks[-1].page_end == 1000
    page_777 = [chunk for chunk in chunks if f"P{777 * 7 + 3:05d}" in chunk.chunk]
    assert page_777 and all(chunk.page_start <= 777 <= chunk.page_end for chunk in page_777)
    assert python_peak < 60_000_000, f"the Python heap peaked at {python_peak / 1e6:.0f} MB"
