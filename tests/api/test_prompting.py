"""The product's RAG prompt: the bracket template of the source system with the instruction after its role line,
exactly, and the strings ending an answer."""

import pytest

from api.prompting import ANSWER_STOP_STRINGS, build_rag_prompt
from speculative.engine.stopping import StopStringMatcher

EXPECTED = """[begin context]
Jij bent een dokter. Jij kent alle medische procedures van het UZGent.
Beantwoord de vraag in één of twee zinnen, alleen met wat in de documenten staat. Staat het antwoord niet in de \
documenten, antwoord dan "niet gevonden".
[einde context]

[begin documenten]
Titel: Handhygiëne
Tekst: Wrijf 30 seconden.
—
Titel: Handhygiëne
Tekst: Was bij C. difficile met water en zeep.
[einde documenten]

[begin vraag]
hoe lang handen wrijven
[einde vraag]

[begin antwoord]
"""


def test_the_prompt_is_the_source_systems_template_with_chunks_separated_by_a_dash_line() -> None:
    chunks = [
        "Titel: Handhygiëne\nTekst: Wrijf 30 seconden.",
        "Titel: Handhygiëne\nTekst: Was bij C. difficile met water en zeep.",
    ]

    assert build_rag_prompt("hoe lang handen wrijven", chunks) == EXPECTED


def test_the_prompt_ends_where_the_model_starts_answering() -> None:
    assert build_rag_prompt("vraag", ["tekst"]).endswith("[einde vraag]\n\n[begin antwoord]\n")


def test_the_hospital_in_the_role_line_is_configurable() -> None:
    prompt = build_rag_prompt("vraag", ["tekst"], hospital="UZ Voorbeeld")

    assert "Jij bent een dokter. Jij kent alle medische procedures van het UZ Voorbeeld.\n" in prompt


def test_surrounding_whitespace_is_stripped_so_markers_keep_their_own_lines() -> None:
    prompt = build_rag_prompt("  vraag?\n", ["\n eerste \n\n", "tweede\n"])

    assert "[begin documenten]\neerste\n—\ntweede\n[einde documenten]" in prompt
    assert "[begin vraag]\nvraag?\n[einde vraag]" in prompt


def test_without_chunks_the_documents_block_is_empty_and_blank_chunks_are_left_out() -> None:
    assert "[begin documenten]\n[einde documenten]" in build_rag_prompt("vraag", [])
    assert "[begin documenten]\ntekst\n[einde documenten]" in build_rag_prompt("vraag", ["  ", "tekst"])


@pytest.mark.parametrize(("question", "hospital"), [("", "UZGent"), ("  \n", "UZGent"), ("vraag", " ")])
def test_an_empty_question_or_hospital_is_refused(question: str, hospital: str) -> None:
    with pytest.raises(ValueError, match="empty"):
        build_rag_prompt(question, ["tekst"], hospital=hospital)


@pytest.mark.parametrize(
    "continuation",
    [
        "Wrijf 30 seconden.\n[einde antwoord]\n",
        "Wrijf 30 seconden.\n\n[begin vraag]\nen bij kinderen?",
        "Wrijf 30 seconden.\n[begin antwoord]\nWrijf 30 seconden.",
    ],
)
def test_an_answer_ends_at_the_closing_marker_or_at_any_new_block(continuation: str) -> None:
    matcher = StopStringMatcher(ANSWER_STOP_STRINGS)

    text, stopped = matcher.feed(continuation)

    assert stopped
    assert text.strip() == "Wrijf 30 seconden."


def test_ordinary_answer_text_with_brackets_does_not_end_the_answer() -> None:
    matcher = StopStringMatcher(ANSWER_STOP_STRINGS)

    text, stopped = matcher.feed("Dosis [zie tabel 2] en [eind]waarde.")

    assert not stopped
    assert text + matcher.flush() == "Dosis [zie tabel 2] en [eind]waarde."
