"""`python -m research.ingest_bench --pdf PATH…`: ingestion throughput, memory and index costs, as a Markdown section.

Measures: parse+clean+chunk pages/s (wall and per CPU second: parsing is single-threaded Python);
end-to-end chunks/s with the configured embedder and its ratio to that embedder's own `encode` on the same
chunk texts (goal ≥ 0.9); peak memory on a 1,000-page PDF (in a fresh process); embedded index write, delete
and hybrid query times at 10k and 100k synthetic chunks. Runs alternate and the best of each is kept, because
other work on a shared machine slows single runs unpredictably.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sentence_transformers import SentenceTransformer

from ingest import database_schema
from ingest.embedding import Embedder
from ingest.metadata import DocumentTags
from ingest.pdf_reader import open_pdf
from ingest.pipeline import ParsedDocument, chunk_records, parse_pdf
from ingest.run_job import Ingestion
from ingest.search.embedded import EmbeddedIndex
from ingest.settings import IngestSettings
from modelstore.cache import resolve_model
from research.ingest_bench.common import command, machine, percentiles_ms, replace_section, timed
from research.ingest_bench.synthetic import VectorSpace, Vocabulary, long_pdf, synthetic_documents

SECTION = "## Ingestion"
DIMENSION = 384
QUERIES = 200
WARM_UP = 5
DELETES = 100
ROUNDS = 3
MEMORY_PROBE = """
import json, sys
from pathlib import Path
from ingest.metadata import DocumentTags
from ingest.pdf_reader import open_pdf
from ingest.pipeline import chunk_records, parse_pdf

def status_mb(field):
    line = next(l for l in open("/proc/self/status") if l.startswith(field + ":"))
    return int(line.split()[1]) / 1024

Path("/proc/self/clear_refs").write_text("5")  # reset the high-water mark: only parsing counts from here
baseline = status_mb("VmRSS")
with open_pdf(Path(sys.argv[1]), 10**9) as pdf:
    document = parse_pdf(pdf)
chunks = chunk_records(document, DocumentTags(), 800, 160)
print(json.dumps({"baseline_mb": baseline, "peak_mb": status_mb("VmHWM"), "chunks": len(chunks)}))
"""


def _parsed(path: Path) -> ParsedDocument:
    with open_pdf(path, 10**10) as pdf:
        return parse_pdf(pdf)


def parsing_rate(pdfs: Sequence[Path]) -> list[dict[str, Any]]:
    """Pages per second through parse, clean and chunk, per PDF (best of ROUNDS)."""
    results = []
    for path in pdfs:
        best_wall, best_cpu = float("inf"), float("inf")
        for _ in range(ROUNDS):
            wall, cpu = time.perf_counter(), time.process_time()
            document = _parsed(path)
            chunks = chunk_records(document, DocumentTags(), 800, 160)
            best_wall = min(best_wall, time.perf_counter() - wall)
            best_cpu = min(best_cpu, time.process_time() - cpu)
        pages = document.text.page_count
        results.append(
            {
                "pdf": path.name,
                "pages": pages,
                "chunks": len(chunks),
                "pages_per_s": pages / best_wall,
                "pages_per_cpu_s": pages / best_cpu,
            }
        )
    return results


def thousand_page_memory(path: Path) -> dict[str, Any]:
    """Peak resident memory of a fresh process that parses and chunks the PDF (imports excluded as baseline)."""
    probe = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE, str(path)], capture_output=True, text=True, check=True
    )
    result: dict[str, Any] = json.loads(probe.stdout)
    return result


def embedding_ratio(pdfs: Sequence[Path], settings: IngestSettings) -> dict[str, Any]:
    """End-to-end chunks/s of a job against the embedder's own `encode` on the same texts (best of ROUNDS)."""
    texts = [
        record.text for path in pdfs for record in chunk_records(_parsed(path), DocumentTags(), 800, 160)
    ]
    embedder = Embedder.from_settings(settings)
    model = SentenceTransformer(
        resolve_model(settings.embedding_model, settings.model_cache),
        device=settings.device,
        model_kwargs={"dtype": getattr(torch, settings.dtype)},
        local_files_only=True,
    )
    embedder.embed_passages(texts[:8])

    def encode() -> object:
        with torch.inference_mode():
            return model.encode_document(
                texts,
                batch_size=settings.embedding_batch_size,
                normalize_embeddings=True,
                show_progress_bar=False,
            )

    def pipeline(folder: Path) -> Callable[[], object]:
        """A job into a fresh database and index, set up here so that only the ingestion itself is timed."""
        job = settings.model_copy(
            update={"database_url": f"sqlite:///{folder}/bench.db", "index_dir": folder / "index"}
        )
        database_schema.migrate(job.database_url)
        ingestion = Ingestion(job, EmbeddedIndex(job.index_dir, job.embedding_model), lambda: embedder)
        return partial(ingestion.ingest, list(pdfs))

    encode_s = pipeline_s = float("inf")
    for _ in range(ROUNDS):
        encode_s = min(encode_s, timed(encode))
        with tempfile.TemporaryDirectory() as folder:
            pipeline_s = min(pipeline_s, timed(pipeline(Path(folder))))
    return {
        "model": settings.embedding_model,
        "device": settings.device,
        "dtype": settings.dtype,
        "torch_threads": torch.get_num_threads(),
        "chunks": len(texts),
        "encode_chunks_per_s": len(texts) / encode_s,
        "pipeline_chunks_per_s": len(texts) / pipeline_s,
        "ratio": encode_s / pipeline_s,
    }


def index_costs(
    size: int, vocabulary: Vocabulary, chunks_per_document: int, space: VectorSpace
) -> dict[str, Any]:
    """Write `size` synthetic chunks document by document, then query and delete; all timings in ms."""
    documents = list(synthetic_documents(vocabulary, space, size, chunks_per_document))
    rng = np.random.default_rng(1)
    with tempfile.TemporaryDirectory() as folder:
        index = EmbeddedIndex(Path(folder), "synthetic")
        puts = [timed(partial(index.put_document, records, vectors)) for records, vectors in documents]
        texts = [vocabulary.query(rng, 4) for _ in range(QUERIES + WARM_UP)]
        queries = list(zip(texts, space.vectors(rng, len(texts)), strict=True))
        search = [
            timed(partial(index.hybrid_search, text, vector, alpha=0.7, limit=3)) for text, vector in queries
        ]
        victims = rng.choice(len(documents), size=min(DELETES, len(documents)), replace=False)
        deleted = [documents[victim][0][0].document_id for victim in victims]
        deletes = [timed(partial(index.delete_documents, [document_id])) for document_id in deleted]
        after = [
            timed(partial(index.hybrid_search, text, vector, alpha=0.7, limit=3)) for text, vector in queries
        ]
        disk = sum(path.stat().st_size for path in Path(folder).rglob("*") if path.is_file())
        segments = index.stats().details["segments"]
    return {
        "chunks": size,
        "documents": len(documents),
        "write_s": sum(puts),
        "chunks_per_s": size / sum(puts),
        "put_ms": percentiles_ms(puts),
        "query_ms": percentiles_ms(search[WARM_UP:]),
        "delete_ms": percentiles_ms(deletes),
        "query_after_deletes_ms": percentiles_ms(after[WARM_UP:]),
        "segments": segments,
        "disk_mb": disk / 1e6,
    }


def markdown(results: dict[str, Any]) -> str:
    """The benchmark's section of `docs/benchmarks.md`."""
    lines = [SECTION, "", f"`{results['command']}` on {results['machine']}; language of the PDFs: Dutch.", ""]
    lines += [
        "### Parse + clean + chunk (one core: parsing is single-threaded)",
        "",
        "| PDF | pages | chunks | pages/s (wall) | pages/s (CPU) |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['pdf']} | {r['pages']} | {r['chunks']} | {r['pages_per_s']:.0f} | {r['pages_per_cpu_s']:.0f} |"
        for r in results["parsing"]
    ]
    memory = results["memory"]
    lines += [
        "",
        f"Peak memory parsing + chunking the 1,000-page PDF in a fresh process: {memory['peak_mb']:.0f} MB "
        f"resident ({memory['peak_mb'] - memory['baseline_mb']:.0f} MB above the {memory['baseline_mb']:.0f} MB "
        f"after imports), {memory['chunks']} chunks.",
        "",
    ]
    embedding = results.get("embedding")
    if embedding:
        lines += [
            "### End to end with the embedder",
            "",
            f"{embedding['model']} on {embedding['device']}/{embedding['dtype']} ({embedding['torch_threads']} "
            f"torch threads), {embedding['chunks']} chunks of the PDFs above:",
            "",
            "| embedder's own `encode` | whole job (parse → chunk → embed → index → database) | ratio |",
            "|---|---|---|",
            f"| {embedding['encode_chunks_per_s']:.2f} chunks/s | {embedding['pipeline_chunks_per_s']:.2f} chunks/s "
            f"| {embedding['ratio']:.2f} (goal ≥ 0.9) |",
            "",
        ]
    lines += [
        "### Embedded index (synthetic chunks, word frequencies of the real regulation, 384-dim vectors)",
        "",
        "| chunks | documents | write total | chunks/s | put p50 / p95 / max | delete p50 / p95 "
        "| hybrid query p50 / p95 | after deletes p95 | segments | disk |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results["index"]:
        put, delete, query, after = r["put_ms"], r["delete_ms"], r["query_ms"], r["query_after_deletes_ms"]
        lines.append(
            f"| {r['chunks']:,} | {r['documents']:,} | {r['write_s']:.0f} s | {r['chunks_per_s']:.0f} | "
            f"{put['p50']:.0f} / {put['p95']:.0f} / {put['max']:.0f} ms | {delete['p50']:.0f} / {delete['p95']:.0f} ms | "
            f"{query['p50']:.1f} / {query['p95']:.1f} ms | {after['p95']:.1f} ms | {r['segments']} | {r['disk_mb']:.0f} MB |"
        )
    lines += [
        "",
        "Query times are hybrid α = 0.7, limit 3, without the query embedding (the next issue's goal: "
        "p95 ≤ 30 ms at 100k). A put is one document (its own commit: new segment, fsync, manifest swap); its "
        "max includes the merge of a full size tier (and an HNSW build for segments of 50,000 chunks or more). "
        "Disk includes retired segments still inside their 120 s grace period. Single runs vary with other work "
        "on this shared machine (fsync stalls of seconds were seen once); the figures are the best of alternating "
        "rounds for the embedder, single runs for the index.",
        "",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m research.ingest_bench", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--pdf", type=Path, action="append", required=True, help="a real PDF (repeatable)")
    parser.add_argument(
        "--sizes", default="10000,100000", help="index sizes in chunks, comma-separated ('' = none)"
    )
    parser.add_argument("--chunks-per-document", type=int, default=25)
    parser.add_argument("--skip-embedding", action="store_true", help="leave out the end-to-end embedder run")
    parser.add_argument("--markdown", type=Path, help="update the Ingestion section of this Markdown file")
    parser.add_argument("--json", type=Path, help="write the raw results here")
    arguments = parser.parse_args(argv)
    settings = IngestSettings()
    results: dict[str, Any] = {
        "command": command("research.ingest_bench", argv),
        "machine": machine(),
    }
    with tempfile.TemporaryDirectory() as folder:
        handbook = long_pdf(Path(folder) / "handboek-1000-paginas.pdf", 1000)
        results["parsing"] = parsing_rate([*arguments.pdf, handbook])
        results["memory"] = thousand_page_memory(handbook)
    if not arguments.skip_embedding:
        results["embedding"] = embedding_ratio(arguments.pdf, settings)
    vocabulary = Vocabulary.from_text(" ".join(_parsed(path).text.text for path in arguments.pdf))
    sizes = [int(size) for size in arguments.sizes.split(",") if size]
    space = VectorSpace(DIMENSION)
    results["index"] = [index_costs(size, vocabulary, arguments.chunks_per_document, space) for size in sizes]
    section = markdown(results)
    print(section)
    if arguments.json:
        arguments.json.write_text(json.dumps(results, indent=2, default=str))
    if arguments.markdown:
        replace_section(arguments.markdown, section)
    return 0
