"""Training examples from a JSONL file: validated as a whole before any training starts, then tokenised.

Every row needs a unique non-empty `id`, a non-empty `prompt` and a `target` with text; its `split` (default
`train`) decides its use: `train` is trained on, `val` gives the held-out loss, anything else (`test`) is never
read. A row whose prompt and target together exceed the context limit is an error, not a silent truncation.
"""

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from transformers import PreTrainedTokenizerBase

TRAINED_SPLITS = ("train", "val")


class ExampleError(ValueError):
    """The training file is malformed; the message names the line and the field."""


@dataclass(frozen=True)
class Example:
    id: str
    split: str
    prompt: str
    target: str


@dataclass(frozen=True)
class TokenizedExample:
    """Prompt and target token ids: the loss covers only the target's."""

    id: str
    prompt_ids: tuple[int, ...]
    target_ids: tuple[int, ...]

    @property
    def length(self) -> int:
        return len(self.prompt_ids) + len(self.target_ids)


def read_examples(path: Path) -> list[Example]:
    """The train and val rows of `path`, after checking every row (ExampleError on the first bad one)."""
    examples: list[Example] = []
    seen: dict[str, int] = {}
    for number, row in _rows(path):
        example = _example(row, path, number)
        if example.id in seen:
            raise ExampleError(
                f"{path}:{number}: duplicate id {example.id!r} (first on line {seen[example.id]})"
            )
        seen[example.id] = number
        if example.split in TRAINED_SPLITS:
            examples.append(example)
    if not any(example.split == "train" for example in examples):
        raise ExampleError(f"{path}: no training rows (split 'train')")
    return examples


def _rows(path: Path) -> Iterator[tuple[int, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise ExampleError(f"cannot read {path}: {error}") from error
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as error:
            raise ExampleError(f"{path}:{number}: not JSON ({error.msg})") from error


def _example(row: Any, path: Path, number: int) -> Example:
    if not isinstance(row, dict):
        raise ExampleError(f"{path}:{number}: expected a JSON object")
    values = {}
    for field in ("id", "prompt", "target"):
        value = row.get(field)
        if not isinstance(value, str):
            raise ExampleError(f"{path}:{number}: missing field {field!r} (a string)")
        if not value.strip():
            raise ExampleError(f"{path}:{number}: field {field!r} is empty")
        values[field] = value
    split = row.get("split", "train")
    if not isinstance(split, str):
        raise ExampleError(f"{path}:{number}: field 'split' must be a string")
    return Example(values["id"], split, values["prompt"], values["target"])


def tokenize(
    examples: list[Example], tokenizer: PreTrainedTokenizerBase, max_length: int
) -> dict[str, list[TokenizedExample]]:
    """Token ids per split; the prompt as the worker encodes a plain prompt (with BOS), the target without."""
    by_split: dict[str, list[TokenizedExample]] = {split: [] for split in TRAINED_SPLITS}
    for example in examples:
        prompt_ids = tuple(tokenizer(example.prompt)["input_ids"])
        target_ids = tuple(tokenizer(example.target, add_special_tokens=False)["input_ids"])
        tokenized = TokenizedExample(example.id, prompt_ids, target_ids)
        if tokenized.length > max_length:
            raise ExampleError(
                f"example {example.id!r}: prompt and target are {tokenized.length} tokens, over the context "
                f"limit --max-length {max_length}; shorten its passages or raise the limit"
            )
        by_split[example.split].append(tokenized)
    return by_split
