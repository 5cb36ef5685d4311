"""Reranking: a cross-encoder reads the question together with each of the hybrid search's best candidates and
puts the passages that answer it first.

Hybrid search finds the right document far more often than the passage that answers: it compares the question
with each passage separately (one vector, word counts). A cross-encoder reads question and passage as one text
and scores how well the passage answers. It is too slow for the whole index, so the retriever asks hybrid search
for `RERANKER_CANDIDATES` chunks and the cross-encoder orders those (`ingest.retrieval.Retriever`).

`RERANKER_MODEL` names the model like the embedder (a Hugging Face name or folder, resolved through the model
cache): BAAI/bge-reranker-v2-m3 on the GPU in production; empty or "none" turns reranking off. Device and dtype
come from the ingest settings, as for the embedder.
"""

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from numpy.typing import NDArray
from sentence_transformers import CrossEncoder

from ingest.settings import IngestSettings
from modelstore.device import torch_dtype
from modelstore.production import exit_unless_loadable, names_a_model, require_model

SETTING = "RERANKER_MODEL"


def exit_unless_reranker_loadable(settings: IngestSettings) -> None:
    """Stop a service at start, naming RERANKER_MODEL, when its reranker is in neither cache."""
    if names_a_model(settings.reranker_model):
        exit_unless_loadable({SETTING: settings.reranker_model}, settings.model_cache)


def pair_text(title: str, passage: str) -> str:
    """The passage as the cross-encoder reads it: its document's title on the first line, then its text."""
    return f"{title}\n{passage}" if title else passage


class Reranker:
    """A sentence-transformers `CrossEncoder` loaded once; higher scores answer the question better."""

    def __init__(
        self,
        model_name: str,
        model_cache: Path,
        device: str = "cpu",
        dtype: str = "float32",
        batch_size: int = 32,
    ) -> None:
        if not names_a_model(model_name):
            raise ValueError(f"{SETTING}={model_name!r} turns reranking off: there is no model to load")
        self.model_name = model_name
        self.batch_size = batch_size
        self._model = CrossEncoder(
            require_model(model_name, model_cache, SETTING),
            device=device,
            model_kwargs={"dtype": torch_dtype(dtype)},
            local_files_only=True,
        )

    @classmethod
    def from_settings(cls, settings: IngestSettings) -> "Reranker | None":
        """The configured reranker, or None when RERANKER_MODEL turns reranking off."""
        if not names_a_model(settings.reranker_model):
            return None
        return cls(
            settings.reranker_model,
            settings.model_cache,
            settings.device,
            settings.dtype,
            settings.embedding_batch_size,
        )

    def scores(self, question: str, passages: Sequence[str]) -> NDArray[np.float32]:
        """One score per passage for how well it answers `question` (the model's raw logit, no activation)."""
        if not passages:
            return np.zeros(0, dtype=np.float32)
        with torch.inference_mode():
            scores = self._model.predict(
                [(question, passage) for passage in passages],
                batch_size=self.batch_size,
                activation_fn=torch.nn.Identity(),
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(scores, dtype=np.float32).reshape(-1)

    def order(self, question: str, passages: Sequence[str]) -> list[tuple[int, float]]:
        """(index, score) of every passage, best first; equal scores keep the passages' given order."""
        scores = self.scores(question, passages)
        ranked = sorted(range(len(passages)), key=lambda i: (-float(scores[i]), i))
        return [(i, float(scores[i])) for i in ranked]
