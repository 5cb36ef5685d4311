"""The Weaviate collection is configured as the notes require; these read the real client objects, no server."""

from weaviate.classes.config import StopwordsPreset, Tokenization

from ingest.search.types import SearchFilter
from ingest.search.weaviate_index import _hit, chunk_collection_config, weaviate_filter


def _properties() -> dict[str, object]:
    return {prop.name: prop for prop in chunk_collection_config("VraagbaakChunk")["properties"]}


def test_only_the_indexed_text_is_searchable_with_word_tokenization() -> None:
    properties = _properties()

    searchable = {name for name, prop in properties.items() if prop.indexSearchable}
    assert searchable == {"text"}
    assert properties["text"].tokenization == Tokenization.WORD
    assert properties["document_id"].tokenization == Tokenization.FIELD
    assert properties["document_id"].indexFilterable and properties["audiences"].indexFilterable


def test_bm25_defaults_and_dutch_stopwords_replace_the_english_preset() -> None:
    inverted = chunk_collection_config("VraagbaakChunk")["inverted_index_config"]

    assert (inverted.bm25.k1, inverted.bm25.b) == (1.2, 0.75)
    assert inverted.stopwords.preset == StopwordsPreset.NONE
    assert {"de", "het", "een", "van"} <= set(inverted.stopwords.additions)


def test_vectors_are_self_provided_and_compared_by_cosine() -> None:
    vector_config = chunk_collection_config("VraagbaakChunk")["vector_config"]

    assert vector_config.vectorizer.vectorizer.value == "none"
    assert vector_config.vectorIndexConfig.distance.value == "cosine"


def test_filters_combine_the_request_with_the_hidden_versions() -> None:
    combined = weaviate_filter(SearchFilter(audiences=frozenset({"kinderen"})), hidden={"0a1b2c"})

    parts = {(part.target, part.operator.value, tuple(part.value)) for part in combined.filters}
    assert parts == {
        ("version", "ContainsNone", ("0a1b2c",)),
        ("audiences", "ContainsAny", ("kinderen",)),
    }
    assert weaviate_filter(None, hidden=set()) is None


_OBJECT = "6a0b2c5e-27c1-5b34-9d0e-3c1f7a8b9d10"


def _server_explanation(keyword: tuple[float, float], vector: tuple[float, float]) -> str:
    """What Weaviate 1.38 writes (`FusionRelativeScore`): the vector result set comes first in
    `Explorer.Hybrid`, each later set's line goes in front, joined by " - ", each after its own object's
    explanation and a newline; "normalized score" is the weighted value."""
    vector_line = f"Hybrid (Result Set vector,hybridVector) Document {_OBJECT}: original score {vector[0]}, normalized score: {vector[1]}"
    keyword_line = f"Hybrid (Result Set keyword,bm25) Document {_OBJECT}: original score {keyword[0]}, normalized score: {keyword[1]}"
    bm25_own = ", BM25F_handen_frequency:2, BM25F_handen_propLength:57"
    return f"{bm25_own}\n{keyword_line} - \n{vector_line}"


def test_leg_scores_are_read_back_from_the_score_explanation() -> None:
    explanation = _server_explanation(keyword=(2.5, 0.15), vector=(0.81, 0.7))
    properties = {
        "document_id": "d",
        "chunk_index": 0,
        "text": "Titel: t\nTekst: x",
        "chunk": "x",
        "title": "t",
        "source_path": "/d.pdf",
        "page_start": 1,
        "page_end": 1,
        "char_start": 0,
        "char_end": 1,
        "audiences": [],
        "departments": [],
    }

    hit = _hit(properties, 0.85, explanation, alpha=0.7)

    assert hit.keyword is not None and hit.vector is not None
    assert (hit.keyword.raw, round(hit.keyword.normalised, 6)) == (2.5, 0.5)
    assert (hit.vector.raw, round(hit.vector.normalised, 6)) == (0.81, 1.0)
