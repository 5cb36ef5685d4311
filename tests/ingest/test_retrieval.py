"""The chat's retriever over a real embedded index with a real embedder (all-MiniLM-L6-v2, English)."""

import logging
from pathlib import Path

import pytest

from ingest.chunking import split_into_chunks
from ingest.document_text import single_page
from ingest.embedding import Embedder
from ingest.retrieval import EmptyQuestion, QuestionTruncator, RetrievedChunk, Retriever
from ingest.search.embedded import EmbeddedIndex
from ingest.search.types import ChunkRecord, SearchFilter
from ingest.settings import IngestSettings
from ingest.text_format import indexed_text
from modelstore.registry import ALL_MINILM_L6_V2

DOCUMENTS = {
    "pump-children": (
        "Insulin pump in children",
        ("kinderen",),
        "Replace the infusion set of the insulin pump every two to three days. "
        "Children disconnect the pump for at most one hour.",
    ),
    "insulin-adults": (
        "Subcutaneous insulin in adults",
        ("volwassenen",),
        "Leave the insulin pen needle in the skin for ten seconds after injecting. "
        "An opened insulin pen keeps four weeks at room temperature.",
    ),
    "hand-hygiene": (
        "Hand hygiene",
        ("alle",),
        "Rub the hands with alcohol for twenty to thirty seconds until they are dry. "
        "Gloves do not replace hand hygiene.",
    ),
    "blood-sampling": (
        "Venous blood sampling",
        ("alle",),
        "Leave the tourniquet on for at most one minute. Fill the citrate tube up to the fill line.",
    ),
}


def chunk_records(
    document_id: str, title: str, text: str, size: int, overlap: int, audiences: tuple[str, ...] = ()
) -> list[ChunkRecord]:
    """A one-page document's chunks as ingestion indexes them."""
    return [
        ChunkRecord(
            document_id=document_id,
            chunk_index=chunk.index,
            text=indexed_text(title, chunk.text),
            chunk=chunk.text,
            title=title,
            source_path=f"{document_id}.pdf",
            page_start=chunk.page_start,
            page_end=chunk.page_end,
            char_start=chunk.start,
            char_end=chunk.end,
            audiences=audiences,
        )
        for chunk in split_into_chunks(single_page(text), size=size, overlap=overlap)
    ]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, minilm: Embedder) -> EmbeddedIndex:
    index = EmbeddedIndex(tmp_path_factory.mktemp("index"))
    for document_id, (title, audiences, text) in DOCUMENTS.items():
        records = chunk_records(document_id, title, text, size=100, overlap=20, audiences=audiences)
        index.put_document(records, minilm.embed_passages([record.text for record in records]))
    return index


@pytest.fixture(scope="module")
def truncator(model_cache: Path) -> QuestionTruncator:
    return QuestionTruncator.for_model(ALL_MINILM_L6_V2, model_cache)


@pytest.fixture
def retriever(index: EmbeddedIndex, minilm: Embedder, truncator: QuestionTruncator) -> Retriever:
    return Retriever(index, minilm, truncator)


def test_the_top_three_chunks_come_with_fused_and_per_leg_scores_and_where_they_lie(
    retriever: Retriever,
) -> None:
    retrieval = retriever.retrieve("How long may the tourniquet stay on?")

    assert retrieval.found and not retrieval.truncated
    assert len(retrieval.chunks) == 3
    best = retrieval.chunks[0]
    assert (best.document_id, best.title, best.page_start, best.page_end) == (
        "blood-sampling",
        "Venous blood sampling",
        1,
        1,
    )
    assert "tourniquet" in best.text
    assert single_page(DOCUMENTS["blood-sampling"][2]).text[best.char_start : best.char_end] == best.text
    assert [chunk.score for chunk in retrieval.chunks] == sorted(
        (c.score for c in retrieval.chunks), reverse=True
    )


def test_the_fused_score_weighs_dense_at_seven_tenths_and_bm25_at_three(retriever: Retriever) -> None:
    for chunk in retriever.retrieve("insulin pen needle seconds", top_k=8).chunks:
        dense = chunk.dense.normalised if chunk.dense else 0.0
        bm25 = chunk.bm25.normalised if chunk.bm25 else 0.0
        assert chunk.score == pytest.approx(0.7 * dense + 0.3 * bm25, abs=1e-6)


def test_an_audience_filter_gives_the_version_for_the_patient_group(retriever: Retriever) -> None:
    question = "How long may the insulin pump stay disconnected?"
    children = SearchFilter(audiences=frozenset({"kinderen", "alle"}))
    adults = SearchFilter(audiences=frozenset({"volwassenen", "alle"}))

    assert retriever.retrieve(question, filters=children).chunks[0].document_id == "pump-children"
    assert {c.document_id for c in retriever.retrieve(question, filters=adults, top_k=10).chunks}.isdisjoint(
        {"pump-children"}
    )
    only = SearchFilter(document_ids=frozenset({"hand-hygiene"}))
    assert {c.document_id for c in retriever.retrieve(question, filters=only, top_k=10).chunks} == {
        "hand-hygiene"
    }


def test_below_the_relevance_floor_nothing_is_found(
    index: EmbeddedIndex, minilm: Embedder, truncator: QuestionTruncator
) -> None:
    question = "What is the target INR for a mechanical heart valve?"
    strict = Retriever(index, minilm, truncator, relevance_floor=1.01)
    lenient = Retriever(index, minilm, truncator, relevance_floor=0.0)

    assert not strict.retrieve(question).found
    assert strict.retrieve(question).chunks == ()
    assert lenient.retrieve(question).found


@pytest.mark.parametrize("question", ["", "   \n\t"])
def test_an_empty_question_is_refused(retriever: Retriever, question: str) -> None:
    with pytest.raises(EmptyQuestion, match="empty"):
        retriever.retrieve(question)


def test_a_ten_thousand_character_question_is_cut_to_the_embedder_maximum_with_a_warning(
    retriever: Retriever, truncator: QuestionTruncator, caplog: pytest.LogCaptureFixture
) -> None:
    question = "How long may the tourniquet stay on? " + "Please explain in detail. " * 400
    assert len(question) > 10_000

    with caplog.at_level(logging.WARNING, logger="ingest.retrieval"):
        retrieval = retriever.retrieve(question)

    assert retrieval.truncated and retrieval.found
    assert question.startswith(retrieval.question) and len(retrieval.question) < 2_000
    assert truncator.max_tokens == 256 - 2 - 8
    assert truncator.truncate(retrieval.question) == (retrieval.question, False)
    assert "cut to" in caplog.text


def test_searching_with_a_precomputed_vector_gives_what_retrieve_gives(
    retriever: Retriever, minilm: Embedder
) -> None:
    question = "Gloves instead of hand hygiene?"
    text, truncated = retriever.prepare(question)

    with_vector = retriever.search(text, minilm.embed_query(text), truncated)

    assert with_vector == retriever.retrieve(question)
    assert with_vector.chunks[0].document_id == "hand-hygiene"


def test_settings_outside_their_range_are_refused(
    index: EmbeddedIndex, minilm: Embedder, truncator: QuestionTruncator
) -> None:
    with pytest.raises(ValueError, match="alpha"):
        Retriever(index, minilm, truncator, alpha=1.2)
    with pytest.raises(ValueError, match="top_k"):
        Retriever(index, minilm, truncator, top_k=0)


def test_the_chat_retriever_takes_alpha_top_k_and_floor_from_the_deployment_settings(
    index: EmbeddedIndex, minilm: Embedder, model_cache: Path
) -> None:
    settings = IngestSettings(  # type: ignore[call-arg]
        _env_file=None,
        embedding_model=ALL_MINILM_L6_V2,
        model_cache=model_cache,
        retrieval_alpha=0.0,
        retrieval_top_k=2,
        relevance_floor=0.25,
    )

    question = "How long may the tourniquet stay on?"
    retriever = Retriever.from_settings(settings, index, minilm)
    floorless = Retriever.from_settings(settings.model_copy(update={"relevance_floor": 0.0}), index, minilm)

    assert (retriever.alpha, retriever.top_k, retriever.relevance_floor) == (0.0, 2, 0.25)
    assert len(floorless.retrieve(question).chunks) == 2
    chunks = retriever.retrieve(question).chunks
    assert chunks[0].document_id == "blood-sampling"
    assert all(chunk.dense is None and chunk.bm25 is not None for chunk in chunks)
    assert all(chunk.score >= 0.25 for chunk in chunks)
    assert min(chunk.score for chunk in floorless.retrieve(question).chunks) < 0.25


TOURNIQUET = (
    "Venous blood sampling step by step. Apply the tourniquet a hand's width above the puncture site and leave "
    "it on for at most one minute, because a longer stasis changes the potassium value. Ask the patient to make "
    "a fist but not to pump. Disinfect the skin with alcohol and let it dry completely before the puncture. "
    "Insert the needle at an angle of fifteen to thirty degrees with the bevel up. Fill the citrate tube first "
    "and exactly up to the fill line, then the serum and the EDTA tubes. Release the tourniquet as soon as the "
    "blood flows, remove the needle and press a swab on the puncture site for two minutes."
)


@pytest.fixture(scope="module")
def overlapping(tmp_path_factory: pytest.TempPathFactory, minilm: Embedder) -> EmbeddedIndex:
    """The documents in chunks of 300 characters of which neighbours share up to 200, blood sampling at length."""
    index = EmbeddedIndex(tmp_path_factory.mktemp("overlapping"))
    documents = {document_id: (title, text) for document_id, (title, _, text) in DOCUMENTS.items()}
    documents["blood-sampling"] = ("Venous blood sampling", TOURNIQUET)
    for document_id, (title, text) in documents.items():
        records = chunk_records(document_id, title, text, size=300, overlap=200)
        index.put_document(records, minilm.embed_passages([record.text for record in records]))
    return index


def test_the_passages_are_distinct_places_a_neighbour_sharing_the_overlap_gives_way_to_the_next_candidate(
    overlapping: EmbeddedIndex, minilm: Embedder, truncator: QuestionTruncator
) -> None:
    question = "Which tube is filled first when taking blood?"
    plain = Retriever(overlapping, minilm, truncator, repeat_min_chars=0).retrieve(question).chunks
    chunks = Retriever(overlapping, minilm, truncator).retrieve(question).chunks

    assert shared(plain[0], plain[1]) >= 120  # neighbours: one place twice
    assert len(chunks) == 3 and max(shared(a, b) for a, b in pairs(chunks)) < 120
    assert chunks[:2] == (plain[0], plain[2])  # the next candidate moves up into the repeat's place
    assert "Fill the citrate tube first" in chunks[0].text


def pairs(chunks: tuple[RetrievedChunk, ...]) -> list[tuple[RetrievedChunk, RetrievedChunk]]:
    return [(a, b) for i, a in enumerate(chunks) for b in chunks[i + 1 :]]


def shared(a: RetrievedChunk, b: RetrievedChunk) -> int:
    """Characters of the document two chunks both cover."""
    if a.document_id != b.document_id:
        return 0
    return max(0, min(a.char_end, b.char_end) - max(a.char_start, b.char_start))


def test_the_chat_retriever_passes_over_repeats_as_the_deployment_configured_it(
    overlapping: EmbeddedIndex, minilm: Embedder, model_cache: Path
) -> None:
    settings = IngestSettings(  # type: ignore[call-arg]
        _env_file=None, embedding_model=ALL_MINILM_L6_V2, model_cache=model_cache
    )

    assert Retriever.from_settings(settings, overlapping, minilm).repeat_min_chars == 120
    off = settings.model_copy(update={"retrieval_repeat_min_chars": 0})
    assert Retriever.from_settings(off, overlapping, minilm).repeat_min_chars == 0
    with pytest.raises(ValueError, match="repeat_min_chars"):
        Retriever(
            overlapping,
            minilm,
            QuestionTruncator.for_model(ALL_MINILM_L6_V2, model_cache),
            repeat_min_chars=-1,
        )
