"""Settings of the generation worker, read from the environment and `.env`.

Unset values give the embedded default (one CPU machine, the offline models); `.env.example` lists the
production values (a CUDA GPU, Llama-3-8B-Instruct with an EAGLE head).
"""

from ipaddress import ip_address
from pathlib import Path
from typing import Literal, Self

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from modelstore.device_names import DeviceName, DTypeSetting, resolve_dtype

# The committed adapter of each offline generator (modelstore/trained/, installed by `make models`).
DEFAULT_ADAPTERS = {"google/gemma-3-270m": "vraagbaak/lora-gemma-3-270m"}
TreePolicy = Literal["adaptive", "fixed"]
VerifyMode = Literal["auto", "eager", "static", "graphs", "compiled"]


class SpeculativeSettings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    generator_model: str = Field(
        "google/gemma-3-270m", description="Hugging Face name or local folder of the target LLM."
    )
    generator_adapter: str | None = Field(
        None,
        description="LoRA adapter of the generator (name in the model cache or folder, made by "
        "`python -m research.adapt`); merged into the target at start. Unset: the committed adapter of the "
        "default generator (DEFAULT_ADAPTERS), none for any other model; `none` = the plain model.",
    )
    eagle_head: str | None = Field(None, description="EAGLE-1/2 draft head (name or folder); None = no head.")
    draft_method: str = Field(
        "casd",
        description="Default drafting method of the worker. casd (context copying, no trained weights) is the "
        "embedded default: the committed heads do not carry to unseen documents on this CPU (docs/benchmarks.md). "
        "Production sets eagle2+casd with EAGLE_HEAD; a method needing a head without one stops the worker at "
        "start.",
    )
    device: DeviceName = "cpu"
    dtype: DTypeSetting = Field(
        "auto",
        description="float32, bfloat16, float16, or auto: bfloat16 on a CUDA GPU and on a CPU with bfloat16 matrix "
        "units (AMX, AVX512-BF16), float32 elsewhere. Greedy decoding is token-exact only in float32.",
    )
    model_cache: Path = Field(Path(".models"), description="Folder of provisioned offline models.")
    worker_host: str = "127.0.0.1"
    worker_port: int = Field(8001, ge=1, le=65535)
    worker_token: SecretStr | None = Field(
        None,
        min_length=16,
        description="Bearer token every `POST /generate` must carry (the API sends its WORKER_TOKEN); unset = "
        "none asked, allowed only while WORKER_HOST is a loopback address.",
    )

    # ------------------------------------------------------------ worker (HTTP service, docs/worker.md)
    chat_template: Literal["auto", "none"] = Field(
        "auto",
        description="How the worker wraps a prompt: auto = as one user turn in the tokenizer's chat template when "
        "it has one (chat models), none = as is (base models).",
    )
    torch_threads: int | None = Field(
        None,
        ge=1,
        description="CPU threads of the worker's torch ops; None = torch's default (every core). On a CPU shared "
        "with other services, fewer threads avoid stalls of threads spin-waiting for a descheduled sibling.",
    )
    queue_limit: int = Field(
        8,
        ge=0,
        description="Requests that may wait behind those being decoded (MAX_BATCH); more get 503 with Retry-After.",
    )
    max_batch: int = Field(
        4,
        ge=1,
        le=256,
        description="Answers decoded together: one target forward verifies the draft trees of up to this many "
        "(continuous batching; each answer's text is what it would be alone). 1 = one answer at a time. Size it "
        'for a GPU by its memory and the goal latency (docs/worker.md, "Sizing MAX_BATCH").',
    )
    retry_after_seconds: int = Field(
        5, ge=1, description="The Retry-After of a 503 (queue full, still loading)."
    )
    request_deadline_seconds: float = Field(
        120.0,
        gt=0,
        description="Wall time from arrival (queue wait included) after which an answer ends with stop reason "
        "`deadline`, unless the request sets its own.",
    )
    health_stall_seconds: float = Field(
        60.0,
        gt=0,
        description="`/health` answers 503 `stalled` while the answer being decoded is this far past its deadline "
        "(decoding checks the deadline between steps, so it is stuck: a CUDA hang, a deadlock); the API then sends "
        "it no questions and Docker marks it unhealthy.",
    )
    repetition_ngram: int = Field(4, ge=1, description="Repetition guard: the n-gram size of its loop rule.")
    repetition_window: int = Field(
        32,
        ge=0,
        description="Repetition guard: an answer ends (stop reason `repetition`) once repetition_share of its last "
        "this-many n-grams repeat an earlier n-gram of the answer; 0 turns the guard off. The benchmark flags "
        "degenerate answers with the same rule.",
    )
    repetition_share: float = Field(0.5, gt=0, le=1, description="Repetition guard: the share of repeats.")

    # ------------------------------------------------------------ engine (speculative decoding)
    attention: Literal["sdpa", "eager"] = Field(
        "sdpa",
        description="Attention kernel of the target. Tree verification needs a custom 4D mask, which "
        "flash-attention ignores, so only these two are accepted.",
    )
    verify_mode: VerifyMode = Field(
        "auto",
        description="How the verify forward runs: eager = transformers' forward over a growing cache, shapes as "
        "they come; static = over a KV cache allocated once (MAX_BATCH × KV_CACHE_TOKENS) at shapes rounded up to "
        "buckets; graphs = static, each bucket captured once in a CUDA graph and replayed (a failed capture falls "
        "back to static with a log line); compiled = graphs, the forward first fused by torch.compile (minutes of "
        "compiling in the warm-up, before the worker says ready, kept on disk; a failed compile falls back to graphs "
        "with a log line); auto = graphs on a CUDA device, eager elsewhere.",
    )
    kv_cache_tokens: int | None = Field(
        None,
        ge=64,
        description="static and graphs: the positions (prompt and answer) each answer's pre-allocated KV cache "
        "holds; longer requests get 413. None = the model's context, at most 8192.",
    )
    tree_policy: TreePolicy = Field(
        "adaptive",
        description="How many drafted nodes each target forward verifies: adaptive = chosen per step from the "
        "answer's recent acceptance and the device's measured cost model; fixed = TREE_BUDGET every step.",
    )
    tree_budget: int | None = Field(
        None,
        ge=0,
        description="fixed: draft nodes verified per target forward (root excluded); None = the device's: 16 on a "
        "CPU (the measured sweet spot), 60 on a GPU (EAGLE-2's reference tree). adaptive: the most nodes it may "
        "verify; None = the largest size of the cost model (63).",
    )
    cost_model_dir: Path | None = Field(
        Path(".data/cost-models"),
        description="Where the worker caches the measured verification costs per model, device and dtype; when "
        "missing, it serves at once with the prior tree budget and measures them while idle; None = measure at "
        "every start.",
    )
    max_new_tokens: int = Field(512, ge=1, description="Default answer length cap of a request, in tokens.")
    stop_strings: list[str] = Field(
        default_factory=list,
        description="Stop strings of a request that sends none (the API sends its template's markers with each "
        "request; the worker knows no template); the string itself is not returned. JSON list in the environment.",
    )
    casd_query_tokens: int = Field(
        10,
        ge=0,
        description="CASD matches the last this-many accepted tokens plus the root against the context.",
    )
    casd_matches: int = Field(2, ge=1, description="CASD keeps this many matches, the longest first.")
    casd_draft_tokens: int = Field(
        10,
        ge=1,
        description="Tokens CASD drafts after each match (cut at a stop token and the sequence end).",
    )
    casd_tie_break: Literal["most_recent", "earliest"] = Field(
        "most_recent",
        description="Which of several equally long CASD matches wins: the most recent (what the answer is "
        "copying right now) or the earliest in the context (what prompt lookup does).",
    )
    casd_shares_budget: bool = Field(
        False,
        description="In a merged tree (eagle2+casd), whether CASD's nodes count against tree_budget (True) or "
        "come on top of it (False: at most casd_matches × casd_draft_tokens extra nodes, the paper's setup).",
    )
    eagle_total_tokens: int = Field(
        60,
        ge=1,
        description="EAGLE-2 tree size in tokens, root included (the reference 60); tree_budget caps the "
        "drafted nodes, so on a CPU the device's budget wins.",
    )
    eagle_depth: int = Field(
        5,
        ge=0,
        description="EAGLE-2 expansion rounds: the tree reaches depth eagle_depth + 1 below the root.",
    )
    eagle_top_k: int = Field(
        10,
        ge=1,
        description="EAGLE-2 beam width: frontier nodes kept per round and children drafted per node.",
    )

    @field_validator("worker_token", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        return None if value == "" else value

    @field_validator("generator_adapter", mode="before")
    @classmethod
    def _none_is_no_adapter(cls, value: object) -> object:
        """`GENERATOR_ADAPTER=none` (or empty) serves the plain model, also where a default adapter applies."""
        return None if isinstance(value, str) and value.strip().lower() in {"", "none"} else value

    @model_validator(mode="after")
    def _default_adapter(self) -> Self:
        """The embedded default serves Gemma 3 270M with its committed adapter (it answers from the passages
        and loops less, docs/evaluation.md); a deployment that names its own model gets no adapter unasked."""
        if "generator_adapter" not in self.model_fields_set:
            self.generator_adapter = DEFAULT_ADAPTERS.get(self.generator_model)
        return self

    @model_validator(mode="after")
    def _token_unless_loopback(self) -> Self:
        """A worker reachable from other machines refuses to start without a token rather than serve anyone."""
        if self.worker_token is None and not _is_loopback(self.worker_host):
            raise ValueError(
                f"WORKER_TOKEN must be set when WORKER_HOST ({self.worker_host}) is not loopback"
            )
        if self.worker_token is not None and self.worker_token.get_secret_value().startswith("change-me"):
            raise ValueError("WORKER_TOKEN still holds the placeholder of .env.example; set a random value")
        return self

    @model_validator(mode="after")
    def _auto_dtype(self) -> Self:
        """DTYPE=auto becomes the dtype this device runs best (`modelstore.device_names.resolve_dtype`)."""
        self.dtype = resolve_dtype(self.dtype, self.device)
        return self


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False
