"""Retrieval latency of the embedded index: p50/p95 of the chat's retriever at 10k and 100k chunks.

`.venv/bin/python benchmarks/retrieval_latency.py --chunks 10000 100000 --out out/bench/retrieval`

A synthetic corpus is enough for latency: chunks of ~120 words drawn from a Zipf-distributed vocabulary (so
BM25 posting lists have the long tail of real text), clustered 384-dimensional vectors (neighbourhoods, as with
real embeddings), 50 chunks per document as in a real procedure. Questions are 3 to 8 words, none among the 100
commonest (in a real language those are the function words the stopword list drops). "Without embedding" times
`Retriever.search` with a precomputed vector (both legs, fusion, top 3); "with embedding" times
`Retriever.retrieve`, which first embeds the question with the real offline e5-small.
"""

import argparse
import cProfile
import json
import os
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
from numpy.typing import NDArray

from ingest.embedding import Embedder
from ingest.retrieval import QuestionTruncator, Retriever
from ingest.search.embedded import EmbeddedIndex
from ingest.search.types import ChunkRecord

DIMENSION = 384
VOCABULARY = 50_000
WORDS_PER_CHUNK = 120
CHUNKS_PER_DOCUMENT = 50
CLUSTERS = 500
EMBEDDER = "intfloat/multilingual-e5-small"
STOPWORD_RANKS = 100


def synthetic_words(generator: np.random.Generator, count: int, skip_commonest: int = 0) -> list[str]:
    """Zipf-distributed word ids spelled as words (`w` + base-26), capped at the vocabulary size; question words
    skip the commonest ids, which in a real language are the function words the stopword list drops."""
    ids = np.zeros(0, dtype=np.int64)
    while len(ids) < count:
        drawn = np.minimum(generator.zipf(1.2, size=2 * count), VOCABULARY)
        ids = np.concatenate([ids, drawn[drawn > skip_commonest]])
    return ["w" + np.base_repr(int(word), 26).lower() for word in ids[:count]]


def synthetic_vectors(
    generator: np.random.Generator, centres: NDArray[np.float32], count: int
) -> NDArray[np.float32]:
    """Points scattered around random cluster centres, L2-normalised like real embeddings."""
    vectors = centres[generator.integers(0, len(centres), count)] + 0.35 * generator.standard_normal(
        (count, DIMENSION)
    ).astype(np.float32)
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def build_index(
    folder: Path, chunks: int, generator: np.random.Generator, centres: NDArray[np.float32]
) -> float:
    """Fill a new embedded index document by document, as ingestion does; returns the seconds it took."""
    index = EmbeddedIndex(folder)
    started = time.perf_counter()
    for document in range(chunks // CHUNKS_PER_DOCUMENT):
        texts = [" ".join(synthetic_words(generator, WORDS_PER_CHUNK)) for _ in range(CHUNKS_PER_DOCUMENT)]
        records = [
            ChunkRecord(
                f"doc-{document}",
                number,
                f"Titel: document {document}\nTekst: {text}",
                text,
                f"document {document}",
                f"doc-{document}.pdf",
                1,
                1,
                0,
                len(text),
            )
            for number, text in enumerate(texts)
        ]
        index.put_document(records, synthetic_vectors(generator, centres, len(records)))
    index.close()
    return time.perf_counter() - started


def percentiles(timings: list[float]) -> dict[str, float]:
    quantiles = statistics.quantiles(timings, n=100, method="inclusive")
    return {
        "p50_ms": 1000 * quantiles[49],
        "p95_ms": 1000 * quantiles[94],
        "mean_ms": 1000 * statistics.fmean(timings),
    }


def timed(call: Callable[[int], object], repeats: int, warmup: int) -> list[float]:
    for number in range(warmup):
        call(number)
    timings = []
    for number in range(repeats):
        started = time.perf_counter()
        call(number)
        timings.append(time.perf_counter() - started)
    return timings


def measure(
    folder: Path,
    embedder: Embedder,
    truncator: QuestionTruncator,
    args: argparse.Namespace,
    generator: np.random.Generator,
    centres: NDArray[np.float32],
) -> dict[str, object]:
    retriever = Retriever(EmbeddedIndex(folder), embedder, truncator)
    questions = [
        " ".join(synthetic_words(generator, int(generator.integers(3, 9)), STOPWORD_RANKS))
        for _ in range(args.queries)
    ]
    vectors = synthetic_vectors(generator, centres, args.queries)
    without = timed(lambda n: retriever.search(questions[n], vectors[n]), args.queries, args.warmup)
    with_embedding = timed(lambda n: retriever.retrieve(questions[n]), args.queries, args.warmup)
    result: dict[str, object] = {
        "without_embedding": percentiles(without),
        "with_embedding": percentiles(with_embedding),
    }
    if args.profile:
        profile = cProfile.Profile()
        profile.enable()
        for number in range(args.queries):
            retriever.search(questions[number], vectors[number])
        profile.disable()
        stats = pstats.Stats(profile, stream=sys.stdout).sort_stats("cumulative")
        stats.print_stats(15)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--chunks", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--out", type=Path, default=Path("out/bench/retrieval"))
    parser.add_argument("--model-cache", type=Path, default=Path(os.environ.get("MODEL_CACHE", ".models")))
    parser.add_argument(
        "--profile", action="store_true", help="print where the time goes (without embedding)"
    )
    parser.add_argument(
        "--threads", type=int, help="torch CPU threads for the query embedding (default: torch's)"
    )
    args = parser.parse_args()
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    generator = np.random.default_rng(7)
    centres = generator.standard_normal((CLUSTERS, DIMENSION)).astype(np.float32)
    embedder = Embedder(EMBEDDER, args.model_cache)
    truncator = QuestionTruncator.for_model(EMBEDDER, args.model_cache)
    results = {}
    for chunks in args.chunks:
        with tempfile.TemporaryDirectory(prefix="vraagbaak-bench-") as folder:
            build_seconds = build_index(Path(folder), chunks, generator, centres)
            results[chunks] = {"build_s": build_seconds} | measure(
                Path(folder), embedder, truncator, args, generator, centres
            )
        print(json.dumps({chunks: results[chunks]}), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "retrieval_latency.json").write_text(json.dumps(results, indent=1))
    print(markdown(results))


def markdown(results: dict[int, dict[str, object]]) -> str:
    lines = ["| chunks | embedding | p50 (ms) | p95 (ms) | mean (ms) |", "|---:|---|---:|---:|---:|"]
    for chunks, result in results.items():
        for key, label in (("without_embedding", "without"), ("with_embedding", "with (e5-small, CPU)")):
            timing = result[key]
            assert isinstance(timing, dict)
            lines.append(
                f"| {chunks:,} | {label} | {timing['p50_ms']:.1f} | {timing['p95_ms']:.1f} | {timing['mean_ms']:.1f} |"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
