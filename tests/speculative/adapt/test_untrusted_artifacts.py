"""An adapter the worker or `make models` reads back is not trusted blindly: it must list every weight file in its
SHA256SUMS (an unlisted or unsummed weight file is refused, a malformed sums line is the adapter's error)."""

import hashlib
import json
from pathlib import Path

import pytest

from speculative.adapt.artifact import AdapterError, checked_record

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
