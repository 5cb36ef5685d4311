"""The embedder uses the model's own prompts (e5: `passage: `/`query: `; MiniLM: none) and unit vectors."""

from pathlib import Path

import numpy as np
import pytest

from ingest.embedding import Embedder
from speculative.models.provision import provision
from speculative.models.registry import MULTILINGUAL_E5_SMALL, REGISTRY


@pytest.fixture(scope="module")
def e5(model_cache: Path) -> Embedder:
    provision([REGISTRY[MULTILINGUAL_E5_SMALL]], model_cache)
    return Embedder(MULTILINGUAL_E5_SMALL, model_cache, batch_size=2)


def test_e5_embeds_passages_and_queries_with_their_prompts(e5: Embedder) -> None:
    assert (e5.passage_prompt, e5.query_prompt) == ("passage", "query")


def test_a_model_without_prompts_gets_none(minilm: Embedder) -> None:
    assert (minilm.passage_prompt, minilm.query_prompt) == (None, None)


def test_dutch_passages_are_ranked_by_meaning(e5: Embedder) -> None:
    passages = [
        "Titel: Koorts bij kinderen\nTekst: Geef paracetamol bij koorts boven 38,5 graden.",
        "Titel: Wondzorg\nTekst: Verwissel het verband dagelijks na de operatie.",
        "Titel: Handhygiëne\nTekst: Ontsmet de handen voor en na elk patiëntcontact.",
    ]
    reported: list[int] = []

    vectors = e5.embed_passages(passages, progress=reported.append)
    query = e5.embed_query("welk medicijn bij een kind met koorts")

    assert vectors.shape == (3, e5.dimension) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert int(np.argmax(vectors @ query)) == 0
    assert reported == [2, 1]
