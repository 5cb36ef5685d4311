"""Per-kind and per-wording figures from an answer report on a part of the real-document set.

`python -m research.evaluate --answers` writes `answers.csv`, one row per question in the question file's order; this
script puts each row next to its id (`<part>.<kind>.<lit|para>.<key>`, matched by the question's text, which is
unique within a part) and prints, per kind and for literal and paraphrased wording, how often the quote and the
answer hold the key fact and how often an answerable question was refused ("niet gevonden"), and for the
unanswerable questions how often the chat said "niet gevonden".

Run: ``.venv/bin/python samples/real/by_kind.py samples/real/dev.csv /tmp/real-dev-answers/answers.csv``
"""

from __future__ import annotations

import argparse
import csv
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

NOT_FOUND = "not_found"


@dataclass(frozen=True)
class Outcome:
    kind: str
    wording: str
    answerable: bool
    quote_has_fact: bool
    answer_has_fact: bool
    refused: bool


def outcomes(part: Path, answers: Path) -> list[Outcome]:
    """One outcome per answered question of the part; a report row whose question is not in the part is an error."""
    with part.open(encoding="utf-8") as handle:
        ids = {row["question"]: row["id"] for row in csv.DictReader(handle)}
    found = []
    with answers.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["question"] not in ids:
                raise ValueError(f"{answers}: question not in {part.name}: {row['question']!r}")
            _, kind, wording, _ = ids[row["question"]].split(".")
            found.append(
                Outcome(
                    kind,
                    wording,
                    row["answerable"] == "True",
                    row["quote_has_fact"] == "True",
                    row["answer_has_fact"] == "True",
                    row["state"] == NOT_FOUND,
                )
            )
    return found


def table(results: Sequence[Outcome]) -> list[str]:
    answerable = [o for o in results if o.answerable]
    lines = [
        "| Group | Questions | Quote holds the key fact | Answer holds the key fact | Refused |",
        "|---|---:|---:|---:|---:|",
    ]
    groups = [(f"kind {kind}", [o for o in answerable if o.kind == kind]) for kind in _kinds(answerable)]
    groups += [(f"wording {w}", [o for o in answerable if o.wording == w]) for w in ("lit", "para")]
    groups.append(("all answerable", answerable))
    lines += [_line(name, group) for name, group in groups if group]
    unanswerable = [o for o in results if not o.answerable]
    if unanswerable:
        said = sum(o.refused for o in unanswerable)
        lines.append(
            f'| unanswerable: "niet gevonden" | {len(unanswerable)} | | | {_share(said, len(unanswerable))} |'
        )
    return lines


def _kinds(results: Iterable[Outcome]) -> list[str]:
    return sorted({o.kind for o in results})


def _line(name: str, group: Sequence[Outcome]) -> str:
    count = len(group)
    quote, answer, refused = (
        sum(getattr(o, field) for o in group) for field in ("quote_has_fact", "answer_has_fact", "refused")
    )
    return (
        f"| {name} | {count} | {_share(quote, count)} | {_share(answer, count)} | {_share(refused, count)} |"
    )


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f} %)"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("part", type=Path, help="the part's CSV, e.g. samples/real/dev.csv")
    parser.add_argument(
        "answers", type=Path, help="answers.csv of `python -m research.evaluate --answers` on that part"
    )
    args = parser.parse_args(argv)
    print("\n".join(table(outcomes(args.part, args.answers))))


if __name__ == "__main__":
    main()
