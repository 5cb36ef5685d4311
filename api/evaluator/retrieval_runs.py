"""Running configurations: each distinct index (chunking, title prefix, embedder) is built in its own temporary
folder with ingestion's own pipeline (`ingest.pipeline.chunk_records`, the embedder, the embedded index), then
every question is asked through the chat's `Retriever` (stripped, cut to the embedder's maximum, embedded with
the query prompt, reranked when the configuration names a reranker) and judged, so a report measures what clinicians get.

Configurations that differ only in α share their index: α is applied at query time, so sharing changes no result
and saves re-embedding the corpus once per α. Prepared questions and their vectors are computed once per embedder.
"""

import logging
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from tqdm import tqdm

from api.evaluator.configs import RetrievalConfig
from api.evaluator.corpus import CleanedDocument
from api.evaluator.judgement import QueryOutcome, Retrieved, judge
from api.evaluator.metrics import DEPTH
from api.evaluator.queries import EvalQuery
from api.evaluator.report import ConfigurationResult
from api.evaluator.resolution import DocumentResolver, IndexedDocument
from ingest.embedding import Embedder
from ingest.pipeline import chunk_records
from ingest.rerank import Reranker
from ingest.retrieval import QuestionTruncator, RetrievedChunk, Retriever
from ingest.search.embedded import EmbeddedIndex
from ingest.search.types import SearchIndex
from ingest.settings import IngestSettings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PreparedQuestions:
    """The questions as the retriever searches them (stripped, cut) and their query vectors."""

    texts: tuple[str, ...]
    truncated: tuple[bool, ...]
    vectors: NDArray[np.float32]


class Embedders:
    """Each embedder loaded once, with the device, dtype and batch size of the ingest settings."""

    def __init__(self, settings: IngestSettings) -> None:
        self._settings = settings
        self._loaded: dict[str, Embedder] = {}
        self._prepared: dict[str, PreparedQuestions] = {}
        self._rerankers: dict[str, Reranker] = {}

    def get(self, name: str) -> Embedder:
        if name not in self._loaded:
            self._loaded[name] = Embedder.from_settings(self._settings, name)
        return self._loaded[name]

    def reranker(self, name: str) -> Reranker | None:
        """The cross-encoder `name` (loaded once, on the settings' device and dtype); None for no name."""
        if not name:
            return None
        if name not in self._rerankers:
            settings = self._settings
            self._rerankers[name] = Reranker(
                name, settings.model_cache, settings.device, settings.dtype, settings.embedding_batch_size
            )
        return self._rerankers[name]

    def retriever(self, config: RetrievalConfig, index: SearchIndex) -> Retriever:
        """The chat's retriever over `index` with the configuration's embedder, α, reranker and repeats,
        returning the first 50 chunks, no floor."""
        truncator = QuestionTruncator.for_model(config.embedder, self._settings.model_cache)
        return Retriever(
            index,
            self.get(config.embedder),
            truncator,
            alpha=config.alpha,
            top_k=DEPTH,
            relevance_floor=0.0,
            reranker=self.reranker(config.reranker),
            rerank_candidates=config.candidates,
            repeat_min_chars=config.repeats,
        )

    def prepared(self, name: str, retriever: Retriever, questions: Sequence[str]) -> PreparedQuestions:
        """Every question prepared and embedded as `Retriever.retrieve` does it; once per embedder."""
        if name not in self._prepared:
            texts, truncated = zip(*(retriever.prepare(question) for question in questions), strict=True)
            embedder = self.get(name)
            vectors = [
                embedder.embed_query(text)
                for text in tqdm(texts, desc="embedding questions", unit="question", dynamic_ncols=True)
            ]
            self._prepared[name] = PreparedQuestions(tuple(texts), tuple(truncated), np.stack(vectors))
        return self._prepared[name]


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
        with tempfile.TemporaryDirectory(prefix="vraagbaak-eval-", dir=work_dir) as folder:
            index = build_index(documents, first, embedders.get(first.embedder), Path(folder))
            try:
                for name in names:
                    retriever = embedders.retriever(configs[name], index)
                    prepared = embedders.prepared(first.embedder, retriever, [q.question for q in queries])
                    outcomes = ask_all(retriever, queries, prepared, resolver, name)
                    results[name] = ConfigurationResult(name, configs[name].describe(), outcomes)
            finally:
                index.close()
    return [results[name] for name in configs]


def build_index(
    documents: Sequence[CleanedDocument], config: RetrievalConfig, embedder: Embedder, folder: Path
) -> EmbeddedIndex:
    """Chunk (ingestion's `chunk_records`: title, tags, source path), embed and index every document (a copy
    with the same id is indexed once)."""
    unique = list({document.source.id: document for document in documents}.values())
    records = [
        chunk_records(
            document.parsed,
            document.tags,
            config.chunk_size,
            config.chunk_overlap,
            title_prefix=config.title_prefix,
        )
        for document in unique
    ]
    texts = [record.text for chunks in records for record in chunks]
    log.info("indexing %d documents, %d chunks for %s", len(unique), len(texts), config.describe())
    with tqdm(total=len(texts), desc="embedding", unit="chunk", dynamic_ncols=True) as bar:
        vectors = embedder.embed_passages(texts, bar.update)
    index = EmbeddedIndex(folder, embedding_model=config.embedder)
    start = 0
    for chunks in tqdm(records, desc="indexing", unit="document", dynamic_ncols=True):
        index.put_document(chunks, vectors[start : start + len(chunks)])
        start += len(chunks)
    return index


def ask_all(
    retriever: Retriever,
    queries: Sequence[EvalQuery],
    prepared: PreparedQuestions,
    resolver: DocumentResolver,
    name: str = "",
) -> tuple[QueryOutcome, ...]:
    """Each question's first 50 chunks as the chat's retriever returns them, judged."""
    asked = zip(queries, prepared.texts, prepared.truncated, prepared.vectors, strict=True)
    outcomes = []
    seconds = []
    for query, text, truncated, vector in tqdm(
        asked, total=len(queries), desc=f"asking {name}".strip(), unit="question", dynamic_ncols=True
    ):
        began = time.perf_counter()
        retrieval = retriever.search(text, vector, truncated)
        seconds.append(time.perf_counter() - began)
        outcomes.append(judge(query, [retrieved(chunk) for chunk in retrieval.chunks], resolver))
    if seconds:
        log.info(
            "%s: search (and rerank) per question: median %.0f ms, p95 %.0f ms",
            name or "search",
            1000 * float(np.median(seconds)),
            1000 * float(np.percentile(seconds, 95)),
        )
    return tuple(outcomes)


def retrieved(chunk: RetrievedChunk) -> Retrieved:
    return Retrieved(
        document_id=chunk.document_id,
        char_start=chunk.char_start,
        char_end=chunk.char_end,
        score=chunk.score,
        dense_similarity=chunk.dense.raw if chunk.dense is not None else None,
        text=chunk.text,
    )
