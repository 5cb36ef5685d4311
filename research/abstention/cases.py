"""The cases of the generator's own abstention: each question as asked in one fold, whether coverage abstained,
and which rendered prompt the generator answered where it did not (`model_prompts` writes them, `model_score`
reads them)."""

import csv
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class Case:
    """One question in one fold. `prompt_id` names the prompt the chat would send; empty where coverage
    abstains (the chat then asks no model)."""

    fold: int
    question: str
    answerable: bool
    coverage: float | None
    coverage_abstains: bool
    prompt_id: str


def write_cases(path: Path, cases: Sequence[Case]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(Case.__dataclass_fields__))
        writer.writeheader()
        writer.writerows(asdict(case) for case in cases)


def read_cases(path: Path) -> list[Case]:
    with path.open(encoding="utf-8", newline="") as file:
        return [
            Case(
                fold=int(row["fold"]),
                question=row["question"],
                answerable=row["answerable"] == "True",
                coverage=float(row["coverage"]) if row["coverage"] else None,
                coverage_abstains=row["coverage_abstains"] == "True",
                prompt_id=row["prompt_id"],
            )
            for row in csv.DictReader(file)
        ]
