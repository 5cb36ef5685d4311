"""Base vs adapted generator on the same prompts: does the answer hold the key fact, does it loop, does it say
"niet gevonden" where the passages do not answer (and not where they do)?

`python -m research.adapt_score --prompts P.jsonl [--questions CSV] --results base=DIR/results.json
adapted=DIR/results.json [--method hf_greedy]` reads the rendered prompts (rows of `research.adapt_data`
carry their `answer`; rows of `research.rag_prompts` are matched by question to a CSV's `answer` column, empty =
unanswerable) and the answers of `python -m research.engine_bench` runs on them, and prints one markdown table.
"""

import argparse
import csv
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from api.chat.abstention import NOT_FOUND_SENTENCE
from api.evaluator.key_facts import holds_key_fact

BASELINE = "hf-greedy"


@dataclass(frozen=True)
class Scores:
    answerable: int
    key_facts: int
    false_not_found: int
    unanswerable: int
    not_found: int
    looping: int
    answers: int
    tau: float | None
    tokens_per_second: float | None
    greedy_tokens_per_second: float | None

    def row(self, name: str) -> str:
        return (
            f"| {name} | {self.key_facts}/{self.answerable} ({_share(self.key_facts, self.answerable)}) | "
            f"{self.looping}/{self.answers} | {self.not_found}/{self.unanswerable} "
            f"({_share(self.not_found, self.unanswerable)}) | {self.false_not_found}/{self.answerable} | "
            f"{_number(self.tau)} | {_number(self.tokens_per_second)} | {_number(self.greedy_tokens_per_second)} |"
        )


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "–"


def _number(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def key_phrases(prompts: Path, questions: Path | None) -> dict[str, str | None]:
    """Prompt id → its key phrase (None: unanswerable), from the row's `answer` or the questions CSV."""
    by_question: dict[str, str] = {}
    if questions is not None:
        with questions.open(encoding="utf-8", newline="") as file:
            by_question = {
                row["question"].strip(): row.get("answer", "").strip() for row in csv.DictReader(file)
            }
    phrases: dict[str, str | None] = {}
    for line in prompts.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if "answer" in row:
            phrases[row["id"]] = row["answer"] or None
        elif row.get("question", "").strip() in by_question:
            phrases[row["id"]] = by_question[row["question"].strip()] or None
        else:
            raise SystemExit(
                f"{prompts}: prompt {row['id']!r} has no answer and its question is not in {questions}"
            )
    return phrases


def score(results: dict[str, Any], phrases: dict[str, str | None], method: str, speed_method: str) -> Scores:
    """Scores of `method`'s answers (first run), and τ and decode speed of `speed_method` from the summaries."""
    answers = {a["prompt_id"]: a for a in results["answers"] if a["method"] == method}
    missing = sorted(set(phrases) - set(answers))
    if missing:
        raise SystemExit(f"the results lack answers of {method} to {', '.join(missing[:5])}")
    answerable = [pid for pid, phrase in phrases.items() if phrase]
    unanswerable = [pid for pid, phrase in phrases.items() if not phrase]
    said_not_found = {pid for pid in phrases if holds_key_fact(answers[pid]["text"], NOT_FOUND_SENTENCE)}
    summaries = results["methods"]
    return Scores(
        answerable=len(answerable),
        key_facts=sum(holds_key_fact(answers[pid]["text"], phrases[pid] or "") for pid in answerable),
        false_not_found=len(said_not_found.intersection(answerable)),
        unanswerable=len(unanswerable),
        not_found=len(said_not_found.intersection(unanswerable)),
        looping=summaries[method]["degenerate_answers"],
        answers=len(phrases),
        tau=_get(summaries, speed_method, "tau"),
        tokens_per_second=_get(summaries, speed_method, "decode_tokens_per_second"),
        greedy_tokens_per_second=_get(summaries, BASELINE, "decode_tokens_per_second"),
    )


def _get(summaries: dict[str, Any], method: str, key: str) -> float | None:
    """A summary figure (the mean of a spread), None when the method was not run."""
    value = summaries.get(method, {}).get(key)
    return value["mean"] if isinstance(value, dict) else value


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m research.adapt_score", description=__doc__)
    parser.add_argument("--prompts", type=Path, required=True, help="the rendered prompts (JSONL)")
    parser.add_argument("--questions", type=Path, help="CSV with question,answer for rows without an answer")
    parser.add_argument(
        "--results",
        nargs="+",
        required=True,
        help="NAME=results.json of research.engine_bench, one per model",
    )
    parser.add_argument("--method", default=BASELINE, help=f"whose answers are scored (default {BASELINE})")
    parser.add_argument("--speed-method", default="casd", help="whose τ and decode speed are shown")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    phrases = key_phrases(args.prompts, args.questions)
    lines = [
        f'| model | key fact in answer | looping (the bench\'s degenerate rule) | "niet gevonden" on '
        f'unanswerable | "niet gevonden" on answerable | {args.speed_method} τ | {args.speed_method} decode tok/s '
        f"| {BASELINE} decode tok/s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for item in args.results:
        name, _, path = item.partition("=")
        if not path:
            raise SystemExit(f"--results expects NAME=results.json, got {item!r}")
        results = json.loads(Path(path).read_text(encoding="utf-8"))
        lines.append(score(results, phrases, args.method, args.speed_method).row(name))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
