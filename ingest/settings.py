"""Settings of ingestion and retrieval, read from the environment and `.env`.

Unset values give the embedded default: SQLite and the on-disk index under `.data/`, the offline multilingual
e5 embedder on the CPU. `.env.example` lists the production values (PostgreSQL, Weaviate, BGE-M3 on a GPU).
"""

from pathlib import Path
from typing import Self

from pydantic import AnyHttpUrl, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from ingest.database import check_database_url
from modelstore.device_names import DeviceName, DTypeSetting, resolve_dtype

DEFAULT_ALPHA = 0.7
DEFAULT_TOP_K = 3
DEFAULT_REPEAT_MIN_CHARS = 120  # below the 160 characters neighbouring chunks share


class IngestSettings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    database_url: str = Field(
        "sqlite:///.data/vraagbaak.db", description="SQLAlchemy URL: sqlite:///… or postgresql+psycopg://…"
    )
    embedding_model: str = Field(
        "google/embeddinggemma-300m",
        description="Hugging Face name or folder. After changing it: `python -m ingest reembed`.",
    )
    weaviate_url: AnyHttpUrl | None = Field(None, description="Weaviate REST URL; unset = embedded index.")
    weaviate_grpc_port: int = Field(50051, ge=1, le=65535)
    weaviate_api_key: SecretStr | None = None
    index_dir: Path = Field(Path(".data/index"), description="Folder of the embedded index.")
    model_cache: Path = Field(Path(".models"), description="Folder of provisioned offline models.")
    device: DeviceName = "cpu"
    dtype: DTypeSetting = Field(
        "auto",
        description="The embedder's and reranker's dtype: float32, bfloat16, float16, or auto: bfloat16 on a CUDA "
        "GPU, float32 elsewhere (on a CPU bfloat16 loses passages of paraphrased questions).",
    )
    chunk_size: int = Field(
        800, ge=100, le=8000, description="Characters per chunk (the source study's best)."
    )
    chunk_overlap: int = Field(160, ge=0, description="Characters shared by consecutive chunks.")
    embedding_batch_size: int = Field(32, ge=1, le=4096, description="Chunks per embedder forward pass.")
    weaviate_collection: str = Field(
        "VraagbaakChunk", pattern=r"^[A-Z][_0-9A-Za-z]*$", description="Weaviate collection of the chunks."
    )
    max_pdf_mb: int = Field(200, ge=1, description="Larger files are refused (failed), not parsed.")
    max_pdf_pages: int = Field(
        5000, ge=1, description="Files with more pages are refused (failed) before any page is read."
    )
    parse_timeout_seconds: float = Field(
        600.0, gt=0, description="Wall-clock time one file's parsing may take; then it is killed (failed)."
    )
    parse_memory_mb: int = Field(
        2048, ge=512, description="Address space of the child process that parses one file (RLIMIT_AS)."
    )
    converted_dir: Path = Field(
        Path(".data/uploads/converted"),
        description="Where the PDFs the viewer shows for converted Word files and OCR'd scans are kept; inside "
        "UPLOAD_DIR, so that the API may open them.",
    )
    ocr_language: str = Field(
        "nld",
        pattern=r"^[a-z_]+(\+[a-z_]+)*$",
        description="Tesseract language(s) for scanned pages, e.g. nld+eng.",
    )
    ocr_max_pages: int = Field(
        100, ge=0, description="Scanned pages OCR reads per file at most (0 = no OCR); the rest stay flagged."
    )
    ocr_jobs: int = Field(
        2,
        ge=1,
        le=16,
        description="Pages OCRmyPDF reads at a time (its --jobs), one Tesseract or Ghostscript process each; every "
        "process may use PARSE_MEMORY_MB, so one file holds up to (OCR_JOBS + 2) x PARSE_MEMORY_MB.",
    )
    parse_attempts: int = Field(
        2,
        ge=1,
        description="Parsing attempts per file in a job (a crashed child, a job killed while parsing): "
        "then the file is failed, also when the job is resumed.",
    )
    retrieval_alpha: float = Field(
        DEFAULT_ALPHA,
        ge=0.0,
        le=1.0,
        description="Weight of the dense leg in the hybrid query (0 = BM25 only).",
    )
    retrieval_top_k: int = Field(
        DEFAULT_TOP_K, ge=1, le=50, description="Chunks the chat puts in the prompt (the source system's 3)."
    )
    retrieval_repeat_min_chars: int = Field(
        DEFAULT_REPEAT_MIN_CHARS,
        ge=0,
        le=8000,
        description="A retrieved chunk that shares this many characters in a row with a higher-ranked one "
        "(neighbouring chunks share up to CHUNK_OVERLAP), or one of its sentences, gives its place to the next "
        "candidate that does not; 0 = off.",
    )
    reranker_model: str = Field(
        "",
        description="Cross-encoder that orders the hybrid candidates (Hugging Face name or folder, e.g. "
        "BAAI/bge-reranker-v2-m3); empty or none = no reranking.",
    )
    reranker_candidates: int = Field(
        20,
        ge=1,
        le=100,
        description="Hybrid results the reranker orders; the best RETRIEVAL_TOP_K reach the chat.",
    )
    relevance_floor: float = Field(
        0.0,
        ge=0.0,
        le=1.0,
        description="Fused score a chunk needs to reach the chat; 0 = off. Choose it from the evaluation "
        "report's relevance-floor table on the hospital's own questions.",
    )

    @field_validator("database_url")
    @classmethod
    def _valid_database_url(cls, value: str) -> str:
        return check_database_url(value)

    @model_validator(mode="after")
    def _overlap_below_chunk_size(self) -> Self:
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError(
                f"chunk_overlap ({self.chunk_overlap}) must be smaller than chunk_size ({self.chunk_size})"
            )
        return self

    @model_validator(mode="after")
    def _auto_dtype(self) -> Self:
        """DTYPE=auto becomes bfloat16 on a GPU and float32 on a CPU, even one with bfloat16 matrix units: there
        EmbeddingGemma embeds 1.7× faster in bfloat16 but puts 5 of 39 paraphrased questions' passages out of the
        top 3 (docs/evaluation.md, "EmbeddingGemma-300M as the embedder"), and ingestion is done once."""
        self.dtype = resolve_dtype(self.dtype, self.device, cpu_flags=[])
        return self
