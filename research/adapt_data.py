"""Training and test data for adapting the offline generator (`python -m research.adapt`), in the product's
exact prompt (api/prompting.py), so the model learns to answer from the passages or say the chat's fixed
"niet gevonden" sentence.

`python -m research.adapt_data --xquad-de xquad.de.json --xquad-en xquad.en.json --covid-qa covidQA.json
--samples samples --out data.jsonl` writes one row per example: `{"id", "prompt", "target", "source", "split",
"article", "answer", "context", "stop"}`. Answerable rows show a short window of the answer's passage (plus, for
some, a passage of another article) and their target is the passage's sentence holding the answer span: the model
should copy, not invent, then close the answer with `[einde antwoord]` (the template's stop marker, so an
adapted answer ends rather than loops). Unanswerable rows ask the same question over another article's passage; their target is
the chat's `NOT_FOUND_MESSAGE`. The Dutch rows come from the sample procedures (`samples/collection.yaml`, never
`samples/heldout`: that is the test set). Whole articles are held out: an article's split (train, val, test)
follows from a hash of its title, the same for XQuAD de and en (they are translations of one another), so no test
article is ever seen in training. `context` and `stop` make each row a rendered request that `research.engine_bench`
reads (`--prompts rag:FILE`), so the held-out rows double as the test prompts.
"""

import argparse
import hashlib
import json
import random
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from api.answers.sentences import Sentence, split_sentences
from api.chat.abstention import NOT_FOUND_MESSAGE
from api.evaluator.datasets import DatasetError, EvalSet, load_covid_qa, load_xquad
from api.prompting import ANSWER_STOP_STRINGS, build_rag_prompt
from ingest.text_format import indexed_text

Split = Literal["train", "val", "test"]

ANSWER_END = ANSWER_STOP_STRINGS[0]
MAX_PASSAGE_CHARS = 450
MAX_TARGET_CHARS = 260
FRONTMATTER = "---"


@dataclass(frozen=True)
class Passage:
    """A window of an article's text around one sentence, with the title chunks are indexed under."""

    article: str
    title: str
    text: str
    sentence: str


@dataclass(frozen=True)
class Question:
    """A question with its answer span in its article's text (`start`, `end`), from any source."""

    id: str
    source: str
    article: str
    title: str
    question: str
    context: str
    start: int
    end: int


@dataclass(frozen=True)
class Example:
    id: str
    source: str
    split: Split
    article: str
    question: str
    chunks: tuple[str, ...]
    target: str
    answer: str | None

    def row(self) -> dict[str, Any]:
        """The JSONL row: the trainer reads `prompt` and `target`, the benchmark `prompt`, `context`, `stop`."""
        return {
            "id": self.id,
            "source": self.source,
            "split": self.split,
            "article": self.article,
            "question": self.question,
            "prompt": build_rag_prompt(self.question, self.chunks),
            "target": f"{self.target}\n{ANSWER_END}",
            "answer": self.answer,
            "context": list(self.chunks),
            "stop": list(ANSWER_STOP_STRINGS),
        }


def article_split(article: str, test_share: float = 0.2, val_share: float = 0.08) -> Split:
    """The split of a whole article, stable across runs, machines and languages (a hash of its title)."""
    fraction = int(hashlib.sha256(article.encode("utf-8")).hexdigest()[:8], 16) / 0xFFFFFFFF
    if fraction < test_share:
        return "test"
    return "val" if fraction < test_share + val_share else "train"


def answer_window(
    context: str, start: int, end: int, limit: int = MAX_PASSAGE_CHARS
) -> tuple[str, str] | None:
    """The sentences around the answer span (at most `limit` characters) and the sentence holding it.

    None when the answer crosses a sentence boundary or its sentence alone is too long to be a short answer.
    """
    sentences = split_sentences(context)
    index = next((i for i, s in enumerate(sentences) if s.start <= start and end <= s.end), None)
    if index is None or len(sentences[index].text) > MAX_TARGET_CHARS:
        return None
    first, last = index, index
    while True:
        grown = _grow(sentences, first, last, limit)
        if grown is None:
            break
        first, last = grown
    return context[sentences[first].start : sentences[last].end], sentences[index].text


def _grow(sentences: Sequence[Sentence], first: int, last: int, limit: int) -> tuple[int, int] | None:
    """One more neighbouring sentence (after first, then before) while the window stays within `limit`."""
    for candidate in ((first, last + 1), (first - 1, last)):
        inside = candidate[0] >= 0 and candidate[1] < len(sentences)
        if inside and sentences[candidate[1]].end - sentences[candidate[0]].start <= limit:
            return candidate
    return None


def squad_questions(evalset: EvalSet, source: str, per_article: int) -> list[Question]:
    """At most `per_article` questions per article (the first of each paragraph first), with their first span."""
    documents = {document.id: document for document in evalset.documents}
    chosen: list[Question] = []
    taken: Counter[str] = Counter()
    ordered = sorted(evalset.queries, key=lambda q: _paragraph_rank(evalset, q.relevant_documents[0], q.id))
    for query in ordered:
        if not query.answer_spans:
            continue
        span = query.answer_spans[0]
        document = documents[span.document]
        article = document.id.split("/")[0]
        if taken[article] >= per_article:
            continue
        taken[article] += 1
        chosen.append(
            Question(
                f"{source}-{query.id}",
                source,
                article,
                document.title,
                query.question,
                document.text,
                span.start,
                span.end,
            )
        )
    return chosen


def _paragraph_rank(evalset: EvalSet, document_id: str, query_id: str) -> tuple[int, str]:
    """Order questions so one question of every paragraph comes before a second of any paragraph."""
    earlier = [q.id for q in evalset.queries if q.relevant_documents[0] == document_id]
    return earlier.index(query_id), document_id


def sample_questions(folder: Path) -> list[Question]:
    """The answerable questions of the sample collection (`collection.yaml`) over their procedures' text."""
    collection = _read_yaml(folder / "collection.yaml")
    procedures = {name: _procedure(folder / "procedures" / f"{name}.md") for name in collection["documents"]}
    questions = []
    for number, item in enumerate(collection.get("questions", []), start=1):
        for document, snippet in (item.get("answers") or {}).items():
            name = document.removesuffix(".pdf")
            if name not in procedures:
                raise DatasetError(f"{folder}: question {number} names an unknown document {document!r}")
            title, text = procedures[name]
            start = _flexible_find(text, str(snippet))
            if start is None:
                raise DatasetError(f"{folder}: question {number}: {snippet!r} is not in {name}.md")
            questions.append(
                Question(
                    f"samples-{number}-{name}",
                    "samples-nl",
                    name,
                    title,
                    str(item["question"]),
                    text,
                    start,
                    start + len(str(snippet)),
                )
            )
    return questions


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise DatasetError(f"cannot read {path}: {error}") from error
    if not isinstance(loaded, dict) or "documents" not in loaded:
        raise DatasetError(f"{path}: expected a collection with 'documents' and 'questions'")
    return loaded


def _procedure(path: Path) -> tuple[str, str]:
    """A procedure's title and its body as plain text (front matter dropped, headings and tables flattened)."""
    raw = path.read_text(encoding="utf-8")
    _, front, body = raw.split(FRONTMATTER, 2)
    title = str(yaml.safe_load(front)["title"])
    lines = [_plain_line(line) for line in body.splitlines() if not set(line.strip()) <= {"|", "-", ":"}]
    return title, "\n".join(lines).strip()


def _plain_line(line: str) -> str:
    """A markdown line as the PDF prints it: no heading marks, a table row's cells separated by spaces."""
    line = line.lstrip("#").strip()
    if line.startswith("|"):
        line = " ".join(cell.strip() for cell in line.strip("|").split("|"))
    return line


def _flexible_find(text: str, snippet: str) -> int | None:
    """The snippet's start, matching any white space where it has a space (PDF line breaks differ)."""
    start = text.find(snippet)
    if start >= 0:
        return start
    joined = " ".join(text.split("\n"))
    start = joined.find(" ".join(snippet.split()))
    return start if start >= 0 else None


def build_examples(
    questions: Sequence[Question], unanswerable_share: float, distractor_share: float, seed: int
) -> list[Example]:
    """Answerable examples for every usable question, plus unanswerable ones over another article's passage."""
    rng = random.Random(seed)
    windows = {q.id: answer_window(q.context, q.start, q.end) for q in questions}
    usable = [q for q in questions if windows[q.id] is not None]
    examples: list[Example] = []
    for question in usable:
        window, sentence = windows[question.id] or ("", "")
        split = "train" if question.source == "samples-nl" else article_split(question.article)
        own = Passage(question.article, question.title, window, sentence)
        other = _other_passage(question, usable, windows, split, rng)
        chunks = [_chunk(own)]
        if other is not None and rng.random() < distractor_share:
            chunks.insert(rng.randrange(2), _chunk(other))
        answer = question.context[question.start : question.end]
        examples.append(
            Example(
                question.id,
                question.source,
                split,
                question.article,
                question.question,
                tuple(chunks),
                sentence,
                answer,
            )
        )
        if other is not None and rng.random() < unanswerable_share:
            examples.append(
                Example(
                    f"{question.id}-unanswerable",
                    question.source,
                    split,
                    question.article,
                    question.question,
                    (_chunk(other),),
                    NOT_FOUND_MESSAGE,
                    None,
                )
            )
    return examples


def _other_passage(
    question: Question,
    usable: Sequence[Question],
    windows: dict[str, tuple[str, str] | None],
    split: Split,
    rng: random.Random,
) -> Passage | None:
    """A passage of another article of the same source and split: it cannot hold this question's answer."""
    candidates = [
        q
        for q in usable
        if q.source == question.source
        and q.article != question.article
        and (q.source == "samples-nl" or article_split(q.article) == split)
    ]
    if not candidates:
        return None
    other = rng.choice(candidates)
    window, sentence = windows[other.id] or ("", "")
    return Passage(other.article, other.title, window, sentence)


def _chunk(passage: Passage) -> str:
    return indexed_text(passage.title, passage.text)


def check_unique(examples: Sequence[Example]) -> None:
    duplicates = [key for key, count in Counter(e.id for e in examples).items() if count > 1]
    if duplicates:
        raise DatasetError(f"duplicate example ids: {', '.join(duplicates[:5])}")


def split_counts(examples: Sequence[Example]) -> dict[str, dict[str, int]]:
    """Examples per source and split, answerable and not: the split report of training.json and the docs."""
    counts: dict[str, Counter[str]] = {}
    for example in examples:
        kind = "answerable" if example.answer is not None else "unanswerable"
        counts.setdefault(example.source, Counter())[f"{example.split} {kind}"] += 1
    return {source: dict(sorted(counter.items())) for source, counter in sorted(counts.items())}


def all_questions(args: argparse.Namespace) -> Iterator[Question]:
    if args.xquad_de:
        yield from squad_questions(load_xquad(args.xquad_de, "de"), "xquad-de", args.per_article)
    if args.xquad_en:
        yield from squad_questions(load_xquad(args.xquad_en, "en"), "xquad-en", args.per_article_en)
    if args.covid_qa:
        yield from squad_questions(load_covid_qa(args.covid_qa), "covid-qa", args.per_article_covid)
    if args.samples:
        yield from sample_questions(args.samples)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m research.adapt_data",
        description="Answer-or-abstain examples in the product's prompt for adapting the generator.",
    )
    parser.add_argument("--xquad-de", type=Path, help="xquad.de.json")
    parser.add_argument("--xquad-en", type=Path, help="xquad.en.json")
    parser.add_argument("--covid-qa", type=Path, help="COVID-QA's 200423_covidQA.json")
    parser.add_argument(
        "--samples", type=Path, help="the sample collection folder (collection.yaml, procedures/)"
    )
    parser.add_argument("--per-article", type=int, default=5, help="XQuAD de questions per article")
    parser.add_argument("--per-article-en", type=int, default=2, help="XQuAD en questions per article")
    parser.add_argument("--per-article-covid", type=int, default=2, help="COVID-QA questions per article")
    parser.add_argument("--unanswerable-share", type=float, default=0.35)
    parser.add_argument("--distractor-share", type=float, default=0.25)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True, help="the JSONL file to write")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if not any((args.xquad_de, args.xquad_en, args.covid_qa, args.samples)):
        raise SystemExit("no source: give --xquad-de, --xquad-en, --covid-qa and/or --samples")
    try:
        questions = list(all_questions(args))
        examples = build_examples(questions, args.unanswerable_share, args.distractor_share, args.seed)
        check_unique(examples)
    except DatasetError as error:
        raise SystemExit(str(error)) from error
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        "".join(json.dumps(e.row(), ensure_ascii=False) + "\n" for e in examples), encoding="utf-8"
    )
    print(json.dumps(split_counts(examples), indent=1), file=sys.stderr)
    print(f"wrote {len(examples)} examples to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
