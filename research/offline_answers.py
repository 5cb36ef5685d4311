"""The answer-quality report of `python -m research.evaluate --answers`: the documents indexed as the retrieval
report indexes them, a generation worker with the offline model started on loopback (`research.loopback`), and
every question asked through the chat (`api.evaluator.answer_quality.ask_through_chat`)."""

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from api.chat.settings import ChatSettings
from api.evaluator.answer_quality import AnswerObservation, ask_through_chat
from api.evaluator.configs import deployed_config
from api.evaluator.corpus import CleanedDocument
from api.evaluator.queries import EvalQuery
from api.evaluator.resolution import DocumentResolver
from api.evaluator.retrieval_runs import build_index, catalogue
from ingest.embedding import Embedder
from ingest.retrieval import Retriever
from ingest.settings import IngestSettings
from research.loopback import worker_process

OFFLINE_GENERATOR = "google/gemma-3-270m"


def ask_answers(
    documents: Sequence[CleanedDocument],
    queries: Sequence[EvalQuery],
    model: str = OFFLINE_GENERATOR,
    max_new_tokens: int = 96,
    log_dir: Path | None = None,
    worker_settings: Mapping[str, str] | None = None,
) -> list[AnswerObservation]:
    """Index the documents, start a worker with `model` (and `worker_settings`, e.g. DTYPE, TORCH_THREADS, over the
    loopback worker's float32 on one thread), ask every question through the chat; one observation per question."""
    settings = IngestSettings()
    embedder = Embedder.from_settings(settings)
    with tempfile.TemporaryDirectory(prefix="vraagbaak-answers-") as folder:
        work = Path(folder)
        index = build_index(documents, deployed_config(settings), embedder, work / "index")
        if log_dir is not None:
            log_dir.mkdir(parents=True, exist_ok=True)
        worker_log = (log_dir or work) / "worker.log"
        try:
            worker = {"MAX_NEW_TOKENS": str(max_new_tokens), **(worker_settings or {})}
            with worker_process(worker_log, model, **worker) as url:
                chat = ChatSettings(worker_urls=[url], answer_max_new_tokens=max_new_tokens)
                retriever = Retriever.from_settings(settings, index, embedder)
                resolver = DocumentResolver(catalogue(documents))
                return ask_through_chat(
                    retriever, chat, "UZ Voorbeeld", settings.embedding_model, queries, resolver=resolver
                )
        finally:
            index.close()
