"""A worker without a cached cost model serves at once with the prior tree budget, measures the cost model while
it is idle, and then installs it: health, metrics and the cache show the swap, and the answers stay greedy's."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from speculative.worker.encoding import chat_turn_ids
from tests.speculative.worker.conftest import GreedyText, WorkerProcess, start_worker

QUESTION = "Name three colours of the rainbow."
VERIFY_ONE_ROW = 'worker_verify_forward_seconds{rows="1"}'


@pytest.fixture(scope="module")
def cost_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("no-cost-model-yet")


@pytest.fixture(scope="module")
def fresh_worker(
    tmp_path_factory: pytest.TempPathFactory, smollm2_folder: str, cost_model_dir: Path
) -> Iterator[WorkerProcess]:
    yield from start_worker(tmp_path_factory, smollm2_folder, COST_MODEL_DIR=str(cost_model_dir))


def test_the_worker_is_ready_and_answers_exactly_before_its_cost_model_is_measured_and_after(
    fresh_worker: WorkerProcess,
    cost_model_dir: Path,
    smollm2: tuple[PreTrainedModel, PreTrainedTokenizerBase],
    greedy_text: GreedyText,
) -> None:
    _, tokenizer = smollm2
    expected_ids, expected_text = greedy_text(chat_turn_ids(tokenizer, QUESTION), 12)

    ready = fresh_worker.ready_health
    on_the_prior = fresh_worker.generate(prompt=QUESTION, max_new_tokens=12)
    measured = fresh_worker.wait_for_cost_model()
    adapted = fresh_worker.generate(prompt=QUESTION, max_new_tokens=12)

    assert ready["status"] == "ready" and ready["tree_policy"] == "adaptive"
    assert ready["cost_model"] is None and ready["cost_model_measuring"] is True
    assert on_the_prior.streamed_text == adapted.streamed_text == expected_text
    assert on_the_prior.done["stats"]["new_tokens"] == len(expected_ids)
    assert measured["cost_model_measuring"] is False
    cost_model = measured["cost_model"]
    assert cost_model["identity"]["device"] == "cpu" and cost_model["identity"]["dtype"] == "float32"
    assert cost_model["rows"][0] == 1 and cost_model["relative"]["1"] == 1.0
    assert len(cost_model["seconds"]) == len(cost_model["rows"]) and min(cost_model["seconds"]) > 0
    assert fresh_worker.metric(VERIFY_ONE_ROW) == pytest.approx(cost_model["seconds"][0])
    assert len(list(cost_model_dir.glob("*.json"))) == 1, (
        "the measured cost model is cached for the next start"
    )
    assert "is in use for new answers" in fresh_worker.process.log_tail()


def test_a_worker_started_where_the_cost_model_is_cached_uses_it_from_the_start(
    fresh_worker: WorkerProcess,
    tmp_path_factory: pytest.TempPathFactory,
    smollm2_folder: str,
    cost_model_dir: Path,
) -> None:
    fresh_worker.wait_for_cost_model()

    for restarted in start_worker(tmp_path_factory, smollm2_folder, COST_MODEL_DIR=str(cost_model_dir)):
        assert restarted.ready_health["cost_model"] is not None
        assert restarted.ready_health["cost_model_measuring"] is False
