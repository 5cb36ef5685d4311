"""Retrieval for the chat: a question → query embedding → hybrid search (α = 0.7) → the top chunks.

This is the source system's retriever: the question is embedded with the embedder's query prompt, both legs
run with Weaviate's relativeScoreFusion, and the best 3 chunks go into the prompt. Each chunk comes back with
the fused score and each leg's scores, so the chat can show why it was chosen and the evaluation can study them.

With a reranker (`ingest.rerank`, setting RERANKER_MODEL) hybrid search returns `RERANKER_CANDIDATES` chunks,
the relevance floor drops those below it by their fused score as without one (so "not found" does not change),
and the cross-encoder orders the rest: the best `top_k` reach the chat, each with its reranker score beside the
fused and leg scores. Without a reranker the chunks come in the hybrid order.

A chunk that repeats a higher-ranked one (the overlap of neighbouring chunks, a summary's sentence: `ingest.distinct`,
setting RETRIEVAL_REPEAT_MIN_CHARS) gives its place to the next candidate that does not, so the 3 passages are
3 places; hybrid search returns REPEAT_SPARE candidates per passage for that.

Metadata filters (audience, department, document ids) let a paediatrician see the children's version of a
procedure. A relevance floor on the fused score lets the chat say "not found" when nothing scores above it;
the evaluation report (`python -m research.evaluate`, section "Relevance floor") shows how the scores of relevant and
irrelevant results are distributed, so the floor is chosen from data. Questions longer than the embedder reads
are cut to its maximum, with a warning, and both legs search the same cut text.
"""

import json
import logging
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

import numpy as np
from numpy.typing import NDArray
from transformers import AutoTokenizer, PreTrainedTokenizerBase

from ingest.distinct import distinct
from ingest.rerank import Reranker, pair_text
from ingest.search.types import LegScores, SearchFilter, SearchHit, SearchIndex
from ingest.settings import DEFAULT_ALPHA, DEFAULT_REPEAT_MIN_CHARS, DEFAULT_TOP_K, IngestSettings
from modelstore.production import require_model

log = logging.getLogger(__name__)

PROMPT_ALLOWANCE = 8  # tokens kept free for the query prompt (`query: ` is 3 for e5)
REPEAT_SPARE = (
    3  # candidates per passage while repeats are passed over: room for a passage and its 2 neighbours
)


class EmptyQuestion(ValueError):
    """The question holds nothing to search for."""

    def __init__(self) -> None:
        super().__init__("the question is empty")


class QueryEmbedder(Protocol):
    def embed_query(self, text: str) -> NDArray[np.float32]: ...


@dataclass(frozen=True)
class RetrievedChunk:
    """A chunk for the prompt and the citation: its passage, where it lies, and the scores that ranked it."""

    document_id: str
    title: str
    text: str
    source_path: str
    page_start: int
    page_end: int
    char_start: int
    char_end: int
    score: float
    dense: LegScores | None
    bm25: LegScores | None
    chunk_index: int = 0
    rerank_score: float | None = None  # the cross-encoder's score when a reranker ordered the chunks


@dataclass(frozen=True)
class Retrieval:
    """What a question found; `chunks` is empty when nothing reached the relevance floor ("not found")."""

    question: str
    truncated: bool
    chunks: tuple[RetrievedChunk, ...]

    @property
    def found(self) -> bool:
        return bool(self.chunks)


class QuestionTruncator:
    """Cuts a question to the number of tokens the embedder reads, at a token boundary."""

    def __init__(self, model_folder: str) -> None:
        self._tokenizer: PreTrainedTokenizerBase = AutoTokenizer.from_pretrained(
            model_folder, local_files_only=True
        )
        special = self._tokenizer.num_special_tokens_to_add(pair=False)
        self.max_tokens = (
            _max_sequence_length(Path(model_folder), self._tokenizer) - special - PROMPT_ALLOWANCE
        )

    @classmethod
    def for_model(cls, model_name: str, model_cache: Path) -> "QuestionTruncator":
        return cls(require_model(model_name, model_cache, "EMBEDDING_MODEL"))

    def truncate(self, question: str) -> tuple[str, bool]:
        """The question cut to `max_tokens` tokens, and whether anything was cut."""
        encoding = self._tokenizer(question, add_special_tokens=False, return_offsets_mapping=True)
        offsets = encoding["offset_mapping"]
        if len(offsets) <= self.max_tokens:
            return question, False
        return question[: offsets[self.max_tokens - 1][1]], True


class Retriever:
    """The chat's retriever over any `SearchIndex` (the embedded index or Weaviate)."""

    def __init__(
        self,
        index: SearchIndex,
        embedder: QueryEmbedder,
        truncator: QuestionTruncator,
        *,
        alpha: float = DEFAULT_ALPHA,
        top_k: int = DEFAULT_TOP_K,
        relevance_floor: float = 0.0,
        reranker: Reranker | None = None,
        rerank_candidates: int = 20,
        repeat_min_chars: int = DEFAULT_REPEAT_MIN_CHARS,
    ) -> None:
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"alpha must lie in [0, 1], got {alpha}")
        if top_k < 1:
            raise ValueError(f"top_k must be at least 1, got {top_k}")
        if rerank_candidates < 1:
            raise ValueError(f"rerank_candidates must be at least 1, got {rerank_candidates}")
        if repeat_min_chars < 0:
            raise ValueError(f"repeat_min_chars must not be negative, got {repeat_min_chars}")
        self._index = index
        self._embedder = embedder
        self._truncator = truncator
        self.alpha = alpha
        self.top_k = top_k
        self.relevance_floor = relevance_floor
        self.reranker = reranker
        self.rerank_candidates = rerank_candidates
        self.repeat_min_chars = repeat_min_chars

    @classmethod
    def from_settings(
        cls,
        settings: IngestSettings,
        index: SearchIndex,
        embedder: QueryEmbedder,
        reranker: Reranker | None = None,
    ) -> "Retriever":
        """The retriever the chat uses: α, top k, relevance floor, reranking and repeats as the deployment
        configured them (`reranker` when given, else the one RERANKER_MODEL names, loaded here)."""
        return cls(
            index,
            embedder,
            QuestionTruncator.for_model(settings.embedding_model, settings.model_cache),
            alpha=settings.retrieval_alpha,
            top_k=settings.retrieval_top_k,
            relevance_floor=settings.relevance_floor,
            reranker=reranker or Reranker.from_settings(settings),
            rerank_candidates=settings.reranker_candidates,
            repeat_min_chars=settings.retrieval_repeat_min_chars,
        )

    def retrieve(
        self, question: str, *, top_k: int | None = None, filters: SearchFilter | None = None
    ) -> Retrieval:
        """Embed the question and search; see `search` for the rest."""
        text, truncated = self.prepare(question)
        return self.search(text, self._embedder.embed_query(text), truncated, top_k=top_k, filters=filters)

    def prepare(self, question: str) -> tuple[str, bool]:
        """The text both legs search: stripped, refused when empty, cut to the embedder's maximum."""
        text = question.strip()
        if not text:
            raise EmptyQuestion()
        cut, truncated = self._truncator.truncate(text)
        if truncated:
            log.warning(
                "question of %d characters cut to %d (the embedder reads %d tokens)",
                len(text),
                len(cut),
                self._truncator.max_tokens,
            )
        return cut, truncated

    def search(
        self,
        text: str,
        vector: NDArray[np.float32],
        truncated: bool = False,
        *,
        top_k: int | None = None,
        filters: SearchFilter | None = None,
    ) -> Retrieval:
        """Hybrid search for a prepared question and its vector; chunks below the relevance floor are dropped, a
        reranker orders the first `rerank_candidates` of the rest (those after them follow in hybrid order), and a
        chunk that repeats one before it is passed over.
        """
        limit = top_k or self.top_k
        wanted = limit * REPEAT_SPARE if self.repeat_min_chars else limit
        fetched = max(wanted, self.rerank_candidates) if self.reranker is not None else wanted
        hits = self._index.hybrid_search(text, vector, alpha=self.alpha, limit=fetched, filters=filters)
        chunks = [_retrieved(hit) for hit in hits if hit.score >= self.relevance_floor]
        if self.reranker is not None:
            chunks = reranked(self.reranker, text, chunks, self.rerank_candidates)
        kept = distinct(chunks, _passage, limit, self.repeat_min_chars)
        return Retrieval(question=text, truncated=truncated, chunks=tuple(kept))


def reranked(
    reranker: Reranker, question: str, chunks: list[RetrievedChunk], candidates: int
) -> list[RetrievedChunk]:
    """The first `candidates` chunks in the reranker's order, each with its score, then the others unchanged."""
    head, tail = chunks[:candidates], chunks[candidates:]
    order = reranker.order(question, [pair_text(chunk.title, chunk.text) for chunk in head])
    return [replace(head[i], rerank_score=score) for i, score in order] + tail


def _passage(chunk: RetrievedChunk) -> str:
    return chunk.text


def _retrieved(hit: SearchHit) -> RetrievedChunk:
    record = hit.chunk
    return RetrievedChunk(
        document_id=record.document_id,
        title=record.title,
        text=record.chunk,
        source_path=record.source_path,
        page_start=record.page_start,
        page_end=record.page_end,
        char_start=record.char_start,
        char_end=record.char_end,
        score=hit.score,
        dense=hit.vector,
        bm25=hit.keyword,
        chunk_index=record.chunk_index,
    )


def _max_sequence_length(folder: Path, tokenizer: PreTrainedTokenizerBase) -> int:
    """sentence-transformers' own limit when the folder declares one, else the tokenizer's."""
    config = folder / "sentence_bert_config.json"
    if config.is_file():
        declared = json.loads(config.read_text(encoding="utf-8")).get("max_seq_length")
        if isinstance(declared, int):
            return declared
    return int(tokenizer.model_max_length)
