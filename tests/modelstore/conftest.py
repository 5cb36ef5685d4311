"""Fixtures for the offline models: the cache (`MODEL_CACHE`, default `.models/`) and models ready in it.

`make test` runs `make models` first; when it did not (a bare `pytest`), the fixtures convert what a test
needs on demand, through the library, once per session.
"""

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from modelstore import resolve_model
from modelstore.provision import provision
from modelstore.registry import REGISTRY

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def model_cache() -> Path:
    return Path(os.environ.get("MODEL_CACHE", REPO_ROOT / ".models"))


@pytest.fixture(scope="session")
def provisioned(model_cache: Path) -> Callable[[str], str]:
    """Make one registry model ready (a no-op when it is) and return what `resolve_model` gives for it."""

    def ready(name: str) -> str:
        provision([REGISTRY[name]], model_cache)
        return resolve_model(name, model_cache)

    return ready
