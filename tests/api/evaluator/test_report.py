"""Side-by-side reports: averages over judged questions only, exclusions counted, winners named per metric."""

from api.evaluator.judgement import QueryOutcome
from api.evaluator.report import ConfigurationResult, EvaluationReport, hybrid_against_legs


def outcome(
    query_id: str, document_rank: int | None, chunk_rank: int | None = None, *, resolved: bool = True
) -> QueryOutcome:
    return QueryOutcome(
        query_id=query_id,
        question=f"vraag {query_id}",
        answerable=True,
        document_judged=resolved,
        document_rank=document_rank if resolved else None,
        chunk_judged=chunk_rank is not None,
        chunk_rank=chunk_rank,
        unresolved=() if resolved else (f"ontbrekend-{query_id}.pdf",),
    )


def configuration(name: str, *outcomes: QueryOutcome) -> ConfigurationResult:
    return ConfigurationResult(name=name, settings={"alpha": name}, outcomes=outcomes)


def test_questions_whose_documents_resolve_to_nothing_are_excluded_and_counted() -> None:
    result = configuration("0.7", outcome("1", 1), outcome("2", None), outcome("3", None, resolved=False))

    summary = result.summary("document")

    assert summary is not None
    assert summary.questions == 2
    assert summary.mrr == 0.5
    assert result.unresolved_questions == 1
    assert result.unresolved_references == ["ontbrekend-3.pdf"]


def test_questions_no_document_answers_are_counted_apart_from_unresolved_ones() -> None:
    unanswerable = QueryOutcome("4", "streefwaarde INR?", False, False, None, False, None, ())
    result = configuration("0.7", outcome("1", 1), outcome("3", None, resolved=False), unanswerable)

    assert (result.unanswerable_questions, result.unresolved_questions) == (1, 1)
    assert result.summary("document").questions == 1  # type: ignore[union-attr]


def test_chunk_level_appears_only_when_some_question_has_chunk_labels() -> None:
    without_spans = EvaluationReport("r", (configuration("a", outcome("1", 2)),))
    with_spans = EvaluationReport("r", (configuration("a", outcome("1", 2, chunk_rank=4)),))

    assert without_spans.levels() == ["document"]
    assert with_spans.levels() == ["document", "chunk"]


def test_the_winner_of_each_metric_is_named_and_equal_values_share_the_win() -> None:
    bm25 = configuration("bm25", outcome("1", 1), outcome("2", 20))
    hybrid = configuration("hybrid", outcome("1", 2), outcome("2", 3))
    dense = configuration("dense", outcome("1", 1), outcome("2", None))

    winners = EvaluationReport("r", (bm25, hybrid, dense)).winners("document")

    assert winners["Hit@1"] == ("bm25", "dense")
    assert winners["Hit@3"] == ("hybrid",)
    assert winners["Hit@50"] == ("bm25", "hybrid")
    assert winners["MRR"] == ("bm25",)  # (1 + 1/20) / 2 = 0.525 beats (1/2 + 1/3) / 2 and (1 + 0) / 2


def _with_settings(name: str, alpha: str, embedder: str, *outcomes: QueryOutcome) -> ConfigurationResult:
    return ConfigurationResult(name=name, settings={"alpha": alpha, "embedder": embedder}, outcomes=outcomes)


def test_a_hybrid_below_a_single_leg_with_otherwise_equal_settings_is_spelled_out_metric_by_metric() -> None:
    bm25 = _with_settings("bm25", "0", "e5", outcome("1", 1), outcome("2", 2))
    dense = _with_settings("dense", "1", "e5", outcome("1", 3), outcome("2", 9))
    hybrid = _with_settings("hybrid", "0.7", "e5", outcome("1", 1), outcome("2", 4))
    other_embedder = _with_settings("minilm", "0.7", "minilm", outcome("1", 9), outcome("2", 9))

    findings = hybrid_against_legs(EvaluationReport("r", (bm25, dense, hybrid, other_embedder)), "document")

    assert findings == [
        "hybrid is below bm25 on Hit@3 0.500 < 1.000, MRR 0.625 < 0.750.",
        "hybrid is at least as good as dense on every metric.",
    ]
