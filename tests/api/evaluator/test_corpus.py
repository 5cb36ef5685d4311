"""Answer spans follow their text through ingestion's cleaning, so chunk labels stay right."""

from api.evaluator.corpus import WhitespaceFreeView, clean_set
from api.evaluator.datasets import EvalSet, SourceDocument
from api.evaluator.queries import AnswerSpan, EvalQuery

SOURCE = (
    "Influenza in 1918\n\n"
    "The curve of inﬂuenza deaths by age has histor-\nically been U-shaped.\n"
    "Persons aged\n65   years had a high incidence.\n"
    "The Panthers allowed 308 points."
)


def _set_with_answers(*answers: str) -> EvalSet:
    spans = tuple(
        AnswerSpan(document="d1", start=SOURCE.index(answer), end=SOURCE.index(answer) + len(answer))
        for answer in answers
    )
    query = EvalQuery(id="q1", question="Which shape?", relevant_documents=("d1",), answer_spans=spans)
    return EvalSet("test", "fixture", (SourceDocument("d1", "Influenza in 1918", SOURCE),), (query,))


def test_spans_are_found_again_after_ligatures_hyphens_and_line_breaks_are_cleaned() -> None:
    answers = ("inﬂuenza deaths by age has histor-\nically been U-shaped", "aged\n65   years", "308")

    cleaned = clean_set(_set_with_answers(*answers))

    text = cleaned.documents[0].text.text
    found = [text[span.start : span.end] for span in cleaned.queries[0].answer_spans]
    assert found == ["influenza deaths by age has historically been U-shaped", "aged\n65 years", "308"]
    assert cleaned.lost_spans == 0


def test_of_several_matches_the_one_at_the_same_relative_position_is_taken() -> None:
    view = WhitespaceFreeView("MTCT early.\nMTCT  late.")

    assert view.find("MTCT", near=0) == (0, 4)
    assert view.find("MTCT", near=10) == (12, 16)
    assert view.find("HIV", near=0) is None
    assert view.find("  ", near=0) is None
