"""`python -m research.abstention.study`: how well raw retrieval scores separate answerable questions from
questions whose documents are not indexed, and which thresholds the chat's "not found" should use.

Unanswerable questions are made by leaving documents out: the documents are split into folds (COVID-QA by article,
XQuAD by Wikipedia article, a PDF folder by file); for each fold the other folds are indexed, the questions about
the left-out documents are unanswerable and the rest answerable. Questions labelled with no document are
unanswerable in one fold. Each question is retrieved as the chat retrieves it (hybrid, α and top k of the
settings, the offline embedder) and its best raw dense cosine, raw BM25 score and the coverage of its content
words by the retrieved passages are recorded, with candidate measures for coverage's place (MEASURES: weighted by
each word's IDF in the fold's index, the most specific word, the best chunk alone, the words the index knows),
each with its family in SIGNALS. The thresholds reported are the strictest that keep false
abstention (answerable questions answered "not found") within the budget, chosen on all sets pooled and on each
set alone, then applied to every set: a set no threshold was chosen on is a held-out test of the rule.

With `--whole-index` nothing is left out: the PDFs are indexed once, as the chat's index holds them, and the
questions labelled with no document (written near the documents' topics) are the unanswerable ones. That is how the
dense gate of `api/chat/calibration.py` is calibrated per embedder: the strictest cosine that refuses no more than
the budget of a development part's answerable questions (`dense_gate`), reported on a test part. The report ends
with the refusals of each set's dense gate and of the chat's rule as deployed (the ABSTAIN_* settings, the calibrated
gate where ABSTAIN_MIN_DENSE is unset) per set, part and wording: literal and paraphrased answerable questions and
unanswerable ones (the part is the question id's first segment and `.para.` in it marks a paraphrase, as
`samples/real` writes them).

Data paths are arguments, e.g. `--xquad ../shared/data/xquad/xquad.de.json --csv samples/questions.csv
--documents samples/documents` (`--csv`/`--documents` pairs repeat); per-question scores go to `--out` as CSV, and
`--scores` reports again from them (with the settings of the time, e.g. another ABSTAIN_MIN_COVERAGE).
"""

import argparse
import csv
import logging
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from numpy.typing import NDArray

from api.chat.abstention import AbstentionRule, Confidence, coverage
from api.chat.calibration import deployed_rule
from api.chat.settings import ChatSettings
from api.dutch import Vocabulary, content_words
from api.evaluator.corpus import CleanedDocument, clean_set, read_pdf_folder
from api.evaluator.datasets import load_covid_qa, load_xquad
from api.evaluator.queries import EvalQuery, read_queries
from api.evaluator.resolution import DocumentResolver
from api.evaluator.retrieval_runs import catalogue
from ingest.embedding import Embedder
from ingest.pipeline import chunk_records
from ingest.retrieval import QuestionTruncator, RetrievedChunk, Retriever
from ingest.search.embedded import EmbeddedIndex
from ingest.search.types import ChunkRecord
from ingest.settings import IngestSettings
from research.abstention.candidates import (
    document_frequencies,
    idf_weights,
    most_specific_found,
    weighted_coverage,
)

log = logging.getLogger("research.abstention.study")


@dataclass(frozen=True)
class LabelledSet:
    """Documents grouped for leaving out (a group is left out whole), and questions naming document ids."""

    name: str
    documents: tuple[CleanedDocument, ...]
    groups: dict[str, str]  # document id → group
    queries: tuple[EvalQuery, ...]
    folds: int
    leave_out: bool = True  # False: one index of every document, the labels alone tell the unanswerable


@dataclass(frozen=True)
class Observation:
    set: str
    fold: int
    question: str
    answerable: bool
    found: bool
    dense: float | None
    bm25: float | None
    fused: float | None
    coverage: float | None = None
    idf_coverage: float | None = None
    specific_found: float | None = None
    top1_coverage: float | None = None
    known_coverage: float | None = None
    words: str = ""  # each content word with the chunks of the fold's index holding it, + found / - missing
    query_id: str = ""
    wording: str = "literal"  # of an answerable question: literal or paraphrased; else unanswerable

    @property
    def confidence(self) -> Confidence:
        return self.confidence_on("coverage")

    def confidence_on(self, measure: str) -> Confidence:
        """The legs, and `measure` (one of MEASURES) in the place of coverage."""
        return Confidence(self.dense, self.bm25, getattr(self, measure))

    @property
    def coverage_and_specific(self) -> float | None:
        """Coverage, or 0 when the most specific word is missing: one threshold then asks for both."""
        if self.coverage is None or self.specific_found is None:
            return self.coverage
        return self.coverage if self.specific_found else 0.0


# What a rule may threshold in coverage's place (an Observation attribute each): the plain share of content
# words; the share weighted by each word's IDF in the fold's index; 1/0 whether the highest-IDF word is found;
# coverage with that word required besides; the share found in the best chunk alone; the share among the words
# the index holds at all (a word no chunk holds, an abbreviation or a synonym, is left out; none held → 0).
MEASURES = (
    "coverage",
    "idf_coverage",
    "specific_found",
    "coverage_and_specific",
    "top1_coverage",
    "known_coverage",
)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    settings = IngestSettings()
    if args.scores is not None:
        observations = _read_rows(args.scores)
    else:
        torch.set_num_threads(args.threads)
        embedder = Embedder.from_settings(settings)
        observations = []
        for labelled in _sets(args, settings):
            observations += observe(labelled, embedder, settings)
        _write_rows(observations, args.out)
    print(report(observations, args.max_false_abstention, settings))
    return 0


@dataclass(frozen=True)
class Asked:
    """One question asked of one fold's index through the chat's retriever, and what came back."""

    fold: int
    query: EvalQuery
    indexed: frozenset[str]  # the document ids in the fold's index
    chunks: tuple[RetrievedChunk, ...]

    @property
    def answerable(self) -> bool:
        return bool(set(self.query.relevant_documents) & self.indexed)

    @property
    def passages(self) -> list[str]:
        """Each chunk's title and passage, as the chat measures coverage on them."""
        return [f"{chunk.title}\n{chunk.text}" for chunk in self.chunks]

    @property
    def confidence(self) -> Confidence:
        return Confidence.of(
            ((chunk.dense, chunk.bm25) for chunk in self.chunks), self.query.question, self.passages
        )


def document_records(labelled: LabelledSet, settings: IngestSettings) -> dict[str, list[ChunkRecord]]:
    """Each document's chunks as ingestion stores them."""
    return {
        document.source.id: chunk_records(
            document.parsed, document.tags, settings.chunk_size, settings.chunk_overlap
        )
        for document in labelled.documents
    }


def fold_of(labelled: LabelledSet) -> dict[str, int]:
    """Each document's fold: its group's place among the sorted groups, dealt round the folds."""
    groups = sorted(set(labelled.groups.values()))
    fold = {group: position % labelled.folds for position, group in enumerate(groups)}
    return {document: fold[group] for document, group in labelled.groups.items()}


def fold_indexes(labelled: LabelledSet) -> list[frozenset[str]]:
    """The documents each fold's index holds: all but the fold's own, or all of them once (`leave_out` off)."""
    if not labelled.leave_out:
        return [frozenset(labelled.groups)]
    folds = fold_of(labelled)
    return [
        frozenset(doc for doc, doc_fold in folds.items() if doc_fold != fold)
        for fold in range(labelled.folds)
    ]


def wording(query: EvalQuery) -> str:
    """unanswerable (no document), paraphrased (`.para.` in its id, as samples/real writes it) or literal."""
    if not query.relevant_documents:
        return "unanswerable"
    return "paraphrased" if ".para." in f".{query.id}." else "literal"


def ask(
    labelled: LabelledSet,
    records: dict[str, list[ChunkRecord]],
    embedder: Embedder,
    settings: IngestSettings,
) -> Iterator[Asked]:
    """Every question of every fold, retrieved by the chat's retriever from the fold's index (`fold_indexes`;
    a question no document answers is asked in fold 0 only, so it counts once)."""
    texts = [record.text for chunks in records.values() for record in chunks]
    log.info("%s: embedding %d chunks of %d documents", labelled.name, len(texts), len(records))
    vectors = dict(zip(_record_keys(records.values()), embedder.embed_passages(texts), strict=True))
    query_vectors = np.stack([embedder.embed_query(query.question) for query in labelled.queries])
    truncator = QuestionTruncator.for_model(settings.embedding_model, settings.model_cache)
    for fold, indexed in enumerate(fold_indexes(labelled)):
        with tempfile.TemporaryDirectory(prefix="vraagbaak-abstention-") as folder:
            index = EmbeddedIndex(Path(folder), embedding_model=embedder.model_name)
            try:
                for document_id in sorted(indexed):
                    chunks = records[document_id]
                    if chunks:
                        index.put_document(chunks, np.stack([vectors[_key(c)] for c in chunks]))
                retriever = Retriever(
                    index,
                    embedder,
                    truncator,
                    alpha=settings.retrieval_alpha,
                    top_k=settings.retrieval_top_k,
                    relevance_floor=settings.relevance_floor,
                    repeat_min_chars=settings.retrieval_repeat_min_chars,
                )
                for query, vector in zip(labelled.queries, query_vectors, strict=True):
                    if query.relevant_documents or fold == 0:
                        found = retriever.search(query.question, vector).chunks
                        yield Asked(fold, query, indexed, found)
            finally:
                index.close()


def observe(labelled: LabelledSet, embedder: Embedder, settings: IngestSettings) -> list[Observation]:
    """Every question of every fold with the signals of what it retrieved."""
    records = document_records(labelled, settings)
    vocabularies = {
        _key(record): Vocabulary([record.text]) for chunks in records.values() for record in chunks
    }
    question_words = sorted({word for query in labelled.queries for word in content_words(query.question)})
    fold_words: dict[int, tuple[dict[str, int], dict[str, float]]] = {}
    observations = []
    for asked in ask(labelled, records, embedder, settings):
        if asked.fold not in fold_words:
            fold_chunks = [vocabularies[_key(record)] for doc in asked.indexed for record in records[doc]]
            frequencies = document_frequencies(question_words, fold_chunks)
            fold_words[asked.fold] = (frequencies, idf_weights(frequencies, len(fold_chunks)))
        observations.append(_observation(labelled.name, asked, *fold_words[asked.fold]))
    return observations


def _observation(
    name: str, asked: Asked, frequencies: dict[str, int], weights: dict[str, float]
) -> Observation:
    """The signals of one asked question; `frequencies`: how many of the fold's chunks hold each question word,
    `weights` their IDF there."""
    question, passages, confidence = asked.query.question, asked.passages, asked.confidence
    known = {word: 1.0 if holding else 0.0 for word, holding in frequencies.items()}
    specific = most_specific_found(question, passages, weights)
    return Observation(
        set=name,
        fold=asked.fold,
        question=question,
        answerable=asked.answerable,
        found=any(chunk.document_id in asked.query.relevant_documents for chunk in asked.chunks),
        dense=confidence.dense,
        bm25=confidence.bm25,
        fused=asked.chunks[0].score if asked.chunks else None,
        coverage=confidence.coverage,
        idf_coverage=weighted_coverage(question, passages, weights),
        specific_found=None if specific is None else float(specific),
        top1_coverage=coverage(question, passages[:1]),
        known_coverage=_known_coverage(question, passages, known),
        words=_words(question, passages, frequencies),
        query_id=asked.query.id,
        wording=wording(asked.query) if asked.answerable else "unanswerable",
    )


@dataclass(frozen=True)
class Outcome:
    """Rates of one rule over a group of observations."""

    answerable: int
    unanswerable: int
    abstention: float
    false_abstention: float


def outcome(observations: Sequence[Observation], rule: AbstentionRule, measure: str = "coverage") -> Outcome:
    answerable = [o for o in observations if o.answerable]
    unanswerable = [o for o in observations if not o.answerable]
    return Outcome(
        len(answerable),
        len(unanswerable),
        _share(unanswerable, rule, measure),
        _share(answerable, rule, measure),
    )


@dataclass(frozen=True)
class Signal:
    """Which thresholds a rule may set: either leg vouching, and the coverage required besides (`measure`:
    which of MEASURES stands for coverage)."""

    name: str
    dense: bool
    bm25: bool
    coverage: bool = False
    measure: str = "coverage"

    def __post_init__(self) -> None:
        if self.measure not in MEASURES:
            raise ValueError(f"unknown measure {self.measure!r}: one of {', '.join(MEASURES)}")


SIGNALS = (
    Signal("dense cosine", dense=True, bm25=False),
    Signal("BM25", dense=False, bm25=True),
    Signal("dense or BM25", dense=True, bm25=True),
    Signal("coverage (the chat's default)", dense=False, bm25=False, coverage=True),
    Signal("coverage and dense", dense=True, bm25=False, coverage=True),
    Signal("coverage and (dense or BM25)", dense=True, bm25=True, coverage=True),
    Signal("IDF-weighted coverage", dense=False, bm25=False, coverage=True, measure="idf_coverage"),
    Signal("most specific word found", dense=False, bm25=False, coverage=True, measure="specific_found"),
    Signal(
        "coverage and most specific word",
        dense=False,
        bm25=False,
        coverage=True,
        measure="coverage_and_specific",
    ),
    Signal("coverage of the best chunk", dense=False, bm25=False, coverage=True, measure="top1_coverage"),
    Signal("coverage of known words", dense=False, bm25=False, coverage=True, measure="known_coverage"),
)


def strictest_rule(observations: Sequence[Observation], budget: float, signal: Signal) -> AbstentionRule:
    """The rule with the most abstention whose false abstention stays within `budget`; ties → fewer FA."""
    answerable = np.array([o.answerable for o in observations])
    dense_grid = _grid([o.dense for o in observations]) if signal.dense else [None]
    bm25_grid = _grid([o.bm25 for o in observations]) if signal.bm25 else [None]
    measured = [getattr(o, signal.measure) for o in observations]
    coverage_grid = _grid(measured) if signal.coverage else [None]
    dense_vouches = _vouches([o.dense for o in observations], dense_grid)
    bm25_vouches = _vouches([o.bm25 for o in observations], bm25_grid)
    uncovered = ~_vouches(measured, coverage_grid, absent=True)
    bm25_set = np.array([t is not None for t in bm25_grid])
    best = AbstentionRule(None, None)
    best_key = (-1.0, 0.0)
    for c, min_coverage in enumerate(coverage_grid):
        for d, min_dense in enumerate(dense_grid):
            # [BM25 threshold, observation]: no leg vouches, where a leg is asked at all (as AbstentionRule)
            legs_asked = bm25_set | (min_dense is not None)
            unvouched = ~(dense_vouches[d][None, :] | bm25_vouches) & legs_asked[:, None]
            abstains = unvouched | uncovered[c][None, :]
            false_abstention = _rates(abstains, answerable)
            abstention = _rates(abstains, ~answerable)
            for b, min_bm25 in enumerate(bm25_grid):
                rule = AbstentionRule(min_dense, min_bm25, min_coverage)
                key = (float(abstention[b]), -float(false_abstention[b]))
                if rule != AbstentionRule(None, None) and false_abstention[b] <= budget and key > best_key:
                    best, best_key = rule, key
    return best


def _rates(abstains: NDArray[np.bool_], group: NDArray[np.bool_]) -> NDArray[np.float64]:
    """[threshold] → the share of the group's observations that each threshold abstains on."""
    if not group.any():
        return np.zeros(abstains.shape[0])
    return np.asarray(abstains[:, group].mean(axis=1), dtype=np.float64)


def _vouches(
    values: Sequence[float | None], grid: Sequence[float | None], absent: bool = False
) -> NDArray[np.bool_]:
    """[threshold, observation] → whether the value reaches the threshold. A threshold of None is reached by
    nothing, or by everything with `absent` (a signal left out); a value of None reaches only with `absent`."""
    present = np.array([v is not None for v in values], dtype=bool)
    filled = np.array([v if v is not None else -np.inf for v in values], dtype=np.float64)
    rows = [
        np.full(len(values), absent) if t is None else (present & (filled >= t)) | (~present & absent)
        for t in grid
    ]
    return np.array(rows, dtype=bool).reshape(len(grid), len(values))


def report(observations: Sequence[Observation], budget: float, settings: IngestSettings) -> str:
    """Markdown tables: each signal's strictest rule within the budget, chosen on all sets pooled and on each set
    alone, applied to every set; the distributions of the signals; the refusals of the dense gates and of the
    chat's rule as deployed per set, part and wording."""
    sets = sorted({o.set for o in observations})
    lines = [
        f"False-abstention budget {budget:.0%} (α {settings.retrieval_alpha}, top {settings.retrieval_top_k}, "
        f"{settings.embedding_model}).",
        "",
        "| signal | chosen on | min dense | min BM25 | min coverage | applied to | answerable | unanswerable "
        "| abstention | false abstention |",
        "|---|---|---:|---:|---:|---|---:|---:|---:|---:|",
    ]
    for signal in SIGNALS:
        for chosen_on in [*sets, "all"] if len(sets) > 1 else sets:
            chosen = [o for o in observations if chosen_on in ("all", o.set)]
            rule = strictest_rule(chosen, budget, signal)
            for name in sets:
                rates = outcome([o for o in observations if o.set == name], rule, signal.measure)
                lines.append(
                    f"| {signal.name} | {chosen_on} | {_fmt(rule.min_dense)} | {_fmt(rule.min_bm25)} "
                    f"| {_fmt(rule.min_coverage)} | {name} | {rates.answerable} | {rates.unanswerable} "
                    f"| {rates.abstention:.1%} | {rates.false_abstention:.1%} |"
                )
    lines += ["", "Best raw scores and coverage, p10 / p50 / p90:", ""]
    lines += ["| set | group | dense cosine | BM25 | fused (top 1) | coverage |", "|---|---|---|---|---|---|"]
    for name in sets:
        for answerable in (True, False):
            group = [o for o in observations if o.set == name and o.answerable == answerable]
            label = "answerable" if answerable else "not indexed"
            lines.append(
                f"| {name} | {label} ({len(group)}) | {_quantiles(o.dense for o in group)} "
                f"| {_quantiles(o.bm25 for o in group)} | {_quantiles(o.fused for o in group)} "
                f"| {_quantiles(o.coverage for o in group)} |"
            )
    return "\n".join(lines + _gate_lines(observations, budget, settings))


def dense_gate(observations: Sequence[Observation], budget: float) -> float | None:
    """The strictest dense threshold that refuses no more than `budget` of the answerable observations (cut to 4
    decimals, so the cosine it is taken at still passes); None without answerable observations."""
    answerable = [o for o in observations if o.answerable]
    cosines = sorted(o.dense for o in answerable if o.dense is not None)
    allowed = int(budget * len(answerable) + 1e-9) - (len(answerable) - len(cosines))
    if not cosines or allowed < 0:
        return None
    return float(np.floor(cosines[min(allowed, len(cosines) - 1)] * 10_000) / 10_000)


def refusals_by_wording(
    observations: Sequence[Observation], rule: AbstentionRule
) -> dict[tuple[str, str, str], tuple[int, int]]:
    """(set, part, wording) → how many of its observations the rule refuses, and how many there are; the part is
    the question id's first segment (`paraphrased-dev` of `paraphrased-dev.fact.para.anti-28`), else empty."""
    counts: dict[tuple[str, str, str], tuple[int, int]] = {}
    for o in observations:
        key = (o.set, o.query_id.split(".")[0] if "." in o.query_id else "", o.wording)
        refused, total = counts.get(key, (0, 0))
        counts[key] = (refused + rule.abstains(o.confidence), total + 1)
    return counts


def _gate_lines(observations: Sequence[Observation], budget: float, settings: IngestSettings) -> list[str]:
    """Each set's dense gate (and all sets' pooled) applied to every set, and the chat's rule as deployed (ABSTAIN_*
    settings, the calibrated dense gate), refusals per set, part and wording."""
    sets = sorted({o.set for o in observations})
    rules = {
        f"dense gate chosen on {name}": AbstentionRule(
            dense_gate([o for o in observations if name in ("all", o.set)], budget), None
        )
        for name in [*sets, "all"]
    }
    rules["the chat's rule as deployed"] = deployed_rule(ChatSettings(), settings.embedding_model)
    lines = [
        "",
        f"Refusals per set, part and wording (dense gate: the strictest cosine refusing ≤ {budget:.0%} of the "
        "answerable questions it is chosen on):",
        "",
        "| rule | min dense | min BM25 | min coverage | set | part | wording | refused |",
        "|---|---:|---:|---:|---|---|---|---:|",
    ]
    for label, rule in rules.items():
        for (name, part, group), (refused, total) in sorted(refusals_by_wording(observations, rule).items()):
            lines.append(
                f"| {label} | {_fmt(rule.min_dense)} | {_fmt(rule.min_bm25)} | {_fmt(rule.min_coverage)} "
                f"| {name} | {part} | {group} | {refused}/{total} ({refused / total:.1%}) |"
            )
    return lines


def _share(observations: Sequence[Observation], rule: AbstentionRule, measure: str) -> float:
    if not observations:
        return 0.0
    return sum(rule.abstains(o.confidence_on(measure)) for o in observations) / len(observations)


def _known_coverage(question: str, passages: Sequence[str], known: dict[str, float]) -> float | None:
    """Coverage among the content words some chunk of the index holds; 0 when it holds none of them."""
    if not content_words(question):
        return None
    share = weighted_coverage(question, passages, known)
    return 0.0 if share is None else share


def _grid(values: Iterable[float | None]) -> list[float | None]:
    """Candidate thresholds: None (leg ignored) and 200 quantiles of the observed values, cut (never rounded up)
    to 4 decimals so that a threshold taken at an observed value (2/3 → 0.6666) is still reached by it."""
    present = np.array([v for v in values if v is not None])
    if present.size == 0:
        return [None]
    quantiles = np.floor(np.quantile(present, np.linspace(0, 1, 201)) * 10_000) / 10_000
    return [None, *sorted({float(q) for q in quantiles})]


def _quantiles(values: Iterable[float | None]) -> str:
    present = [v for v in values if v is not None]
    if not present:
        return "—"
    return " / ".join(f"{q:.2f}" for q in np.quantile(present, (0.1, 0.5, 0.9)))


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _key(record: ChunkRecord) -> tuple[str, int]:
    return (record.document_id, record.chunk_index)


def _record_keys(groups: Iterable[list[ChunkRecord]]) -> list[tuple[str, int]]:
    return [_key(record) for chunks in groups for record in chunks]


def _sets(args: argparse.Namespace, settings: IngestSettings) -> list[LabelledSet]:
    sets = []
    if args.covid_qa:
        cleaned = clean_set(load_covid_qa(args.covid_qa))
        groups = {d.source.id: d.source.id for d in cleaned.documents}
        sets.append(LabelledSet("COVID-QA (en)", cleaned.documents, groups, cleaned.queries, args.folds))
    for path in args.xquad:
        language = path.stem.rsplit(".", 1)[-1]
        cleaned = clean_set(load_xquad(path, language))
        groups = {d.source.id: d.source.id.rsplit("/", 1)[0] for d in cleaned.documents}
        sets.append(
            LabelledSet(f"XQuAD ({language})", cleaned.documents, groups, cleaned.queries, args.folds)
        )
    if len(args.csv) != len(args.documents):
        raise SystemExit("each --csv needs its --documents DIR (the PDFs its questions are about), in order")
    for questions, documents in zip(args.csv, args.documents, strict=True):
        sets.append(pdf_folder_set(questions, documents, args.language, settings, not args.whole_index))
    if not sets:
        raise SystemExit("give at least one set: --covid-qa, --xquad or --csv with --documents (or --scores)")
    if args.out is None:
        raise SystemExit("--out CSV is needed to keep the per-question scores")
    return sets


def pdf_folder_set(
    questions: Path, documents: Path, language: str, settings: IngestSettings, leave_out: bool = True
) -> LabelledSet:
    """A hospital CSV (question, relevant_documents) over its folder of PDFs; small, so each PDF is a fold (or,
    without `leave_out`, one index holds them all)."""
    folder = read_pdf_folder(documents, settings.max_pdf_mb * 1_000_000)
    resolver = DocumentResolver(catalogue(folder.documents))
    queries = tuple(_resolved(query, resolver) for query in read_queries(questions))
    groups = {d.source.id: d.source.id for d in folder.documents}
    name = f"{questions.parent.name}/{questions.stem} ({language})"
    return LabelledSet(name, folder.documents, groups, queries, len(groups), leave_out)


def _resolved(query: EvalQuery, resolver: DocumentResolver) -> EvalQuery:
    ids = tuple(sorted({i for reference in query.relevant_documents for i in resolver.resolve(reference)}))
    return query.model_copy(update={"relevant_documents": ids, "answer_spans": ()})


def _write_rows(observations: Sequence[Observation], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(Observation.__dataclass_fields__))
        writer.writeheader()
        writer.writerows(asdict(o) for o in observations)


def _read_rows(path: Path) -> list[Observation]:
    with path.open(encoding="utf-8", newline="") as file:
        return [
            Observation(
                set=row["set"],
                fold=int(row["fold"]),
                question=row["question"],
                answerable=row["answerable"] == "True",
                found=row["found"] == "True",
                dense=float(row["dense"]) if row["dense"] else None,
                bm25=float(row["bm25"]) if row["bm25"] else None,
                fused=float(row["fused"]) if row["fused"] else None,
                coverage=_optional(row.get("coverage")),
                idf_coverage=_optional(row.get("idf_coverage")),
                specific_found=_optional(row.get("specific_found")),
                top1_coverage=_optional(row.get("top1_coverage")),
                known_coverage=_optional(row.get("known_coverage")),
                words=row.get("words", ""),
                query_id=row.get("query_id", ""),
                wording=row.get("wording") or ("literal" if row["answerable"] == "True" else "unanswerable"),
            )
            for row in csv.DictReader(file)
        ]


def _words(question: str, passages: Sequence[str], frequencies: dict[str, int]) -> str:
    """For reading failures: "kind=12- dosis=30+" (chunks holding the word, found in the passages or not)."""
    vocabulary = Vocabulary(passages)
    return " ".join(
        f"{word}={frequencies[word]}{'+' if vocabulary.holds(word) else '-'}"
        for word in content_words(question)
    )


def _optional(value: str | None) -> float | None:
    return float(value) if value else None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m research.abstention.study", description=__doc__)
    parser.add_argument("--covid-qa", type=Path, help="COVID-QA's 200423_covidQA.json")
    parser.add_argument(
        "--xquad", type=Path, action="append", default=[], help="xquad.LANG.json (repeatable)"
    )
    parser.add_argument(
        "--csv",
        type=Path,
        action="append",
        default=[],
        help="hospital CSV: question,relevant_documents (repeatable, each with its --documents)",
    )
    parser.add_argument(
        "--documents",
        type=Path,
        action="append",
        default=[],
        help="folder of the PDFs the matching --csv questions are about",
    )
    parser.add_argument("--language", default="nl", help="language of the --csv questions")
    parser.add_argument(
        "--folds",
        type=int,
        default=2,
        help="document folds of the public sets, each left out in turn (default 2)",
    )
    parser.add_argument(
        "--whole-index",
        action="store_true",
        help="index each --documents folder whole (nothing left out): its questions labelled with no document are "
        "the unanswerable ones, as for calibrating the dense gate",
    )
    parser.add_argument("--max-false-abstention", type=float, default=0.10)
    parser.add_argument("--threads", type=int, default=1, help="torch threads for the embedder")
    parser.add_argument("--out", type=Path, help="CSV of per-question scores to write")
    parser.add_argument("--scores", type=Path, help="report from such a CSV instead of retrieving again")
    return parser


if __name__ == "__main__":
    sys.exit(main())
