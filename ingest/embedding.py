"""Sentence embeddings for chunks and queries, with the model's own prompt convention.

e5 models were trained with `passage: ` / `query: ` prefixes and lose quality without them; BGE-M3 uses none.
sentence-transformers' `encode_document` / `encode_query` pick the prompt the model folder configures
("document", "passage" or "corpus"; "query"), so the same code serves both.
Device and dtype come from the settings (cuda + bfloat16 in production, cpu + float32 here).
"""

import logging
from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from sentence_transformers import SentenceTransformer

from ingest.settings import IngestSettings
from modelstore.device import torch_dtype
from modelstore.production import exit_unless_loadable, require_model

log = logging.getLogger(__name__)


def exit_unless_embedder_loadable(settings: IngestSettings) -> None:
    """Stop a service at start, naming EMBEDDING_MODEL, when its embedder is in neither cache (it loads lazily)."""
    exit_unless_loadable({"EMBEDDING_MODEL": settings.embedding_model}, settings.model_cache)


class Embedder:
    """A sentence-transformers model loaded once; vectors come back L2-normalised float32."""

    def __init__(
        self,
        model_name: str,
        model_cache: Path,
        device: str = "cpu",
        dtype: str = "float32",
        batch_size: int = 32,
    ) -> None:
        self.model_name = model_name
        self.batch_size = batch_size
        self._model = SentenceTransformer(
            require_model(model_name, model_cache, "EMBEDDING_MODEL"),
            device=device,
            model_kwargs={"dtype": torch_dtype(dtype)},
            local_files_only=True,
        )
        # sentence-transformers 6 saves an empty "document" prompt beside e5's "passage: ", and encode_document
        # tries "document" first: without the empty entries it finds "passage" (measured: e5 vectors differ).
        self._model.prompts = {name: prompt for name, prompt in self._model.prompts.items() if prompt}

    @classmethod
    def from_settings(cls, settings: IngestSettings, model_name: str | None = None) -> "Embedder":
        """The configured embedder (or `model_name`) with the settings' cache, device, dtype and batch size."""
        return cls(
            model_name or settings.embedding_model,
            settings.model_cache,
            settings.device,
            settings.dtype,
            settings.embedding_batch_size,
        )

    @cached_property
    def dimension(self) -> int:
        dimension = self._model.get_embedding_dimension()
        if dimension is None:
            raise RuntimeError(f"{self.model_name} does not declare its embedding dimension")
        return int(dimension)

    def embed_passages(
        self, texts: Sequence[str], progress: Callable[[int], object] | None = None
    ) -> NDArray[np.float32]:
        """Vectors of the texts as stored (`Titel: …\nTekst: …`); `progress(n)` after each batch.

        Batches are formed from texts of similar length (as sentence-transformers does within one `encode`
        call) so padding wastes no more than in one big call, while progress stays visible (`batch_order`).
        """
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for batch in batch_order([len(text) for text in texts], self.batch_size):
            vectors[batch] = self._encode([texts[i] for i in batch], self._model.encode_document)
            if progress is not None:
                progress(len(batch))
        return vectors

    def embed_query(self, text: str) -> NDArray[np.float32]:
        return self._encode([text], self._model.encode_query)[0]

    def _encode(self, texts: list[str], encode: Callable[..., Any]) -> NDArray[np.float32]:
        with torch.inference_mode():
            vectors = encode(
                texts,
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float32)


def batch_order(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Batches of texts of similar length, in an order where the share of chunks done tracks the share of work
    (characters) done, so a progress bar's ETA is right from the start: longest first all the way made it start
    at twice the real time. The longest batch still comes first (a batch too big for memory fails at once).
    """
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    left = [order[start : start + batch_size] for start in range(0, len(order), batch_size)]
    total_work, total_chunks = sum(lengths), len(lengths)
    done_work = done_chunks = 0
    ordered = []
    while left:
        ahead = done_work * total_chunks > done_chunks * total_work
        batch = left.pop() if ahead else left.pop(0)
        done_work += sum(lengths[i] for i in batch)
        done_chunks += len(batch)
        ordered.append(batch)
    return ordered
