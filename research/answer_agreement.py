"""`python -m research.answer_agreement --judged samples/judgements/real-answers.csv`: how often the answer report's
automatic judgement ("the generated answer gives the key fact", in its own words: `api.evaluator.key_facts`)
agrees with a clinician-style hand judgement of the same answers.

The judged file lists answers a generator gave through the chat, each with its question's key phrase and a verdict
by hand: `right` (gives the key fact), `partly` (part of it, or only around it), `wrong`, or `refused` ("niet
gevonden"). The measure agrees when it says "gives the key fact" exactly for the `right` ones.
"""

import argparse
import csv
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from api.chat.abstention import says_not_found
from api.evaluator.key_facts import answer_holds_key_fact

VERDICTS = ("right", "partly", "wrong", "refused")


@dataclass(frozen=True)
class JudgedAnswer:
    id: str
    question: str
    key_phrase: str
    generated: str
    verdict: str

    @property
    def measured(self) -> bool:
        """What the answer report says: the answer is not a refusal and gives the key fact."""
        return not says_not_found(self.generated) and answer_holds_key_fact(self.generated, self.key_phrase)


def read_judged(path: Path) -> list[JudgedAnswer]:
    """The judged answers of a CSV with the columns id, question, answer (the key phrase), generated, verdict."""
    with path.open(encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file))
    judged = []
    for line, row in enumerate(rows, start=2):
        if row.get("verdict") not in VERDICTS or not row.get("answer"):
            raise ValueError(
                f"{path}, line {line}: needs a key phrase and a verdict of {', '.join(VERDICTS)}"
            )
        judged.append(
            JudgedAnswer(row["id"], row["question"], row["answer"], row["generated"], row["verdict"])
        )
    return judged


def agreement(judged: Sequence[JudgedAnswer]) -> float:
    """The share of answers where the measure says "gives the key fact" exactly when the hand judged it right."""
    return sum(answer.measured == (answer.verdict == "right") for answer in judged) / len(judged)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m research.answer_agreement", description=__doc__)
    parser.add_argument(
        "--judged", type=Path, required=True, help="CSV: id, question, answer, generated, verdict"
    )
    args = parser.parse_args(argv)
    judged = read_judged(args.judged)
    for answer in judged:
        if answer.measured != (answer.verdict == "right"):
            print(
                f"disagree: {answer.id} judged {answer.verdict}, measured {answer.measured}: {answer.generated!r}"
            )
    counts = Counter(answer.verdict for answer in judged)
    print(f"{len(judged)} judged answers ({', '.join(f'{counts[v]} {v}' for v in VERDICTS)})")
    print(f"agreement with the hand judgement: {agreement(judged):.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
