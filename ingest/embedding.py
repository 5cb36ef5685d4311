"""Sentence embeddings for chunks and queries, with the model's own prompt convention.

e5 models were trained with `passage: ` / `query: ` prefixes and lose quality without them; BGE-M3 uses none.
The prompts come from the model folder's sentence-transformers configuration, so the same code serves both.
Device and dtype come from the settings (cuda + bfloat16 in production, cpu + float32 here).
"""

import logging
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from pathlib import Path

import numpy as np
import torch
from numpy.typing import NDArray
from sentence_transformers import SentenceTransformer

from ingest.settings import IngestSettings
from speculative.models.cache import resolve_model

log = logging.getLogger(__name__)

PASSAGE_PROMPTS = ("passage", "document")
QUERY_PROMPTS = ("query",)
_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


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
            resolve_model(model_name, model_cache),
            device=device,
            model_kwargs={"dtype": _DTYPES[dtype]},
            local_files_only=True,
        )

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

    @cached_property
    def passage_prompt(self) -> str | None:
        return _first_prompt(self._model.prompts, PASSAGE_PROMPTS)

    @cached_property
    def query_prompt(self) -> str | None:
        return _first_prompt(self._model.prompts, QUERY_PROMPTS)

    def embed_passages(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> NDArray[np.float32]:
        """Vectors of the texts as stored (`Titel: …\nTekst: …`); `progress(n)` after each batch.

        Batches are formed from texts of similar length (longest first, as sentence-transformers does within
        one `encode` call) so padding wastes no more than in one big call, while progress stays visible.
        """
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            vectors[batch] = self._encode([texts[i] for i in batch], self.passage_prompt)
            if progress is not None:
                progress(len(batch))
        return vectors

    def embed_query(self, text: str) -> NDArray[np.float32]:
        return self._encode([text], self.query_prompt)[0]

    def _encode(self, texts: list[str], prompt_name: str | None) -> NDArray[np.float32]:
        with torch.inference_mode():
            vectors = self._model.encode(
                texts,
                prompt_name=prompt_name,
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float32)


def _first_prompt(prompts: Mapping[str, str | None], names: Sequence[str]) -> str | None:
    """The first configured prompt name among `names` whose prompt is not empty; None = no prompt."""
    return next((name for name in names if prompts.get(name)), None)
