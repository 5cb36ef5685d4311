"""Three distinct places: a retrieved passage that repeats a higher-ranked one gives its place to the next
candidate that does not."""

from ingest.distinct import distinct, repeated

BODY = (
    "Coumarines remmen de aanmaak van stollingsfactoren in de lever. Daardoor duurt het langer voordat het bloed "
    "stolt. De trombosedienst meet daarom regelmatig de INR-waarde in een druppel bloed uit de vingertop. Hoe "
    "hoger de INR, hoe langer het bloed erover doet om te stollen."
)
TAIL = BODY[-160:]  # neighbouring chunks share the last 160 characters of the first (CHUNK_OVERLAP)
NEXT = TAIL + " Vitamine K werkt de coumarines tegen; groene groenten bevatten veel vitamine K."
SUMMARY = "Samenvatting. Daardoor duurt het langer voordat het bloed stolt. Meer staat in de folder."
OTHER = "Na de operatie mag u de eerste twee weken niet zwaar tillen, niet fietsen en niet zwemmen."
ANOTHER = "Bel de afdeling als de wond rood, warm of dik wordt, of als u koorts krijgt boven 38,5 graden."


def test_a_neighbouring_chunk_that_shares_the_overlap_is_a_repeat() -> None:
    assert repeated([BODY, NEXT], min_chars=120) == [False, True]


def test_a_passage_that_repeats_a_whole_sentence_is_a_repeat() -> None:
    assert repeated([BODY, SUMMARY], min_chars=120) == [False, True]


def test_white_space_does_not_hide_a_repeat() -> None:
    rewrapped = TAIL.replace(" ", "\n", 5).replace(" ", "  ", 3)

    assert repeated([BODY, rewrapped], min_chars=120) == [False, True]


def test_passages_from_different_places_are_distinct() -> None:
    assert repeated([BODY, OTHER, ANOTHER], min_chars=120) == [False, False, False]


def test_a_short_shared_phrase_is_not_a_repeat() -> None:
    shared = "de trombosedienst meet de INR"
    assert repeated([f"{shared} elke week. {OTHER}", f"{ANOTHER} Soms {shared}."], min_chars=120) == [
        False,
        False,
    ]


def test_the_next_distinct_candidate_takes_the_place_of_a_repeat() -> None:
    candidates = [BODY, NEXT, SUMMARY, OTHER, ANOTHER]

    assert distinct(candidates, str, limit=3, min_chars=120) == [BODY, OTHER, ANOTHER]


def test_a_repeat_is_compared_with_the_passages_kept_not_with_those_passed_over() -> None:
    after_next = (
        NEXT[-100:] + " Overleg altijd met de trombosedienst voordat u een nieuw middel gaat gebruiken."
    )

    assert distinct([BODY, NEXT, after_next], str, limit=3, min_chars=120) == [BODY, after_next]


def test_fewer_distinct_candidates_than_the_limit_give_fewer_passages() -> None:
    assert distinct([BODY, NEXT], str, limit=3, min_chars=120) == [BODY]


def test_zero_switches_it_off() -> None:
    assert distinct([BODY, NEXT, SUMMARY, OTHER], str, limit=3, min_chars=0) == [BODY, NEXT, SUMMARY]
    assert repeated([BODY, NEXT], min_chars=0) == [False, False]
