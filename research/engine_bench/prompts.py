"""Benchmark prompt sets: Spec-Bench's public file, and rendered RAG requests (Dutch RAG, SQuAD as RAG).

A set is named on the command line as `KIND:PATH[:CATEGORY]`. RAG sets arrive rendered, one worker request per line
(`{"id", "category", "prompt", "context", "stop"}`, written by `python -m research.rag_prompts`): the engine knows no
prompt template. Every prompt, a rendered request or a Spec-Bench first turn, is what a client sends the worker as
its `prompt`, so it is encoded as the worker encodes it (`speculative.worker.encoding`): one user turn of the
model's chat template when it has one (CHAT_TEMPLATE=auto), as is otherwise.
"""

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from transformers import PreTrainedTokenizerBase

from research.rendered_requests import RagPromptError, read_rag_prompts
from speculative.worker.encoding import ChatTemplateMode, PromptEncoder

MT_BENCH_CATEGORIES = frozenset(
    {"writing", "roleplay", "reasoning", "math", "coding", "extraction", "stem", "humanities"}
)
SPEC_BENCH_CATEGORIES = ("mt_bench", "translation", "summarization", "qa", "math_reasoning", "rag")


class PromptSetError(ValueError):
    """The prompt set's name or file is not usable; the message says what was expected."""


@dataclass(frozen=True)
class BenchPrompt:
    """One benchmark prompt: `text` is the worker request's `prompt`, `context` its passages, which CASD drafts from
    in the worker (None: the whole prompt)."""

    prompt_id: str
    category: str
    text: str
    stop_strings: tuple[str, ...] = ()
    context: tuple[str, ...] | None = None


def load_prompt_set(spec: str) -> list[BenchPrompt]:
    """The prompts of `spec`: `spec-bench:PATH[:CATEGORY]` or `rag:PATH` (rendered requests)."""
    kind, _, location = spec.partition(":")
    if kind == "spec-bench":
        path, category = _split_category(location)
        return load_spec_bench(Path(path), category)
    if kind == "rag":
        return load_rendered_requests(Path(location))
    raise PromptSetError(f"unknown prompt set {spec!r}; expected spec-bench:PATH[:CATEGORY] or rag:PATH")


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
                BenchPrompt(f"spec-bench-{record['question_id']}", record_category, str(record["turns"][0]))
            )
    return _non_empty(prompts, path)


def load_rendered_requests(path: Path) -> list[BenchPrompt]:
    """The rendered requests of a JSONL file (`research.rendered_requests`): prompt, stop strings and passages."""
    try:
        requests = read_rag_prompts(path)
    except RagPromptError as error:
        raise PromptSetError(str(error)) from None
    prompts = [
        BenchPrompt(
            request.id,
            request.category,
            request.prompt,
            stop_strings=request.stop,
            context=request.context,
        )
        for request in requests
    ]
    return _non_empty(prompts, path)


@dataclass(frozen=True)
class EncodedPrompt:
    """A prompt's token ids and its passages' (None: CASD searches the prompt), as the worker would encode them."""

    prompt: BenchPrompt
    token_ids: tuple[int, ...]
    context_ids: tuple[int, ...] | None = None


def encode_prompts(
    tokenizer: PreTrainedTokenizerBase,
    prompts: Sequence[BenchPrompt],
    chat_template: ChatTemplateMode = "auto",
) -> list[EncodedPrompt]:
    """Tokenise once, outside any timing, as the worker does under CHAT_TEMPLATE: every method starts from the
    same ids."""
    encoder = PromptEncoder(tokenizer, chat_template)
    return [
        EncodedPrompt(
            prompt,
            tuple(encoder.prompt_ids(prompt.text)),
            None if prompt.context is None else tuple(encoder.context_ids(prompt.context)),
        )
        for prompt in prompts
    ]


def _json_lines(path: Path) -> Iterator[dict[str, Any]]:
    with _open(path) as lines:
        for line_number, line in enumerate(lines, start=1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as error:
                    raise PromptSetError(f"{path}:{line_number}: not JSON: {error}") from error


def _open(path: Path) -> TextIO:
    try:
        return path.open(encoding="utf-8")
    except OSError as error:
        raise PromptSetError(f"cannot read the prompt file {path}: {error}") from error


def _non_empty(prompts: list[BenchPrompt], path: Path) -> list[BenchPrompt]:
    if not prompts:
        raise PromptSetError(f"{path}: no prompts in this set")
    return prompts
