"""Benchmark prompt inputs are retrieved from real PDFs exactly as the chat retrieves them."""

import json
import os
from pathlib import Path
from typing import Any

import pytest

from api.prompting import ANSWER_STOP_STRINGS, build_rag_prompt
from modelstore.provision import provision
from modelstore.registry import ALL_MINILM_L6_V2, REGISTRY
from research.rag_prompts import main

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLES = REPO_ROOT / "samples"


@pytest.fixture
def minilm_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    cache = Path(os.environ.get("MODEL_CACHE", REPO_ROOT / ".models")).resolve()
    provision([REGISTRY[ALL_MINILM_L6_V2]], cache)
    monkeypatch.setenv("MODEL_CACHE", str(cache))
    monkeypatch.setenv("EMBEDDING_MODEL", ALL_MINILM_L6_V2)
    monkeypatch.delenv("RETRIEVAL_TOP_K", raising=False)


@pytest.mark.usefixtures("minilm_environment")
def test_each_question_gets_its_top_chunks_in_the_indexed_format_with_their_sources(tmp_path: Path) -> None:
    out = tmp_path / "prompts.jsonl"
    questions = tmp_path / "questions.csv"
    questions.write_text("question\nhoe lang handen wrijven met alcohol\n\n", encoding="utf-8")

    status = main(
        [
            "--documents",
            str(SAMPLES / "documents"),
            "--questions",
            str(questions),
            "--question",
            "hoe lang mag de stuwband blijven zitten",
            "--out",
            str(out),
            "--top-k",
            "2",
        ]
    )

    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert status == 0
    assert [line["id"] for line in lines] == ["dutch-rag-1", "dutch-rag-2"]
    assert [line["question"] for line in lines] == [
        "hoe lang handen wrijven met alcohol",
        "hoe lang mag de stuwband blijven zitten",
    ]
    for line in lines:
        quoted, chunks = line["context"][:1], line["context"][1:]  # the chat puts the chosen quote first
        assert quoted == [f"Titel: {line['sources'][0]['title']}\nTekst: {line['quote']}"]
        assert len(chunks) == len(line["sources"]) == 2
        assert all(chunk.startswith("Titel: ") and "\nTekst: " in chunk for chunk in chunks)
        assert all(
            chunk.startswith(f"Titel: {source['title']}\n")
            for chunk, source in zip(chunks, line["sources"], strict=True)
        )
        assert line["prompt"] == build_rag_prompt(line["question"], line["context"])
        assert line["stop"] == list(ANSWER_STOP_STRINGS)
        assert line["category"] == "dutch_rag"
    assert "30 seconden" in lines[0]["quote"]  # the sentence (here a table row) that answers
    assert lines[0]["sources"][0]["title"] == "Handhygiëne en handalcohol"
    assert lines[1]["sources"][0]["title"] == "Veneuze bloedafname"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--documents", "missing-folder", "--question", "vraag"], "no such document or folder"),
        (["--documents", "samples/documents"], "no questions"),
    ],
)
def test_missing_documents_or_questions_are_refused_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, arguments: list[str], message: str
) -> None:
    monkeypatch.chdir(REPO_ROOT)

    with pytest.raises(SystemExit, match=message):
        main([*arguments, "--out", str(tmp_path / "out.jsonl")])

    assert not (tmp_path / "out.jsonl").exists()


def test_a_csv_without_a_question_column_is_refused(tmp_path: Path) -> None:
    questions = tmp_path / "questions.csv"
    questions.write_text("vraag\nhoe lang\n", encoding="utf-8")

    with pytest.raises(SystemExit, match="'question' column"):
        main(
            [
                "--documents",
                str(SAMPLES / "documents"),
                "--questions",
                str(questions),
                "--out",
                str(tmp_path / "o"),
            ]
        )


def test_squad_renders_each_paragraphs_first_question_with_the_paragraph_as_the_only_chunk(
    tmp_path: Path,
) -> None:
    def paragraph(context: str, *questions: str) -> dict[str, Any]:
        qas = [{"id": f"{context}-{i}", "question": q, "answers": []} for i, q in enumerate(questions)]
        return {"context": context, "qas": qas}

    squad = {
        "version": "1.1",
        "data": [
            {
                "title": "A",
                "paragraphs": [paragraph("Alpha text.", "What is alpha?", "Second?"), paragraph("E.")],
            },
            {"title": "B", "paragraphs": [paragraph("Beta text.", "What is beta?")]},
        ],
    }
    source = tmp_path / "xquad.en.json"
    source.write_text(json.dumps(squad), encoding="utf-8")
    out = tmp_path / "squad.jsonl"

    assert main(["--squad", str(source), "--out", str(out)]) == 0

    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [line["id"] for line in lines] == ["squad-Alpha text.-0", "squad-Beta text.-0"]
    assert lines[1] == {
        "id": "squad-Beta text.-0",
        "category": "squad_rag",
        "question": "What is beta?",
        "prompt": build_rag_prompt("What is beta?", ["Beta text."]),
        "context": ["Beta text."],
        "stop": list(ANSWER_STOP_STRINGS),
    }


def test_a_file_that_is_not_squad_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "not-squad.json"
    source.write_text('{"rows": []}', encoding="utf-8")

    with pytest.raises(SystemExit, match="SQuAD-format"):
        main(["--squad", str(source), "--out", str(tmp_path / "o.jsonl")])
