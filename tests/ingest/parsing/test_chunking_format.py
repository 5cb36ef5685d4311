"""Chunks: at most 800 characters with 160 overlap, at natural boundaries, indexed as `Titel/Tekst`."""

import itertools

import pytest

from ingest.chunking import kept_lists, split_into_chunks
from ingest.document_text import DocumentText
from ingest.text_format import indexed_text

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


FILLER = "Lees deze folder rustig door en bewaar hem goed, want u heeft hem later nog nodig. "
LEAD_IN = "Neem contact op met de trombosedienst bij de volgende situaties:"
ITEMS = [  # longer than the overlap, so the next chunk's overlap cannot carry the whole list along
    "koorts hoger dan 38 graden C;",
    "diarree of braken binnen een half uur na innemen van de tabletten;",
    "leverziekten, geelzucht of kwaadaardige ziekten;",
    "hartfalen of aandoeningen van de schildklier;",
    "een operatie, tandheelkundige ingreep of een ziekenhuisopname;",
    "zwangerschap of een wens daartoe.",
]


def _list_document(words_before: int) -> DocumentText:
    before = " ".join(["woord"] * words_before) + "."
    text = before + "\n\n" + LEAD_IN + "\n\n" + "\n\n".join(ITEMS) + "\n\n" + FILLER * 6
    return DocumentText(text=text, page_starts=(0,))


@pytest.mark.parametrize("words_before", range(60, 135, 3))
def test_a_lead_in_ending_in_a_colon_stays_in_one_chunk_with_its_items(words_before: int) -> None:
    """Wherever the list falls, one chunk holds the sentence announcing it and all its items."""
    document = _list_document(words_before)
    listed = document.text.index(LEAD_IN), document.text.index(ITEMS[-1]) + len(ITEMS[-1])

    chunks = split_into_chunks(document, 800, 160)

    assert any(chunk.start <= listed[0] and listed[1] <= chunk.end for chunk in chunks)
    for chunk in chunks:
        assert document.text[chunk.start : chunk.end] == chunk.text and len(chunk.text) <= 800


def test_a_list_longer_than_a_chunk_keeps_its_lead_in_with_its_first_items_and_is_still_split() -> None:
    items = [
        f"{number}. Controleer de waarde van meting {number} en noteer die in het dossier."
        for number in range(1, 30)
    ]
    text = FILLER * 8 + "\n" + LEAD_IN + "\n" + "\n".join(items)
    document = DocumentText(text=text, page_starts=(0,))

    chunks = split_into_chunks(document, 800, 160)

    holding_lead_in = [chunk for chunk in chunks if LEAD_IN in chunk.text]
    assert any(items[0] in chunk.text and items[1] in chunk.text for chunk in holding_lead_in)
    assert all(len(chunk.text) <= 800 for chunk in chunks)
    assert any(items[-1] in chunk.text for chunk in chunks)


def test_running_text_after_a_colon_is_not_taken_for_a_list() -> None:
    """A long paragraph after "…:" is not an item: the splitter may cut there as before."""
    paragraph = "Dit is geen opsomming maar gewone lopende tekst over het onderwerp. " * 4
    text = FILLER * 7 + "\n" + "Let op:" + "\n" + paragraph + "\n" + FILLER * 4

    assert kept_lists(text, 640) == text


HEADING = "Waar niet prikken"
PLACES = ["in de buurt van een wond of litteken;", "in het geopereerde been;", "steeds op dezelfde plaats."]


@pytest.mark.parametrize("words_before", range(60, 135, 3))
def test_items_under_a_heading_never_start_a_chunk_without_the_heading(words_before: int) -> None:
    """Wherever the list falls, a chunk holding an item under "Waar niet prikken" holds the heading too: a chunk
    that began with "in het geopereerde been;" would read as where to inject."""
    before = " ".join(["woord"] * words_before) + "."
    text = (
        before
        + "\n"
        + HEADING
        + "\n\n"
        + "\n\n".join(PLACES)
        + "\n\nHoe u zichzelf injecteert\n\n"
        + FILLER * 6
    )
    document = DocumentText(text=text, page_starts=(0,))

    chunks = split_into_chunks(document, 800, 160)

    holding_items = [chunk for chunk in chunks if any(place in chunk.text for place in PLACES)]
    assert holding_items
    assert all(HEADING in chunk.text for chunk in holding_items)
