"""Benchmark prompt sets, read from their public files: Spec-Bench, SQuAD as RAG (XQuAD-en) and Dutch RAG.

A set is named on the command line as `KIND:PATH[:CATEGORY]`. RAG sets are rendered with the product's own prompt
template and end at its markers; Spec-Bench prompts are a user turn in the model's chat template, if it has one.
"""

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from transformers import PreTrainedTokenizerBase

from speculative.rag_prompt import ANSWER_STOP_STRINGS, build_rag_prompt

MT_BENCH_CATEGORIES = frozenset(
    {"writing", "roleplay", "reasoning", "math", "coding", "extraction", "stem", "humanities"}
)
SPEC_BENCH_CATEGORIES = ("mt_bench", "translation", "summarization", "qa", "math_reasoning", "rag")
SQUAD_RAG_QUESTIONS = 80


class PromptSetError(ValueError):
    """The prompt set's name or file is not usable; the message says what was expected."""


@dataclass(frozen=True)
class BenchPrompt:
    """One benchmark prompt: `text` is a user turn when `chat`, else the complete prompt to continue."""

    prompt_id: str
    category: str
    text: str
    chat: bool
    stop_strings: tuple[str, ...] = ()


def load_prompt_set(spec: str) -> list[BenchPrompt]:
    """The prompts of `spec`: `spec-bench:PATH[:CATEGORY]`, `squad-rag:PATH` or `dutch-rag:PATH`."""
    kind, _, location = spec.partition(":")
    if kind == "spec-bench":
        path, category = _split_category(location)
        return load_spec_bench(Path(path), category)
    if kind == "squad-rag":
        return load_squad_rag(Path(location))
    if kind == "dutch-rag":
        return load_dutch_rag(Path(location))
    raise PromptSetError(
        f"unknown prompt set {spec!r}; expected spec-bench:PATH[:CATEGORY], squad-rag:PATH or dutch-rag:PATH"
    )


def _split_category(location: str) -> tuple[str, str | None]:
    """A trailing `:CATEGORY` is a category only when it names one, so paths containing ':' still work."""
    path, _, category = location.rpartition(":")
    return (path, category) if path and category in SPEC_BENCH_CATEGORIES else (location, None)


def load_spec_bench(path: Path, category: str | None = None) -> list[BenchPrompt]:
    """Spec-Bench's `question.jsonl`, first turns only; MT-bench's eight categories count as `mt_bench`."""
    if category is not None and category not in SPEC_BENCH_CATEGORIES:
        raise PromptSetError(
            f"unknown Spec-Bench category {category!r}; known: {', '.join(SPEC_BENCH_CATEGORIES)}"
        )
    prompts = []
    for record in _json_lines(path):
        record_category = "mt_bench" if record["category"] in MT_BENCH_CATEGORIES else str(record["category"])
        if category in (None, record_category):
            prompts.append(
                BenchPrompt(
                    f"spec-bench-{record['question_id']}", record_category, str(record["turns"][0]), chat=True
                )
            )
    return _non_empty(prompts, path)


def load_squad_rag(path: Path, count: int = SQUAD_RAG_QUESTIONS) -> list[BenchPrompt]:
    """SQuAD as RAG: the first question of each of the first `count` paragraphs, its paragraph as the only chunk."""
    prompts = []
    for paragraph in _squad_paragraphs(_read_json(path)):
        question = paragraph["qas"][0]
        prompts.append(
            BenchPrompt(
                f"squad-{question['id']}",
                "squad_rag",
                build_rag_prompt(question["question"], [paragraph["context"]]),
                chat=False,
                stop_strings=ANSWER_STOP_STRINGS,
            )
        )
        if len(prompts) == count:
            break
    return _non_empty(prompts, path)


def load_dutch_rag(path: Path) -> list[BenchPrompt]:
    """Lines `{"question": …, "chunks": [...]}` (optionally `"id"`), rendered with the product's template."""
    prompts = []
    for line_number, record in enumerate(_json_lines(path), start=1):
        if not isinstance(record.get("question"), str) or not isinstance(record.get("chunks"), list):
            raise PromptSetError(f'{path}:{line_number}: expected {{"question": str, "chunks": [str, ...]}}')
        prompts.append(
            BenchPrompt(
                str(record.get("id", f"dutch-{line_number}")),
                "dutch_rag",
                build_rag_prompt(record["question"], [str(chunk) for chunk in record["chunks"]]),
                chat=False,
                stop_strings=ANSWER_STOP_STRINGS,
            )
        )
    return _non_empty(prompts, path)


def encode_prompt(tokenizer: PreTrainedTokenizerBase, prompt: BenchPrompt) -> list[int]:
    """Token ids of the prompt as the model sees it: a chat user turn with the generation prompt, or raw text."""
    if prompt.chat and tokenizer.chat_template:
        messages = [{"role": "user", "content": prompt.text}]
        text = str(tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True))
        return list(tokenizer(text, add_special_tokens=False)["input_ids"])
    return list(tokenizer(prompt.text)["input_ids"])


def _squad_paragraphs(squad: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for article in squad["data"]:
        for paragraph in article["paragraphs"]:
            if paragraph["qas"]:
                yield paragraph


def _json_lines(path: Path) -> Iterator[dict[str, Any]]:
    with _open(path) as lines:
        for line_number, line in enumerate(lines, start=1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as error:
                    raise PromptSetError(f"{path}:{line_number}: not JSON: {error}") from error


def _read_json(path: Path) -> dict[str, Any]:
    with _open(path) as file:
        data = json.load(file)
    if not isinstance(data, dict) or "data" not in data:
        raise PromptSetError(f"{path}: expected a SQuAD-format file with a top-level 'data' list")
    return data


def _open(path: Path) -> TextIO:
    try:
        return path.open(encoding="utf-8")
    except OSError as error:
        raise PromptSetError(f"cannot read the prompt file {path}: {error}") from error


def _non_empty(prompts: list[BenchPrompt], path: Path) -> list[BenchPrompt]:
    if not prompts:
        raise PromptSetError(f"{path}: no prompts in this set")
    return prompts
