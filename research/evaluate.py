"""`python -m research.evaluate`: Hit@k / MRR reports for one or more retrieval configurations, side by side.

Question files: the hospital's CSV or JSONL with `--documents DIR` (the PDFs to index), or a public set in its
SQuAD format with `--dataset covid-qa|xquad`. Each configuration is indexed into a temporary index; the report
(CSV, JSON, Markdown, one self-contained HTML page) is written into `--out`.

With `--answers` (CSV/JSONL questions with an `answer` key-phrase column) each question is instead asked through
the chat with the offline generator, and the answer-quality report is written (`research.offline_answers`).
"""

import argparse
import logging
import os
import re
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import torch

from api.evaluator.answer_report import summarise, summary_lines, write_answer_report
from api.evaluator.configs import STUDY, ConfigError, RetrievalConfig, parse_config
from api.evaluator.corpus import CleanedDocument, clean_set, read_pdf_folder
from api.evaluator.datasets import DatasetError, load_covid_qa, load_xquad
from api.evaluator.export import summary_markdown, write_report
from api.evaluator.queries import EvalQuery, QueryFileError, read_queries
from api.evaluator.report import EvaluationReport
from api.evaluator.retrieval_runs import Embedders, run_configurations
from ingest.settings import IngestSettings
from research.offline_answers import OFFLINE_GENERATOR, ask_answers

log = logging.getLogger("research.evaluate")

DEFAULT_NAME = "default"


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    args = parser.parse_args(arguments)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    try:
        configs = _configs(args.config, args.study)
        inputs = _inputs(args)
    except (QueryFileError, DatasetError, ConfigError, FileNotFoundError) as error:
        parser.error(str(error))
    queries = inputs.queries[: args.limit] if args.limit is not None else inputs.queries
    notes = inputs.notes + ([f"Only the first {len(queries)} questions (--limit)."] if args.limit else [])
    notes.append("Command: python -m research.evaluate " + shlex.join(arguments))
    if args.answers:
        return _answers(args, inputs, queries, notes)
    results = run_configurations(inputs.documents, queries, configs, Embedders(IngestSettings()))
    report = EvaluationReport(args.title or inputs.title, tuple(results), tuple(notes), _reference(configs))
    for path in write_report(report, args.out):
        print(path)
    print(summary_markdown(report))
    return 0


def _answers(args: argparse.Namespace, inputs: "Inputs", queries: list[EvalQuery], notes: list[str]) -> int:
    """Answer quality through the real chat path (the worker with the offline generator)."""
    worker = {"DTYPE": args.dtype} | (
        {"TORCH_THREADS": str(args.worker_threads)} if args.worker_threads else {}
    )
    threads = args.worker_threads or "all"
    notes.append(
        f"Generator: {args.generator}, at most {args.max_new_tokens} new tokens, on CPU, DTYPE={args.dtype}, "
        f"worker threads: {threads}."
    )
    observations = ask_answers(
        inputs.documents, queries, args.generator, args.max_new_tokens, args.out, worker
    )
    for path in write_answer_report(args.title or inputs.title, observations, notes, args.out):
        print(path)
    print("\n".join(summary_lines(summarise(observations))))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m research.evaluate", description=__doc__)
    parser.add_argument("--queries", type=Path, required=True, help=".csv / .jsonl, or a SQuAD .json")
    parser.add_argument("--out", type=Path, required=True, help="folder for the report files")
    parser.add_argument("--documents", type=Path, help="folder of PDFs the CSV/JSONL questions are about")
    parser.add_argument("--dataset", choices=["covid-qa", "xquad"], help="read --queries as this public set")
    parser.add_argument("--language", help="language of the questions (XQuAD: taken from xquad.LANG.json)")
    parser.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="NAME=SETTINGS",
        help="e.g. bm25=alpha=0 or small=chunk=400/80,title=off (repeatable; default: one production config)",
    )
    parser.add_argument("--study", action="store_true", help="add the α / title / chunking / embedder study")
    parser.add_argument("--limit", type=_positive, help="only the first N questions (a quick look)")
    parser.add_argument(
        "--answers",
        action="store_true",
        help="answer quality: ask each question through the chat with the generator (needs an `answer` column)",
    )
    parser.add_argument("--generator", default=OFFLINE_GENERATOR, help="the worker's model (--answers)")
    parser.add_argument(
        "--max-new-tokens", type=_positive, default=96, help="longest generated answer (--answers)"
    )
    parser.add_argument(
        "--dtype",
        choices=["auto", "float32", "bfloat16"],
        default="auto",
        help="the worker's DTYPE (--answers; default auto, as shipped)",
    )
    parser.add_argument(
        "--worker-threads",
        type=_positive,
        default=os.cpu_count() or 1,
        help="the worker's TORCH_THREADS (--answers; default every core, as shipped)",
    )
    parser.add_argument("--title", help="the report's title")
    parser.add_argument(
        "--threads",
        type=_positive,
        help="CPU threads for the embedder (1 is fastest on a busy 2-core machine: no spinning for a lost core)",
    )
    return parser


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _configs(arguments: Sequence[str], study: bool) -> dict[str, RetrievalConfig]:
    configs = dict(STUDY) if study else {}
    for argument in arguments:
        name, config = parse_config(argument)
        if name in configs:
            raise ConfigError(f"two configurations are named {name!r}")
        configs[name] = config
    return configs or {DEFAULT_NAME: RetrievalConfig()}


@dataclass(frozen=True)
class Inputs:
    """Documents cleaned as ingestion cleans them, the questions, and notes saying what the numbers are for."""

    title: str
    documents: list[CleanedDocument]
    queries: list[EvalQuery]
    notes: list[str]


def _inputs(args: argparse.Namespace) -> Inputs:
    if args.dataset is not None:
        return _public_set(args)
    if args.documents is None:
        raise FileNotFoundError("CSV and JSONL questions need --documents DIR (the PDFs they are about)")
    queries = read_queries(args.queries)
    folder = read_pdf_folder(args.documents, IngestSettings().max_pdf_mb * 1_000_000)
    notes = [f"Questions: {args.queries.name} ({len(queries)}); documents: {len(folder.documents)} PDFs."]
    notes += [f"Language: {args.language}."] if args.language else []
    notes += [f"Not indexed (unusable): {failure}" for failure in folder.failures]
    return Inputs(args.queries.stem, list(folder.documents), queries, notes)


def _public_set(args: argparse.Namespace) -> Inputs:
    if args.dataset == "covid-qa":
        eval_set = load_covid_qa(args.queries)
    else:
        eval_set = load_xquad(args.queries, args.language or _xquad_language(args.queries))
    cleaned = clean_set(eval_set)
    notes = [eval_set.description, f"{len(cleaned.documents)} documents, {len(cleaned.queries)} questions."]
    if cleaned.lost_spans:
        notes.append(
            f"{cleaned.lost_spans} answer span(s) not found after cleaning: no chunk label for those."
        )
    return Inputs(eval_set.name, list(cleaned.documents), list(cleaned.queries), notes)


def _xquad_language(path: Path) -> str:
    match = re.fullmatch(r"xquad\.(\w+)\.json", path.name)
    if match is None:
        raise DatasetError(f"{path.name}: cannot tell the language from the file name; pass --language")
    return match.group(1)


def _reference(configs: dict[str, RetrievalConfig]) -> str | None:
    """The configuration that runs in production, when it is among those compared."""
    return next((name for name, config in configs.items() if config == RetrievalConfig()), None)


if __name__ == "__main__":
    sys.exit(main())
