"""Copies of one file (same content, other path) never make a procedure unsearchable: a copy is skipped only
while its twin still holds that content, and only once the twin's chunks are actually in the index."""

import hashlib
import shutil
from collections.abc import Collection, Sequence
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from ingest.documents import list_documents
from ingest.embedding import Embedder
from ingest.models import FileStatus
from ingest.run_job import Ingestion
from ingest.search.embedded import EmbeddedIndex
from ingest.search.types import ChunkRecord
from ingest.settings import IngestSettings
from tests.ingest.conftest import KOORTS
from tests.ingest.ingest_pdfs import text_pdf

EDITED = [["Koorts bij kinderen, versie 2", "Geef voortaan ibuprofen 10 mg per kg lichaamsgewicht."]]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _searchable_paths(index: EmbeddedIndex) -> set[str]:
    return {chunk.source_path for document_id in index.document_ids() for chunk in index.chunks(document_id)}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    protocollen = tmp_path / "protocollen"
    protocollen.mkdir()
    return protocollen


@pytest.fixture
def copies(folder: Path) -> tuple[Path, Path]:
    """A procedure and a copy of it that sorts after it, in one folder (one embedding group)."""
    first = text_pdf(folder / "a-koorts.pdf", KOORTS, title="Koorts bij kinderen")
    return first, Path(shutil.copy(first, folder / "b-koorts.pdf"))


def _statuses(ingestion: Ingestion, *paths: Path) -> dict[str, tuple[FileStatus, str | None]]:
    summary = ingestion.ingest(list(paths))
    return {Path(file.path).name: (file.status, file.message) for file in summary.files}


def test_a_copy_stays_searchable_when_the_original_is_edited_afterwards(
    ingestion: Ingestion, index: EmbeddedIndex, folder: Path, ingest_settings: IngestSettings
) -> None:
    original = text_pdf(folder / "handhygiene.pdf", KOORTS, title="Handhygiëne")
    ingestion.ingest([folder])
    copy = Path(shutil.copy(original, folder / "handhygiene - kopie.pdf"))
    assert _statuses(ingestion, folder)[copy.name] == (FileStatus.skipped, f"zelfde inhoud als {original}")

    text_pdf(original, EDITED, title="Handhygiëne")
    statuses = _statuses(ingestion, folder)

    assert statuses == {copy.name: (FileStatus.indexed, None), original.name: (FileStatus.indexed, None)}
    assert _searchable_paths(index) == {str(copy), str(original)}
    assert {document.source_path for document in list_documents(ingest_settings.database_url)} == {
        str(copy),
        str(original),
    }


def test_a_copy_takes_the_place_of_an_edited_original_that_is_ingested_alone(
    ingestion: Ingestion, index: EmbeddedIndex, folder: Path, ingest_settings: IngestSettings
) -> None:
    original = text_pdf(folder / "a.pdf", KOORTS, title="Koorts bij kinderen")
    ingestion.ingest([folder])
    copy = Path(shutil.copy(original, folder / "a-kopie.pdf"))
    removed = Path(shutil.copy(original, folder / "a-kopie-2.pdf"))
    statuses = _statuses(ingestion, folder)
    assert (
        statuses[copy.name] == statuses[removed.name] == (FileStatus.skipped, f"zelfde inhoud als {original}")
    )
    removed.unlink()  # a skipped copy that is gone takes no one's place

    text_pdf(original, EDITED, title="Koorts bij kinderen")
    statuses = _statuses(ingestion, original)

    assert statuses == {original.name: (FileStatus.indexed, None), copy.name: (FileStatus.indexed, None)}
    assert _searchable_paths(index) == {str(original), str(copy)}
    assert {document.source_path for document in list_documents(ingest_settings.database_url)} == {
        str(original),
        str(copy),
    }
    assert any("paracetamol" in chunk.chunk for chunk in index.chunks(_sha256(copy)))


class _FirstWriteFails:
    """The real embedded index whose first document write fails (a full disk, a lost connection)."""

    def __init__(self, index: EmbeddedIndex) -> None:
        self._index = index
        self.failures = 1

    def put_document(
        self, chunks: Sequence[ChunkRecord], vectors: NDArray[np.float32], replaces: Collection[str] = ()
    ) -> None:
        if self.failures:
            self.failures -= 1
            raise OSError(28, "No space left on device")
        self._index.put_document(chunks, vectors, replaces)

    def __getattr__(self, name: str) -> object:
        return getattr(self._index, name)


def test_a_twin_in_the_same_group_is_indexed_when_the_first_copy_fails_to_index(
    ingest_settings: IngestSettings,
    index: EmbeddedIndex,
    minilm: Embedder,
    folder: Path,
    copies: tuple[Path, Path],
) -> None:
    first, twin = copies
    ingestion = Ingestion(ingest_settings, _FirstWriteFails(index), lambda: minilm)  # type: ignore[arg-type]

    statuses = _statuses(ingestion, folder)

    assert statuses[first.name][0] == FileStatus.failed
    assert statuses[twin.name] == (FileStatus.indexed, None)
    assert _searchable_paths(index) == {str(twin)}


def test_a_twin_in_the_same_group_is_skipped_only_after_the_first_copy_is_indexed(
    ingestion: Ingestion, index: EmbeddedIndex, folder: Path, copies: tuple[Path, Path]
) -> None:
    first, twin = copies

    statuses = _statuses(ingestion, folder)

    assert statuses == {
        first.name: (FileStatus.indexed, None),
        twin.name: (FileStatus.skipped, f"zelfde inhoud als {first}"),
    }
    assert _searchable_paths(index) == {str(first)}


def test_twins_share_the_first_copys_failure_when_nothing_could_be_embedded(
    ingest_settings: IngestSettings,
    index: EmbeddedIndex,
    minilm: Embedder,
    folder: Path,
    copies: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:

    def out_of_memory(*_: object, **__: object) -> None:
        raise MemoryError("embedding failed")

    monkeypatch.setattr(minilm, "embed_passages", out_of_memory)
    statuses = _statuses(Ingestion(ingest_settings, index, lambda: minilm), folder)

    assert {status for status, _ in statuses.values()} == {FileStatus.failed}
    assert index.document_ids() == set()
