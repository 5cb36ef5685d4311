"""A worker with VERIFY_MODE=compiled says ready only once its verify forward is compiled (and on CUDA captured) for
every shape it serves: its first batched step compiles nothing, its answers are plain greedy decoding, and
`/health` says what was warmed up and how long it took.

The service runs in this process (torch's compile counters are the process's own) over a tiny random Llama with a
byte-level tokenizer saved as its model folder (nothing downloaded: `DEVICE=cuda` runs it on a GPU machine), with
the smallest shapes the worker really uses: two answers, trees of up to 4 rows, 64 positions each.
"""

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
from transformers import AutoTokenizer, PreTrainedModel

from research.gpu_check.worker_model import byte_tokenizer
from speculative.engine.stopping import model_stop_token_ids
from speculative.settings import SpeculativeSettings
from speculative.worker.schemas import DoneEvent, GenerateBody, WorkerEvent
from speculative.worker.service import WorkerService
from tests.speculative.conftest import compilations, compiling_from_nothing, greedy_reference, tiny_llama

PROMPTS = ["de de de kat zat op de mat, de kat zat op de", "een twee drie vier een twee"]
NEW_TOKENS = 16
DEVICE = SpeculativeSettings(_env_file=None).device  # the CPU, or DEVICE=cuda on a GPU machine


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> tuple[PreTrainedModel, Path]:
    """A tiny random Llama over the byte-level tokenizer's 257 tokens, and the folder it is saved in."""
    folder = tmp_path_factory.mktemp("tiny-llama")
    tokenizer = byte_tokenizer()
    model = tiny_llama(seed=0, vocab_size=len(tokenizer))
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return model, folder


@pytest.fixture
def torch_threads() -> Iterator[None]:
    """The worker sets its TORCH_THREADS for the whole process: give the other tests theirs back."""
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


def _settings(folder: Path) -> SpeculativeSettings:
    return SpeculativeSettings(
        _env_file=None,
        generator_model=str(folder),
        eagle_head=None,
        device=DEVICE,
        dtype="float32",
        chat_template="none",
        draft_method="casd",
        verify_mode="compiled",
        max_batch=2,
        kv_cache_tokens=64,
        tree_policy="fixed",
        tree_budget=3,
        repetition_window=0,
        torch_threads=1,
        cost_model_dir=None,
    )


async def _events(stream: Any) -> list[WorkerEvent]:
    return [event async for event in stream]


async def _serve_two_questions_at_once(service: WorkerService) -> tuple[dict[str, Any], int, list[str]]:
    """Load; then both questions queued while the decoding thread is held, so that its first step verifies both.
    Returns the health once ready, the compilations while answering, and the answers' texts."""
    await service.load()
    health = service.health()
    compiled_when_ready = compilations()
    gate = threading.Event()
    service.queue.run_blocking(gate.wait)
    streams = [
        await service.admit(GenerateBody(prompt=prompt, max_new_tokens=NEW_TOKENS)) for prompt in PROMPTS
    ]
    gate.set()
    answers = await asyncio.gather(*(_events(stream) for stream in streams))
    texts = [event.text for events in answers for event in events if isinstance(event, DoneEvent)]
    return health, compilations() - compiled_when_ready, texts


def _answers_per_step(service: WorkerService) -> float:
    lines = dict(
        line.rsplit(" ", 1) for line in service.metrics.render().decode().splitlines() if " " in line
    )
    return float(lines["worker_batch_size_sum"]) / float(lines["worker_batch_size_count"])


def test_a_compiled_worker_warms_up_so_that_its_first_batched_step_compiles_nothing(
    tiny_model: tuple[PreTrainedModel, Path], torch_threads: None
) -> None:
    model, folder = tiny_model
    service = WorkerService(_settings(folder))
    try:
        with compiling_from_nothing():
            health, compiled_while_serving, texts = asyncio.run(_serve_two_questions_at_once(service))
    finally:
        service.shutdown()

    assert health["status"] == "ready", health
    assert health["verify_mode"] == ("compiled graphs" if DEVICE.startswith("cuda") else "compiled static")
    warmed_up = health["warm_up"]
    assert warmed_up["verifier"]["mode"] == health["verify_mode"]
    assert warmed_up["verifier"]["answers"] == [1, 2]
    assert warmed_up["verifier"]["tree_rows"][:2] == [1, 2]
    assert 0 < warmed_up["verifier"]["seconds"] <= warmed_up["seconds"]
    assert _answers_per_step(service) > 1, "the two answers were verified together"
    assert compiled_while_serving == 0, "a step compiled after the worker said ready"
    tokenizer = AutoTokenizer.from_pretrained(folder)
    stops = model_stop_token_ids(model.config, model.generation_config, tokenizer)
    expected = [
        tokenizer.decode(
            greedy_reference(model, tokenizer(prompt)["input_ids"], NEW_TOKENS, stops),
            skip_special_tokens=True,
        )
        for prompt in PROMPTS
    ]
    assert texts == expected
