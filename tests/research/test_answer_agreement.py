"""The agreement tool reads a hand-judged answer file, refuses a row it cannot use, and counts how often the
answer report's measure says "gives the key fact" exactly for the answers judged right."""

from pathlib import Path

import pytest

from research.answer_agreement import JudgedAnswer, agreement, main, read_judged

JUDGED = Path(__file__).parents[2] / "samples" / "judgements" / "real-answers.csv"
HEADER = "id,question,answer,generated,verdict\n"


def judged(
    generated: str, verdict: str, key_phrase: str = "na 2 dagen volledig uit het lichaam verdwenen"
) -> JudgedAnswer:
    return JudgedAnswer("q", "hoe snel is het middel uit het lichaam?", key_phrase, generated, verdict)


def test_a_right_answer_in_other_words_and_a_wrong_one_both_agree() -> None:
    answers = [judged("Na 48 uur is het middel uit het lichaam.", "right"), judged("Na 5 dagen.", "wrong")]

    assert [answer.measured for answer in answers] == [True, False]
    assert agreement(answers) == 1.0


def test_a_refusal_never_counts_as_giving_the_key_fact() -> None:
    refusal = judged("niet gevonden", "refused")

    assert not refusal.measured
    assert agreement([refusal, judged("Na 5 dagen.", "right")]) == 0.5


def test_a_row_without_a_known_verdict_or_key_phrase_is_refused_with_its_line(tmp_path: Path) -> None:
    csv = tmp_path / "judged.csv"
    csv.write_text(
        HEADER + "a,vraag?,2 dagen,2 dagen,right\nb,vraag?,2 dagen,3 dagen,fout\n", encoding="utf-8"
    )
    with pytest.raises(ValueError, match="line 3"):
        read_judged(csv)

    csv.write_text(HEADER + "a,vraag?,,2 dagen,right\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 2"):
        read_judged(csv)


def test_the_shipped_judged_answers_agree_with_the_measure_on_at_least_nine_in_ten(
    capsys: pytest.CaptureFixture[str],
) -> None:
    answers = read_judged(JUDGED)

    assert len(answers) >= 60
    assert agreement(answers) >= 0.9
    assert main(["--judged", str(JUDGED)]) == 0
    assert "agreement with the hand judgement" in capsys.readouterr().out
