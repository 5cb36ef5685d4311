"""The quote and the support check on the sample procedures' passages, and on the bad input they must survive:
no crash, and no quote rather than a wrong one."""

import pytest

from api.answers.quotes import select_quote
from api.answers.support import support
from ingest.pdf_reader import open_pdf
from ingest.pipeline import parse_pdf
from tests.conftest import REPO_ROOT

HANDHYGIENE = "Handhygiëne en handalcohol"


def passage(name: str, start: str, end: str) -> str:
    """A passage of a sample procedure's real text, from `start` up to and including `end`."""
    with open_pdf(REPO_ROOT / "samples" / "documents" / name, 50_000_000) as pdf:
        text = parse_pdf(pdf).text.text
    begin = text.index(start)
    return text[begin : text.index(end, begin) + len(end)]


@pytest.fixture(scope="module")
def sources() -> list[dict[str, object]]:
    return [
        {
            "document_id": "hh",
            "title": HANDHYGIENE,
            "page_start": 2,
            "page_end": 2,
            "chunk_index": 3,
            "passage": passage(
                "handhygiene.pdf", "5. Handalcohol: werkwijze", "Handen wassen duurt 40 tot 60 seconden."
            ),
            "score": 0.9,
        }
    ]


def test_the_quote_is_the_step_that_answers_verbatim_with_its_offsets(
    sources: list[dict[str, object]],
) -> None:
    quote = select_quote("hoe lang handen wrijven met handalcohol", sources)

    assert quote is not None
    assert quote["text"] == "3. Wrijf de handen 20 tot 30 seconden in tot ze volledig droog zijn."
    assert str(sources[0]["passage"])[quote["start"] : quote["end"]] == quote["text"]
    assert (quote["source_index"], quote["document_id"], quote["title"]) == (0, "hh", HANDHYGIENE)
    assert (quote["page_start"], quote["page_end"]) == (2, 2)
    assert 0 < quote["score"] <= 1


def test_a_sentence_with_the_passages_numbers_is_supported_and_cited(
    sources: list[dict[str, object]],
) -> None:
    checked = support("Wrijf de handen 20 tot 30 seconden in tot ze droog zijn.", sources)

    [sentence] = checked.sentences
    assert sentence["supported"] is True and sentence["citation"] == 1
    passage_text = str(sources[0]["passage"])
    assert passage_text[sentence["source_start"] : sentence["source_end"]] == (
        "3. Wrijf de handen 20 tot 30 seconden in tot ze volledig droog zijn."
    )
    assert checked.warning is False


def test_the_same_sentence_with_other_numbers_is_not_supported(sources: list[dict[str, object]]) -> None:
    checked = support("Wrijf de handen 40 tot 60 seconden in tot ze droog zijn.", sources)

    [sentence] = checked.sentences
    assert sentence["supported"] is False
    assert (sentence["citation"], sentence["source_start"], sentence["source_end"]) == (None, None, None)
    assert checked.warning is True


def test_decimal_comma_and_point_are_one_number() -> None:
    glucagon = [
        {"title": "Insulinepomp", "passage": "Geef glucagon: 0,5 mg i.m. bij een gewicht onder 25 kg."}
    ]

    assert support("Geef 0.5 mg glucagon i.m. onder 25 kg.", glucagon).sentences[0]["supported"] is True
    assert support("Geef 5 mg glucagon i.m. onder 25 kg.", glucagon).sentences[0]["supported"] is False


def test_offsets_of_answer_sentences_point_into_the_answer(sources: list[dict[str, object]]) -> None:
    answer = "Handalcohol heeft geen effect op sporen van C. difficile. Het werkt op de huid en de sporen van norovirus."
    checked = support(answer, sources)

    assert [answer[s["start"] : s["end"]] for s in checked.sentences] == [
        s["text"] for s in checked.sentences
    ]
    assert len(checked.sentences) == 2


def test_an_empty_answer_has_no_sentences_and_no_warning(sources: list[dict[str, object]]) -> None:
    assert support("", sources).sentences == []
    assert support("", sources).warning is False


def test_an_answer_cut_mid_sentence_by_stop_or_the_repetition_guard(sources: list[dict[str, object]]) -> None:
    cut = "Wrijf de handen 20 tot 30 seconden in. Wrijf de handen 20 tot 30 seconden in. Wrijf de hand"

    checked = support(cut, sources)

    assert [s["supported"] for s in checked.sentences] == [True, True, True]
    assert checked.sentences[-1]["text"] == "Wrijf de hand"


def test_a_question_in_english_gets_no_quote(sources: list[dict[str, object]]) -> None:
    assert select_quote("How long should I rub my hands?", sources) is None


def test_a_question_without_content_words_gets_no_quote(sources: list[dict[str, object]]) -> None:
    assert select_quote("hoe lang?", sources) is None


def test_no_sources_no_quote_and_nothing_supported() -> None:
    assert select_quote("hoe lang handen wrijven", []) is None
    assert [s["supported"] for s in support("Wrijf 20 seconden.", []).sentences] == [False]


def test_a_table_without_sentence_boundaries_gives_no_quote() -> None:
    table = " ".join(f"handalcohol wrijven rij {i} {i} seconden" for i in range(200))
    sources = [{"title": "Tabel", "passage": table, "document_id": "t", "page_start": 1, "page_end": 1}]

    assert select_quote("hoe lang handen wrijven met handalcohol", sources) is None


def test_very_long_passages_are_handled(sources: list[dict[str, object]]) -> None:
    long = [{**sources[0], "passage": "\n".join([str(sources[0]["passage"])] * 200)}]

    quote = select_quote("hoe lang handen wrijven met handalcohol", long)
    checked = support("Wrijf de handen 20 tot 30 seconden in.", long)

    assert quote is not None and quote["text"].startswith("3. Wrijf de handen 20 tot 30 seconden")
    assert checked.sentences[0]["supported"] is True


@pytest.fixture(scope="module")
def rules() -> list[dict[str, object]]:
    return [
        {
            "document_id": "hh",
            "title": HANDHYGIENE,
            "page_start": 1,
            "page_end": 1,
            "chunk_index": 1,
            "passage": passage("handhygiene.pdf", "Draag geen ringen", "tijdens de zorg."),
            "score": 0.9,
        }
    ]


def test_a_sentence_that_says_the_opposite_of_the_passage_is_not_supported(
    rules: list[dict[str, object]],
) -> None:
    """The 270M model answered "Ja, ring dragen tijdens zorg." next to "Draag geen ringen …": the same words, the
    opposite claim. A negation on one side only is not support."""
    opposite = support("Ja, ring dragen tijdens zorg.", rules)
    same = support("Draag geen ringen tijdens de zorg.", rules)

    assert [sentence["supported"] for sentence in opposite.sentences] == [False]
    assert [sentence["supported"] for sentence in same.sentences] == [True]


INJECTION_SITES = (  # a chunk of a real leaflet (Haga, Fraxiparine), as ingestion cleans it
    "Fraxiparine® wordt vlak onder de huid ingespoten. Doe dit aan de voor- of zijkant van uw buik. Laat daarbij 5 "
    "centimeter rondom uw navel vrij. U kunt ook in uw bovenbeen spuiten.\n"
    "Waar niet prikken\n\n"
    "in de buurt van een wond of litteken;\n\n"
    "in het geopereerde been;\n\n"
    "steeds op dezelfde plaats, maar wissel af (buik, been, buik).\n\n"
    "Hoe u zichzelf injecteert"
)


def test_items_under_a_negated_heading_do_not_support_them_as_what_to_do() -> None:
    """Asked where to inject, the 270M model listed the items under "Waar niet prikken" as the places to inject:
    the items alone hold its words, but they are places not to inject, so they support only the negated claim."""
    sources = [{"document_id": "frax", "title": "Fraxiparine® (nadroparine)", "passage": INJECTION_SITES}]

    inverted = support("Prik in de buurt van een wond of litteken. Prik in het geopereerde been.", sources)
    negated = support("Prik niet in het geopereerde been.", sources)
    right = support("U kunt ook in uw bovenbeen spuiten.", sources)

    assert [sentence["supported"] for sentence in inverted.sentences] == [False, False]
    assert inverted.warning
    assert [sentence["supported"] for sentence in negated.sentences] == [True]
    assert [sentence["supported"] for sentence in right.sentences] == [True]


def test_the_items_under_a_negated_heading_answer_a_negated_question() -> None:
    """Asked where not to inject, the items themselves are the answer: the question's negation is theirs."""
    sources = [{"document_id": "frax", "title": "Fraxiparine® (nadroparine)", "passage": INJECTION_SITES}]

    listed = support(
        "In de buurt van een wond of litteken. In het geopereerde been.",
        sources,
        question="waar mag je niet prikken met fraxiparine",
    )

    assert [sentence["supported"] for sentence in listed.sentences] == [True, True]


def test_an_item_under_a_negated_heading_is_quoted_with_the_heading() -> None:
    """An item quoted alone ("in het geopereerde been;") would read as where to inject: the quote starts at
    "Waar niet prikken"."""
    sources = [{"document_id": "frax", "title": "Fraxiparine® (nadroparine)", "passage": INJECTION_SITES}]

    quote = select_quote("moet ik in het geopereerde been prikken?", sources)

    assert quote is not None
    assert quote["text"].startswith("Waar niet prikken")
    assert "in het geopereerde been;" in quote["text"]
    assert INJECTION_SITES[quote["start"] : quote["end"]] == quote["text"]


def test_a_heading_over_a_list_is_quoted_with_its_items() -> None:
    """ "Waar niet prikken" answers where not to inject; a heading is context for the sentences under it, but one
    that announces a list is the list's first line (it was "Fraxiparine® wordt vlak onder de huid ingespoten.")."""
    sources = [{"document_id": "frax", "title": "Fraxiparine® (nadroparine)", "passage": INJECTION_SITES}]

    quote = select_quote("waar mag je niet prikken met fraxiparine", sources)

    assert quote is not None
    assert (
        quote["text"]
        == INJECTION_SITES[
            INJECTION_SITES.index("Waar niet prikken") : INJECTION_SITES.index(" (buik, been, buik).") + 20
        ]
    )


def test_a_question_over_a_list_is_quoted_with_its_items_and_a_heading_over_prose_is_never_quoted() -> None:
    passage = (
        "Wanneer moet u contact met uw (huis)arts opnemen?\n\n"
        "uw kind koorts krijgt (temperatuur van 39.0 - 39,5 graden);\n\n"
        "de benauwdheid niet minder wordt na de pufs.\n\n"
        "Schoonmaken\n\n"
        "Maak de voorzetkamer elke week schoon met een sopje."
    )

    fever = select_quote("bij welke temperatuur contact opnemen met de arts", [_plain(passage, "Salbutamol")])
    cleaning = select_quote("voorzetkamer schoonmaken", [_plain(passage, "Salbutamol")])

    assert fever is not None and fever["text"] == passage[: passage.index(" na de pufs.") + 12]
    assert cleaning is not None and cleaning["text"] == "Maak de voorzetkamer elke week schoon met een sopje."


def test_a_sentence_that_only_repeats_the_question_is_not_cited(sources: list[dict[str, object]]) -> None:
    """The tiny model often starts by echoing the question; its words are in the passage, but it claims nothing, so
    a citation would vouch for nothing. A sentence asking something claims nothing either."""
    question = "Hoe lang moet ik mijn handen wrijven met handalcohol?"
    checked = support(
        "Hoe lang moet ik mijn handen wrijven met handalcohol. Wrijf de handen 20 tot 30 seconden in tot ze droog "
        "zijn. Wrijf ik de handen 20 tot 30 seconden in?",
        sources,
        question=question,
    )

    assert [sentence["supported"] for sentence in checked.sentences] == [False, True, False]


def _source(name: str, title: str, start: str, end: str) -> dict[str, object]:
    return {
        "document_id": name,
        "title": title,
        "page_start": 1,
        "page_end": 1,
        "passage": passage(name, start, end),
    }


def test_a_question_word_in_another_form_and_a_when_question_quote_the_lead_in_and_its_items(
    sources: list[dict[str, object]],
) -> None:
    """ "wassen" is the step's "Was"; "wanneer" asks for the cases the lead-in announces (it was the duration
    sentence "Handen wassen duurt 40 tot 60 seconden." before)."""
    quote = select_quote("handen wassen ipv handalcohol wanneer", sources)

    assert quote is not None
    assert quote["text"] == (
        "Was de handen met water en vloeibare zeep in plaats van ze te ontsmetten:\n"
        "- als de handen zichtbaar vuil of nat zijn;\n"
        "- na contact met een patiënt met (vermoeden van) C. difficile of norovirus;\n\n"
        "- na toiletbezoek."
    )  # the sentence after the list ("Handen wassen duurt 40 tot 60 seconden.") is no item of it


def test_a_duration_question_prefers_the_sentence_with_a_unit_of_time() -> None:
    """ "max tijd stuwband" is answered by "1 minuut", not by the "7 à 10 cm" of the sentence before."""
    bloedafname = _source(
        "bloedafname.pdf", "Bloedafname", "Leg de stuwband", "Laat de stuwband maximaal 1 minuut zitten."
    )

    quote = select_quote("max tijd stuwband?", [bloedafname])

    assert quote is not None and quote["text"] == "Laat de stuwband maximaal 1 minuut zitten."


def test_a_question_for_a_telephone_number_prefers_the_sentence_that_gives_one() -> None:
    """Both sentences hold "Endoscopiecentrum"; the one with more of the question's words has no number."""
    passage = (
        "Uw huisarts heeft u doorverwezen voor een coloscopie op het Endoscopiecentrum van het HagaZiekenhuis "
        "Zoetermeer.\n\nHet Endoscopiecentrum is bereikbaar (079) 346 25 09 van maandag t/m vrijdag van 8.00 tot "
        "16.30."
    )

    quote = select_quote("tel.nr endoscopiecentrum Zoetermeer", [_plain(passage, "Coloscopie")])
    place = select_quote("endoscopiecentrum Zoetermeer", [_plain(passage, "Coloscopie")])

    assert quote is not None and quote["text"].startswith(
        "Het Endoscopiecentrum is bereikbaar (079) 346 25 09"
    )
    assert place is not None and place["text"].startswith("Uw huisarts heeft u doorverwezen")


def test_a_number_the_question_names_picks_its_table_row() -> None:
    pump = _source(
        "insulinepomp-kinderen.pdf",
        "Insulinepomp bij kinderen met diabetes type 1",
        "Bloedketonen",
        "DKA-protocol",
    )

    quote = select_quote("ketonen 1,5 bij kind met pomp, wat doen?", [pump])

    assert quote is not None
    assert (
        quote["text"]
        == "1,5–2,9 mmol/L | Risico op DKA | Zoals hierboven en onmiddellijk de kinderarts verwittigen"
    )


def _plain(passage: str, title: str = "Folder") -> dict[str, object]:
    return {"document_id": "d", "title": title, "page_start": 1, "page_end": 1, "passage": passage}


def test_a_table_caption_or_a_contents_line_is_never_the_quote() -> None:
    """They repeat the question's words ("negatief", "stalen") and answer nothing; the row does."""
    passage = (
        "Tab. 1 Detectie van influenza virussen: negatieve en positieve stalen per week\n"
        "1.2 Negatieve stalen en positieve stalen ........ 15\n"
        "Negatief | 269 stalen | 41%"
    )

    quote = select_quote("hoeveel stalen waren negatief?", [_plain(passage)])

    assert quote is not None and quote["text"] == "Negatief | 269 stalen | 41%"


def test_a_lead_in_with_unmarked_short_items_is_quoted_with_them_and_not_with_the_paragraph_after() -> None:
    passage = (
        "Signalen die wijzen op benauwdheid bij uw kind zijn:\n\n"
        "snelle ademhaling\n\nneusvleugelen\n\nintrekkingen in de hals, of onder/tussen de ribben\n\n"
        "Als u twijfelt of uw kind benauwd is, belt u dan altijd met de afdeling of de huisartsenpost:"
        " zij kijken dan samen met u wat er nodig is en of uw kind gezien moet worden door een arts."
    )

    quote = select_quote("signalen benauwdheid kind", [_plain(passage)])

    assert quote is not None
    assert quote["text"].startswith("Signalen die wijzen op benauwdheid")
    assert quote["text"].endswith("intrekkingen in de hals, of onder/tussen de ribben")


def test_a_sentence_is_quoted_with_the_next_one_of_its_paragraph_when_that_one_adds_question_words() -> None:
    passage = (
        "Bij longpatiënten kan een infectie de longfunctie blijvend verminderen. Hierbij vormt een aantal "
        "bacteriën een risico. Dit zijn vooral de bacteriën Pseudomonas aeroginosa en Burholderia cepacia.\n\n"
        "Longpatiënten krijgen daarom een eigen kamer. Bacteriën verspreiden zich via handen en hoesten."
    )

    quote = select_quote("welke bacterien zijn vooral een risico voor longpatienten?", [_plain(passage)])

    assert quote is not None
    assert quote["text"] == (
        "Hierbij vormt een aantal bacteriën een risico. Dit zijn vooral de bacteriën Pseudomonas aeroginosa en "
        "Burholderia cepacia."
    )
    assert passage[quote["start"] : quote["end"]] == quote["text"]


def test_the_next_sentence_is_not_added_when_it_adds_no_question_word_or_starts_a_paragraph() -> None:
    passage = (
        "De pufs werken na 10 - 15 minuten. Het effect is dan maximaal.\n\n"
        "Salbutamol geeft minder benauwdheid binnen 15 minuten."
    )

    alone = select_quote("hoe snel werken de pufs", [_plain(passage)])
    across_paragraphs = select_quote("hoe snel werken de pufs tegen benauwdheid", [_plain(passage)])

    assert alone is not None and alone["text"] == "De pufs werken na 10 - 15 minuten."
    assert across_paragraphs is not None and "\n\n" not in across_paragraphs["text"]


def test_a_list_item_is_quoted_without_the_next_item() -> None:
    passage = (
        "Aandachtspunten:\n"
        "- Loskoppelen zonder vervanging van insuline mag maximaal 1 uur.\n"
        "- Koppel pomp en sensor los vóór een MRI."
    )

    quote = select_quote("hoelang mag pomp af zonder insuline", [_plain(passage)])

    assert quote is not None
    assert quote["text"] == "- Loskoppelen zonder vervanging van insuline mag maximaal 1 uur."


@pytest.mark.parametrize(
    ("question", "passage", "answer"),
    [
        (
            "hoe snel is acenocoumarol uit het lichaam na stoppen",
            "Bij een zwangerschap wordt acenocoumarol gestopt en komt er heparine voor in de plaats. "
            "Acenocoumarol is na 2 dagen volledig uit het lichaam verdwenen.",
            "Acenocoumarol is na 2 dagen volledig uit het lichaam verdwenen.",
        ),
        (
            "hoeveel keer in- en uitademen na een puf in de voorzetkamer",
            "Wanneer u afbouwt geeft u die dag 1 puf per keer minder.\n\n"
            "Laat uw kind 5 tot 10 keer rustig in- en uitademen.",
            "Laat uw kind 5 tot 10 keer rustig in- en uitademen.",
        ),
        (
            "hoeveel afstand houden tussen 2 CF-kinderen",
            "Twee kinderen met CF mogen niet samen op een kamer liggen. Houd minimaal anderhalve meter afstand.",
            "Houd minimaal anderhalve meter afstand.",
        ),
    ],
)
def test_a_speed_a_count_of_times_or_a_distance_question_prefers_the_sentence_stating_one(
    question: str, passage: str, answer: str
) -> None:
    quote = select_quote(question, [_plain(passage)])

    assert quote is not None and quote["text"] == answer
