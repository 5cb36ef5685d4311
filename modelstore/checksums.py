"""File checksums for the model cache and the model packages: one streamed digest (hashlib reads the file in
blocks, so a GB-sized weight file never sits in memory whole)."""

import hashlib
from pathlib import Path


def file_digest(path: Path, algorithm: str = "sha256") -> bytes:
    """The raw digest of a file's bytes with a hashlib algorithm (`sha256`, or what a wheel's RECORD names)."""
    with path.open("rb") as stream:
        return hashlib.file_digest(stream, algorithm).digest()


def file_sha256(path: Path) -> str:
    """The hex sha256 of a file."""
    return file_digest(path).hex()
