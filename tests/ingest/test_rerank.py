"""Reranking: a real cross-encoder orders the hybrid candidates of a real embedded index; the relevance floor and
each chunk's hybrid scores stay as without it, and with reranking off nothing changes.

The rules hold for any model, so they use a cross-encoder built here from e5's first layer (untrained head, fixed
seed: a real model whose scores are as good as arbitrary).
"""

from pathlib import Path

import huggingface_hub.constants
import pytest

from ingest.embedding import Embedder
from ingest.rerank import Reranker, exit_unless_reranker_loadable
from ingest.retrieval import QuestionTruncator, Retriever
from ingest.search.embedded import EmbeddedIndex
from ingest.search.types import ChunkRecord
from ingest.settings import IngestSettings
from ingest.text_format import indexed_text
from modelstore.production import ModelUnavailable
from modelstore.provision import provision
from modelstore.registry import ALL_MINILM_L6_V2, MULTILINGUAL_E5_SMALL, REGISTRY
from research.reranker import RerankerRecipe, trainable_cross_encoder

QUESTION = "How long may the tourniquet stay on?"
ANSWER = "Release the stasis band after one minute at the latest: longer stasis changes the potassium value."
PASSAGES = {
    "tourniquet-intro": (
        "Blood sampling with a tourniquet",
        "This instruction describes the tourniquet: how long it may stay on, how to clean the tourniquet and "
        "which tourniquet to use for children.",
    ),
    "tourniquet-answer": ("Blood sampling with a tourniquet", ANSWER),
    "hand-hygiene": (
        "Hand hygiene",
        "Rub the hands with alcohol for twenty to thirty seconds until they are dry. Gloves do not replace it.",
    ),
    "insulin-pen": (
        "Subcutaneous insulin",
        "Leave the insulin pen needle in the skin for ten seconds after injecting. An opened pen keeps four weeks.",
    ),
    "infusion": (
        "Peripheral infusion",
        "Replace the infusion line every four days and write the date on the label.",
    ),
}


def records(document_id: str, title: str, text: str) -> list[ChunkRecord]:
    return [
        ChunkRecord(
            document_id=document_id,
            chunk_index=0,
            text=indexed_text(title, text),
            chunk=text,
            title=title,
            source_path=f"{document_id}.pdf",
            page_start=1,
            page_end=1,
            char_start=0,
            char_end=len(text),
        )
    ]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, minilm: Embedder) -> EmbeddedIndex:
    index = EmbeddedIndex(tmp_path_factory.mktemp("index"))
    for document_id, (title, text) in PASSAGES.items():
        chunks = records(document_id, title, text)
        index.put_document(chunks, minilm.embed_passages([chunk.text for chunk in chunks]))
    return index


@pytest.fixture(scope="module")
def truncator(model_cache: Path) -> QuestionTruncator:
    return QuestionTruncator.for_model(ALL_MINILM_L6_V2, model_cache)


@pytest.fixture(scope="module")
def reranker(model_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> Reranker:
    provision([REGISTRY[MULTILINGUAL_E5_SMALL]], model_cache)
    model, tokenizer = trainable_cross_encoder(
        model_cache / "intfloat--multilingual-e5-small", RerankerRecipe(1, 4)
    )
    folder = tmp_path_factory.mktemp("cross-encoder")
    model.merge_and_unload().save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return Reranker(str(folder), model_cache)


def ids(retriever: Retriever, question: str = QUESTION, top_k: int | None = None) -> list[str]:
    return [chunk.document_id for chunk in retriever.retrieve(question, top_k=top_k).chunks]


def test_chunks_keep_their_hybrid_scores_and_show_the_reranker_score_best_first(
    index: EmbeddedIndex, minilm: Embedder, truncator: QuestionTruncator, reranker: Reranker
) -> None:
    hybrid = Retriever(index, minilm, truncator).retrieve(QUESTION, top_k=5).chunks
    reranked = Retriever(index, minilm, truncator, reranker=reranker).retrieve(QUESTION, top_k=5).chunks

    by_id = {chunk.document_id: chunk for chunk in hybrid}
    assert all(chunk.rerank_score is None for chunk in hybrid)
    for chunk in reranked:
        assert (chunk.score, chunk.dense, chunk.bm25) == (
            by_id[chunk.document_id].score,
            by_id[chunk.document_id].dense,
            by_id[chunk.document_id].bm25,
        )
    scores = [chunk.rerank_score for chunk in reranked]
    assert None not in scores
    assert scores == sorted(scores, reverse=True)  # type: ignore[type-var,unused-ignore]


def test_only_the_first_candidates_are_reranked_and_the_rest_follow_in_hybrid_order(
    index: EmbeddedIndex, minilm: Embedder, truncator: QuestionTruncator, reranker: Reranker
) -> None:
    hybrid = ids(Retriever(index, minilm, truncator), top_k=5)
    two = Retriever(index, minilm, truncator, reranker=reranker, rerank_candidates=2, top_k=5)

    chunks = two.retrieve(QUESTION).chunks

    assert {chunk.document_id for chunk in chunks[:2]} == set(hybrid[:2])
    assert [chunk.document_id for chunk in chunks[2:]] == hybrid[2:]
    assert all(chunk.rerank_score is None for chunk in chunks[2:])


def test_fewer_candidates_than_top_k_are_all_returned_in_the_reranker_order(
    tmp_path: Path, minilm: Embedder, truncator: QuestionTruncator, reranker: Reranker
) -> None:
    small = EmbeddedIndex(tmp_path / "small")
    for document_id in ("hand-hygiene", "tourniquet-answer"):
        stored = records(document_id, *PASSAGES[document_id])
        small.put_document(stored, minilm.embed_passages([record.text for record in stored]))

    chunks = Retriever(small, minilm, truncator, reranker=reranker, top_k=3).retrieve(QUESTION).chunks

    assert {chunk.document_id for chunk in chunks} == {"hand-hygiene", "tourniquet-answer"}
    assert [chunk.rerank_score for chunk in chunks] == sorted(
        reranker.scores(QUESTION, [f"{chunk.title}\n{chunk.text}" for chunk in chunks]), reverse=True
    )


def test_an_empty_index_finds_nothing(
    tmp_path: Path, minilm: Embedder, truncator: QuestionTruncator, reranker: Reranker
) -> None:
    empty = EmbeddedIndex(tmp_path / "empty")

    retrieval = Retriever(empty, minilm, truncator, reranker=reranker).retrieve(QUESTION)

    assert not retrieval.found


def test_the_relevance_floor_still_applies_to_the_fused_score(
    index: EmbeddedIndex, minilm: Embedder, truncator: QuestionTruncator, reranker: Reranker
) -> None:
    hybrid = Retriever(index, minilm, truncator).retrieve(QUESTION, top_k=5).chunks
    floor = sorted(chunk.score for chunk in hybrid)[2]  # three chunks reach it
    floored = Retriever(index, minilm, truncator, reranker=reranker, relevance_floor=floor, top_k=5)

    kept = floored.retrieve(QUESTION).chunks

    assert {chunk.document_id for chunk in kept} == {c.document_id for c in hybrid if c.score >= floor}
    assert (
        not Retriever(index, minilm, truncator, reranker=reranker, relevance_floor=1.01)
        .retrieve(QUESTION)
        .found
    )


@pytest.mark.parametrize("setting", ["", "none", "off", "  None "])
def test_with_reranking_off_the_chunks_come_in_the_hybrid_order_exactly(
    index: EmbeddedIndex, minilm: Embedder, model_cache: Path, setting: str
) -> None:
    settings = IngestSettings(  # type: ignore[call-arg,unused-ignore]
        _env_file=None, embedding_model=ALL_MINILM_L6_V2, model_cache=model_cache, reranker_model=setting
    )
    retriever = Retriever.from_settings(settings, index, minilm)
    vector = minilm.embed_query(QUESTION)

    chunks = retriever.search(QUESTION, vector, top_k=5).chunks
    hits = index.hybrid_search(QUESTION, vector, alpha=settings.retrieval_alpha, limit=5)

    assert retriever.reranker is None
    assert [(c.document_id, c.score) for c in chunks] == [(h.chunk.document_id, h.score) for h in hits]


def test_the_settings_reranker_is_loaded_with_its_candidate_count(
    index: EmbeddedIndex, minilm: Embedder, model_cache: Path, reranker: Reranker
) -> None:
    settings = IngestSettings(  # type: ignore[call-arg,unused-ignore]
        _env_file=None,
        embedding_model=ALL_MINILM_L6_V2,
        model_cache=model_cache,
        reranker_model=reranker.model_name,
        reranker_candidates=4,
    )

    retriever = Retriever.from_settings(settings, index, minilm)

    assert retriever.reranker is not None and retriever.reranker.model_name == reranker.model_name
    assert retriever.rerank_candidates == 4


def test_a_model_that_is_nowhere_is_a_clear_error_naming_reranker_model(
    model_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)

    with pytest.raises(ModelUnavailable, match="RERANKER_MODEL='no-such/reranker' cannot be loaded"):
        Reranker("no-such/reranker", model_cache)
    with pytest.raises(ModelUnavailable, match=r"RERANKER_MODEL=.*does not exist"):
        Reranker(str(tmp_path / "missing-folder"), model_cache)
    with pytest.raises(ValueError, match="turns reranking off"):
        Reranker("none", model_cache)


def test_a_service_stops_at_start_naming_reranker_model_only_when_it_names_a_missing_model(
    model_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    missing = IngestSettings(_env_file=None, model_cache=model_cache, reranker_model="no-such/reranker")  # type: ignore[call-arg,unused-ignore]
    off = IngestSettings(_env_file=None, model_cache=model_cache, reranker_model="none")  # type: ignore[call-arg,unused-ignore]

    with pytest.raises(SystemExit, match="error: RERANKER_MODEL='no-such/reranker' cannot be loaded"):
        exit_unless_reranker_loadable(missing)
    exit_unless_reranker_loadable(off)
