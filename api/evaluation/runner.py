"""Running configurations: each distinct index (chunking, title prefix, embedder) is built in its own temporary
folder with ingestion's chunker, embedder and embedded index, then every question is asked of it and judged.

Configurations that differ only in α share their index: α is applied at query time, so sharing changes no result
and saves re-embedding the corpus once per α. Query vectors are computed once per embedder.
"""

import logging
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from api.evaluation.configs import RetrievalConfig
from api.evaluation.corpus import CleanedDocument
from api.evaluation.judgement import QueryOutcome, Retrieved, judge
from api.evaluation.metrics import DEPTH
from api.evaluation.queries import EvalQuery
from api.evaluation.report import ConfigurationResult
from api.evaluation.resolution import DocumentResolver, IndexedDocument
from ingest.chunking import indexed_text, split_into_chunks
from ingest.embedding import Embedder
from ingest.search.embedded import EmbeddedIndex
from ingest.search.types import ChunkRecord, SearchHit, SearchIndex
from ingest.settings import IngestSettings

log = logging.getLogger(__name__)


class Embedders:
    """Each embedder loaded once, with the device, dtype and batch size of the ingest settings."""

    def __init__(self, settings: IngestSettings) -> None:
        self._settings = settings
        self._loaded: dict[str, Embedder] = {}
        self._query_vectors: dict[str, NDArray[np.float32]] = {}

    def get(self, name: str) -> Embedder:
        if name not in self._loaded:
            self._loaded[name] = Embedder.from_settings(self._settings, name)
        return self._loaded[name]

    def query_vectors(self, name: str, questions: Sequence[str]) -> NDArray[np.float32]:
        """One vector per question, with the embedder's query prompt; computed once per embedder."""
        if name not in self._query_vectors:
            embedder = self.get(name)
            self._query_vectors[name] = np.stack([embedder.embed_query(question) for question in questions])
        return self._query_vectors[name]


def catalogue(documents: Sequence[CleanedDocument]) -> list[IndexedDocument]:
    """What references in question files can name: every document's id, title and file name."""
    return [
        IndexedDocument(
            id=document.source.id, title=document.source.title, file_name=document.source.file_name
        )
        for document in documents
    ]


def run_configurations(
    documents: Sequence[CleanedDocument],
    queries: Sequence[EvalQuery],
    configs: Mapping[str, RetrievalConfig],
    embedders: Embedders,
    work_dir: Path | None = None,
) -> list[ConfigurationResult]:
    """Every configuration's outcomes, in the order the configurations were given."""
    resolver = DocumentResolver(catalogue(documents))
    by_index: dict[tuple[bool, int, int, str], list[str]] = {}
    for name, config in configs.items():
        by_index.setdefault(config.index_key(), []).append(name)
    results: dict[str, ConfigurationResult] = {}
    for names in by_index.values():
        first = configs[names[0]]
        embedder = embedders.get(first.embedder)
        vectors = embedders.query_vectors(first.embedder, [query.question for query in queries])
        with tempfile.TemporaryDirectory(prefix="vraagbaak-eval-", dir=work_dir) as folder:
            index = build_index(documents, first, embedder, Path(folder))
            try:
                for name in names:
                    outcomes = ask_all(index, queries, vectors, configs[name].alpha, resolver)
                    results[name] = ConfigurationResult(name, configs[name].describe(), outcomes)
            finally:
                index.close()
    return [results[name] for name in configs]


def build_index(
    documents: Sequence[CleanedDocument], config: RetrievalConfig, embedder: Embedder, folder: Path
) -> EmbeddedIndex:
    """Chunk, embed and index every document (a copy with the same id is indexed once)."""
    unique = list({document.source.id: document for document in documents}.values())
    records = [chunk_records(document, config) for document in unique]
    log.info(
        "indexing %d documents, %d chunks for %s", len(unique), sum(map(len, records)), config.describe()
    )
    vectors = embedder.embed_passages([record.text for chunks in records for record in chunks])
    index = EmbeddedIndex(folder, embedding_model=config.embedder)
    start = 0
    for chunks in records:
        index.put_document(chunks, vectors[start : start + len(chunks)])
        start += len(chunks)
    return index


def chunk_records(document: CleanedDocument, config: RetrievalConfig) -> list[ChunkRecord]:
    """The document's chunks as stored, with or without the `Titel: …\\nTekst: …` prefix."""
    title = document.source.title
    return [
        ChunkRecord(
            document_id=document.source.id,
            chunk_index=chunk.index,
            text=indexed_text(title, chunk.text) if config.title_prefix else chunk.text,
            chunk=chunk.text,
            title=title,
            source_path=document.source.file_name or document.source.id,
            page_start=chunk.page_start,
            page_end=chunk.page_end,
            char_start=chunk.start,
            char_end=chunk.end,
        )
        for chunk in split_into_chunks(document.text, config.chunk_size, config.chunk_overlap)
    ]


def ask_all(
    index: SearchIndex,
    queries: Sequence[EvalQuery],
    vectors: NDArray[np.float32],
    alpha: float,
    resolver: DocumentResolver,
) -> tuple[QueryOutcome, ...]:
    """Each question's first 50 hybrid results, judged (any `SearchIndex`: a temporary one or the live one)."""
    return tuple(
        judge(
            query,
            [retrieved(hit) for hit in index.hybrid_search(query.question, vector, alpha=alpha, limit=DEPTH)],
            resolver,
        )
        for query, vector in zip(queries, vectors, strict=True)
    )


def retrieved(hit: SearchHit) -> Retrieved:
    return Retrieved(
        document_id=hit.chunk.document_id,
        char_start=hit.chunk.char_start,
        char_end=hit.chunk.char_end,
        score=hit.score,
        dense_similarity=hit.vector.raw if hit.vector is not None else None,
    )
