"""samples/real/ holds the real-document question set as its source file generates it: each part readable by the
evaluator, split by document, with the size the evaluation needs. (The documents themselves are not in the
repository; `make_real_set.py --documents` checks the key phrases against them.) `by_kind.py` breaks an answer
report on a part down by the kinds and wording its ids name."""

import importlib.util
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

from api.evaluator.queries import EvalQuery, read_queries

REAL = Path(__file__).resolve().parents[2] / "samples" / "real"
MAIN_DOCUMENTS = 11


def _script(name: str) -> ModuleType:
    """A script of samples/real/, imported as a module."""
    spec = importlib.util.spec_from_file_location(name, REAL / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def make_real_set() -> ModuleType:
    return _script("make_real_set")


@pytest.fixture(scope="module")
def parts() -> dict[str, list[EvalQuery]]:
    return {path.stem: read_queries(path) for path in sorted(REAL.glob("*.csv"))}


def _answerable(queries: list[EvalQuery]) -> list[EvalQuery]:
    return [query for query in queries if query.relevant_documents]


def _field(query: EvalQuery, number: int) -> str:
    return query.id.split(".")[number]


def test_the_committed_files_are_what_the_source_generates(make_real_set: ModuleType, tmp_path: Path) -> None:
    make_real_set.main(["--out", str(tmp_path)])

    generated = {path.name: path.read_text(encoding="utf-8") for path in tmp_path.iterdir()}
    committed = {name: (REAL / name).read_text(encoding="utf-8") for name in generated}
    assert sorted(generated) == sorted([path.name for path in REAL.glob("*.csv")] + ["README.md"])
    assert [name for name in generated if generated[name] != committed[name]] == []


def test_ids_are_unique_and_name_their_part_kind_and_wording(parts: dict[str, list[EvalQuery]]) -> None:
    ids = [query.id for queries in parts.values() for query in queries]
    kinds = {"fact", "number", "list", "table", "steps", "yesno"}

    assert [key for key, count in Counter(ids).items() if count > 1] == []
    for part, queries in parts.items():
        for query in queries:
            assert _field(query, 0) == part
            assert _field(query, 1) in (kinds if query.relevant_documents else {"none"})
            assert _field(query, 2) in {"lit", "para"}


def test_no_document_is_in_both_parts(parts: dict[str, list[EvalQuery]]) -> None:
    dev, test = ({d for query in parts[part] for d in query.relevant_documents} for part in ("dev", "test"))

    assert dev & test == set()
    assert len(dev | test) == MAIN_DOCUMENTS


def test_every_answerable_question_has_one_document_and_a_key_phrase(
    parts: dict[str, list[EvalQuery]],
) -> None:
    for queries in parts.values():
        for query in _answerable(queries):
            assert len(query.relevant_documents) == 1, query.id
            assert query.answer, query.id
        assert all(query.answer is None for query in queries if not query.relevant_documents)


def test_the_set_is_large_enough_and_covers_every_main_document(parts: dict[str, list[EvalQuery]]) -> None:
    main = parts["dev"] + parts["test"]
    per_document = Counter(d for query in _answerable(main) for d in query.relevant_documents)

    assert len(_answerable(main)) >= 160
    assert len(per_document) == MAIN_DOCUMENTS
    assert min(per_document.values()) >= 8
    long_documents = [d for d in per_document if d.startswith(("ms-nurse", "sciensano"))]
    assert sum(per_document[d] for d in long_documents) >= 60
    assert sum(not query.relevant_documents for query in main) >= 30


def test_each_part_is_about_half_and_the_test_part_has_a_long_document(
    parts: dict[str, list[EvalQuery]],
) -> None:
    dev, test = parts["dev"], parts["test"]

    assert 0.35 <= len(dev) / (len(dev) + len(test)) <= 0.65
    assert "ms-nurse-pro-module4-behandeling-ms.pdf" in {
        d for query in test for d in query.relevant_documents
    }
    assert sum(_field(query, 1) == "table" for query in test) >= 10


def test_the_test_part_has_its_paraphrased_and_unanswerable_questions(
    parts: dict[str, list[EvalQuery]],
) -> None:
    test = parts["test"]

    assert sum(_field(query, 2) == "para" for query in _answerable(test)) >= 30
    assert sum(not query.relevant_documents for query in test) >= 15


def test_the_documents_that_need_conversion_are_asked_apart(parts: dict[str, list[EvalQuery]]) -> None:
    converted = parts["converted"]
    main = {d for part in ("dev", "test") for query in parts[part] for d in query.relevant_documents}

    assert len(_answerable(converted)) >= 10
    assert {d for query in converted for d in query.relevant_documents} & main == set()
    assert len(_answerable(parts["extra-long"])) >= 5


def test_the_development_part_is_large_enough(parts: dict[str, list[EvalQuery]]) -> None:
    dev = parts["dev"]

    assert len(_answerable(dev)) >= 80
    assert sum(_field(query, 2) == "para" for query in dev) >= 15
    assert sum(not query.relevant_documents for query in dev) >= 15


def test_the_paraphrased_part_asks_the_dev_and_test_documents_in_other_words(
    parts: dict[str, list[EvalQuery]],
) -> None:
    asked = {part: parts[f"paraphrased-{part}"] for part in ("dev", "test")}
    main_questions = {query.question for part in ("dev", "test") for query in parts[part]}

    assert sum(len(queries) for queries in asked.values()) >= 60
    for part, queries in asked.items():
        documents = {d for query in parts[part] for d in query.relevant_documents}
        assert all(query.relevant_documents and query.answer for query in queries)
        assert {d for query in queries for d in query.relevant_documents} <= documents
        assert {_field(query, 2) for query in queries} == {"para"}
        assert len(queries) >= 30
    assert {query.question for queries in asked.values() for query in queries} & main_questions == set()


def test_a_question_of_the_paraphrased_part_must_be_paraphrased_and_about_a_dev_or_test_document(
    make_real_set: ModuleType,
) -> None:
    question = {"id": "anti-99", "kind": "fact", "question": "q?", "answer": "a", "part": "paraphrased"}
    with pytest.raises(ValueError, match="must be paraphrased: true"):
        make_real_set.QuestionData.model_validate(question)

    document = {
        "file": "x.pdf",
        "split": "converted",
        "about": "x",
        "questions": [question | {"paraphrased": True}],
    }
    with pytest.raises(ValueError, match="dev and test documents only"):
        make_real_set.DocumentData.model_validate(document)


@pytest.fixture(scope="module")
def by_kind() -> ModuleType:
    return _script("by_kind")


def test_an_answer_report_is_broken_down_by_kind_and_wording(by_kind: ModuleType, tmp_path: Path) -> None:
    part = tmp_path / "dev.csv"
    part.write_text(
        "id,question,relevant_documents,answer\n"
        "dev.table.lit.a-01,dosis?,a.pdf,5 mg\n"
        "dev.table.para.a-02,hoeveel geef ik?,a.pdf,10 mg\n"
        "dev.none.lit.neg-01,iets anders?,,\n",
        encoding="utf-8",
    )
    answers = tmp_path / "answers.csv"  # the columns `api.evaluator.answer_quality` writes, those read here
    answers.write_text(
        "question,answerable,key_phrase,state,quote,answer,quote_has_fact,answer_has_fact\n"
        "dosis?,True,5 mg,answered,Geef 5 mg.,5 mg.,True,True\n"
        "hoeveel geef ik?,True,10 mg,not_found,,,False,False\n"
        "iets anders?,False,,not_found,,,,\n",
        encoding="utf-8",
    )

    lines = by_kind.table(by_kind.outcomes(part, answers))

    assert "| kind table | 2 | 1/2 (50 %) | 1/2 (50 %) | 1/2 (50 %) |" in lines
    assert "| wording para | 1 | 0/1 (0 %) | 0/1 (0 %) | 1/1 (100 %) |" in lines
    assert '| unanswerable: "niet gevonden" | 1 | | | 1/1 (100 %) |' in lines
