"""Public sets in SQuAD format become documents and questions labelled with document and answer span."""

import json
from pathlib import Path
from typing import Any

import pytest

from api.evaluator.datasets import DatasetError, load_covid_qa, load_xquad, locate_answer

ARTICLE = (
    "Functional variants in DC-SIGNR\n\nhttps://example.org/PMC1\n\n"
    "Abstract: Mother-to-child transmission (MTCT) is the main cause of HIV-1 infection in children. "
    "MTCT can be prevented."
)


def _write(tmp_path: Path, content: Any) -> Path:
    path = tmp_path / "set.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    return path


def _covid_qa(answer_start: int) -> dict[str, Any]:
    qas = [
        {
            "id": 262,
            "question": "What is the main cause of HIV-1 infection in children?",
            "answers": [{"text": "Mother-to-child transmission (MTCT)", "answer_start": answer_start}],
            "is_impossible": False,
        }
    ]
    return {"data": [{"paragraphs": [{"document_id": 630, "context": ARTICLE, "qas": qas}]}]}


def test_covid_qa_gives_one_document_per_article_titled_by_its_first_line(tmp_path: Path) -> None:
    exact = ARTICLE.index("Mother")

    eval_set = load_covid_qa(_write(tmp_path, _covid_qa(exact)))

    (document,) = eval_set.documents
    (query,) = eval_set.queries
    assert (document.id, document.title, document.text) == ("630", "Functional variants in DC-SIGNR", ARTICLE)
    assert (query.id, query.relevant_documents) == ("262", ("630",))
    (span,) = query.answer_spans
    assert ARTICLE[span.start : span.end] == "Mother-to-child transmission (MTCT)"
    assert "Apache-2.0" in eval_set.description


def test_a_stated_answer_start_that_is_off_by_one_is_corrected_to_the_verbatim_occurrence(
    tmp_path: Path,
) -> None:
    eval_set = load_covid_qa(_write(tmp_path, _covid_qa(ARTICLE.index("Mother") + 1)))

    (span,) = eval_set.queries[0].answer_spans
    assert span.start == ARTICLE.index("Mother")


def test_the_occurrence_nearest_to_the_stated_start_is_chosen_and_a_missing_answer_gives_none() -> None:
    context = "MTCT early. MTCT late."

    assert locate_answer(context, "MTCT", 11) == 12
    assert locate_answer(context, "MTCT", 1) == 0
    assert locate_answer(context, "HIV", 0) is None


def test_xquad_gives_one_document_per_paragraph_titled_by_its_article(tmp_path: Path) -> None:
    content = {
        "version": "1.1",
        "data": [
            {
                "title": "Super_Bowl_50",
                "paragraphs": [
                    {
                        "context": "Die Panthers gaben 308 Punkte ab.",
                        "qas": [
                            {
                                "id": "a1",
                                "question": "Wie viele Punkte?",
                                "answers": [{"text": "308", "answer_start": 19}],
                            }
                        ],
                    },
                    {
                        "context": "Denver gewann.",
                        "qas": [
                            {
                                "id": "a2",
                                "question": "Wer gewann?",
                                "answers": [{"text": "Denver", "answer_start": 0}],
                            }
                        ],
                    },
                ],
            }
        ],
    }

    eval_set = load_xquad(_write(tmp_path, content), "de")

    assert [(doc.id, doc.title) for doc in eval_set.documents] == [
        ("Super_Bowl_50/0", "Super Bowl 50"),
        ("Super_Bowl_50/1", "Super Bowl 50"),
    ]
    assert [query.relevant_documents for query in eval_set.queries] == [
        ("Super_Bowl_50/0",),
        ("Super_Bowl_50/1",),
    ]
    assert [(span.start, span.end) for span in eval_set.queries[0].answer_spans] == [(19, 22)]
    assert eval_set.name == "XQuAD-de"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("{not json", "not JSON"),
        ('{"data": [{"paragraphs": [{"qas": []}]}]}', "not in SQuAD format"),
        (json.dumps({"data": [{"paragraphs": [{"context": "x", "qas": []}]}]}), "lacks its document_id"),
    ],
)
def test_files_not_in_the_expected_format_are_refused_with_the_reason(
    tmp_path: Path, content: str, reason: str
) -> None:
    path = tmp_path / "broken.json"
    path.write_text(content)

    with pytest.raises(DatasetError, match=reason):
        load_covid_qa(path)


def test_an_empty_question_in_a_dataset_names_the_question(tmp_path: Path) -> None:
    content = _covid_qa(0)
    content["data"][0]["paragraphs"][0]["qas"][0]["question"] = " "

    with pytest.raises(DatasetError, match="question '262'"):
        load_covid_qa(_write(tmp_path, content))
