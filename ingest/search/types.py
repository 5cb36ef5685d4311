"""What every search index stores and returns, and the interface both backends implement.

`SearchIndex` is the seam between ingestion (which writes whole documents) and retrieval (which asks hybrid
queries): the Weaviate backend serves production, the embedded backend reproduces Weaviate's hybrid
semantics in-process for one-machine installs, tests and evaluation.
"""

import uuid
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

CHUNK_NAMESPACE = uuid.UUID("6c1f1f0e-3b1a-5d8e-9a43-7f2b8f0c5d21")
DEFAULT_POOL = 100


class MissingIndex(LookupError):
    """A read-only command pointed at an index that does not exist (a mistyped INDEX_DIR or collection): it
    must not create an empty one and report every document unsearchable."""


class EmbedderMismatch(ValueError):
    """The index holds vectors of another embedding model than the one configured: searching it with this
    model's query vectors, or adding this model's passage vectors, would mix two vector spaces."""

    def __init__(self, location: str, built_with: str, configured: str) -> None:
        super().__init__(
            f"the index in {location} was built with {built_with!r}, but EMBEDDING_MODEL is {configured!r}: "
            're-embed it with `python -m ingest reembed` (docs/operations.md, "Changing the embedder") or set '
            "EMBEDDING_MODEL back"
        )
        self.built_with = built_with
        self.configured = configured


def check_hybrid_arguments(alpha: float, limit: int) -> None:
    """Refuse what every backend would otherwise answer with nonsense or a server error."""
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must lie in [0, 1], got {alpha}")
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")


def chunk_uuid(document_id: str, chunk_index: int) -> str:
    """A deterministic id, so re-ingesting a document can never leave two copies of a chunk."""
    return str(uuid.uuid5(CHUNK_NAMESPACE, f"{document_id}/{chunk_index}"))


@dataclass(frozen=True)
class ChunkRecord:
    """One chunk as stored in the index: `text` is what is embedded and searched (`Titel: …\\nTekst: …`,
    `ingest.text_format.indexed_text`),
    `chunk` the cleaned passage itself, found again in the PDF through its pages and offsets."""

    document_id: str
    chunk_index: int
    text: str
    chunk: str
    title: str
    source_path: str
    page_start: int
    page_end: int
    char_start: int
    char_end: int
    audiences: tuple[str, ...] = ()
    departments: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return chunk_uuid(self.document_id, self.chunk_index)


@dataclass(frozen=True)
class SearchFilter:
    """Restrict a search: each given set must match (a chunk matches a tag set when it has any of its tags)."""

    document_ids: frozenset[str] | None = None
    audiences: frozenset[str] | None = None
    departments: frozenset[str] | None = None

    def accepts(self, document_id: str, audiences: Collection[str], departments: Collection[str]) -> bool:
        if self.document_ids is not None and document_id not in self.document_ids:
            return False
        if self.audiences is not None and self.audiences.isdisjoint(audiences):
            return False
        return self.departments is None or not self.departments.isdisjoint(departments)


@dataclass(frozen=True)
class LegScores:
    """One leg's view of a hit: the raw score (BM25, or cosine similarity) and its min-max normalised value."""

    raw: float
    normalised: float


@dataclass(frozen=True)
class SearchHit:
    """A fused result: `score` = α·dense + (1 − α)·bm25 over normalised leg scores (a missing leg gives 0)."""

    chunk: ChunkRecord
    score: float
    vector: LegScores | None = None
    keyword: LegScores | None = None


@dataclass(frozen=True)
class IndexStats:
    documents: int
    chunks: int
    details: dict[str, object] = field(default_factory=dict)


class SearchIndex(Protocol):
    """Chunks of whole documents with their vectors, searchable with Weaviate's hybrid semantics."""

    def put_document(
        self, chunks: Sequence[ChunkRecord], vectors: NDArray[np.float32], replaces: Collection[str] = ()
    ) -> None:
        """Make one document's chunks searchable and, in the same step, every document in `replaces` not.

        The chunks all belong to one document; an older copy of that document is replaced as well.
        """
        ...

    def delete_documents(self, document_ids: Collection[str]) -> None:
        """Make these documents unsearchable (unknown ids are ignored)."""
        ...

    def document_ids(self) -> set[str]: ...

    def chunks(self, document_id: str) -> list[ChunkRecord]:
        """A document's chunks in order (empty when it is not in the index)."""
        ...

    def stats(self) -> IndexStats: ...

    def hybrid_search(
        self,
        query: str,
        vector: NDArray[np.float32],
        *,
        alpha: float,
        limit: int,
        filters: SearchFilter | None = None,
    ) -> list[SearchHit]:
        """Weaviate's relativeScoreFusion hybrid query: `alpha` 1 = dense only, 0 = BM25 only."""
        ...

    def close(self) -> None: ...
