"""Benchmark prompt sets load from the public files' own formats (fixtures written here, in those formats)."""

import json
from pathlib import Path
from typing import Any

import pytest
from transformers import PreTrainedTokenizerBase

from speculative.bench.prompts import (
    BenchPrompt,
    PromptSetError,
    encode_prompt,
    load_dutch_rag,
    load_prompt_set,
    load_spec_bench,
    load_squad_rag,
)
from speculative.rag_prompt import ANSWER_STOP_STRINGS, build_rag_prompt


def _write_lines(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text(
        "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records), encoding="utf-8"
    )
    return path


@pytest.fixture
def spec_bench(tmp_path: Path) -> Path:
    return _write_lines(
        tmp_path / "question.jsonl",
        [
            {"question_id": 81, "category": "writing", "turns": ["Write a poem.", "Now shorter."]},
            {"question_id": 161, "category": "translation", "turns": ["Translate: Hallo."]},
            {"question_id": 401, "category": "rag", "turns": ["Passages … Question: who?"]},
            {"question_id": 402, "category": "rag", "turns": ["Passages … Question: when?"]},
        ],
    )


def test_spec_bench_yields_first_turns_as_chat_prompts_without_extra_stop_strings(spec_bench: Path) -> None:
    prompts = load_spec_bench(spec_bench)

    assert [prompt.prompt_id for prompt in prompts] == [
        "spec-bench-81",
        "spec-bench-161",
        "spec-bench-401",
        "spec-bench-402",
    ]
    assert prompts[0] == BenchPrompt("spec-bench-81", "mt_bench", "Write a poem.", chat=True)


def test_a_spec_bench_category_selects_its_prompts_and_mt_bench_groups_its_eight(spec_bench: Path) -> None:
    assert [p.text for p in load_prompt_set(f"spec-bench:{spec_bench}:rag")] == [
        "Passages … Question: who?",
        "Passages … Question: when?",
    ]
    assert [p.prompt_id for p in load_prompt_set(f"spec-bench:{spec_bench}:mt_bench")] == ["spec-bench-81"]


def test_an_unknown_spec_bench_category_is_named_in_the_error(spec_bench: Path) -> None:
    with pytest.raises(PromptSetError, match="unknown Spec-Bench category 'poetry'"):
        load_spec_bench(spec_bench, "poetry")


def test_squad_rag_puts_each_paragraphs_first_question_and_the_paragraph_in_the_product_template(
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
                "paragraphs": [paragraph("Alpha text.", "What is alpha?", "Second?"), paragraph("Empty.")],
            },
            {
                "title": "B",
                "paragraphs": [paragraph("Beta text.", "What is beta?"), paragraph("Gamma.", "Gamma?")],
            },
        ],
    }
    path = tmp_path / "xquad.en.json"
    path.write_text(json.dumps(squad), encoding="utf-8")

    prompts = load_squad_rag(path, count=2)

    assert [prompt.prompt_id for prompt in prompts] == ["squad-Alpha text.-0", "squad-Beta text.-0"]
    assert prompts[1].text == build_rag_prompt("What is beta?", ["Beta text."])
    assert prompts[1].stop_strings == ANSWER_STOP_STRINGS
    assert not prompts[1].chat
    assert len(load_prompt_set(f"squad-rag:{path}")) == 3


def test_dutch_rag_renders_question_and_chunks_with_the_product_template(tmp_path: Path) -> None:
    path = _write_lines(
        tmp_path / "dutch.jsonl",
        [
            {"id": "hh-1", "question": "hoe lang handen wrijven", "chunks": ["Wrijf 30 s.", "Droog af."]},
            {"question": "C. diff handalcohol ok?", "chunks": ["Water en zeep."]},
        ],
    )

    prompts = load_prompt_set(f"dutch-rag:{path}")

    assert [prompt.prompt_id for prompt in prompts] == ["hh-1", "dutch-2"]
    assert prompts[0].text == build_rag_prompt("hoe lang handen wrijven", ["Wrijf 30 s.", "Droog af."])
    assert prompts[0].category == "dutch_rag"
    assert prompts[0].stop_strings == ANSWER_STOP_STRINGS


def test_a_dutch_rag_line_without_question_or_chunks_is_reported_with_its_line(tmp_path: Path) -> None:
    path = _write_lines(tmp_path / "bad.jsonl", [{"question": "ok", "chunks": []}, {"question": "no chunks"}])

    with pytest.raises(PromptSetError, match=r"bad.jsonl:2"):
        load_dutch_rag(path)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("wiki:prompts.jsonl", "unknown prompt set"),
        ("dutch-rag:/nonexistent/prompts.jsonl", "cannot read"),
    ],
)
def test_bad_prompt_set_names_and_paths_are_explained(spec: str, message: str) -> None:
    with pytest.raises(PromptSetError, match=message):
        load_prompt_set(spec)


def test_an_empty_file_is_an_error_not_an_empty_benchmark(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n", encoding="utf-8")

    with pytest.raises(PromptSetError, match="no prompts"):
        load_dutch_rag(path)


def test_chat_prompts_get_the_chat_template_and_rag_prompts_stay_raw(
    smollm2_tokenizer: PreTrainedTokenizerBase,
) -> None:
    chat = encode_prompt(smollm2_tokenizer, BenchPrompt("1", "qa", "Who?", chat=True))
    raw = encode_prompt(smollm2_tokenizer, BenchPrompt("2", "dutch_rag", "[begin vraag]\nWie?", chat=False))

    assert smollm2_tokenizer.decode(chat).endswith(
        "<|im_start|>user\nWho?<|im_end|>\n<|im_start|>assistant\n"
    )
    assert smollm2_tokenizer.decode(raw) == "[begin vraag]\nWie?"
