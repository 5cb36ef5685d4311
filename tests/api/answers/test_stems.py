"""Dutch word forms the quote compares: a verb's forms, a plural, a compound's last part; unrelated words stay
apart."""

from api.answers.stems import StemVocabulary, stem


def test_the_forms_of_a_verb_and_a_plural_share_their_stem() -> None:
    assert stem("wrijven") == stem("Wrijf")
    assert stem("vullen") == stem("Vul")
    assert stem("wassen") == stem("Was")
    assert stem("geven") == stem("Geef")
    assert stem("suikers") == stem("suiker")


def test_a_compound_question_word_matches_its_last_part_and_unrelated_words_do_not_match() -> None:
    step = StemVocabulary(["Verander de houding van risicopatiënten elke 2 tot 4 uur."])

    assert step.holds("wisselhouding")
    assert step.holds("veranderen")
    assert not step.holds("wassen")
    assert not step.holds("matras")
