"""samples/real/ holds the real-document question set as its source file generates it: each part readable by the
evaluator, split by document, with the size the evaluation needs. (The documents themselves are not in the
repository; `make_real_set.py --documents` checks the key phrases against them.)"""

import importlib.util
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

from api.evaluation.queries import EvalQuery, read_queries

REAL = Path(__file__).resolve().parents[2] / "samples" / "real"
MAIN_DOCUMENTS = 11


@pytest.fixture(scope="module")
def make_real_set() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_real_set", REAL / "make_real_set.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_real_set"] = module
    spec.loader.exec_module(module)
    return module


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


def test_every_answerable_question_has_one_document_and_a_key_phrase(
    parts: dict[str, list[EvalQuery]],
) -> None:
    for queries in parts.values():
        for query in _answerable(queries):
            assert len(query.relevant_documents) == 1, query.id
            assert query.answer, query.id
        assert all(query.answer is None for query in queries if not query.relevant_documents)


def test_the_development_part_is_large_enough(parts: dict[str, list[EvalQuery]]) -> None:
    dev = parts["dev"]

    assert len(_answerable(dev)) >= 80
    assert sum(_field(query, 2) == "para" for query in dev) >= 15
    assert sum(not query.relevant_documents for query in dev) >= 15
