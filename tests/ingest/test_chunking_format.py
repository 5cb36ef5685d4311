"""Chunks: at most 800 characters with 160 overlap, at natural boundaries, indexed as `Titel/Tekst`."""

import itertools

import pytest

from ingest.chunking import indexed_text, split_into_chunks
from ingest.document_text import DocumentText

SENTENCE = "De verpleegkundige controleert de infuuslijn en noteert de waarden in het dossier. "


@pytest.fixture
def document() -> DocumentText:
    pages = [f"Paragraaf {page}.\n" + SENTENCE * 12 for page in range(1, 5)]
    text = "\n\n".join(pages)
    starts, offset = [], 0
    for page in pages:
        starts.append(offset)
        offset += len(page) + 2
    return DocumentText(text=text, page_starts=tuple(starts))


def test_the_indexed_text_is_exactly_the_title_prefix_and_the_chunk() -> None:
    assert indexed_text("Koorts", "Geef paracetamol.") == "Titel: Koorts\nTekst: Geef paracetamol."


def test_chunks_are_substrings_at_their_offsets_and_at_most_800_long(document: DocumentText) -> None:
    chunks = split_into_chunks(document, 800, 160)

    assert len(chunks) > 4
    for chunk in chunks:
        assert document.text[chunk.start : chunk.end] == chunk.text
        assert len(chunk.text) <= 800


def test_consecutive_chunks_overlap_by_at_most_160_characters(document: DocumentText) -> None:
    chunks = split_into_chunks(document, 800, 160)

    overlaps = [max(0, a.end - b.start) for a, b in itertools.pairwise(chunks)]
    assert any(overlaps)
    assert max(overlaps) <= 160


def test_chunks_end_at_sentence_or_paragraph_boundaries_not_inside_words(document: DocumentText) -> None:
    for chunk in split_into_chunks(document, 800, 160):
        assert chunk.text.endswith(".")


def test_each_chunk_knows_its_page_range(document: DocumentText) -> None:
    for chunk in split_into_chunks(document, 800, 160):
        assert chunk.page_start == document.page_at(chunk.start)
        assert chunk.page_end == document.page_at(chunk.end - 1)
        assert 1 <= chunk.page_start <= chunk.page_end <= 4
