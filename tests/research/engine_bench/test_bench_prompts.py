"""Benchmark prompt sets load from the public files' own formats (fixtures written here, in those formats)."""

import json
from pathlib import Path
from typing import Any

import pytest
from transformers import PreTrainedTokenizerBase

from research.engine_bench.prompts import (
    BenchPrompt,
    PromptSetError,
    encode_prompts,
    load_prompt_set,
    load_rendered_requests,
    load_spec_bench,
)


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
    assert prompts[0] == BenchPrompt("spec-bench-81", "mt_bench", "Write a poem.")


def test_a_spec_bench_category_selects_its_prompts_and_mt_bench_groups_its_eight(spec_bench: Path) -> None:
    assert [p.text for p in load_prompt_set(f"spec-bench:{spec_bench}:rag")] == [
        "Passages … Question: who?",
        "Passages … Question: when?",
    ]
    assert [p.prompt_id for p in load_prompt_set(f"spec-bench:{spec_bench}:mt_bench")] == ["spec-bench-81"]


def test_an_unknown_spec_bench_category_is_named_in_the_error(spec_bench: Path) -> None:
    with pytest.raises(PromptSetError, match="unknown Spec-Bench category 'poetry'"):
        load_spec_bench(spec_bench, "poetry")


def test_rendered_rag_requests_keep_prompt_stop_strings_and_context_as_written(tmp_path: Path) -> None:
    path = _write_lines(
        tmp_path / "rag.jsonl",
        [
            {
                "id": "hh-1",
                "category": "dutch_rag",
                "prompt": "[begin vraag]\nhoe lang?\n[einde vraag]\n",
                "context": ["Wrijf 30 s.", "Droog af."],
                "stop": ["[einde antwoord]", "[begin"],
            },
            {"prompt": "Continue: one two", "context": None},
        ],
    )

    prompts = load_prompt_set(f"rag:{path}")

    assert prompts == [
        BenchPrompt(
            "hh-1",
            "dutch_rag",
            "[begin vraag]\nhoe lang?\n[einde vraag]\n",
            stop_strings=("[einde antwoord]", "[begin"),
            context=("Wrijf 30 s.", "Droog af."),
        ),
        BenchPrompt("rag-2", "rag", "Continue: one two"),
    ]


@pytest.mark.parametrize(
    "bad_line",
    [{"question": "no prompt"}, {"prompt": "p", "stop": "[begin"}, {"prompt": "p", "context": [1, 2]}],
)
def test_a_line_that_is_not_a_rendered_request_is_reported_with_its_line(
    tmp_path: Path, bad_line: dict[str, Any]
) -> None:
    path = _write_lines(tmp_path / "bad.jsonl", [{"prompt": "ok"}, bad_line])

    with pytest.raises(PromptSetError, match=r"bad.jsonl:2: expected"):
        load_rendered_requests(path)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("wiki:prompts.jsonl", "unknown prompt set"),
        ("rag:/nonexistent/prompts.jsonl", "cannot read"),
    ],
)
def test_bad_prompt_set_names_and_paths_are_explained(spec: str, message: str) -> None:
    with pytest.raises(PromptSetError, match=message):
        load_prompt_set(spec)


def test_an_empty_file_is_an_error_not_an_empty_benchmark(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n", encoding="utf-8")

    with pytest.raises(PromptSetError, match="no prompts"):
        load_rendered_requests(path)


def test_prompts_are_encoded_as_the_worker_encodes_them_a_chat_turn_for_a_chat_model(
    smollm2_tokenizer: PreTrainedTokenizerBase,
) -> None:
    rag = BenchPrompt("1", "dutch_rag", "[begin vraag]\nWie?", context=("Wrijf 30 s.", "Droog af."))
    spec_bench = BenchPrompt("2", "qa", "Who?")

    [rag_ids, spec_bench_ids] = encode_prompts(smollm2_tokenizer, [rag, spec_bench])

    assert smollm2_tokenizer.decode(rag_ids.token_ids).endswith(
        "<|im_start|>user\n[begin vraag]\nWie?<|im_end|>\n<|im_start|>assistant\n"
    )
    assert smollm2_tokenizer.decode(spec_bench_ids.token_ids).endswith(
        "<|im_start|>user\nWho?<|im_end|>\n<|im_start|>assistant\n"
    )
    assert rag_ids.context_ids is not None
    assert smollm2_tokenizer.decode(rag_ids.context_ids) == "Wrijf 30 s.\nDroog af."
    assert spec_bench_ids.context_ids is None


def test_without_the_chat_template_a_prompt_is_encoded_as_is(
    smollm2_tokenizer: PreTrainedTokenizerBase,
) -> None:
    [encoded] = encode_prompts(
        smollm2_tokenizer, [BenchPrompt("1", "dutch_rag", "[begin vraag]\nWie?")], "none"
    )

    assert smollm2_tokenizer.decode(encoded.token_ids) == "[begin vraag]\nWie?"
