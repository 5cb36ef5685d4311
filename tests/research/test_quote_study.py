"""The quote study's candidates: the product's rule with other weights, and the study's own signals added to each
candidate sentence's score through `select_quote`'s bonus (the product carries none of them)."""

from collections.abc import Sequence

from api.answers.quotes import Bonus, select_quote
from api.answers.source import Source
from research.quote_study import EARLIER, RULES, embedder_rules, quantity_bonus

# Two sentences that hold the same question words; only the second states a number.
PASSAGE = "Wrijf de handen goed in met handalcohol. Wrijf de handen 30 seconden in met handalcohol."
SOURCES = [
    Source(
        document_id="hh",
        title="Handhygiëne",
        page_start=1,
        page_end=1,
        chunk_index=0,
        passage=PASSAGE,
        score=0.9,
    )
]


def quoted(bonus: Bonus | None = None, question: str = "hoe lang handen handalcohol") -> str | None:
    quote = select_quote(question, SOURCES, EARLIER, bonus)
    return None if quote is None else str(quote["text"])


def test_the_earlier_rules_quantity_bonus_picks_the_sentence_with_a_number_for_a_quantity_question() -> None:
    assert quoted() == "Wrijf de handen goed in met handalcohol."  # a tie: the first sentence
    assert quoted(quantity_bonus) == "Wrijf de handen 30 seconden in met handalcohol."
    assert quoted(quantity_bonus, "handen handalcohol") == "Wrijf de handen goed in met handalcohol."


def test_the_quantity_bonus_needs_a_quantity_question_and_a_number_in_the_sentence() -> None:
    sentences = ["Wrijf 30 seconden.", "Wrijf goed."]

    assert quantity_bonus("hoe lang wrijven?", sentences) == [0.25, 0.0]
    assert quantity_bonus("waarom wrijven?", sentences) == [0.0, 0.0]


def test_the_embedder_candidates_add_the_weighted_similarity_and_the_others_need_no_embedder() -> None:
    def similarity(question: str, sentences: Sequence[str]) -> list[float]:
        return [1.0, 2.0]

    rules = embedder_rules(similarity)
    _, doubled = rules["chosen + embedder × 2.0"]

    assert rules["embedder only"][1] is similarity
    assert doubled is not None and list(doubled("vraag", ["a", "b"])) == [2.0, 4.0]
    assert all(bonus in (None, quantity_bonus) for _, bonus in RULES.values())
