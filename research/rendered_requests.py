"""Rendered RAG requests, the worker requests (docs/worker.md) the generation benchmarks and the head training
read, one JSON object a line: `{"id", "category", "question", "prompt", "context", "stop", …}`.

A request is rendered with the product's template (api/prompting.py), its passages again as CASD's context and
the template's stop strings. `python -m research.rag_prompts` writes such files, the GPU check makes them from the
samples. Light on purpose (the standard library and `api.prompting`): the GPU check imports it on a machine that
has only the worker's packages.
"""

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from api.prompting import ANSWER_STOP_STRINGS, DEFAULT_HOSPITAL, build_rag_prompt


class RagPromptError(ValueError):
    """A file of rendered requests cannot be read; the message names the file, the line and what was expected."""


@dataclass(frozen=True)
class RagPrompt:
    """One rendered request: `prompt` is the text the model continues, `context` the passages in it that CASD
    drafts from (None: the whole prompt), `stop` where the answer ends. `record` is the request as a JSON object,
    with whatever else its line held (the question, its sources), so a request is written back as it came."""

    id: str
    category: str
    prompt: str
    context: tuple[str, ...] | None
    stop: tuple[str, ...]
    record: dict[str, Any]


def render(
    request_id: str, category: str, question: str, passages: Sequence[str], hospital: str = DEFAULT_HOSPITAL
) -> RagPrompt:
    """The request the chat sends for `question` answered from `passages` (in the order the prompt shows them)."""
    prompt = build_rag_prompt(question, passages, hospital)
    record = {
        "id": request_id,
        "category": category,
        "question": question,
        "prompt": prompt,
        "context": list(passages),
        "stop": list(ANSWER_STOP_STRINGS),
    }
    return RagPrompt(request_id, category, prompt, tuple(passages), ANSWER_STOP_STRINGS, record)


def read_rag_prompts(path: Path) -> list[RagPrompt]:
    """Every request of a JSONL file; `id` and `category` default to `rag-LINE` and `rag`."""
    prompts = []
    for number, record in _json_lines(path):
        prompt, stop, context = record.get("prompt"), record.get("stop", []), record.get("context")
        if not isinstance(prompt, str) or not _strings(stop) or not (context is None or _strings(context)):
            raise RagPromptError(
                f'{path}:{number}: expected {{"prompt": str, "stop": [str, ...], "context": [str, ...] | null}}'
                " (a rendered request of python -m research.rag_prompts)"
            )
        prompts.append(
            RagPrompt(
                id=str(record.get("id", f"rag-{number}")),
                category=str(record.get("category", "rag")),
                prompt=prompt,
                context=None if context is None else tuple(context),
                stop=tuple(stop),
                record=record,
            )
        )
    return prompts


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of every line that is not blank."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise RagPromptError(f"cannot read the prompt file {path}: {error}") from error
    for number, line in enumerate(lines, start=1):
        if line.strip():
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise RagPromptError(f"{path}:{number}: not JSON: {error}") from error
            if not isinstance(record, dict):
                raise RagPromptError(f"{path}:{number}: expected a JSON object")
            yield number, record
