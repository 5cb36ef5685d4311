"""What the generator's own "niet gevonden" adds to coverage: the prompts written for the cases coverage lets
through (each distinct prompt once), and the counting of the combined rule."""

import json
from pathlib import Path

import pytest

from api.chat.abstention import NOT_FOUND_MESSAGE, AbstentionRule
from api.evaluator.queries import EvalQuery
from api.prompting import build_rag_prompt
from ingest.retrieval import RetrievedChunk
from ingest.search.types import LegScores
from modelstore.registry import ALL_MINILM_L6_V2
from research.abstention import model_prompts, model_score
from research.abstention.cases import Case, read_cases, write_cases
from research.abstention.study import Asked

REPO_ROOT = Path(__file__).resolve().parents[2]
RULE = AbstentionRule(None, None, 0.627)


def chunk(document: str, text: str) -> RetrievedChunk:
    return RetrievedChunk(
        document,
        "Glucagon bij volwassenen",
        text,
        "x.pdf",
        1,
        1,
        0,
        len(text),
        0.9,
        LegScores(0.8, 1.0),
        None,
    )


def asked(fold: int, question: str, relevant: tuple[str, ...], *chunks: RetrievedChunk) -> Asked:
    query = EvalQuery(id=question, question=question, relevant_documents=relevant)
    return Asked(fold, query, frozenset({"adult", "other"}), tuple(chunks))


ADULT = chunk("adult", "Geef 1 mg glucagon intramusculair bij hypoglykemie.")


def test_each_distinct_prompt_is_written_once_and_every_case_names_it() -> None:
    seen = [
        asked(0, "glucagon dosis hypoglykemie", ("adult",), ADULT),
        asked(1, "glucagon dosis hypoglykemie", ("adult",), ADULT),  # the same chunks in another fold
        asked(0, "glucagon neonaat kind hypoglykemie", ("child",), ADULT),  # 2 of 4 words: abstains
        asked(0, "glucagon intramusculair", ("child",), ADULT),  # a sibling coverage lets through
        asked(2, "glucagon dosis", ()),  # nothing retrieved
    ]

    requests, cases = model_prompts.prompts_and_cases(seen, RULE)

    assert [request["id"] for request in requests] == ["abstention-1", "abstention-2"]
    first = requests[0]
    passage = "Titel: Glucagon bij volwassenen\nTekst: " + ADULT.text
    assert first["context"] == [passage, passage]  # the chat's prompt: the quoted sentence, then the passages
    assert first["quote"] == ADULT.text
    assert first["prompt"] == build_rag_prompt("glucagon dosis hypoglykemie", first["context"])
    assert first["sources"] == [{"title": "Glucagon bij volwassenen", "pages": [1, 1], "score": 0.9}]
    assert [(c.answerable, c.coverage_abstains, c.prompt_id) for c in cases] == [
        (True, False, "abstention-1"),
        (True, False, "abstention-1"),
        (False, True, ""),
        (False, False, "abstention-2"),
        (False, True, ""),
    ]
    assert cases[2].coverage == 0.5


def test_the_cases_survive_their_csv(tmp_path: Path) -> None:
    cases = [Case(3, "pcm, kind?", True, 0.5, True, ""), Case(0, "q", False, None, False, "abstention-7")]

    write_cases(tmp_path / "cases.csv", cases)

    assert read_cases(tmp_path / "cases.csv") == cases


def results(answers: dict[str, str], method: str = "hf-greedy") -> dict[str, object]:
    return {"answers": [{"prompt_id": pid, "method": method, "text": text} for pid, text in answers.items()]}


def test_the_model_abstains_only_where_coverage_let_the_case_through() -> None:
    cases = [
        Case(0, "sibling caught", False, 1.0, False, "p1"),
        Case(1, "sibling missed", False, 0.8, False, "p2"),
        Case(2, "refused by coverage", False, 0.3, True, ""),
        Case(0, "answered", True, 1.0, False, "p3"),
        Case(1, "answered again", True, 1.0, False, "p3"),
        Case(2, "wrongly not found", True, 0.7, False, "p1"),
        Case(3, "wrongly refused by coverage", True, 0.5, True, ""),
    ]
    answers = model_score.answers_of(
        results({"p1": " " + NOT_FOUND_MESSAGE, "p2": "Geef 1 mg.", "p3": "Ik vond in de documenten dat…"}),
        "hf-greedy",
    )

    not_indexed = model_score.counts(cases, answers, answerable=False)
    answerable = model_score.counts(cases, answers, answerable=True)

    assert not_indexed == model_score.Counts(cases=3, coverage=1, let_through=2, model=1)
    assert not_indexed.combined == 2
    assert answerable == model_score.Counts(cases=4, coverage=1, let_through=3, model=1)
    listed = model_score.not_indexed_list(cases, answers)
    assert "| 0 | sibling caught | 1.00 | caught |" in listed
    assert "| 1 | sibling missed | 0.80 | missed | Geef 1 mg. |" in listed
    assert "refused by coverage" not in listed
    assert model_score.false_not_found_list(cases, answers).splitlines()[2:] == [
        "| wrongly not found | 1/1 |"
    ]


def test_the_score_refuses_results_that_lack_an_answer(tmp_path: Path) -> None:
    write_cases(tmp_path / "cases.csv", [Case(0, "q", False, 1.0, False, "p9")])
    (tmp_path / "results.json").write_text(json.dumps(results({"p1": "x"})), encoding="utf-8")

    with pytest.raises(SystemExit, match="lack answers to p9"):
        model_score.main(
            ["--cases", str(tmp_path / "cases.csv"), "--results", str(tmp_path / "results.json")]
        )


def test_the_score_prints_coverage_the_model_and_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_cases(
        tmp_path / "cases.csv",
        [
            Case(0, "a", False, 0.2, True, ""),
            Case(1, "b", False, 1.0, False, "p1"),
            Case(0, "c", True, 1, False, "p2"),
        ],
    )
    answer_texts = {"p1": NOT_FOUND_MESSAGE, "p2": "Twee tabletten."}
    (tmp_path / "results.json").write_text(json.dumps(results(answer_texts)), encoding="utf-8")

    model_score.main(["--cases", str(tmp_path / "cases.csv"), "--results", str(tmp_path / "results.json")])

    printed = capsys.readouterr().out
    assert "| coverage alone (the chat before the model) | 1/2 (50.0%) | 0/1 (0.0%) |" in printed
    assert "| **coverage or the model (the chat)** | **2/2 (100.0%)** | **0/1 (0.0%)** |" in printed


@pytest.mark.usefixtures("offline_models")
def test_the_prompt_writer_asks_each_question_in_every_fold_of_the_pdfs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EMBEDDING_MODEL", ALL_MINILM_L6_V2)
    monkeypatch.delenv("RETRIEVAL_TOP_K", raising=False)
    questions = tmp_path / "questions.csv"
    questions.write_text(
        "question,relevant_documents\nhoe lang handen wrijven met alcohol,handhygiene.pdf\n"
        "wanneer stoma verzorgen,\n",
        encoding="utf-8",
    )
    prompts, cases_csv = tmp_path / "prompts.jsonl", tmp_path / "cases.csv"

    documents = REPO_ROOT / "samples" / "documents"
    arguments = ["--csv", str(questions), "--documents", str(documents)]

    model_prompts.main([*arguments, "--prompts", str(prompts), "--cases", str(cases_csv)])

    cases = read_cases(cases_csv)
    requests = [json.loads(line) for line in prompts.read_text(encoding="utf-8").splitlines()]
    hand = [case for case in cases if case.question.startswith("hoe lang")]
    assert sorted(case.fold for case in hand) == [0, 1, 2, 3, 4]  # each of the 5 PDFs left out once
    assert sum(case.answerable for case in hand) == 4
    assert [case.fold for case in cases if case not in hand] == [0]  # no document answers it: asked once
    assert len({request["prompt"] for request in requests}) == len(requests)
    assert {case.prompt_id for case in cases if not case.coverage_abstains} == {r["id"] for r in requests}
    assert all(
        case.coverage_abstains == (case.coverage is not None and case.coverage < 0.627) for case in cases
    )
    answered_hand = [case for case in hand if case.answerable and not case.coverage_abstains]
    assert len(answered_hand) >= 2 and len({case.prompt_id for case in answered_hand}) < len(answered_hand)
