"""A resumed training run's state file is read as tensors and numbers only, never as code: a state file planted in
an output folder cannot run anything when a run resumes (`research.training_state`)."""

from pathlib import Path

import pytest
import torch

from research.adapt.train import AdapterTrainer, add_lora
from research.training_state import CheckpointError, load_training_state
from tests.research.adapt.test_adapt import NO_DROPOUT, examples_for_training
from tests.speculative.conftest import tiny_llama


class _RunsCode:
    """Pickled, it calls `Path.touch(marker)` when unpickled: what a planted state file could do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (Path.touch, (self.marker,))


def test_a_planted_state_file_runs_no_code_when_a_run_resumes(tmp_path: Path) -> None:

    marker = tmp_path / "ran"
    state = tmp_path / "adapter.state.pt"
    torch.save({"run_key": {"run": 1}, "payload": _RunsCode(marker)}, state)
    data = examples_for_training(2)
    trainer = AdapterTrainer(
        add_lora(tiny_llama(seed=3), NO_DROPOUT), data, [], NO_DROPOUT, state, {"run": 1}
    )

    with pytest.raises(CheckpointError, match=r"adapter\.state\.pt .* not a training state"):
        trainer.resume()
    with pytest.raises(CheckpointError):
        load_training_state(state, "cpu")
    assert not marker.exists()
