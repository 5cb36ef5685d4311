"""The production search index: a Weaviate collection of chunks with self-provided vectors.

Configuration follows what the source study measured and what Weaviate's defaults get wrong for Dutch: BM25
k1 1.2 / b 0.75, `word` tokenization on the searched text only (ids, paths and tags are not searchable),
stopword preset `none` plus a Dutch list (the `en` preset drops "in", "is", "was", "no"), cosine HNSW. Every
hybrid query passes `alpha` and `fusion_type=RELATIVE_SCORE` explicitly (the server default alpha is 0.75).

Weaviate has no transactions, so replacing a document atomically uses a tiny state object listing hidden
document ids, which every query excludes: the new version is imported hidden, then one update of the state
object shows it and hides the version it replaces, which is deleted afterwards. A crash leaves at worst
hidden leftovers, never two versions or none. The state object assumes one writer at a time.
"""

import re
from collections.abc import Collection, Sequence
from dataclasses import asdict
from typing import Any
from urllib.parse import urlsplit

import numpy as np
import weaviate
from numpy.typing import NDArray
from weaviate.classes.aggregate import GroupByAggregate
from weaviate.classes.config import Configure, DataType, Property, Tokenization, VectorDistances
from weaviate.classes.data import DataObject
from weaviate.classes.init import Auth
from weaviate.classes.query import Filter, HybridFusion, MetadataQuery
from weaviate.collections import Collection as WeaviateCollection
from weaviate.collections.classes.filters import _Filters
from weaviate.util import generate_uuid5

from ingest.search.bm25 import K1, B
from ingest.search.tokens import DUTCH_STOPWORDS
from ingest.search.types import (
    CHUNK_NAMESPACE,
    ChunkRecord,
    IndexStats,
    LegScores,
    SearchFilter,
    SearchHit,
    check_hybrid_arguments,
)
from ingest.search.vectors import EF_CONSTRUCTION, EF_MAX, EF_MIN, FLAT_SEARCH_CUTOFF, MAX_CONNECTIONS

DELETE_CAP = 10_000
IMPORT_BATCH = 500
_STATE_ID = generate_uuid5("hidden-documents", str(CHUNK_NAMESPACE))
_LEG_SCORE = re.compile(
    r"Result Set '?(keyword|vector)[^)']*'?\) Document [^:]+: original score ([-\d.e+]+), normalized score: ([-\d.e+]+)"
)


def _text(name: str, *, searchable: bool = False, filterable: bool = False, array: bool = False) -> Property:
    return Property(
        name=name,
        data_type=DataType.TEXT_ARRAY if array else DataType.TEXT,
        tokenization=Tokenization.WORD if searchable else Tokenization.FIELD,
        index_searchable=searchable,
        index_filterable=filterable,
    )


def _number(name: str) -> Property:
    return Property(name=name, data_type=DataType.INT, index_filterable=False, index_range_filters=False)


def chunk_collection_config(name: str) -> dict[str, Any]:
    """The arguments of `collections.create` for the chunk collection (kept apart so tests can read them)."""
    return {
        "name": name,
        "properties": [
            _text("text", searchable=True),
            _text("chunk"),
            _text("title"),
            _text("document_id", filterable=True),
            _text("source_path", filterable=True),
            _text("audiences", filterable=True, array=True),
            _text("departments", filterable=True, array=True),
            _number("chunk_index"),
            _number("page_start"),
            _number("page_end"),
            _number("char_start"),
            _number("char_end"),
        ],
        "vector_config": Configure.Vectors.self_provided(
            vector_index_config=Configure.VectorIndex.hnsw(
                distance_metric=VectorDistances.COSINE,
                max_connections=MAX_CONNECTIONS,
                ef_construction=EF_CONSTRUCTION,
                dynamic_ef_min=EF_MIN,
                dynamic_ef_max=EF_MAX,
                flat_search_cutoff=FLAT_SEARCH_CUTOFF,
            )
        ),
        "inverted_index_config": Configure.inverted_index(
            bm25_k1=K1,
            bm25_b=B,
            stopwords_preset=weaviate.classes.config.StopwordsPreset.NONE,
            stopwords_additions=sorted(DUTCH_STOPWORDS),
        ),
    }


def weaviate_filter(filters: SearchFilter | None, hidden: Collection[str]) -> _Filters | None:
    """The search filter in Weaviate's terms, always excluding hidden (half-replaced) documents."""
    parts = []
    if hidden:
        parts.append(Filter.by_property("document_id").contains_none(sorted(hidden)))
    if filters is not None:
        if filters.document_ids is not None:
            parts.append(Filter.by_property("document_id").contains_any(sorted(filters.document_ids) or [""]))
        if filters.audiences is not None:
            parts.append(Filter.by_property("audiences").contains_any(sorted(filters.audiences) or [""]))
        if filters.departments is not None:
            parts.append(Filter.by_property("departments").contains_any(sorted(filters.departments) or [""]))
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else Filter.all_of(parts)


class WeaviateIndex:
    """A `SearchIndex` on a Weaviate server (≥ 1.27, gRPC reachable)."""

    def __init__(self, url: str, grpc_port: int, api_key: str | None, collection: str) -> None:
        host, port, secure = _split_url(url)
        self._client = weaviate.connect_to_custom(
            http_host=host,
            http_port=port,
            http_secure=secure,
            grpc_host=host,
            grpc_port=grpc_port,
            grpc_secure=secure,
            auth_credentials=Auth.api_key(api_key) if api_key else None,
        )
        self._chunks = self._collection(collection)
        self._state = self._state_collection(f"{collection}State")

    def _collection(self, name: str) -> WeaviateCollection[Any, Any]:
        if not self._client.collections.exists(name):
            self._client.collections.create(**chunk_collection_config(name))
        return self._client.collections.get(name)

    def _state_collection(self, name: str) -> WeaviateCollection[Any, Any]:
        if not self._client.collections.exists(name):
            self._client.collections.create(
                name=name,
                properties=[_text("hidden", array=True)],
                vector_config=Configure.Vectors.self_provided(),
            )
        return self._client.collections.get(name)

    # ------------------------------------------------------------------ state

    def _hidden(self) -> set[str]:
        state = self._state.query.fetch_object_by_id(_STATE_ID)
        return set(state.properties.get("hidden") or []) if state is not None else set()

    def _set_hidden(self, hidden: Collection[str]) -> None:
        properties = {"hidden": sorted(hidden)}
        if self._state.data.exists(_STATE_ID):
            self._state.data.replace(uuid=_STATE_ID, properties=properties)
        else:
            self._state.data.insert(properties=properties, uuid=_STATE_ID)

    # ------------------------------------------------------------------ writing

    def put_document(
        self, chunks: Sequence[ChunkRecord], vectors: NDArray[np.float32], replaces: Collection[str] = ()
    ) -> None:
        document_ids = {chunk.document_id for chunk in chunks}
        if len(document_ids) != 1 or len(vectors) != len(chunks):
            raise ValueError("put_document takes the chunks of exactly one document with one vector each")
        (document_id,) = document_ids
        hidden = self._hidden()
        self._set_hidden(hidden | {document_id})
        self._delete_objects(document_id)
        self._import(chunks, vectors)
        self._set_hidden((hidden - {document_id}) | set(replaces))
        for replaced in replaces:
            self._delete_objects(replaced)
        self._set_hidden(self._hidden() - set(replaces))

    def _import(self, chunks: Sequence[ChunkRecord], vectors: NDArray[np.float32]) -> None:
        objects = [
            DataObject(properties=_properties(chunk), vector=vector.tolist(), uuid=chunk.id)
            for chunk, vector in zip(chunks, np.asarray(vectors, dtype=np.float32), strict=True)
        ]
        for start in range(0, len(objects), IMPORT_BATCH):
            result = self._chunks.data.insert_many(objects[start : start + IMPORT_BATCH])
            if result.has_errors:
                first = next(iter(result.errors.values()))
                raise RuntimeError(f"Weaviate refused {len(result.errors)} chunks: {first.message}")
        stored = self._count(chunks[0].document_id)
        if stored != len(chunks):
            raise RuntimeError(
                f"Weaviate holds {stored} chunks of {chunks[0].document_id}, expected {len(chunks)}"
            )

    def _count(self, document_id: str) -> int:
        result = self._chunks.aggregate.over_all(
            filters=Filter.by_property("document_id").equal(document_id), total_count=True
        )
        return int(result.total_count or 0)

    def _delete_objects(self, document_id: str) -> None:
        """`delete_many` stops at the server's QUERY_MAXIMUM_RESULTS (10,000): repeat until none are left."""
        where = Filter.by_property("document_id").equal(document_id)
        while self._chunks.data.delete_many(where=where).matches >= DELETE_CAP:
            pass

    def delete_documents(self, document_ids: Collection[str]) -> None:
        if not document_ids:
            return
        hidden = self._hidden()
        self._set_hidden(hidden | set(document_ids))
        for document_id in document_ids:
            self._delete_objects(document_id)
        self._set_hidden(self._hidden() - set(document_ids))

    # ------------------------------------------------------------------ reading

    def document_ids(self) -> set[str]:
        groups = self._chunks.aggregate.over_all(
            group_by=GroupByAggregate(prop="document_id", limit=1_000_000), total_count=True
        )
        return {str(group.grouped_by.value) for group in groups.groups} - self._hidden()

    def chunks(self, document_id: str) -> list[ChunkRecord]:
        if document_id in self._hidden():
            return []
        result = self._chunks.query.fetch_objects(
            filters=Filter.by_property("document_id").equal(document_id), limit=DELETE_CAP
        )
        return sorted(
            (_record(item.properties) for item in result.objects), key=lambda record: record.chunk_index
        )

    def stats(self) -> IndexStats:
        total = self._chunks.aggregate.over_all(total_count=True).total_count or 0
        return IndexStats(
            documents=len(self.document_ids()), chunks=int(total), details={"backend": "weaviate"}
        )

    def hybrid_search(
        self,
        query: str,
        vector: NDArray[np.float32],
        *,
        alpha: float,
        limit: int,
        filters: SearchFilter | None = None,
    ) -> list[SearchHit]:
        check_hybrid_arguments(alpha, limit)
        result = self._chunks.query.hybrid(
            query=query,
            vector=np.asarray(vector, dtype=np.float32).tolist(),
            alpha=alpha,
            fusion_type=HybridFusion.RELATIVE_SCORE,
            limit=limit,
            filters=weaviate_filter(filters, self._hidden()),
            return_metadata=MetadataQuery(score=True, explain_score=True),
        )
        return [
            _hit(item.properties, item.metadata.score, item.metadata.explain_score, alpha)
            for item in result.objects
        ]

    def close(self) -> None:
        self._client.close()


def _split_url(url: str) -> tuple[str, int, bool]:
    parts = urlsplit(url)
    secure = parts.scheme == "https"
    return parts.hostname or "localhost", parts.port or (443 if secure else 8080), secure


def _properties(chunk: ChunkRecord) -> dict[str, Any]:
    properties = asdict(chunk)
    properties["audiences"] = list(chunk.audiences)
    properties["departments"] = list(chunk.departments)
    return properties


def _record(properties: dict[str, Any]) -> ChunkRecord:
    values = dict(properties)
    values["audiences"] = tuple(values.get("audiences") or ())
    values["departments"] = tuple(values.get("departments") or ())
    for name in ("chunk_index", "page_start", "page_end", "char_start", "char_end"):
        values[name] = int(values[name])
    return ChunkRecord(**values)


def _hit(properties: dict[str, Any], score: float | None, explanation: str | None, alpha: float) -> SearchHit:
    """A result with each leg's scores read back from Weaviate's explanation (which prints weighted values)."""
    legs: dict[str, LegScores] = {}
    for leg, original, weighted in _LEG_SCORE.findall(explanation or ""):
        weight = alpha if leg == "vector" else 1.0 - alpha
        normalised = float(weighted) / weight if weight else 0.0
        legs["vector" if leg == "vector" else "keyword"] = LegScores(float(original), normalised)
    return SearchHit(_record(properties), float(score or 0.0), legs.get("vector"), legs.get("keyword"))
