"""Judging ranked chunks: document level counts chunk positions, chunk level needs most of an answer span."""

from api.evaluator.judgement import Retrieved, ScoredResult, holds_most_of, judge
from api.evaluator.queries import AnswerSpan, EvalQuery
from api.evaluator.resolution import DocumentResolver, IndexedDocument

RESOLVER = DocumentResolver(
    [IndexedDocument(id=name, title=f"Titel {name}", file_name=f"{name}.pdf") for name in ("A", "B", "C")]
)


def Chunk(document_id: str, char_start: int, char_end: int, score: float = 0.5) -> Retrieved:
    return Retrieved(document_id, char_start, char_end, score)


def _query(documents: tuple[str, ...], spans: tuple[AnswerSpan, ...] = ()) -> EvalQuery:
    return EvalQuery(id="q", question="Vraag?", relevant_documents=documents, answer_spans=spans)


def test_document_rank_is_the_position_of_the_first_chunk_of_any_relevant_document() -> None:
    results = [Chunk("C", 0, 800), Chunk("C", 640, 1440), Chunk("B", 0, 800), Chunk("A", 0, 800)]

    outcome = judge(_query(("A", "Titel B")), results, RESOLVER)

    assert (outcome.document_judged, outcome.document_rank) == (True, 3)
    assert (outcome.chunk_judged, outcome.chunk_rank) == (False, None)


def test_tied_scores_keep_the_returned_order() -> None:
    """Equal fused scores: the relevant chunk came second, so its rank is 2 (a re-sorting library might say 1)."""
    results = [Chunk("C", 0, 800, score=0.8), Chunk("A", 0, 800, score=0.8)]

    assert judge(_query(("A",)), results, RESOLVER).document_rank == 2


def test_a_relevant_document_not_retrieved_is_a_miss() -> None:
    outcome = judge(_query(("A",)), [Chunk("B", 0, 800)] * 60, RESOLVER)

    assert (outcome.document_judged, outcome.document_rank) == (True, None)


def test_unresolved_references_are_listed_and_a_question_with_none_resolved_is_not_judged() -> None:
    partly = judge(_query(("A", "verdwenen.pdf")), [Chunk("A", 0, 10)], RESOLVER)
    wholly = judge(_query(("verdwenen.pdf",)), [Chunk("A", 0, 10)], RESOLVER)

    assert (partly.document_judged, partly.document_rank, partly.unresolved) == (True, 1, ("verdwenen.pdf",))
    assert (wholly.document_judged, wholly.document_rank, wholly.unresolved) == (
        False,
        None,
        ("verdwenen.pdf",),
    )


def test_chunk_rank_is_the_first_chunk_holding_most_of_an_answer_span_of_its_document() -> None:
    span = AnswerSpan(document="A", start=700, end=900)
    results = [
        Chunk("B", 600, 1000),  # right place, wrong document
        Chunk("A", 0, 760),  # holds 60 of 200 characters
        Chunk("A", 640, 1440),  # holds all of it
    ]

    outcome = judge(_query(("A",), (span,)), results, RESOLVER)

    assert (outcome.document_rank, outcome.chunk_judged, outcome.chunk_rank) == (2, True, 3)


def test_an_answer_cut_in_two_is_held_by_the_chunk_with_at_least_half_of_it() -> None:
    span = AnswerSpan(document="A", start=100, end=200)

    assert holds_most_of(Chunk("A", 0, 150), span)
    assert holds_most_of(Chunk("A", 150, 300), span)
    assert not holds_most_of(Chunk("A", 0, 149), span)
    assert not holds_most_of(Chunk("A", 300, 400), span)


def test_a_question_no_document_answers_is_not_judged_nor_unresolved_but_keeps_its_top_scores() -> None:
    results = [
        Retrieved("A", 0, 800, 1.0, 0.84),
        Retrieved("B", 0, 800, 0.6, None),
        Retrieved("C", 0, 9, 0.2, 0.8),
    ]

    outcome = judge(_query(()), [*results, Chunk("A", 800, 1600)], RESOLVER)

    assert (outcome.answerable, outcome.document_judged, outcome.unresolved) == (False, False, ())
    assert outcome.top_results == (
        ScoredResult(1.0, 0.84, False),
        ScoredResult(0.6, None, False),
        ScoredResult(0.2, 0.8, False),
    )


def test_top_scores_carry_whether_their_document_is_relevant() -> None:
    outcome = judge(
        _query(("B",)), [Retrieved("A", 0, 8, 0.9, 0.7), Retrieved("B", 0, 8, 0.8, 0.75)], RESOLVER
    )

    assert [(result.score, result.relevant) for result in outcome.top_results] == [(0.9, False), (0.8, True)]


def test_a_question_with_a_key_phrase_is_judged_at_chunk_level_by_the_passage_that_holds_it() -> None:
    """Without spans, a chunk is relevant when it is a passage of a relevant document holding the key fact."""
    query = EvalQuery(
        id="q", question="Hoe lang wrijven?", relevant_documents=("A",), answer="20 tot 30 seconden"
    )
    results = [
        Retrieved("B", 0, 80, 0.9, text="Wrijf 20–30 seconden."),  # the fact, but another document
        Retrieved("A", 0, 80, 0.8, text="Handen wassen: gebruik zeep."),  # the document, not the fact
        Retrieved("A", 80, 160, 0.7, text="Wrijf de handen 20 - 30 seconden in."),
    ]

    outcome = judge(query, results, RESOLVER)

    assert (outcome.document_rank, outcome.chunk_judged, outcome.chunk_rank) == (2, True, 3)


def test_a_key_phrase_no_passage_holds_is_a_chunk_miss_and_an_unanswerable_question_is_not_judged() -> None:
    missed = EvalQuery(id="q", question="Hoe lang?", relevant_documents=("A",), answer="45 minuten")
    unanswerable = EvalQuery(id="u", question="Hoe lang?", relevant_documents=(), answer=None)
    results = [Retrieved("A", 0, 80, 0.8, text="Wacht 30 minuten.")]

    assert (judge(missed, results, RESOLVER).chunk_judged, judge(missed, results, RESOLVER).chunk_rank) == (
        True,
        None,
    )
    assert judge(unanswerable, results, RESOLVER).chunk_judged is False


def test_the_first_three_results_count_how_many_repeat_one_before_them() -> None:
    """Neighbouring chunks share up to 160 characters: the chat then shows one place twice."""
    page = (
        "Het bloed stolt trager bij een hoge INR-waarde, en de trombosedienst meet die waarde regelmatig. "
        * 4
    )
    first, neighbour = page[:300], page[140:440]
    elsewhere = "Na de operatie mag u twee weken niet zwaar tillen, niet fietsen en niet zwemmen. " * 3
    results = [
        Retrieved("A", 0, 300, 0.9, text=first),
        Retrieved("A", 140, 440, 0.8, text=neighbour),
        Retrieved("B", 0, 240, 0.7, text=elsewhere),
        Retrieved("A", 0, 300, 0.6, text=first),  # beyond the three shown
    ]

    assert judge(_query(("A",)), results, RESOLVER).top_repeats == 1
    assert judge(_query(("A",)), [results[0], results[2]], RESOLVER).top_repeats == 0
