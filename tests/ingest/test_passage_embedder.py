"""The embedder uses the model's own prompts (e5: `passage: `/`query: `; MiniLM: none) and unit vectors."""

from pathlib import Path

import numpy as np
import pytest
from sentence_transformers import SentenceTransformer

from ingest.embedding import Embedder
from modelstore.cache import resolve_model
from modelstore.provision import provision
from modelstore.registry import ALL_MINILM_L6_V2, MULTILINGUAL_E5_SMALL, REGISTRY

PASSAGE = "Titel: Koorts bij kinderen\nTekst: Geef paracetamol bij koorts boven 38,5 graden."
QUESTION = "welk medicijn bij een kind met koorts"


@pytest.fixture(scope="module")
def e5(model_cache: Path) -> Embedder:
    provision([REGISTRY[MULTILINGUAL_E5_SMALL]], model_cache)
    return Embedder(MULTILINGUAL_E5_SMALL, model_cache, batch_size=2)


def _plain(model: str, cache: Path, texts: list[str]) -> np.ndarray:
    """The model's vectors for exactly these texts, with no prompt added."""
    encoder = SentenceTransformer(resolve_model(model, cache), device="cpu", local_files_only=True)
    return np.asarray(encoder.encode(texts, normalize_embeddings=True))


def test_e5_embeds_passages_and_queries_with_their_prompts(e5: Embedder, model_cache: Path) -> None:
    expected = _plain(MULTILINGUAL_E5_SMALL, model_cache, [f"passage: {PASSAGE}", f"query: {QUESTION}"])

    assert np.allclose(e5.embed_passages([PASSAGE])[0], expected[0], atol=1e-5)
    assert np.allclose(e5.embed_query(QUESTION), expected[1], atol=1e-5)


def test_a_model_without_prompts_embeds_the_text_as_it_is(minilm: Embedder, model_cache: Path) -> None:
    expected = _plain(ALL_MINILM_L6_V2, model_cache, [PASSAGE, QUESTION])

    assert np.allclose(minilm.embed_passages([PASSAGE])[0], expected[0], atol=1e-5)
    assert np.allclose(minilm.embed_query(QUESTION), expected[1], atol=1e-5)


def test_dutch_passages_are_ranked_by_meaning(e5: Embedder) -> None:
    passages = [
        PASSAGE,
        "Titel: Wondzorg\nTekst: Verwissel het verband dagelijks na de operatie.",
        "Titel: Handhygiëne\nTekst: Ontsmet de handen voor en na elk patiëntcontact.",
    ]
    reported: list[int] = []

    vectors = e5.embed_passages(passages, progress=reported.append)
    query = e5.embed_query(QUESTION)

    assert vectors.shape == (3, e5.dimension) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert int(np.argmax(vectors @ query)) == 0
    assert reported == [2, 1]
