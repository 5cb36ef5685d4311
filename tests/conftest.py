"""Fixtures shared by the whole suite: a fresh, migrated database on SQLite and on the real PostgreSQL; the fast
test embedder (MiniLM) from the offline model cache and ingestion settings over both."""

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from sqlalchemy.engine import make_url

from api import database_schema
from ingest.embedding import Embedder
from ingest.settings import IngestSettings
from modelstore.provision import provision
from modelstore.registry import ALL_MINILM_L6_V2, REGISTRY

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# The shipped DTYPE is `auto` (bfloat16 where the CPU multiplies it natively): the suite pins float32, in which
# greedy decoding is token-exact and every CPU computes the same answers; tests of `auto` set it themselves.
os.environ.setdefault("DTYPE", "float32")
# The shipped API loads its chat embedder at start (CHAT_WARM_UP): in the suite every app, and every API a test
# starts as a process, would load one it never asks; the warm-up's own tests turn it on.
os.environ.setdefault("CHAT_WARM_UP", "false")

REPO_ROOT = Path(__file__).resolve().parent.parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files holding tests marked slow (real weights: tens of seconds to minutes each) run first, the rest
    in their usual order after them. `make test` hands whole files to its test processes in this order
    (`--dist loadfile --no-loadscope-reorder`), so the long files start early and the many short ones fill the
    end, rather than one long file running alone while the other process idles."""
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)


POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


@pytest.fixture(autouse=True, scope="session")
def _cost_models_in_a_temporary_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The verification cost models the adaptive tree budget measures are cached for the run, not in the checkout:
    in one folder for all of pytest-xdist's processes, so each model is measured once (its file is written
    atomically), and worker processes started by tests inherit the variable."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = shared / "cost-models"
    folder.mkdir(exist_ok=True)
    os.environ["COST_MODEL_DIR"] = str(folder)


def _admin_conninfo() -> str:
    url = make_url(POSTGRES_URL)
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


@pytest.fixture
def empty_postgres_url() -> Iterator[str]:
    """A new, empty PostgreSQL database on the real server, dropped afterwards."""
    with fresh_postgres_database() as url:
        yield url


@contextmanager
def fresh_postgres_database() -> Iterator[str]:
    """A new, empty PostgreSQL database on the real server while the block runs (also for wider scopes)."""
    name = f"vraagbaak_test_{uuid.uuid4().hex[:12]}"
    try:
        admin = psycopg.connect(_admin_conninfo(), autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as error:
        pytest.fail(f"PostgreSQL is not reachable at {POSTGRES_URL}: {error} (start it: see README)")
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
        finally:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


@pytest.fixture
def empty_sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'vraagbaak.db'}"


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_database_url(request: pytest.FixtureRequest) -> str:
    """The same test against the embedded default (SQLite) and production (PostgreSQL)."""
    fixture = "empty_sqlite_url" if request.param == "sqlite" else "empty_postgres_url"
    return str(request.getfixturevalue(fixture))


@pytest.fixture
def database_url(empty_database_url: str) -> str:
    """A database with the full schema applied through the migrations (never `create_all`)."""
    database_schema.migrate(empty_database_url)
    return empty_database_url


@pytest.fixture(scope="session")
def model_cache() -> Path:
    cache = Path(os.environ.get("MODEL_CACHE", REPO_ROOT / ".models")).resolve()
    provision([REGISTRY[ALL_MINILM_L6_V2]], cache)
    return cache


@pytest.fixture(scope="session")
def minilm(model_cache: Path) -> Embedder:
    return Embedder(ALL_MINILM_L6_V2, model_cache)


@pytest.fixture
def ingest_settings(database_url: str, tmp_path: Path, model_cache: Path) -> IngestSettings:
    return IngestSettings(  # type: ignore[call-arg]
        _env_file=None,
        database_url=database_url,
        index_dir=tmp_path / "index",
        converted_dir=tmp_path / "converted",
        embedding_model=ALL_MINILM_L6_V2,
        model_cache=model_cache,
        weaviate_url=None,
    )


@pytest.fixture
def offline_models(model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The ingest settings of an evaluation run point at the cache whatever the working directory."""
    monkeypatch.setenv("MODEL_CACHE", str(model_cache))
    return model_cache
