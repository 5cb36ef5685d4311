"""Rendered RAG requests for the generation benchmarks, built exactly as the chat builds them for the worker.

`python -m research.rag_prompts --documents DIR_OR_PDF… --questions CSV… [--question TEXT…] --out FILE.jsonl`
ingests the PDFs into a temporary embedded index with ingestion's own pipeline (parse, clean, title, 800/160
chunks, the configured embedder), asks every question through the chat's retriever (hybrid, α 0.7, top 3 unless
configured) and writes one worker request per question (docs/worker.md): `{"id", "category", "question", "prompt",
"context", "stop", "sources", "quote"}`. `context` holds the passages the chat gives the generator (the chunks as
indexed, `Titel: …\\nTekst: …`, after the chosen quote when the chat puts it first: api/chat/sources.py), `prompt`
is the product's template around them (api/prompting.py), `stop` its markers, `quote` the quoted sentence or null.
`python -m research.rag_prompts --squad xquad.en.json --out FILE.jsonl` renders SQuAD as RAG instead: the first question
of each of the first 80 paragraphs, its paragraph as the only chunk (an English control set).
Benchmarks read either file: `python -m research.engine_bench --prompts rag:FILE.jsonl`.
"""

import argparse
import csv
import json
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from api.answers.quotes import select_quote
from api.chat.settings import DEFAULT_QUOTE_FIRST
from api.chat.sources import prompt_passages, source
from api.evaluator.datasets import DatasetError, read_squad
from ingest.embedding import Embedder
from ingest.metadata import DocumentTags
from ingest.pdf_reader import open_pdf
from ingest.pipeline import chunk_records, parse_pdf
from ingest.retrieval import RetrievedChunk, Retriever
from ingest.search.embedded import EmbeddedIndex
from ingest.search.types import ChunkRecord
from ingest.settings import IngestSettings
from research.rendered_requests import render

SQUAD_RAG_QUESTIONS = 80


def pdf_paths(locations: Sequence[Path]) -> list[Path]:
    """Every PDF named or found below the named folders, in a stable order."""
    paths: list[Path] = []
    for location in locations:
        if location.is_dir():
            paths.extend(sorted(location.rglob("*.pdf")))
        elif location.is_file():
            paths.append(location)
        else:
            raise SystemExit(f"no such document or folder: {location}")
    return list(dict.fromkeys(paths))


def read_questions(csv_files: Sequence[Path], extra: Sequence[str]) -> list[str]:
    """The `question` column of each CSV (as in `samples/questions.csv`), then the questions given inline."""
    questions: list[str] = []
    for path in csv_files:
        with path.open(encoding="utf-8", newline="") as file:
            reader = csv.DictReader(file)
            if not reader.fieldnames or "question" not in reader.fieldnames:
                raise SystemExit(f"{path}: expected a CSV with a 'question' column")
            questions.extend(row["question"].strip() for row in reader if row["question"].strip())
    questions.extend(question.strip() for question in extra if question.strip())
    return questions


def document_chunks(path: Path, settings: IngestSettings) -> list[ChunkRecord]:
    """One PDF as ingestion stores it (tags are not needed: the benchmark searches without filters)."""
    with open_pdf(path, settings.max_pdf_mb * 1_000_000) as pdf:
        document = parse_pdf(pdf)
    return chunk_records(document, DocumentTags(), settings.chunk_size, settings.chunk_overlap)


def build_index(documents: Sequence[list[ChunkRecord]], embedder: Embedder, folder: Path) -> EmbeddedIndex:
    """Embed and store every document's chunks in a fresh embedded index (a duplicate file is stored once)."""
    index = EmbeddedIndex(folder, embedding_model=embedder.model_name)
    unique = {chunks[0].document_id: chunks for chunks in documents if chunks}
    for chunks in unique.values():
        index.put_document(chunks, embedder.embed_passages([chunk.text for chunk in chunks]))
    return index


def prompt_inputs(retriever: Retriever, questions: Sequence[str]) -> Iterator[dict[str, Any]]:
    """One request per question: its top chunks as the chat would send them, and where they came from."""
    for number, question in enumerate(questions, start=1):
        yield retrieved_request(
            f"dutch-rag-{number}", "dutch_rag", question, retriever.retrieve(question).chunks
        )


def retrieved_request(
    request_id: str,
    category: str,
    question: str,
    retrieved: Sequence[RetrievedChunk],
    quote_first: bool = DEFAULT_QUOTE_FIRST,
) -> dict[str, Any]:
    """The request for the retrieved chunks as the chat sends it (the chosen quote first when `quote_first`), with
    where they came from."""
    quote = select_quote(question, [source(chunk) for chunk in retrieved]) if quote_first else None
    passages = prompt_passages(retrieved, quote, quote_first)
    return render(request_id, category, question, passages).record | {
        "quote": quote["text"] if quote is not None else None,
        "sources": [
            {
                "title": chunk.title,
                "pages": [chunk.page_start, chunk.page_end],
                "score": round(chunk.score, 4),
            }
            for chunk in retrieved
        ],
    }


def squad_requests(path: Path, count: int = SQUAD_RAG_QUESTIONS) -> list[dict[str, Any]]:
    """SQuAD as RAG: the first question of each of the first `count` paragraphs, its paragraph the only chunk."""
    try:
        squad = read_squad(path)
    except (OSError, DatasetError) as error:
        raise SystemExit(f"cannot use {path} as a SQuAD-format file: {error}") from error
    paragraphs = (paragraph for article in squad.data for paragraph in article.paragraphs if paragraph.qas)
    return [
        render(f"squad-{p.qas[0].id}", "squad_rag", p.qas[0].question, [p.context]).record
        for _, p in zip(range(count), paragraphs, strict=False)
    ]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m research.rag_prompts",
        description="Dutch RAG prompt inputs retrieved as the chat retrieves them.",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--documents", type=Path, nargs="+", help="PDF files or folders of PDFs")
    source.add_argument("--squad", type=Path, help="a SQuAD-format file (XQuAD) rendered as RAG instead")
    parser.add_argument(
        "--questions", type=Path, nargs="*", default=[], help="CSV files with a 'question' column"
    )
    parser.add_argument("--question", action="append", default=[], help="a question (repeatable)")
    parser.add_argument("--out", type=Path, required=True, help="the JSONL file to write")
    parser.add_argument("--alpha", type=float, help="weight of the dense leg (default: RETRIEVAL_ALPHA)")
    parser.add_argument("--top-k", type=int, help="chunks per question (default: RETRIEVAL_TOP_K)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.squad is not None:
        return write_lines(args.out, squad_requests(args.squad), f"SQuAD paragraphs of {args.squad}")
    return retrieved_requests(args)


def retrieved_requests(args: argparse.Namespace) -> int:
    """Retrieve every question's chunks from a temporary index of the documents and write the requests."""
    questions = read_questions(args.questions, args.question)
    if not questions:
        raise SystemExit("no questions: give --questions CSV files or --question")
    settings = IngestSettings()
    overrides = {"retrieval_alpha": args.alpha, "retrieval_top_k": args.top_k}
    settings = settings.model_copy(update={k: v for k, v in overrides.items() if v is not None})
    embedder = Embedder.from_settings(settings)
    documents = [document_chunks(path, settings) for path in pdf_paths(args.documents)]
    with tempfile.TemporaryDirectory(prefix="vraagbaak-rag-prompts-") as folder:
        index = build_index(documents, embedder, Path(folder))
        try:
            retriever = Retriever.from_settings(settings, index, embedder)
            requests = list(prompt_inputs(retriever, questions))
        finally:
            index.close()
    return write_lines(args.out, requests, f"{len(documents)} documents")


def write_lines(out: Path, requests: Sequence[dict[str, Any]], origin: str) -> int:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in requests), encoding="utf-8"
    )
    print(f"wrote {len(requests)} rendered requests from {origin} to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
