"""The headings above a chunk, named in its indexed text after the document's title (`ingest.headings`)."""

from ingest.headings import section_paths
from ingest.text_format import indexed_text

LEAFLET = """Liesbreukoperatie

Voor de behandeling van je liesbreuk word je opgenomen.

Gebruik je bloedverdunners?

Meld dit bij de intake. Stop niet zelf.

1. INR 2.0 - 3.0

2. INR 2.5 - 3.5

Mogelijke risico's en complicaties

Een nabloeding komt weinig voor.
"""

MODULE = """2 Behandeling van een acute episode

2.4 Relaps

2.4.5 Behandeling van een relaps

Steroïden worden hoog gedoseerd gegeven.

Plasmaferese

Bij onvoldoende effect.

3 Ziekteremmers

3.4.3 Concordantie

De verpleegkundige speelt een rol.
"""


def at(text: str, phrase: str) -> int:
    return text.index(phrase)


def test_a_chunk_is_in_the_section_of_the_last_heading_above_it() -> None:
    starts = [at(LEAFLET, "Voor de behandeling"), at(LEAFLET, "Meld dit"), at(LEAFLET, "Een nabloeding")]

    assert section_paths(LEAFLET, starts, title="Liesbreukoperatie") == [
        "",  # the heading that repeats the title is named already
        "Gebruik je bloedverdunners?",
        "Mogelijke risico's en complicaties",
    ]


def test_a_numbered_list_item_and_a_sentence_without_its_full_stop_are_no_headings() -> None:
    text = "Intro\n\n1. INR 2.0 - 3.0\n\nDe afspraak wordt vóór 13.00 uur ingepland op de afdeling endoscopie\n\nTekst.\n"

    assert section_paths(text, [at(text, "Tekst.")]) == ["Intro"]


def test_numbered_sections_nest_and_a_new_number_leaves_the_sections_it_does_not_belong_to() -> None:
    starts = [at(MODULE, "Steroïden"), at(MODULE, "Bij onvoldoende"), at(MODULE, "De verpleegkundige")]

    assert section_paths(MODULE, starts) == [
        "2.4 Relaps › 2.4.5 Behandeling van een relaps",  # the innermost two of three
        "2.4.5 Behandeling van een relaps › Plasmaferese",  # an unnumbered sub-heading
        "3 Ziekteremmers › 3.4.3 Concordantie",  # 2.4.5 and Plasmaferese left behind
    ]


def test_a_table_row_or_a_line_inside_a_paragraph_is_no_heading() -> None:
    text = "Dosering\n\nDag | Ochtend | Avond\nEen regel\nOok geen kop\n\nTekst.\n"

    assert section_paths(text, [at(text, "Tekst.")]) == ["Dosering"]


def test_the_section_is_named_after_the_title_in_the_indexed_text() -> None:
    assert indexed_text("Liesbreukoperatie", "Meld dit.", "Gebruik je bloedverdunners?") == (
        "Titel: Liesbreukoperatie › Gebruik je bloedverdunners?\nTekst: Meld dit."
    )
    assert indexed_text("Liesbreukoperatie", "Meld dit.") == "Titel: Liesbreukoperatie\nTekst: Meld dit."
