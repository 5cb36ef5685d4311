"""`python -m research.train_reranker`: train the offline reranker, a small cross-encoder made from the offline
embedder (the first layers of multilingual-e5-small with LoRA adapters and a new scoring head).

Training groups are one question, one passage that answers it and passages that do not:
- COVID-QA (English, `DATA/covid_qa`): the chunk holding the answer span and other chunks of the same article;
- the real development part (Dutch, `samples/real/dev.csv` and its PDFs in `DATA/real_nl`): the chat's own hybrid
  results for the question, judged by the key fact, so the negatives are the passages the reranker must pass over.
XQuAD is left out, so that its MRR stays a clean check, and so is the real test part (never trained or tuned on).

The loss is listwise (softmax cross-entropy over each group). What is kept is small: the LoRA weights and the head
(float16, `adapter.safetensors`) with `training.json`; `--out` also gets the assembled cross-encoder folder
(`model/`, `research.reranker.assemble_reranker`), which the evaluator takes as
`--config NAME=reranker=OUT/model`.
"""

import argparse
import json
import logging
import random
import shlex
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
from transformers import PreTrainedTokenizerBase

from api.evaluator.configs import RetrievalConfig
from api.evaluator.corpus import CleanedDocument, clean_set, read_pdf_folder
from api.evaluator.datasets import load_covid_qa
from api.evaluator.judgement import Retrieved, holds_most_of, judge
from api.evaluator.queries import EvalQuery, read_queries
from api.evaluator.resolution import DocumentResolver
from api.evaluator.retrieval_runs import Embedders, build_index, catalogue, retrieved
from ingest.pipeline import chunk_records
from ingest.rerank import pair_text
from ingest.retrieval import RetrievedChunk
from ingest.settings import IngestSettings
from modelstore.production import require_model
from modelstore.registry import MULTILINGUAL_E5_SMALL
from research.reranker import (
    ADAPTER_FILE,
    RECORD_FILE,
    RerankerRecipe,
    adapter_state,
    assemble_reranker,
    save_adapter,
    trainable_cross_encoder,
)

log = logging.getLogger("research.train_reranker")


@dataclass(frozen=True)
class Group:
    """A question with one passage that answers it and passages that do not."""

    question: str
    positive: str
    negatives: tuple[str, ...]
    source: str


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(arguments)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    torch.set_num_threads(args.threads)
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    settings = IngestSettings()
    groups = covid_groups(
        args.data / "covid_qa" / "200423_covidQA.json", args.negatives, args.covid_questions
    )
    dev = dev_groups(args.dev, args.data / "real_nl", settings, args.negatives, args.candidates)
    log.info(
        "%d COVID-QA groups, %d development groups (each repeated %d times)",
        len(groups),
        len(dev),
        args.dev_repeat,
    )
    recipe = RerankerRecipe(layers=args.layers, rank=args.rank, max_length=args.max_length)
    e5 = require_model(MULTILINGUAL_E5_SMALL, settings.model_cache, "EMBEDDING_MODEL")
    model, tokenizer = trainable_cross_encoder(e5, recipe)
    history = train(model, tokenizer, groups + dev * args.dev_repeat, args)
    args.out.mkdir(parents=True, exist_ok=True)
    save_adapter(adapter_state(model), args.out / ADAPTER_FILE)
    record = {
        "command": "python -m research.train_reranker " + shlex.join(arguments),
        "base_model": MULTILINGUAL_E5_SMALL,
        "recipe": recipe.as_dict(),
        "data": {
            "covid_qa_groups": len(groups),
            "dev_groups": len(dev),
            "dev_repeat": args.dev_repeat,
            "negatives_per_group": args.negatives,
        },
        "hyperparameters": {"learning_rate": args.lr, "group_batch": args.batch, "seed": args.seed},
        "history": history,
    }
    (args.out / RECORD_FILE).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    assemble_reranker(e5, args.out, args.out / "model")
    log.info("adapter and training record in %s, the cross-encoder in %s", args.out, args.out / "model")
    return 0


def covid_groups(path: Path, negatives: int, limit: int) -> list[Group]:
    """COVID-QA questions with the chunk holding most of the answer span and other chunks of the same article."""
    cleaned = clean_set(load_covid_qa(path))
    chunks = {document.source.id: _chunks(document) for document in cleaned.documents}
    titles = {document.source.id: document.source.title for document in cleaned.documents}
    groups = []
    for query in cleaned.queries:
        for span in query.answer_spans[:1]:
            records = chunks.get(span.document, [])
            holding = [r for r in records if holds_most_of(r, span)]
            others = [r for r in records if r.char_end <= span.start or r.char_start >= span.end]
            if not holding or len(others) < negatives:
                continue
            title = titles[span.document]
            groups.append(
                Group(
                    query.question,
                    pair_text(title, holding[0].text),
                    tuple(pair_text(title, r.text) for r in random.sample(others, negatives)),
                    "covid_qa",
                )
            )
    random.shuffle(groups)
    return groups[:limit]


def dev_groups(
    dev_csv: Path, pdf_folder: Path, settings: IngestSettings, negatives: int, candidates: int
) -> list[Group]:
    """Development questions with the chat's hybrid results: a result holding the key fact against those without."""
    queries = [q for q in read_queries(dev_csv) if q.relevant_documents and q.answer]
    names = {name for q in queries for name in q.relevant_documents}
    with tempfile.TemporaryDirectory(prefix="vraagbaak-rerank-") as work:
        folder = Path(work) / "pdfs"
        folder.mkdir()
        for name in sorted(names):
            (folder / name).symlink_to((pdf_folder / name).resolve())
        documents = list(read_pdf_folder(folder, settings.max_pdf_mb * 1_000_000).documents)
        config = RetrievalConfig()
        embedders = Embedders(settings)
        index = build_index(documents, config, embedders.get(config.embedder), Path(work) / "index")
        try:
            retriever = embedders.retriever(config, index)
            resolver = DocumentResolver(catalogue(documents))
            return [
                g
                for q in queries
                if (
                    g := _dev_group(
                        q, retriever.retrieve(q.question, top_k=candidates).chunks, resolver, negatives
                    )
                )
            ]
        finally:
            index.close()


def _dev_group(
    query: EvalQuery, chunks: Sequence[RetrievedChunk], resolver: DocumentResolver, negatives: int
) -> Group | None:
    judged = [(chunk, judge(query, [retrieved(chunk)], resolver).chunk_rank == 1) for chunk in chunks]
    positives = [chunk for chunk, good in judged if good]
    others = [chunk for chunk, good in judged if not good]
    if not positives or len(others) < negatives:
        return None
    picked = others[: negatives // 2] + random.sample(others[negatives // 2 :], negatives - negatives // 2)
    return Group(
        query.question,
        pair_text(positives[0].title, positives[0].text),
        tuple(pair_text(c.title, c.text) for c in picked),
        "dev",
    )


def _chunks(document: CleanedDocument) -> list[Retrieved]:
    config = RetrievalConfig()
    return [
        Retrieved(r.document_id, r.char_start, r.char_end, 0.0, None, r.chunk)
        for r in chunk_records(document.parsed, document.tags, config.chunk_size, config.chunk_overlap)
    ]


def train(
    model: torch.nn.Module, tokenizer: PreTrainedTokenizerBase, groups: list[Group], args: argparse.Namespace
) -> list[dict[str, float]]:
    """Listwise training over shuffled groups until they run out or `--minutes` pass; returns the loss history."""
    random.shuffle(groups)
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(trainable, lr=args.lr, weight_decay=0.0)
    steps = max(1, len(groups) // args.batch)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda step: min(1.0, (step + 1) / 20) * max(0.05, 1 - step / steps)
    )
    model.train()
    began = time.monotonic()
    history: list[dict[str, float]] = []
    running = 0.0
    for step in range(steps):
        batch = groups[step * args.batch : (step + 1) * args.batch]
        loss = _group_loss(model, tokenizer, batch, args.max_length)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trainable, 1.0)
        optimiser.step()
        schedule.step()
        optimiser.zero_grad()
        running += float(loss.detach())
        if (step + 1) % 10 == 0:
            minutes = (time.monotonic() - began) / 60
            history.append({"step": step + 1, "loss": running / 10, "minutes": round(minutes, 2)})
            log.info("step %d/%d loss %.3f (%.1f min)", step + 1, steps, running / 10, minutes)
            running = 0.0
            if minutes > args.minutes:
                log.info("time is up after %d steps", step + 1)
                break
    model.eval()
    return history


def _group_loss(
    model: torch.nn.Module, tokenizer: PreTrainedTokenizerBase, batch: list[Group], max_length: int
) -> torch.Tensor:
    questions = [g.question for g in batch for _ in range(1 + len(g.negatives))]
    passages = [p for g in batch for p in (g.positive, *g.negatives)]
    encoded = tokenizer(
        questions,
        passages,
        truncation="only_second",
        max_length=max_length,
        padding=True,
        return_tensors="pt",
    )
    logits = model(**encoded).logits.view(len(batch), -1)
    return torch.nn.functional.cross_entropy(logits, torch.zeros(len(batch), dtype=torch.long))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m research.train_reranker", description=__doc__)
    parser.add_argument(
        "--data", type=Path, required=True, help="the shared data folder (covid_qa/, real_nl/)"
    )
    parser.add_argument(
        "--dev", type=Path, default=Path("samples/real/dev.csv"), help="development questions"
    )
    parser.add_argument(
        "--out", type=Path, required=True, help="folder for adapter.safetensors and training.json"
    )
    parser.add_argument("--layers", type=int, default=3, help="first e5 layers kept")
    parser.add_argument("--rank", type=int, default=32, help="LoRA rank")
    parser.add_argument("--max-length", type=int, default=192, help="tokens of question and passage together")
    parser.add_argument("--negatives", type=int, default=7, help="passages that do not answer, per group")
    parser.add_argument(
        "--candidates", type=int, default=20, help="hybrid results a development group is drawn from"
    )
    parser.add_argument("--covid-questions", type=int, default=800, help="COVID-QA groups at most")
    parser.add_argument("--dev-repeat", type=int, default=3, help="times each development group is seen")
    parser.add_argument("--batch", type=int, default=2, help="groups per step")
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--minutes", type=float, default=30.0, help="stop after this much training time")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    return parser


if __name__ == "__main__":
    raise SystemExit(main())
