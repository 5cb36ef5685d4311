"""A withdrawn procedure stops being answerable: a pruning job removes documents whose file left its folder,
and never wipes documents because a folder is missing, empty, merely similar in name, or a single file."""

import shutil
from pathlib import Path

import pytest

from ingest import jobs
from ingest.documents import list_documents
from ingest.embedding import Embedder
from ingest.models import FileStatus
from ingest.pruning import MISSING, NO_PDFS, Refusal
from ingest.run_job import Ingestion
from ingest.search.embedded import EmbeddedIndex
from ingest.settings import IngestSettings
from tests.ingest.conftest import WONDZORG
from tests.ingest.ingest_pdfs import text_pdf


def _paths(settings: IngestSettings) -> set[str]:
    return {document.source_path for document in list_documents(settings.database_url)}


def _found(index: EmbeddedIndex, minilm: Embedder, query: str) -> set[str]:
    """The source paths of everything a search for `query` can answer from."""
    hits = index.hybrid_search(query, minilm.embed_query(query), alpha=0.5, limit=20)
    return {hit.chunk.source_path for hit in hits}


def _ingest_and_prune(ingestion: Ingestion, *paths: Path) -> tuple[jobs.JobSummary, list[str], list[Refusal]]:
    summary = ingestion.ingest(list(paths))
    pruning = ingestion.prune(summary)
    return summary, [document.source_path for document in pruning.withdrawn], list(pruning.refused)


def test_a_removed_file_disappears_from_search_and_from_the_documents(
    ingestion: Ingestion,
    index: EmbeddedIndex,
    procedures: Path,
    ingest_settings: IngestSettings,
    minilm: Embedder,
) -> None:
    ingestion.ingest([procedures])
    wondzorg = str(procedures / "wondzorg.pdf")
    assert wondzorg in _found(index, minilm, "wondinfectie verband")
    (procedures / "wondzorg.pdf").unlink()

    _, withdrawn, refused = _ingest_and_prune(ingestion, procedures)

    assert (withdrawn, refused) == ([wondzorg], [])
    assert wondzorg not in _found(index, minilm, "wondinfectie verband")
    assert wondzorg not in _paths(ingest_settings)
    assert len(_paths(ingest_settings)) == 2


def test_without_pruning_a_removed_file_stays_searchable(
    ingestion: Ingestion,
    index: EmbeddedIndex,
    procedures: Path,
    ingest_settings: IngestSettings,
    minilm: Embedder,
) -> None:
    ingestion.ingest([procedures])
    (procedures / "wondzorg.pdf").unlink()

    ingestion.ingest([procedures])

    assert str(procedures / "wondzorg.pdf") in _paths(ingest_settings)
    assert str(procedures / "wondzorg.pdf") in _found(index, minilm, "wondinfectie verband")


def test_the_job_records_each_withdrawn_document_for_the_admin(
    ingestion: Ingestion, procedures: Path, ingest_settings: IngestSettings
) -> None:
    ingestion.ingest([procedures])
    (procedures / "wondzorg.pdf").unlink()

    summary, _, _ = _ingest_and_prune(ingestion, procedures)

    later = jobs.job_summary(ingest_settings.database_url, summary.id)
    (record,) = [file for file in later.files if file.status == FileStatus.withdrawn]
    assert record.path == str(procedures / "wondzorg.pdf")
    assert record.message is not None and "Wondzorg na een operatie" in record.message
    assert later.counts[FileStatus.withdrawn] == 1 and later.progress == 1.0


def test_a_missing_folder_prunes_nothing_and_says_why(
    ingestion: Ingestion, procedures: Path, tmp_path: Path, ingest_settings: IngestSettings
) -> None:
    ingestion.ingest([procedures])
    before = _paths(ingest_settings)
    procedures.rename(tmp_path / "share-not-mounted")

    _, withdrawn, refused = _ingest_and_prune(ingestion, procedures)

    assert (withdrawn, refused) == ([], [Refusal(str(procedures), MISSING)])
    assert _paths(ingest_settings) == before


def test_a_folder_without_any_pdf_prunes_nothing_and_says_why(
    ingestion: Ingestion, procedures: Path, ingest_settings: IngestSettings
) -> None:
    ingestion.ingest([procedures])
    before = _paths(ingest_settings)
    for pdf in procedures.rglob("*.pdf"):
        pdf.unlink()

    _, withdrawn, refused = _ingest_and_prune(ingestion, procedures)

    assert (withdrawn, refused) == ([], [Refusal(str(procedures), NO_PDFS)])
    assert _paths(ingest_settings) == before


def test_only_the_folder_that_refused_keeps_its_documents(
    ingestion: Ingestion, procedures: Path, tmp_path: Path, ingest_settings: IngestSettings
) -> None:
    other = tmp_path / "andere afdeling"
    other.mkdir()
    text_pdf(other / "wondzorg-oud.pdf", [*WONDZORG, ["Bijlage", "Oude versie."]], title="Wondzorg oud")
    ingestion.ingest([procedures, other])
    (procedures / "wondzorg.pdf").unlink()
    missing = tmp_path / "niet aangekoppeld"

    _, withdrawn, refused = _ingest_and_prune(ingestion, procedures, missing)

    assert (withdrawn, refused) == ([str(procedures / "wondzorg.pdf")], [Refusal(str(missing), MISSING)])
    assert str(other / "wondzorg-oud.pdf") in _paths(ingest_settings)


def test_a_sibling_folder_with_a_common_name_prefix_is_untouched(
    ingestion: Ingestion, procedures: Path, ingest_settings: IngestSettings
) -> None:
    sibling = procedures.with_name(procedures.name + "2")
    sibling.mkdir()
    text_pdf(sibling / "wondzorg-kopie.pdf", [*WONDZORG, ["Kopie", "Een kopie."]], title="Wondzorg kopie")
    ingestion.ingest([procedures, sibling])
    (sibling / "wondzorg-kopie.pdf").unlink()

    _, withdrawn, refused = _ingest_and_prune(ingestion, procedures)

    assert (withdrawn, refused) == ([], [])
    assert str(sibling / "wondzorg-kopie.pdf") in _paths(ingest_settings)


def test_a_file_moved_within_the_folder_stays_searchable_under_its_new_path(
    ingestion: Ingestion,
    index: EmbeddedIndex,
    procedures: Path,
    ingest_settings: IngestSettings,
    minilm: Embedder,
) -> None:
    ingestion.ingest([procedures])
    moved = procedures / "intensieve zorg" / "wondzorg.pdf"
    shutil.move(procedures / "wondzorg.pdf", moved)

    summary, withdrawn, _ = _ingest_and_prune(ingestion, procedures)

    assert withdrawn == []
    assert {file.status for file in summary.files if file.path == str(moved)} == {FileStatus.indexed}
    assert str(moved) in _paths(ingest_settings)
    assert str(moved) in _found(index, minilm, "wondinfectie verband")


def test_a_moved_file_that_failed_to_index_is_not_withdrawn(
    ingestion: Ingestion,
    procedures: Path,
    ingest_settings: IngestSettings,
    minilm: Embedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The content is still in the folder: it stays searchable (under its old path) until a job indexes it."""
    ingestion.ingest([procedures])
    moved = procedures / "intensieve zorg" / "wondzorg.pdf"
    shutil.move(procedures / "wondzorg.pdf", moved)

    def out_of_memory(*_: object, **__: object) -> None:
        raise MemoryError("embedding failed")

    monkeypatch.setattr(minilm, "embed_passages", out_of_memory)
    summary, withdrawn, _ = _ingest_and_prune(ingestion, procedures)

    assert {file.status for file in summary.files if file.path == str(moved)} == {FileStatus.failed}
    assert withdrawn == []
    assert str(procedures / "wondzorg.pdf") in _paths(ingest_settings)


def test_a_missing_file_the_job_names_itself_fails_visibly_instead_of_being_withdrawn(
    ingestion: Ingestion, procedures: Path, ingest_settings: IngestSettings
) -> None:
    ingestion.ingest([procedures])
    gone = procedures / "wondzorg.pdf"
    gone.unlink()

    summary, withdrawn, _ = _ingest_and_prune(ingestion, procedures, gone)

    assert [file.path for file in summary.failed] == [str(gone)]
    assert withdrawn == []


def test_a_single_file_argument_never_prunes(
    ingestion: Ingestion, procedures: Path, ingest_settings: IngestSettings
) -> None:
    ingestion.ingest([procedures])
    (procedures / "wondzorg.pdf").unlink()

    _, withdrawn, refused = _ingest_and_prune(ingestion, procedures / "koorts.pdf")

    assert (withdrawn, refused) == ([], [])
    assert str(procedures / "wondzorg.pdf") in _paths(ingest_settings)


def test_a_folder_named_through_a_link_prunes_the_same_documents(
    ingestion: Ingestion, procedures: Path, tmp_path: Path, ingest_settings: IngestSettings
) -> None:
    ingestion.ingest([procedures])
    link = tmp_path / "snelkoppeling"
    link.symlink_to(procedures, target_is_directory=True)
    (procedures / "wondzorg.pdf").unlink()

    _, withdrawn, _ = _ingest_and_prune(ingestion, link)

    assert withdrawn == [str(procedures / "wondzorg.pdf")]
    assert str(procedures / "wondzorg.pdf") not in _paths(ingest_settings)
