"""The fast English embedder (all-MiniLM-L6-v2) ready in the model cache, for end-to-end evaluation runs."""

import os
from pathlib import Path

import pytest

from speculative.models.provision import provision
from speculative.models.registry import ALL_MINILM_L6_V2, REGISTRY

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def model_cache() -> Path:
    cache = Path(os.environ.get("MODEL_CACHE", REPO_ROOT / ".models")).resolve()
    provision([REGISTRY[ALL_MINILM_L6_V2]], cache)
    return cache


@pytest.fixture
def offline_models(model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The ingest settings point at the cache whatever the working directory."""
    monkeypatch.setenv("MODEL_CACHE", str(model_cache))
    return model_cache
