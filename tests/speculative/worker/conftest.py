"""Fixtures of the worker tests: real `python -m speculative.worker` processes on loopback, the offline SmolLM2.

One process per configuration for the whole session (loading and warming up takes seconds); the model is the
smallest offline generator, a chat model, in fp32 on one CPU thread; answers are kept short.
"""

import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import torch
from httpx_sse import connect_sse
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase

from modelstore.provision import provision
from modelstore.registry import REGISTRY, SMOLLM2_135M_INSTRUCT
from research.local_process import LocalWorker
from speculative.engine.stopping import model_stop_token_ids
from tests.speculative.conftest import greedy_reference

REPO_ROOT = Path(__file__).resolve().parents[3]
START_TIMEOUT_SECONDS = 600.0
MEASURE_TIMEOUT_SECONDS = 1800.0
WORKER_TOKEN = "worker-token-of-the-tests-7f3a"


@dataclass(frozen=True)
class Answer:
    """A finished stream: its events in order as (name, data)."""

    events: list[tuple[str, dict[str, Any]]]

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.events]

    @property
    def start(self) -> dict[str, Any]:
        return self._one("start")

    @property
    def done(self) -> dict[str, Any]:
        return self._one("done")

    @property
    def streamed_text(self) -> str:
        return "".join(data["text"] for name, data in self.events if name == "delta")

    def _one(self, name: str) -> dict[str, Any]:
        (data,) = [data for event, data in self.events if event == name]
        return data


class WorkerProcess:
    """A worker process with `settings` on a free loopback port, a client to it, and what it said while loading."""

    def __init__(self, settings: dict[str, str], log_path: Path) -> None:
        self.process = LocalWorker(settings, log_path, cwd=REPO_ROOT)
        self.token = settings.get("WORKER_TOKEN")
        self.client = self.new_client(timeout=120.0)
        self.startup_health: list[int] = []
        self.startup_generate: list[httpx.Response] = []

    def wait_until_ready(self) -> None:
        """Wait for health to say ready, asking /generate once while it still loads."""

        def while_loading(health: httpx.Response) -> None:
            self.startup_health.append(health.status_code)
            if not self.startup_generate:
                self.startup_generate.append(self.client.post("/generate", json={"prompt": "Hallo"}))

        self.process.wait_until_ready(START_TIMEOUT_SECONDS, while_loading)
        ready = self.client.get("/health")
        self.startup_health.append(ready.status_code)
        self.ready_health: dict[str, Any] = ready.json()

    def wait_for_cost_model(self, timeout: float = MEASURE_TIMEOUT_SECONDS) -> dict[str, Any]:
        """Health once the worker has measured (or read) its cost model: 192 forwards after a 512-token prefill,
        minutes on a CPU shared with other test runs."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            health: dict[str, Any] = self.client.get("/health").json()
            if health["cost_model"] is not None:
                return health
            time.sleep(0.2)
        raise AssertionError(f"no cost model after {timeout:.0f} s: {self.process.log_tail()}")

    def new_client(self, timeout: float) -> httpx.Client:
        """A client that sends the worker's token, as the API does."""
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else None
        return httpx.Client(base_url=self.process.url, timeout=timeout, headers=headers)

    def generate(self, **body: Any) -> Answer:
        return self.generate_with(self.client, **body)

    @staticmethod
    def generate_with(client: httpx.Client, **body: Any) -> Answer:
        """One whole stream, read through `client` (one client per thread)."""
        with connect_sse(client, "POST", "/generate", json=body) as source:
            source.response.raise_for_status()
            return Answer([(event.event, json.loads(event.data)) for event in source.iter_sse()])

    def metric(self, line_start: str) -> float:
        """The value of the metrics line starting with `line_start`; 0 for a labelled counter not yet counted."""
        for line in self.client.get("/metrics").text.splitlines():
            if line.startswith(line_start):
                return float(line.rsplit(" ", 1)[1])
        return 0.0

    def stop(self) -> None:
        self.client.close()
        self.process.stop()


STATIC_KV_CACHE_TOKENS = 1024


@pytest.fixture(scope="session")
def smollm2_folder() -> str:
    cache = Path(os.environ.get("MODEL_CACHE", REPO_ROOT / ".models")).resolve()
    provision([REGISTRY[SMOLLM2_135M_INSTRUCT]], cache)
    return str(cache / SMOLLM2_135M_INSTRUCT.replace("/", "--"))


def start_worker(
    tmp_path_factory: pytest.TempPathFactory, folder: str, **settings: str
) -> Iterator[WorkerProcess]:
    base = {
        "GENERATOR_MODEL": folder,
        "EAGLE_HEAD": "",
        "DEVICE": "cpu",
        "DTYPE": "float32",
        "TORCH_THREADS": "1",
        "STOP_STRINGS": "[]",
        "WORKER_TOKEN": WORKER_TOKEN,
    }
    worker = WorkerProcess(base | settings, tmp_path_factory.mktemp("worker") / "worker.log")
    try:
        worker.wait_until_ready()
        yield worker
    finally:
        worker.stop()


@pytest.fixture(scope="session")
def chat_worker(tmp_path_factory: pytest.TempPathFactory, smollm2_folder: str) -> Iterator[WorkerProcess]:
    """The default configuration (chat template from the tokenizer, the default DRAFT_METHOD casd, no head), one
    answer at a time: the queue's behaviour is seen alone here (batching: `batch_worker`)."""
    yield from start_worker(
        tmp_path_factory, smollm2_folder, CHAT_TEMPLATE="auto", QUEUE_LIMIT="2", MAX_BATCH="1"
    )


@pytest.fixture(scope="session")
def batch_worker(tmp_path_factory: pytest.TempPathFactory, smollm2_folder: str) -> Iterator[WorkerProcess]:
    """Two answers decoded together, one more waiting, verified over a static KV cache of 1,024 positions each
    (the path CUDA graphs replay on a GPU; `chat_worker` verifies eagerly)."""
    yield from start_worker(
        tmp_path_factory,
        smollm2_folder,
        QUEUE_LIMIT="1",
        MAX_BATCH="2",
        VERIFY_MODE="static",
        KV_CACHE_TOKENS=str(STATIC_KV_CACHE_TOKENS),
    )


@pytest.fixture(scope="session")
def smollm2(smollm2_folder: str) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    model = AutoModelForCausalLM.from_pretrained(smollm2_folder, dtype=torch.float32).eval()
    return model, AutoTokenizer.from_pretrained(smollm2_folder)


GreedyText = Callable[[list[int], int], tuple[list[int], str]]


@pytest.fixture(scope="session")
def greedy_text(smollm2: tuple[PreTrainedModel, PreTrainedTokenizerBase]) -> GreedyText:
    """Plain transformers greedy decoding of SmolLM2: the new ids (up to a stop id) and their text."""
    model, tokenizer = smollm2
    stops = model_stop_token_ids(model.config, model.generation_config, tokenizer)

    def greedy(prompt_ids: list[int], max_new_tokens: int) -> tuple[list[int], str]:
        new_ids = greedy_reference(model, prompt_ids, max_new_tokens, stops)
        return new_ids, str(tokenizer.decode(new_ids, skip_special_tokens=True))

    return greedy
