"""`python -m research.quote_study`: how often the quote (`api.answers.quotes`) holds the question's key
fact, for candidate scorings and thresholds, on labelled question files retrieved as the chat retrieves them.

Each `--queries FILE --documents DIR` pair is indexed on its own (the chat's chunking, embedder, α and top k);
each question's retrieved chunks become the message's sources, and each candidate rule picks a quote from them.
Key phrases come from the file's `answer` column (the samples' files carry the answer snippets they were
generated with). Reported per set and rule: the
share of answerable questions whose quote holds the key fact, that got no quote, and that got a wrong one; and
the share of unanswerable questions that got a quote; and the ceiling: the share of answerable questions with the
key fact in some retrieved passage at all. Choose on the first set, read the others as held out.
"""

import argparse
import logging
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import torch

from api.answers.matching import numbers
from api.answers.quotes import Bonus, QuoteRule, select_quote
from api.answers.source import Source
from api.chat.sources import source
from api.evaluator.configs import deployed_config
from api.evaluator.corpus import read_pdf_folder
from api.evaluator.key_facts import holds_key_fact
from api.evaluator.queries import read_queries
from api.evaluator.retrieval_runs import build_index
from ingest.embedding import Embedder
from ingest.retrieval import Retriever
from ingest.settings import IngestSettings

log = logging.getLogger("research.quote_study")

# Questions that ask for a quantity: a duration, a dose, a frequency, a limit (the earlier, unit-blind bonus).
QUANTITY_QUESTION = re.compile(
    r"\b(hoe\s*(lang|vaak|veel|ver|snel|groot|hoog|laag)|hoeveel|hoelang|hoevaak|duur|dosis|dosering|max|"
    r"maximaal|maximum|min|minimaal|minimum|tijd|interval|frequentie|houdbaar|ml|mg|seconden|minuten|uur)\b",
    re.IGNORECASE,
)
QUANTITY_BONUS = 0.25


def quantity_bonus(question: str, sentences: Sequence[str]) -> list[float]:
    """The earlier rule's bonus: the question asks for a quantity and the sentence holds any number."""
    asks = bool(QUANTITY_QUESTION.search(question))
    return [QUANTITY_BONUS if asks and numbers(sentence) else 0.0 for sentence in sentences]


# A candidate: the product's rule with its weights, and the scores the study adds to each sentence (or none).
Candidate = tuple[QuoteRule, Bonus | None]

# The rule shipped before (unit-blind quantity bonus, every word weighing 1, words compared as the abstention
# compares them), then each change of the chosen rule added in turn, then the chosen rule's thresholds.
EARLIER = QuoteRule(
    unit_bonus=0.0,
    number_bonus=0.0,
    lead_in_bonus=0.0,
    rare_words=False,
    word_forms=False,
    heading_lists=False,
    completing_share=0.0,
)
RULES: dict[str, Candidate] = {
    "earlier: overlap + quantity + rank, min 0.5": (EARLIER, quantity_bonus),
    "earlier, min 0": (replace(EARLIER, min_score=0.0), quantity_bonus),
    "+ rare words weigh more": (replace(EARLIER, min_score=0.0, rare_words=True), quantity_bonus),
    "+ word forms (stems, compounds)": (
        replace(EARLIER, min_score=0.0, rare_words=True, word_forms=True),
        quantity_bonus,
    ),
    "+ units instead of any number": (
        QuoteRule(
            min_score=0.0, number_bonus=0.0, lead_in_bonus=0.0, heading_lists=False, completing_share=0.0
        ),
        None,
    ),
    "+ the question's own numbers": (
        QuoteRule(min_score=0.0, lead_in_bonus=0.0, heading_lists=False, completing_share=0.0),
        None,
    ),
    "+ lead-in for 'wanneer'": (QuoteRule(min_score=0.0, heading_lists=False, completing_share=0.0), None),
    "+ a heading's list quoted with its items": (QuoteRule(min_score=0.0, completing_share=0.0), None),
    "+ the next sentence when it adds question words": (QuoteRule(min_score=0.0), None),
    **{f"chosen, min {m}": (QuoteRule(min_score=m), None) for m in (0.4, 0.5, 0.6, 0.7)},
}


def embedder_rules(similarity: Bonus) -> dict[str, Candidate]:
    """The candidates that embed every candidate sentence (only with --embedder): the embedder's cosine alone, and
    the chosen rule with a weight of it added."""
    alone = QuoteRule(
        min_score=-9,
        unit_bonus=0.0,
        number_bonus=0.0,
        lead_in_bonus=0.0,
        rank_bonus=0.0,
        own_weight=0.0,
        rare_words=False,
        word_forms=False,
    )
    return {
        "embedder only": (alone, similarity),
        **{
            f"chosen + embedder × {w}": (QuoteRule(min_score=0.0), _weighted(similarity, w))
            for w in (0.5, 1.0, 2.0)
        },
    }


def embedder_similarity(embedder: Embedder) -> Bonus:
    """The embedder's cosine between the question (as a query) and each sentence (as a passage)."""

    def similarity(question: str, sentences: Sequence[str]) -> Sequence[float]:
        query = embedder.embed_query(question)
        passages = embedder.embed_passages(list(sentences))
        return [float(value) for value in passages @ query]

    return similarity


def _weighted(bonus: Bonus, weight: float) -> Bonus:
    return lambda question, sentences: [weight * value for value in bonus(question, sentences)]


@dataclass(frozen=True)
class Asked:
    question: str
    answerable: bool
    phrases: tuple[str, ...]
    sources: list[Source]
    seconds: float


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    settings = IngestSettings()
    embedder = Embedder.from_settings(settings)
    similarity = _cached(embedder_similarity(embedder))
    rules = {**RULES, **(embedder_rules(similarity) if args.embedder else {})}
    if len(args.queries) != len(args.documents):
        raise SystemExit("give one --documents per --queries")
    lines = [
        "| set | rule | key fact in quote | no quote | wrong quote | quote on unanswerable |",
        "|---|---|---|---|---|---|",
    ]
    for queries_path, documents in zip(args.queries, args.documents, strict=True):
        asked = _ask(queries_path, documents, embedder, settings)
        label = f"{queries_path.parent.name}/{queries_path.name}"
        lines.append(_ceiling(label, asked))
        for name, (rule, bonus) in rules.items():
            lines.append(_row(label, name, rule, bonus, asked, args.show))
    print("\n".join(lines))
    return 0


def _ask(
    path: Path,
    documents: Path,
    embedder: Embedder,
    settings: IngestSettings,
) -> list[Asked]:
    queries = read_queries(path)
    folder = read_pdf_folder(documents, settings.max_pdf_mb * 1_000_000)
    asked = []
    with tempfile.TemporaryDirectory(prefix="vraagbaak-quotes-") as index_folder:
        index = build_index(folder.documents, deployed_config(settings), embedder, Path(index_folder))
        try:
            retriever = Retriever.from_settings(settings, index, embedder)
            for query in queries:
                retrieval = retriever.retrieve(query.question)
                sources = [source(chunk) for chunk in retrieval.chunks]
                began = time.perf_counter()
                select_quote(query.question, sources)
                key = (query.answer,) if query.answer else ()
                asked.append(
                    Asked(
                        query.question,
                        bool(query.relevant_documents),
                        key,
                        sources,
                        time.perf_counter() - began,
                    )
                )
        finally:
            index.close()
    return asked


def _ceiling(name: str, asked: list[Asked]) -> str:
    """How many answerable questions have the key fact in some retrieved passage at all: no quote can do better."""
    answerable = [a for a in asked if a.answerable and a.phrases]
    held = sum(
        any(holds_key_fact(str(source.get("passage") or ""), a.phrases) for source in a.sources)
        for a in answerable
    )
    share = held / (len(answerable) or 1)
    return f"| {name} | ceiling: key fact in a retrieved passage | {held}/{len(answerable)} ({share:.0%}) | | | |"


def _row(
    name: str, rule_name: str, rule: QuoteRule, bonus: Bonus | None, asked: list[Asked], show: bool
) -> str:
    answerable = [a for a in asked if a.answerable and a.phrases]
    unanswerable = [a for a in asked if not a.answerable]
    held = none = wrong = 0
    for question in answerable:
        quote = select_quote(question.question, question.sources, rule, bonus)
        if quote is None:
            none += 1
        elif holds_key_fact(str(quote["text"]), question.phrases):
            held += 1
        else:
            wrong += 1
            if show:
                print(f"{rule_name}: {question.question!r} → {quote['text']!r} (want {question.phrases})")
    quoted = sum(select_quote(q.question, q.sources, rule, bonus) is not None for q in unanswerable)
    slowest = max((a.seconds for a in asked), default=0.0)
    log.info("%s %s: slowest quote %.1f ms", name, rule_name, slowest * 1000)
    n = len(answerable) or 1
    return (
        f"| {name} | {rule_name} | {held}/{len(answerable)} ({held / n:.0%}) | {none / n:.0%} | {wrong / n:.0%} "
        f"| {quoted}/{len(unanswerable)} |"
    )


def _cached(similarity: Bonus) -> Bonus:
    """The embedder's cosines once per question and candidate sentences, however many rules ask for them."""
    remembered = cache(lambda question, sentences: similarity(question, sentences))
    return lambda question, sentences: remembered(question, tuple(sentences))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m research.quote_study", description=__doc__)
    parser.add_argument(
        "--queries", type=Path, action="append", required=True, help=".csv / .jsonl (repeatable)"
    )
    parser.add_argument(
        "--documents", type=Path, action="append", required=True, help="the PDFs (repeatable)"
    )
    parser.add_argument("--show", action="store_true", help="print each wrong quote")
    parser.add_argument(
        "--embedder", action="store_true", help="add the rules that embed every candidate sentence (slow)"
    )
    parser.add_argument("--threads", type=int, help="CPU threads for the embedder")
    return parser


if __name__ == "__main__":
    sys.exit(main())
