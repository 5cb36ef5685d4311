"""Changing EMBEDDING_MODEL: the index knows its model, is never searched or extended with another one's vectors,
and `python -m ingest reembed` switches it (resumably, the old index kept) without parsing a document again."""

from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from ingest.cli import main
from ingest.embedding import Embedder
from ingest.reembed import (
    ReembedError,
    exit_unless_index_matches_embedder,
    previous_folder,
    reembed,
    staging_folder,
)
from ingest.retrieval import Retriever
from ingest.search.embedded import EmbeddedIndex
from ingest.search.types import ChunkRecord
from ingest.settings import IngestSettings
from modelstore.provision import provision
from modelstore.registry import ALL_MINILM_L6_V2, MULTILINGUAL_E5_SMALL, REGISTRY


@pytest.fixture(scope="module")
def e5(model_cache: Path) -> Embedder:
    provision([REGISTRY[MULTILINGUAL_E5_SMALL]], model_cache)
    return Embedder(MULTILINGUAL_E5_SMALL, model_cache)


@pytest.fixture
def e5_settings(tmp_path: Path, model_cache: Path, e5: Embedder) -> IngestSettings:
    """Settings that name e5 over an index in `tmp_path` (no database: re-embedding never touches it)."""
    return IngestSettings(
        _env_file=None,
        index_dir=tmp_path / "index",
        embedding_model=MULTILINGUAL_E5_SMALL,
        model_cache=model_cache,
        weaviate_url=None,
    )


@pytest.mark.usefixtures("environment")
def test_a_changed_embedder_is_refused_until_reembedded_then_searches_with_the_new_model(
    procedures: Path,
    ingest_settings: IngestSettings,
    e5: Embedder,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", str(procedures)]) == 0
    e5_settings = ingest_settings.model_copy(update={"embedding_model": MULTILINGUAL_E5_SMALL})
    index_dir = e5_settings.index_dir
    before = EmbeddedIndex(index_dir, create=False)
    chunks_before = {document: before.chunks(document) for document in before.document_ids()}
    before.close()
    monkeypatch.setenv("EMBEDDING_MODEL", MULTILINGUAL_E5_SMALL)
    capsys.readouterr()

    with pytest.raises(
        SystemExit, match="built with 'sentence-transformers/all-MiniLM-L6-v2', but EMBEDDING_MODEL"
    ):
        main(["run", str(procedures)])
    with pytest.raises(SystemExit, match="python -m ingest reembed"):
        exit_unless_index_matches_embedder(e5_settings)

    assert main(["reembed"]) == 0
    assert "re-embedded 3 documents" in capsys.readouterr().out

    exit_unless_index_matches_embedder(e5_settings)
    after = EmbeddedIndex(index_dir, MULTILINGUAL_E5_SMALL, create=False)
    assert after.built_with() == MULTILINGUAL_E5_SMALL
    assert {document: after.chunks(document) for document in after.document_ids()} == chunks_before
    kept = EmbeddedIndex(previous_folder(index_dir, ALL_MINILM_L6_V2), create=False)
    assert kept.built_with() == ALL_MINILM_L6_V2 and kept.document_ids() == set(chunks_before)
    assert not staging_folder(index_dir).exists()
    retriever = Retriever.from_settings(e5_settings, after, e5)
    found = retriever.retrieve("Hoeveel paracetamol krijgt een kind met koorts?")
    assert found.chunks[0].title == "Koorts bij kinderen"

    assert main(["reembed"]) == 0
    assert "nothing to do" in capsys.readouterr().out
    assert main(["run", str(procedures)]) == 0
    assert "0 indexed, 3 skipped" in capsys.readouterr().out


def test_a_killed_reembedding_resumes_without_embedding_a_finished_document_again(
    e5_settings: IngestSettings, e5: Embedder, minilm: Embedder
) -> None:
    index = EmbeddedIndex(e5_settings.index_dir, ALL_MINILM_L6_V2)
    index.put_document(*_document("a", minilm))
    index.put_document(*_document("b", minilm))
    index.put_document(*_document("c", minilm))

    def killed_after_the_first(done: int, total: int) -> None:
        if done == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        reembed(e5_settings, lambda: e5, killed_after_the_first)
    assert EmbeddedIndex(e5_settings.index_dir, create=False).built_with() == ALL_MINILM_L6_V2
    summary = reembed(e5_settings, lambda: e5)

    assert (summary.documents, summary.built_with) == (2, ALL_MINILM_L6_V2)
    assert EmbeddedIndex(e5_settings.index_dir, create=False).document_ids() == {"a", "b", "c"}


def test_an_unfinished_reembedding_with_another_model_is_never_mixed_into(
    e5_settings: IngestSettings, e5: Embedder, minilm: Embedder
) -> None:
    EmbeddedIndex(e5_settings.index_dir, ALL_MINILM_L6_V2).put_document(*_document("a", minilm))
    EmbeddedIndex(staging_folder(e5_settings.index_dir), "another/model").put_document(
        *_document("a", minilm)
    )

    with pytest.raises(ReembedError, match="unfinished re-embedding with 'another/model'"):
        reembed(e5_settings, lambda: e5)
    assert EmbeddedIndex(e5_settings.index_dir, create=False).built_with() == ALL_MINILM_L6_V2


def test_weaviate_and_a_missing_index_are_clear_errors(e5_settings: IngestSettings, e5: Embedder) -> None:
    with pytest.raises(ReembedError, match="no search index in"):
        reembed(e5_settings, lambda: e5)
    weaviate = e5_settings.model_copy(update={"weaviate_url": "http://weaviate:8080"})
    with pytest.raises(ReembedError, match="new collection"):
        reembed(weaviate, lambda: e5)


def _document(document_id: str, embedder: Embedder) -> tuple[list[ChunkRecord], NDArray[np.float32]]:
    text = f"Tekst van procedure {document_id}."
    record = ChunkRecord(
        document_id,
        0,
        f"Titel: Procedure {document_id}\nTekst: {text}",
        text,
        document_id,
        f"{document_id}.pdf",
        1,
        1,
        0,
        len(text),
    )
    return [record], embedder.embed_passages([record.text])
