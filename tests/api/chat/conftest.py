"""The chat on real parts: the sample PDFs ingested with the offline embedder, a worker process with the tiny
model, the API under uvicorn, a recording relay between them, SQLite and PostgreSQL."""

import tempfile
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpx_sse import connect_sse
from sqlalchemy import select
from sqlalchemy.orm import Session

from api.app import create_app
from api.chat.runtime import ChatRuntime, pool_from_settings
from api.chat.settings import ChatSettings
from api.models import Conversation, Message, Role
from api.services import sessions, users
from api.settings import ApiSettings
from ingest.database import get_engine
from ingest.embedding import Embedder
from ingest.metadata import document_tags
from ingest.pdf_reader import open_pdf
from ingest.pipeline import chunk_records, parse_pdf
from ingest.retrieval import Retriever
from ingest.search.embedded import EmbeddedIndex
from ingest.settings import IngestSettings
from modelstore.registry import MULTILINGUAL_E5_SMALL
from research.loopback import worker_process
from tests.api.chat.servers import RecordingRelay, api_server
from tests.api.conftest import PASSWORD
from tests.conftest import REPO_ROOT

SAMPLES = REPO_ROOT / "samples" / "documents"
Event = tuple[str, dict[str, Any]]


@pytest.fixture(scope="session")
def sample_retriever() -> Iterator[Retriever]:
    """The five sample procedures, ingested as ingestion does (tags from their sidecars), searched with the small
    offline embedder these tests' scores were written for (multilingual-e5-small)."""
    settings = IngestSettings(embedding_model=MULTILINGUAL_E5_SMALL)
    embedder = Embedder.from_settings(settings)
    with tempfile.TemporaryDirectory(prefix="vraagbaak-chat-index-") as folder:
        index = EmbeddedIndex(Path(folder), settings.embedding_model)
        for path in sorted(SAMPLES.glob("*.pdf")):
            with open_pdf(path, settings.max_pdf_mb * 1_000_000) as pdf:
                document = parse_pdf(pdf)
            records = chunk_records(
                document, document_tags(path, SAMPLES), settings.chunk_size, settings.chunk_overlap
            )
            index.put_document(records, embedder.embed_passages([record.text for record in records]))
        yield Retriever.from_settings(settings, index, embedder)
        index.close()


@pytest.fixture(scope="session")
def worker_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("worker") / "worker.log"
    with worker_process(log, MAX_NEW_TOKENS="48", DRAFT_METHOD="casd") as url:
        yield url


@pytest.fixture
def relay(worker_url: str) -> Iterator[RecordingRelay]:
    with RecordingRelay(worker_url) as relay:
        yield relay


@pytest.fixture
def chat_settings(relay: RecordingRelay) -> ChatSettings:
    return ChatSettings(worker_urls=[relay.url], worker_health_ttl_seconds=0.0)


@pytest.fixture
def chat_runtime(
    api_settings: ApiSettings, sample_retriever: Retriever, chat_settings: ChatSettings
) -> ChatRuntime:
    """The runtime the app uses; a test may change its settings or pool before asking."""
    return ChatRuntime(
        sample_retriever,
        pool_from_settings(chat_settings),
        chat_settings,
        api_settings.database_url,
        api_settings.hospital_name,
        MULTILINGUAL_E5_SMALL,  # the sample retriever's, whose calibrated gate the app's runtime applies
    )


@pytest.fixture
def chat_url(api_settings: ApiSettings, chat_runtime: ChatRuntime) -> Iterator[str]:
    app = create_app(api_settings)
    app.state.chat = chat_runtime
    with api_server(app) as url:
        yield url


Clinician = Callable[[str], tuple[httpx.Client, int]]


def clinician_token(database_url: str, username: str) -> tuple[str, int]:
    """A clinician's API token (the user made if new) and a new conversation of theirs."""
    with Session(get_engine(database_url)) as db:
        user = users.find_user(db, username) or users.create_user(db, username, PASSWORD, [Role.clinician])
        token = sessions.create_api_token(db, user, "tests", timedelta(days=1))
        conversation = Conversation(user_id=user.id, title="Vragen")
        db.add(conversation)
        db.commit()
        return token, conversation.id


@pytest.fixture
def clinician(chat_url: str, api_settings: ApiSettings) -> Iterator[Clinician]:
    """`clinician("ann")`: a client with ann's bearer token, and a new conversation of hers."""
    clients: list[httpx.Client] = []

    def signed_in(username: str) -> tuple[httpx.Client, int]:
        token, conversation_id = clinician_token(api_settings.database_url, username)
        client = httpx.Client(base_url=chat_url, headers={"Authorization": f"Bearer {token}"}, timeout=120)
        clients.append(client)
        return client, conversation_id

    yield signed_in
    for client in clients:
        client.close()


def ask(client: httpx.Client, conversation_id: int, **body: object) -> list[Event]:
    """Every event of one answer, in order, with its JSON data."""
    with connect_sse(client, "POST", f"/api/conversations/{conversation_id}/messages", json=body) as source:
        assert source.response.status_code == 200, source.response.read()
        return [(event.event, event.json()) for event in source.iter_sse()]


def stored_messages(api_settings: ApiSettings) -> list[Message]:
    with Session(get_engine(api_settings.database_url)) as db:
        return list(db.scalars(select(Message).order_by(Message.id)))
