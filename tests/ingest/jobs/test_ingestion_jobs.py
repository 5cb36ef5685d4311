"""Ingestion jobs end to end on a real database: PDFs in, title-prefixed chunks with pages out, re-runs idempotent."""

import shutil
from pathlib import Path

from sqlalchemy import update

from ingest.database import session_scope
from ingest.documents import delete_document, find_document, list_documents
from ingest.models import Document, FileStatus, JobStatus
from ingest.pipeline import PIPELINE_VERSION
from ingest.run_job import Ingestion
from ingest.search.embedded import EmbeddedIndex
from ingest.search.types import SearchFilter
from tests.ingest.conftest import KOORTS
from tests.ingest.ingest_pdfs import text_pdf


def _statuses(summary_files: tuple) -> dict[str, FileStatus]:  # type: ignore[type-arg]
    return {Path(file.path).name: file.status for file in summary_files}


def test_a_folder_becomes_searchable_chunks_with_titles_pages_and_tags(
    ingestion: Ingestion, index: EmbeddedIndex, procedures: Path, ingest_settings
) -> None:
    summary = ingestion.ingest([procedures])

    assert summary.status == JobStatus.finished
    assert _statuses(summary.files) == {
        n: FileStatus.indexed for n in ("koorts.pdf", "wondzorg.pdf", "sepsis.pdf")
    }
    koorts = find_document(ingest_settings.database_url, str(procedures / "koorts.pdf"))
    chunks = index.chunks(koorts.id)
    assert all(chunk.text == f"Titel: Koorts bij kinderen\nTekst: {chunk.chunk}" for chunk in chunks)
    sentence = KOORTS[2][1]
    holding = [chunk for chunk in chunks if sentence in chunk.chunk]
    assert holding and all(chunk.page_start <= 3 <= chunk.page_end for chunk in holding)
    assert (koorts.audiences, koorts.departments, koorts.page_count) == (
        ("kinderen",),
        ("kindergeneeskunde",),
        3,
    )
    sepsis = find_document(ingest_settings.database_url, str(procedures / "intensieve zorg" / "sepsis.pdf"))
    assert sepsis.departments == ("intensieve zorg",)


def test_the_ingested_chunks_are_found_by_a_hybrid_query_with_filters(
    ingestion: Ingestion, index: EmbeddedIndex, procedures: Path, minilm
) -> None:
    ingestion.ingest([procedures])
    query = "fever in children paracetamol dose"

    hits = index.hybrid_search(query, minilm.embed_query(query), alpha=0.7, limit=3)
    children = index.hybrid_search(
        "koorts",
        minilm.embed_query("koorts"),
        alpha=0.7,
        limit=5,
        filters=SearchFilter(audiences=frozenset({"kinderen"})),
    )

    assert hits[0].chunk.title == "Koorts bij kinderen"
    assert {hit.chunk.title for hit in children} == {"Koorts bij kinderen"}


def test_reingesting_unchanged_files_changes_nothing(
    ingestion: Ingestion, index: EmbeddedIndex, procedures: Path
) -> None:
    ingestion.ingest([procedures])
    generation = index.stats().details["generation"]

    again = ingestion.ingest([procedures])

    assert set(_statuses(again.files).values()) == {FileStatus.skipped}
    assert {file.message for file in again.files} == {"ongewijzigd: al geïndexeerd"}
    assert index.stats().details["generation"] == generation


def test_a_changed_file_replaces_its_old_version(
    ingestion: Ingestion, index: EmbeddedIndex, procedures: Path, ingest_settings
) -> None:
    ingestion.ingest([procedures])
    old = find_document(ingest_settings.database_url, str(procedures / "wondzorg.pdf"))

    text_pdf(
        procedures / "wondzorg.pdf", [["Wondzorg, versie 2", "Gebruik voortaan een hydrocolloïdverband."]]
    )
    summary = ingestion.ingest([procedures / "wondzorg.pdf"])

    new = find_document(ingest_settings.database_url, str(procedures / "wondzorg.pdf"))
    assert summary.files[0].status == FileStatus.indexed
    assert new.id != old.id
    assert old.id not in index.document_ids() and new.id in index.document_ids()
    assert len(list_documents(ingest_settings.database_url)) == 3


def test_a_deleted_document_disappears_from_search(
    ingestion: Ingestion, index: EmbeddedIndex, procedures: Path, ingest_settings, minilm
) -> None:
    ingestion.ingest([procedures])
    sepsis = find_document(
        ingest_settings.database_url, sepsis_path := str(procedures / "intensieve zorg" / "sepsis.pdf")
    )

    delete_document(ingest_settings.database_url, index, sepsis.id)

    hits = index.hybrid_search("sepsis", minilm.embed_query("sepsis"), alpha=0.5, limit=10)
    assert sepsis.id not in {hit.chunk.document_id for hit in hits}
    assert sepsis_path not in {
        document.source_path for document in list_documents(ingest_settings.database_url)
    }


def test_the_same_file_twice_in_one_job_is_indexed_once(
    ingestion: Ingestion, procedures: Path, tmp_path: Path
) -> None:
    copy = shutil.copy(procedures / "koorts.pdf", tmp_path / "kopie-koorts.pdf")

    summary = ingestion.ingest([procedures / "koorts.pdf", procedures / "koorts.pdf", Path(copy)])

    assert [file.status for file in summary.files] == [FileStatus.indexed, FileStatus.skipped]
    assert summary.files[1].message == f"zelfde inhoud als {procedures / 'koorts.pdf'}"


def test_a_moved_file_is_found_again_under_its_new_path(
    ingestion: Ingestion, index: EmbeddedIndex, procedures: Path, tmp_path: Path, ingest_settings
) -> None:
    ingestion.ingest([procedures / "wondzorg.pdf"])
    moved = Path(shutil.move(procedures / "wondzorg.pdf", tmp_path / "archief-wondzorg.pdf"))

    summary = ingestion.ingest([moved])

    (document,) = list_documents(ingest_settings.database_url)
    assert summary.files[0].status == FileStatus.indexed
    assert document.source_path == str(moved)
    assert {chunk.source_path for chunk in index.chunks(document.id)} == {str(moved)}


def test_a_document_recorded_by_an_older_pipeline_is_read_again(
    ingestion: Ingestion, tmp_path: Path, ingest_settings
) -> None:
    path = text_pdf(tmp_path / "koorts.pdf", KOORTS, title="Koorts bij kinderen")
    ingestion.ingest([path])
    with session_scope(ingest_settings.database_url) as session:  # as the previous release recorded it
        session.execute(update(Document).values(pipeline_version=PIPELINE_VERSION - 1))

    again = ingestion.ingest([path])
    once_more = ingestion.ingest([path])

    assert [file.status for file in again.files] == [FileStatus.indexed]
    assert find_document(ingest_settings.database_url, str(path)).pipeline_version == PIPELINE_VERSION
    assert [file.status for file in once_more.files] == [FileStatus.skipped]
