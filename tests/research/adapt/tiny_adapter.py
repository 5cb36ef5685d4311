"""A tiny random Llama saved as a base model, and a LoRA adapter trained on it with `python -m research.adapt`:
what the adapter's training tests and its serving tests (tests/speculative/adapt) share."""

import json
from pathlib import Path

from transformers import PreTrainedTokenizerBase

from research.adapt.cli import main as adapt_main
from tests.speculative.conftest import tiny_llama

TINY_BASE_SEED = 5


def write_rows(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def rows(count: int = 6) -> list[dict[str, object]]:
    """Train and val rows, and one test row that training must never read."""
    made: list[dict[str, object]] = [
        {
            "id": f"q{i}",
            "prompt": f"Vraag {i}: hoe lang wrijven?\n",
            "target": f"{10 * i} seconden.",
            "split": "val" if i % 3 == 2 else "train",
        }
        for i in range(count)
    ]
    return [*made, {"id": "t0", "prompt": "Testvraag\n", "target": "nooit getraind", "split": "test"}]


def save_tiny_base(folder: Path, tokenizer: PreTrainedTokenizerBase) -> Path:
    """A tiny random Llama saved as a model folder with the SmolLM2 tokenizer (what `--model` takes)."""
    tiny_llama(seed=TINY_BASE_SEED).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def train_adapter(base: Path, work: Path) -> Path:
    """An adapter of `base` trained by the command on `rows()`, in `work/adapter`."""
    data = write_rows(work / "data.jsonl", rows())
    out = work / "adapter"
    arguments = ["--data", str(data), "--out", str(out), "--model", str(base), "--rank", "4", "--epochs", "2"]
    options = ["--eval-every", "2", "--dtype", "float32", "--device", "cpu", "--save-dtype", "float32"]
    assert adapt_main([*arguments, *options]) == 0
    return out
