"""Looping answers are flagged, so a speedup measured on a loop is not mistaken for a real one."""

import pytest

from research.engine_bench.degenerate import is_degenerate, repeated_ngram_share
from speculative.engine.stopping import RepetitionRule


def test_an_answer_that_loops_repeats_almost_all_of_its_ngrams_and_is_degenerate() -> None:
    loop = [5, 6, 7, 8, 9] * 20

    assert repeated_ngram_share(loop) == pytest.approx(92 / 97)
    assert is_degenerate(loop)


def test_an_answer_without_repeats_is_not_degenerate() -> None:
    answer = list(range(100))

    assert repeated_ngram_share(answer) == 0.0
    assert not is_degenerate(answer)


def test_a_repeated_phrase_inside_fluent_text_stays_below_the_threshold() -> None:
    phrase = [900, 901, 902, 903, 904]
    answer = list(range(40)) + phrase + list(range(100, 140)) + phrase

    assert 0 < repeated_ngram_share(answer) < 0.1
    assert not is_degenerate(answer)


@pytest.mark.parametrize("answer", [[], [1], [1, 2, 3, 4]])
def test_answers_too_short_for_two_ngrams_have_no_repeats(answer: list[int]) -> None:
    assert repeated_ngram_share(answer) == 0.0


def test_the_ngram_share_counts_repeats_of_any_ngram_size() -> None:
    answer = [1, 2, 1, 2, 3, 4, 5, 6]  # bigram (1, 2) repeats once among 7 bigrams

    assert repeated_ngram_share(answer, n=2) == pytest.approx(1 / 7)
    with pytest.raises(ValueError, match="at least 1"):
        repeated_ngram_share(answer, n=0)


def test_degenerate_means_the_workers_repetition_rule_fires() -> None:
    answer = list(range(20)) + [7, 8, 9] * 5

    assert not is_degenerate(answer)
    assert is_degenerate(answer, RepetitionRule(ngram=2, window=10))
