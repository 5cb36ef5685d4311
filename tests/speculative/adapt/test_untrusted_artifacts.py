"""Files a training run or `make models` reads back are not trusted blindly: an adapter must list every weight file
in its SHA256SUMS (an unlisted or unsummed weight file is refused, a malformed sums line is the adapter's error),
and a resumed run's state file is read as tensors and numbers only, never as code."""

import hashlib
import json
from pathlib import Path

import pytest
import torch

from research.adapt.train import AdapterTrainer, add_lora
from research.training_state import CheckpointError, load_training_state
from speculative.adapt.artifact import AdapterError, checked_record
from tests.speculative.adapt.test_adapt import NO_DROPOUT, examples_for_training
from tests.speculative.conftest import tiny_llama

BASE = "vraagbaak/base"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def adapter(folder: Path, *, listed: tuple[str, ...] | None = None) -> Path:
    """An adapter folder as `save_adapter` writes it (the weights are not loaded by the checks)."""
    folder.mkdir()
    (folder / "adapter_model.safetensors").write_bytes(b"weights")
    (folder / "adapter_config.json").write_text("{}", encoding="utf-8")
    (folder / "training.json").write_text(json.dumps({"base_model": {"name": BASE}}), encoding="utf-8")
    names = (
        listed
        if listed is not None
        else ("adapter_model.safetensors", "adapter_config.json", "training.json")
    )
    sums = "".join(f"{_digest(folder / name)}  {name}\n" for name in names)
    (folder / "SHA256SUMS").write_text(sums, encoding="utf-8")
    return folder


def test_a_complete_adapter_passes(tmp_path: Path) -> None:
    assert checked_record(adapter(tmp_path / "a"), BASE)["base_model"]["name"] == BASE


def test_sums_that_leave_out_the_weights_are_refused(tmp_path: Path) -> None:
    folder = adapter(tmp_path / "a", listed=("adapter_config.json", "training.json"))
    (folder / "adapter_model.safetensors").write_bytes(b"planted weights")

    with pytest.raises(AdapterError, match=r"adapter_model\.safetensors is not listed in SHA256SUMS"):
        checked_record(folder, BASE)


def test_a_weight_file_the_sums_do_not_list_is_refused(tmp_path: Path) -> None:
    folder = adapter(tmp_path / "a")
    (folder / "adapter_model.bin").write_bytes(b"a pickle peft would prefer")

    with pytest.raises(AdapterError, match=r"adapter_model\.bin is not listed in SHA256SUMS"):
        checked_record(folder, BASE)


@pytest.mark.parametrize("line", ["no-digest-here", "abc  ../outside.json", "\x00"])
def test_a_malformed_sums_line_is_the_adapters_error(tmp_path: Path, line: str) -> None:
    folder = adapter(tmp_path / "a")
    with (folder / "SHA256SUMS").open("a", encoding="utf-8") as sums:
        sums.write(line + "\n")

    with pytest.raises(AdapterError, match="SHA256SUMS"):
        checked_record(folder, BASE)


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
