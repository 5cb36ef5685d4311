"""The answer report's figures: where the key fact is lost, between the document, the passages shown, the quote
and the generated answer."""

from api.evaluator.answer_quality import AnswerObservation, _judge, _judge_sources
from api.evaluator.answer_report import summarise, summary_lines
from api.evaluator.queries import EvalQuery
from api.evaluator.resolution import DocumentResolver, IndexedDocument
from api.models import MessageState

RESOLVER = DocumentResolver([IndexedDocument(id="id-hand", title="Handhygiëne", file_name="hand.pdf")])
QUESTION = EvalQuery(
    id="q", question="hoe lang wrijven?", relevant_documents=("hand.pdf",), answer="20 tot 30 seconden"
)


def _source(document_id: str, passage: str) -> dict[str, object]:
    return {"document_id": document_id, "passage": passage}


def test_the_passages_shown_are_judged_for_the_right_document_and_for_the_key_fact() -> None:
    found = AnswerObservation(QUESTION.question, True, QUESTION.answer)
    _judge_sources(
        found, QUESTION, [_source("other", "Wrijf kort."), _source("id-hand", "Wrijf 20–30 s.")], RESOLVER
    )
    right_document_only = AnswerObservation(QUESTION.question, True, QUESTION.answer)
    _judge_sources(right_document_only, QUESTION, [_source("id-hand", "Gebruik handalcohol.")], RESOLVER)
    elsewhere = AnswerObservation(QUESTION.question, True, QUESTION.answer)
    _judge_sources(elsewhere, QUESTION, [_source("other", "Wrijf 20 tot 30 seconden.")], RESOLVER)

    assert (found.document_in_sources, found.passages_have_fact) == (
        True,
        False,
    )  # "20–30 s." ≠ the key phrase
    assert (right_document_only.document_in_sources, right_document_only.passages_have_fact) == (True, False)
    assert (elsewhere.document_in_sources, elsewhere.passages_have_fact) == (False, True)


def test_without_a_resolver_no_document_hit_is_recorded() -> None:
    observation = AnswerObservation(QUESTION.question, True, QUESTION.answer)
    _judge_sources(observation, QUESTION, [_source("id-hand", "Wrijf 20 tot 30 seconden.")], None)

    assert (observation.document_in_sources, observation.passages_have_fact) == (None, True)


def _answered(
    answer: str, quote: str | None, passages_have_fact: bool, supported: list[bool]
) -> AnswerObservation:
    observation = AnswerObservation(
        QUESTION.question,
        True,
        QUESTION.answer,
        document_in_sources=True,
        passages_have_fact=passages_have_fact,
        state=MessageState.answered.value,
        quote=quote,
        answer=answer,
    )
    observation.support = [{"start": 0, "end": len(answer), "supported": flag} for flag in supported]
    _judge(observation)
    return observation


def test_the_summary_puts_chunk_recall_next_to_document_hits_quote_and_answer() -> None:
    observations = [
        _answered("Wrijf 20 tot 30 seconden.", "Wrijf 20 tot 30 seconden.", True, [True]),
        _answered("Gebruik handalcohol. Droog af.", "Wrijf 20 tot 30 seconden.", True, [True, True]),
        _answered("Gebruik handalcohol.", "Gebruik handalcohol.", True, [True]),
        _answered("Droog af.", None, False, [False]),
    ]
    refused = AnswerObservation(
        QUESTION.question, True, QUESTION.answer, document_in_sources=False, passages_have_fact=False
    )
    refused.state = MessageState.not_found.value
    _judge(refused)
    unanswerable = AnswerObservation("mazelen", False, None, state=MessageState.not_found.value)

    summary = summarise([*observations, refused, unanswerable])

    assert summary.document_hit_rate == 4 / 5
    assert summary.passage_key_fact_rate == 3 / 5
    assert summary.quote_key_fact_rate == 2 / 5
    assert summary.quote_key_fact_when_passages == 2 / 3
    assert summary.answer_key_fact_rate == 1 / 5
    assert summary.cited_not_answer == 3  # two cited sentences of the second answer, one of the third
    assert summary.not_found_on_answerable == 1 / 5
    assert summary.not_found_on_unanswerable == 1.0
    assert "Kernfeit in een van de getoonde passages (fragment-recall): 60%" in summary_lines(summary)
