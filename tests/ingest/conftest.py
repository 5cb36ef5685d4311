"""Ingestion fixtures: real settings on a migrated database (SQLite and PostgreSQL), a real embedder, real PDFs.

all-MiniLM-L6-v2 is the embedder where the choice does not matter (0.5 s to load); it is provisioned into the
model cache on demand when `make models` has not run.
"""

from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.embedding import Embedder
from ingest.run_job import Ingestion
from ingest.search.embedded import EmbeddedIndex
from ingest.settings import IngestSettings
from tests.ingest.ingest_pdfs import text_pdf

REPO_ROOT = Path(__file__).resolve().parents[2]

KOORTS = [
    ["Koorts bij kinderen", "Deze procedure beschrijft de zorg voor kinderen met koorts op de afdeling."],
    ["Werkwijze", "Geef paracetamol 15 mg per kg lichaamsgewicht, maximaal vier keer per dag."],
    ["Alarmsignalen", "Bij een temperatuur boven 40 graden verwittig je onmiddellijk de kinderarts."],
]
WONDZORG = [
    ["Wondzorg na een operatie", "Verwissel het verband dagelijks en beoordeel de wondranden."],
    ["Infectie", "Roodheid, zwelling en pus wijzen op een wondinfectie: neem een kweek af."],
]
SEPSIS = [["Sepsis bij volwassenen", "Herken sepsis aan koorts, een snelle ademhaling en verwardheid."]]


@pytest.fixture
def environment(ingest_settings: IngestSettings, monkeypatch: pytest.MonkeyPatch) -> None:
    """`python -m ingest` reads its settings from the environment, like in production: `ingest_settings`'."""
    monkeypatch.delenv("WEAVIATE_URL", raising=False)
    monkeypatch.setenv("DATABASE_URL", ingest_settings.database_url)
    monkeypatch.setenv("INDEX_DIR", str(ingest_settings.index_dir))
    monkeypatch.setenv("EMBEDDING_MODEL", ingest_settings.embedding_model)
    monkeypatch.setenv("MODEL_CACHE", str(ingest_settings.model_cache))


@pytest.fixture
def index(ingest_settings: IngestSettings) -> Iterator[EmbeddedIndex]:
    opened = EmbeddedIndex(ingest_settings.index_dir, ingest_settings.embedding_model)
    yield opened
    opened.close()


@pytest.fixture
def ingestion(ingest_settings: IngestSettings, index: EmbeddedIndex, minilm: Embedder) -> Ingestion:
    return Ingestion(ingest_settings, index, lambda: minilm)


@pytest.fixture
def procedures(tmp_path: Path) -> Path:
    """A folder of Dutch procedures: one with a metadata sidecar, one in a department sub-folder."""
    folder = tmp_path / "procedures"
    (folder / "intensieve zorg").mkdir(parents=True)
    text_pdf(folder / "koorts.pdf", KOORTS, title="Koorts bij kinderen", footer="Pagina {page} van {pages}")
    (folder / "koorts.meta.json").write_text(
        '{"audience": ["kinderen"], "department": ["Kindergeneeskunde"]}'
    )
    text_pdf(folder / "wondzorg.pdf", WONDZORG, title="Wondzorg na een operatie")
    text_pdf(folder / "intensieve zorg" / "sepsis.pdf", SEPSIS, title="Sepsis bij volwassenen")
    return folder
