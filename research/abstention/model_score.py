"""`python -m research.abstention.model_score`: what the generator's own "niet gevonden" adds to the chat's
coverage abstention, on the cases of `research.abstention.model_prompts` and the answers of
`python -m research.engine_bench` to its prompts.

`--cases C.csv --results DIR/results.json [--method hf-greedy]` prints a markdown table — coverage alone, the model on
what coverage lets through, and both (abstain when coverage does, or when the answer is the chat's not-found
message, `api.chat.abstention.says_not_found`, as the chat closes it) — the not-indexed cases coverage let
through, caught or missed, with what the model answered, and the answerable questions it called not found.
"""

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from api.chat.abstention import says_not_found
from research.abstention.cases import Case, read_cases

SHOWN_CHARACTERS = 90


@dataclass(frozen=True)
class Counts:
    """One group of cases (answerable or not indexed): how many, refused by coverage, let through, and of those
    answered "niet gevonden" by the model."""

    cases: int
    coverage: int
    let_through: int
    model: int

    @property
    def combined(self) -> int:
        return self.coverage + self.model


def answers_of(results: dict[str, Any], method: str) -> dict[str, str]:
    """Prompt id → the method's answer (its first run) in a `research.engine_bench` results.json."""
    answers: dict[str, str] = {}
    for answer in results["answers"]:
        if answer["method"] == method:
            answers.setdefault(answer["prompt_id"], answer["text"])
    return answers


def counts(cases: Sequence[Case], answers: dict[str, str], answerable: bool) -> Counts:
    group = [case for case in cases if case.answerable == answerable]
    through = [case for case in group if not case.coverage_abstains]
    missing = sorted({case.prompt_id for case in through} - set(answers))
    if missing:
        raise SystemExit(f"the results lack answers to {', '.join(missing[:5])}")
    return Counts(
        cases=len(group),
        coverage=len(group) - len(through),
        let_through=len(through),
        model=sum(says_not_found(answers[case.prompt_id]) for case in through),
    )


def table(not_indexed: Counts, answerable: Counts) -> str:
    return "\n".join(
        [
            "| rule | abstention (not indexed) | false abstention (answerable) |",
            "|---|---:|---:|",
            f"| coverage alone (the chat before the model) | {_rate(not_indexed.coverage, not_indexed.cases)} "
            f"| {_rate(answerable.coverage, answerable.cases)} |",
            f'| the model\'s "niet gevonden", on what coverage lets through '
            f"| {_rate(not_indexed.model, not_indexed.let_through)} | {_rate(answerable.model, answerable.let_through)} |",
            f"| **coverage or the model (the chat)** | **{_rate(not_indexed.combined, not_indexed.cases)}** "
            f"| **{_rate(answerable.combined, answerable.cases)}** |",
        ]
    )


def not_indexed_list(cases: Sequence[Case], answers: dict[str, str]) -> str:
    """The not-indexed cases coverage let through: caught (the model said not found) or missed, and the answer."""
    lines = ["| fold | question | coverage | model | answered |", "|---:|---|---:|---|---|"]
    for case in cases:
        if not case.answerable and not case.coverage_abstains:
            answer = answers[case.prompt_id]
            verdict = "caught" if says_not_found(answer) else "missed"
            lines.append(
                f"| {case.fold} | {case.question} | {_coverage(case.coverage)} | {verdict} | {_shown(answer)} |"
            )
    return "\n".join(lines)


def false_not_found_list(cases: Sequence[Case], answers: dict[str, str]) -> str:
    """The answerable questions the model called not found, with in how many of the folds coverage let through."""
    through = [case for case in cases if case.answerable and not case.coverage_abstains]
    said = Counter(case.question for case in through if says_not_found(answers[case.prompt_id]))
    asked = Counter(case.question for case in through)
    lines = ['| answerable question | "niet gevonden" in folds |', "|---|---:|"]
    lines += [f"| {question} | {said[question]}/{asked[question]} |" for question in sorted(said)]
    return "\n".join(lines)


def _rate(part: int, whole: int) -> str:
    return f"{part}/{whole} ({part / whole:.1%})" if whole else f"{part}/0"


def _coverage(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _shown(answer: str) -> str:
    text = " ".join(answer.split()).replace("|", "/")
    return text if len(text) <= SHOWN_CHARACTERS else text[: SHOWN_CHARACTERS - 1] + "…"


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    cases = read_cases(args.cases)
    answers = answers_of(json.loads(args.results.read_text(encoding="utf-8")), args.method)
    print(table(counts(cases, answers, answerable=False), counts(cases, answers, answerable=True)))
    print()
    print(not_indexed_list(cases, answers))
    print()
    print(false_not_found_list(cases, answers))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m research.abstention.model_score", description=__doc__)
    parser.add_argument("--cases", type=Path, required=True, help="the cases CSV of model_prompts")
    parser.add_argument("--results", type=Path, required=True, help="results.json of research.engine_bench")
    parser.add_argument(
        "--method",
        default="hf-greedy",
        help="whose answers are scored (default hf-greedy; CASD is lossless to it)",
    )
    return parser


if __name__ == "__main__":
    raise SystemExit(main())
