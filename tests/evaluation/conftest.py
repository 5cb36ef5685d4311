"""The fast English embedder (all-MiniLM-L6-v2) ready in the model cache, for end-to-end evaluation runs."""

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def offline_models(model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The ingest settings point at the cache whatever the working directory."""
    monkeypatch.setenv("MODEL_CACHE", str(model_cache))
    return model_cache
