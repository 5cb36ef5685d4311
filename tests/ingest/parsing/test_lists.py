"""Lists in document text: what announces a list, and which lines are its items."""

from ingest.lists import ListedText, lists

LEAFLET = (
    "Fraxiparine® wordt vlak onder de huid ingespoten. Doe dit aan de voor- of zijkant van uw buik.\n"
    "Waar niet prikken\n\n"
    "in de buurt van een wond of litteken;\n\n"
    "in het geopereerde been;\n\n"
    "steeds op dezelfde plaats, maar wissel af (buik, been, buik).\n\n"
    "Hoe u zichzelf injecteert\n\n"
    "Wij adviseren u de onderstaande werkwijze aan te houden:\n\n"
    "1. Was uw handen.\n"
    "2. Haal het dopje van de naald af."
)


def _texts(text: str) -> list[tuple[str, list[str]]]:
    return [
        (text[found.lead_in.start : found.lead_in.end], [text[item.start : item.end] for item in found.items])
        for found in lists(text)
    ]


def test_a_heading_announces_the_lower_case_lines_under_it_and_a_colon_its_numbered_steps() -> None:
    assert _texts(LEAFLET) == [
        (
            "Waar niet prikken",
            [
                "in de buurt van een wond of litteken;",
                "in het geopereerde been;",
                "steeds op dezelfde plaats, maar wissel af (buik, been, buik).",
            ],
        ),
        (
            "Wij adviseren u de onderstaande werkwijze aan te houden:",
            ["1. Was uw handen.", "2. Haal het dopje van de naald af."],
        ),
    ]


def test_a_heading_over_prose_or_over_a_single_line_announces_no_list() -> None:
    prose = "Waar dient u de injectie toe\n\nFraxiparine® wordt vlak onder de huid ingespoten.\nDoe dit aan de buik."
    single = "Bijwerkingen\n\nsoms een blauwe plek.\n\nHet is mogelijk dat er een bloeding ontstaat."

    assert lists(prose) == []
    assert lists(single) == []


def test_a_sentence_is_no_heading_and_a_long_line_is_no_item() -> None:
    sentence = "U mag niet prikken.\nin de buurt van een wond;\nin het geopereerde been;"
    long_item = "Let op\n" + "in de buurt van een wond " * 10 + ";\nin het been;"

    assert lists(sentence) == []
    assert lists(long_item) == []


def test_room_keeps_only_the_items_that_fit_after_the_lead_in() -> None:
    text = "Neem contact op bij:\n" + "\n".join(f"- situatie nummer {n};" for n in range(1, 11))

    (fitting,) = lists(text, room=62)

    assert fitting.end - fitting.lead_in.start <= 62
    assert [text[item.start : item.end] for item in fitting.items] == [
        "- situatie nummer 1;",
        "- situatie nummer 2;",
    ]


def test_an_item_knows_the_heading_that_announces_it_and_running_text_knows_none() -> None:
    lead_in_of = ListedText(LEAFLET).lead_in_of

    assert lead_in_of(LEAFLET.index("in het geopereerde been")) == "Waar niet prikken"
    assert lead_in_of(LEAFLET.index("Haal het dopje")) == (
        "Wij adviseren u de onderstaande werkwijze aan te houden:"
    )
    assert lead_in_of(LEAFLET.index("Doe dit aan de voor-")) is None
    assert lead_in_of(LEAFLET.index("Waar niet prikken")) is None


def test_a_list_is_found_by_the_end_of_the_line_that_announces_it() -> None:
    listed = ListedText(LEAFLET)
    heading_end = LEAFLET.index("Waar niet prikken") + len("Waar niet prikken")

    announced = listed.announced_at(heading_end)

    assert announced is not None
    assert [LEAFLET[item.start : item.end] for item in announced.items][:2] == [
        "in de buurt van een wond of litteken;",
        "in het geopereerde been;",
    ]
    assert listed.announced_at(heading_end - 1) is None  # the line goes on after it
    assert listed.announced_at(LEAFLET.index(" Doe dit")) is None  # a sentence inside running text
