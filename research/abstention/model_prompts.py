"""`python -m research.abstention.model_prompts`: the prompts the chat would send the generator for the
questions coverage lets through, to measure what the generator's own "niet gevonden" adds to the abstention.

The folds and retrieval are the abstention study's (each PDF left out in turn, the chat's retriever; a case is a
question asked in one fold). The chat's rule (coverage ≥ ABSTAIN_MIN_COVERAGE) abstains on some cases; for the rest
the product's prompt is rendered as the chat renders it (chunks as indexed) and written once per distinct prompt —
the same question retrieves the same chunks in most folds — as worker requests for
`python -m research.engine_bench --prompts rag:FILE`. The cases CSV maps every case to its prompt (none where coverage
abstains); `python -m research.abstention.model_score` reads it with the benchmark's answers.

`--csv samples/heldout/questions.csv --documents samples/heldout/documents --prompts P.jsonl --cases C.csv`
"""

import argparse
import logging
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import torch

from api.chat.abstention import AbstentionRule
from api.chat.settings import MEASURED_MIN_COVERAGE
from ingest.embedding import Embedder
from ingest.settings import IngestSettings
from research.abstention.cases import Case, write_cases
from research.abstention.study import Asked, ask, document_records, pdf_folder_set
from research.rag_prompts import retrieved_request, write_lines

CATEGORY = "abstention"


def prompts_and_cases(
    asked: Iterable[Asked], rule: AbstentionRule
) -> tuple[list[dict[str, Any]], list[Case]]:
    """Every asked question as a case; a request for each distinct prompt of the cases the rule answers."""
    requests: dict[str, dict[str, Any]] = {}  # rendered prompt → its request
    cases = []
    for item in asked:
        confidence = item.confidence
        abstains = not item.chunks or rule.abstains(confidence)
        prompt_id = ""
        if not abstains:
            request = retrieved_request(
                f"{CATEGORY}-{len(requests) + 1}", CATEGORY, item.query.question, item.chunks
            )
            prompt_id = requests.setdefault(request["prompt"], request)["id"]
        cases.append(
            Case(item.fold, item.query.question, item.answerable, confidence.coverage, abstains, prompt_id)
        )
    return list(requests.values()), cases


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    torch.set_num_threads(args.threads)
    settings = IngestSettings()
    labelled = pdf_folder_set(args.csv, args.documents, args.language, settings)
    embedder = Embedder.from_settings(settings)
    asked = ask(labelled, document_records(labelled, settings), embedder, settings)
    requests, cases = prompts_and_cases(asked, AbstentionRule(None, None, args.min_coverage))
    write_cases(args.cases, cases)
    passed = sum(not case.coverage_abstains for case in cases)
    return write_lines(args.prompts, requests, f"{passed} of {len(cases)} cases that coverage lets through")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m research.abstention.model_prompts", description=__doc__)
    parser.add_argument("--csv", type=Path, required=True, help="hospital CSV: question,relevant_documents")
    parser.add_argument(
        "--documents", type=Path, required=True, help="folder of the PDFs the questions are about"
    )
    parser.add_argument("--language", default="nl", help="language of the questions (names the set)")
    parser.add_argument(
        "--min-coverage",
        type=float,
        default=MEASURED_MIN_COVERAGE,
        help=f"the coverage threshold (ABSTAIN_MIN_COVERAGE; default the measured {MEASURED_MIN_COVERAGE})",
    )
    parser.add_argument("--prompts", type=Path, required=True, help="JSONL of worker requests to write")
    parser.add_argument("--cases", type=Path, required=True, help="CSV of every case and its prompt to write")
    parser.add_argument("--threads", type=int, default=1, help="torch threads for the embedder")
    return parser


if __name__ == "__main__":
    sys.exit(main())
