"""The key fact is found however the text writes the same quantity, and not when the quantity differs."""

from api.evaluator.key_facts import holds_key_fact


def test_case_space_dashes_decimal_sign_and_range_words_do_not_matter() -> None:
    assert holds_key_fact("Wrijf de handen 20–30 seconden in.", "20 tot 30 seconden")
    assert holds_key_fact("Wisselhouding elke 2 - 4 uur", "elke 2 tot 4 uur")
    assert holds_key_fact("dosis 7 à 10 cm", "7-10 cm")
    assert holds_key_fact("Geef 0.3 G snelle\nsuikers", "0,3 g snelle suikers")


def test_other_numbers_or_no_text_do_not_hold_the_key_fact() -> None:
    assert not holds_key_fact("Handen wassen duurt 40 tot 60 seconden.", "20 tot 30 seconden")
    assert not holds_key_fact("Wrijf 20 seconden, tot 30 keer", "20 tot 30 seconden")
    assert not holds_key_fact(None, ("20 tot 30 seconden",))


def test_a_key_phrase_over_a_table_rows_cells_is_held() -> None:
    assert holds_key_fact("Glatirameer-acetaat | Copaxone | SC | 20 mg | Dagelijks", "20 mg Dagelijks")
