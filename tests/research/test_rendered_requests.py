"""Rendered RAG requests: made with the product's template, written as JSON lines and read back as they were."""

import json
from pathlib import Path

import pytest

from api.prompting import ANSWER_STOP_STRINGS, build_rag_prompt
from research.rendered_requests import RagPromptError, read_rag_prompts, render

PASSAGES = ["Titel: Handhygiëne\nTekst: Wrijf 30 seconden.", "Titel: Handhygiëne\nTekst: Droog af."]


def test_a_request_is_the_products_prompt_with_its_passages_as_context_and_its_stop_strings() -> None:
    request = render("hh-1", "dutch_rag", "Hoe lang wrijven?", PASSAGES)

    assert request.prompt == build_rag_prompt("Hoe lang wrijven?", PASSAGES)
    assert request.context == tuple(PASSAGES)
    assert request.stop == ANSWER_STOP_STRINGS
    assert request.record["question"] == "Hoe lang wrijven?"


def test_a_written_request_reads_back_as_it_was_with_what_else_its_line_held(tmp_path: Path) -> None:
    written = render("hh-1", "dutch_rag", "Hoe lang wrijven?", PASSAGES)
    line = written.record | {"quote": None}
    path = tmp_path / "requests.jsonl"
    path.write_text(json.dumps(line) + "\n\n" + json.dumps({"prompt": "Ga door:"}) + "\n", encoding="utf-8")

    first, second = read_rag_prompts(path)

    assert (first.id, first.category, first.prompt, first.context, first.stop) == (
        written.id,
        written.category,
        written.prompt,
        written.context,
        written.stop,
    )
    assert first.record == line
    assert (second.id, second.category, second.context, second.stop) == ("rag-3", "rag", None, ())


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"prompt": "ok"}\n{"question": "no prompt"}\n', r"requests.jsonl:2: expected"),
        ('{"prompt": "p", "stop": "[begin"}\n', r"requests.jsonl:1: expected"),
        ('{"prompt": "p", "context": [1, 2]}\n', r"requests.jsonl:1: expected"),
        ("[1, 2]\n", r"requests.jsonl:1: expected a JSON object"),
        ('{"prompt": \n', r"requests.jsonl:1: not JSON"),
    ],
)
def test_a_line_that_is_not_a_rendered_request_is_named_with_its_number(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "requests.jsonl"
    path.write_text(content, encoding="utf-8")

    with pytest.raises(RagPromptError, match=message):
        read_rag_prompts(path)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(RagPromptError, match=r"cannot read the prompt file .*absent\.jsonl"):
        read_rag_prompts(tmp_path / "absent.jsonl")
