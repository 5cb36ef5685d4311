"""Retrieval configurations to compare: `NAME=alpha=0.7,title=on,chunk=800/160,embedder=intfloat/…,reranker=…`.

Unnamed settings keep the production default (the source study's best: α 0.7, title prefix, 800/160, and the
offline multilingual embedder standing in for BGE-M3, no reranker). `STUDY` is the comparison the issue asks for: every α
from BM25 only to dense only, without the title prefix, another chunking, and another embedder.
"""

from typing import Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ingest.settings import DEFAULT_REPEAT_MIN_CHARS, IngestSettings
from modelstore.production import names_a_model

DEFAULT_EMBEDDER = "google/embeddinggemma-300m"
ALTERNATIVE_EMBEDDER = "sentence-transformers/all-MiniLM-L6-v2"
_SWITCHES = {
    "on": True,
    "true": True,
    "yes": True,
    "1": True,
    "off": False,
    "false": False,
    "no": False,
    "0": False,
}


class RetrievalConfig(BaseModel):
    """What one column of the report varies: fusion weight, title prefix, chunking, embedder, reranker."""

    model_config = ConfigDict(frozen=True)

    alpha: float = Field(0.7, ge=0.0, le=1.0, description="1 = dense only, 0 = BM25 only.")
    title_prefix: bool = True
    chunk_size: int = Field(800, ge=100)
    chunk_overlap: int = Field(160, ge=0)
    embedder: str = Field(DEFAULT_EMBEDDER, min_length=1)
    reranker: str = Field("", description="Cross-encoder over the hybrid candidates; empty = none.")
    candidates: int = Field(20, ge=1, le=100, description="Hybrid results the reranker orders.")
    repeats: int = Field(
        DEFAULT_REPEAT_MIN_CHARS,
        ge=0,
        description="Characters in a row a result may share with one before it before it is passed over; 0 = off.",
    )

    @model_validator(mode="after")
    def _overlap_below_size(self) -> Self:
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError(f"chunk overlap {self.chunk_overlap} must be below chunk size {self.chunk_size}")
        return self

    def index_key(self) -> tuple[bool, int, int, str]:
        """What the index depends on; α, the reranker and repeats are applied at query time, so configurations
        differing only in them can search the same index without changing a single result."""
        return (self.title_prefix, self.chunk_size, self.chunk_overlap, self.embedder)

    def describe(self) -> dict[str, str]:
        return {
            "alpha": f"{self.alpha:g}",
            "title": "on" if self.title_prefix else "off",
            "chunk": f"{self.chunk_size}/{self.chunk_overlap}",
            "embedder": self.embedder,
            **({"reranker": f"{self.reranker} over {self.candidates}"} if self.reranker else {}),
            **({"repeats": _repeats(self.repeats)} if self.repeats != DEFAULT_REPEAT_MIN_CHARS else {}),
        }


def deployed_config(settings: IngestSettings) -> RetrievalConfig:
    """The configuration the deployment's chat searches with (its α, chunking, embedder and reranker)."""
    return RetrievalConfig(
        alpha=settings.retrieval_alpha,
        chunk_size=settings.chunk_size,
        chunk_overlap=settings.chunk_overlap,
        embedder=settings.embedding_model,
        reranker=settings.reranker_model if names_a_model(settings.reranker_model) else "",
        candidates=settings.reranker_candidates,
        repeats=settings.retrieval_repeat_min_chars,
    )


class ConfigError(ValueError):
    """A `--config` argument cannot be understood."""


def parse_config(argument: str) -> tuple[str, RetrievalConfig]:
    """`NAME=key=value,key=value`: keys `alpha`, `title` (on/off), `chunk` (SIZE/OVERLAP), `embedder`,
    `reranker` (a model name or folder), `candidates` (how many hybrid results it orders), `repeats` (characters
    in a row that make a result a repeat of one before it; 0 = keep repeats)."""
    name, separator, settings = argument.partition("=")
    if not separator or not name.strip():
        raise ConfigError(
            f"{argument!r}: expected NAME=SETTINGS, e.g. hybrid=alpha=0.7,title=on,chunk=800/160"
        )
    fields: dict[str, object] = {}
    for item in filter(None, (part.strip() for part in settings.split(","))):
        key, equals, value = item.partition("=")
        if not equals:
            raise ConfigError(f"{argument!r}: {item!r} is not key=value")
        fields.update(_field(argument, key.strip().lower(), value.strip()))
    try:
        return name.strip(), RetrievalConfig.model_validate(fields)
    except ValidationError as error:
        raise ConfigError(f"{argument!r}: {error.errors()[0]['msg']}") from error


def _field(argument: str, key: str, value: str) -> dict[str, object]:
    if key == "alpha":
        return {"alpha": value}
    if key == "embedder":
        return {"embedder": value}
    if key == "reranker":
        return {"reranker": "" if value.lower() in ("none", "off") else value}
    if key == "candidates":
        return {"candidates": value}
    if key == "repeats":
        return {"repeats": value}
    if key == "title":
        if value.lower() not in _SWITCHES:
            raise ConfigError(f"{argument!r}: title must be on or off, got {value!r}")
        return {"title_prefix": _SWITCHES[value.lower()]}
    if key == "chunk":
        size, slash, overlap = value.partition("/")
        if not slash:
            raise ConfigError(f"{argument!r}: chunk must be SIZE/OVERLAP, e.g. 800/160, got {value!r}")
        return {"chunk_size": size, "chunk_overlap": overlap}
    raise ConfigError(
        f"{argument!r}: unknown setting {key!r} (known: alpha, title, chunk, embedder, reranker, candidates, repeats)"
    )


def _repeats(min_chars: int) -> str:
    return "kept" if min_chars == 0 else f"passed over at {min_chars} characters"


STUDY: dict[str, RetrievalConfig] = {
    "bm25 (α=0)": RetrievalConfig(alpha=0.0),
    "α=0.3": RetrievalConfig(alpha=0.3),
    "α=0.5": RetrievalConfig(alpha=0.5),
    "hybrid α=0.7": RetrievalConfig(),
    "dense (α=1)": RetrievalConfig(alpha=1.0),
    "α=0.7 no title": RetrievalConfig(title_prefix=False),
    "α=0.7 chunk 400/80": RetrievalConfig(chunk_size=400, chunk_overlap=80),
    "α=0.7 MiniLM": RetrievalConfig(embedder=ALTERNATIVE_EMBEDDER),
}
