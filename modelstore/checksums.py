"""File checksums for the model cache, the model packages and the committed heads and adapters: one streamed
digest (hashlib reads the file in blocks, so a GB-sized weight file never sits in memory whole) and the
`SHA256SUMS` files that list a folder's files with theirs."""

import hashlib
import re
from collections.abc import Mapping
from pathlib import Path

SUMS_NAME = "SHA256SUMS"
_SUMS_LINE = re.compile(r"(?P<digest>[0-9a-fA-F]{64}) [ *](?P<name>[^/\\\x00]+)")


class SumsError(ValueError):
    """A SHA256SUMS file that is not `sha256sum` output naming files of its own folder."""


def file_digest(path: Path, algorithm: str = "sha256") -> bytes:
    """The raw digest of a file's bytes with a hashlib algorithm (`sha256`, or what a wheel's RECORD names)."""
    with path.open("rb") as stream:
        return hashlib.file_digest(stream, algorithm).digest()


def file_sha256(path: Path) -> str:
    """The hex sha256 of a file."""
    return file_digest(path).hex()


def read_sums(path: Path) -> dict[str, str]:
    """A SHA256SUMS file as file name → lower-case hex digest; each line `<64 hex digits>  <name in this folder>`."""
    listed: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = _SUMS_LINE.fullmatch(line)
        if match is None:
            raise SumsError(f"{path}, line {number}: not `<sha256>  <file name>`")
        listed[match["name"]] = match["digest"].lower()
    return listed


def first_mismatch(folder: Path, sums: Mapping[str, str]) -> Path | None:
    """The first file of `sums` that is missing from `folder` or whose sha256 differs; None when all match."""
    for name, expected in sums.items():
        path = folder / name
        if not path.is_file() or file_sha256(path) != expected:
            return path
    return None
