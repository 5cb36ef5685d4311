"""The EAGLE-1/2 head in the public checkpoint format: what is saved, what loads, and what is refused."""

import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from modelstore.cache import install_atomically
from speculative.eagle.checkpoint import HeadLoadError, load_head, save_head
from speculative.eagle.head import PositionOutOfRangeError
from speculative.engine.attention_mask import additive_mask
from speculative.engine.kv_cache import KVCache
from speculative.engine.target import TargetModel
from tests.speculative.conftest import tiny_llama
from tests.speculative.eagle_heads import HEAD_CONFIG_POSITIONS, random_head, saved_random_head

PUBLIC_WEIGHT_NAMES = {
    "fc.weight",
    "layers.0.self_attn.q_proj.weight",
    "layers.0.self_attn.k_proj.weight",
    "layers.0.self_attn.v_proj.weight",
    "layers.0.self_attn.o_proj.weight",
    "layers.0.mlp.gate_proj.weight",
    "layers.0.mlp.up_proj.weight",
    "layers.0.mlp.down_proj.weight",
    "layers.0.post_attention_layernorm.weight",
}


@pytest.fixture(scope="module")
def target() -> TargetModel:
    return TargetModel(tiny_llama(seed=0))


def _run_head(head: torch.nn.Module, target: TargetModel, rows: int = 7) -> torch.Tensor:
    """The head on `rows` causal rows of fixed random features and tokens from position 0."""
    generator = torch.Generator().manual_seed(3)
    features = torch.randn(rows, target.hidden_size, generator=generator)
    tokens = torch.randint(0, 5000, (rows,), generator=generator)
    mask = additive_mask(torch.ones(rows, rows, dtype=torch.bool).tril(), torch.float32)
    embeddings = target.model.get_input_embeddings()(tokens)
    with torch.inference_mode():
        return head(features, embeddings, torch.arange(rows), mask, KVCache())


def test_a_saved_head_has_the_public_files_config_and_weight_names(
    target: TargetModel, tmp_path: Path
) -> None:
    saved_random_head(tmp_path, target.config, seed=1)

    config = json.loads((tmp_path / "config.json").read_text())
    assert sorted(path.name for path in tmp_path.iterdir()) == ["config.json", "model.safetensors"]
    assert (config["num_hidden_layers"], config["bias"], config["max_position_embeddings"]) == (
        1,
        False,
        2048,
    )
    assert config["hidden_size"] == target.hidden_size and config["vocab_size"] == target.config.vocab_size
    assert set(load_file(tmp_path / "model.safetensors")) == PUBLIC_WEIGHT_NAMES


def test_a_saved_head_reloads_with_the_same_weights_and_outputs(target: TargetModel, tmp_path: Path) -> None:
    head = random_head(target.config, seed=1)
    save_head(head, tmp_path)

    loaded = load_head(str(tmp_path), tmp_path / "cache", target)

    assert loaded.state_dict().keys() == head.state_dict().keys()
    assert all(torch.equal(loaded.state_dict()[key], value) for key, value in head.state_dict().items())
    assert torch.equal(_run_head(loaded, target), _run_head(head, target))


def test_one_row_is_fc_then_attention_and_mlp_without_input_or_final_norm(target: TargetModel) -> None:
    """A lone row attends only to itself, so attention returns its own value: the layer can be written out."""
    head = random_head(target.config, seed=1)
    layer = head.layers[0]
    feature, token = torch.randn(1, target.hidden_size), torch.tensor([17])
    embedding = target.model.get_input_embeddings()(token)
    groups = target.config.num_attention_heads // target.config.num_key_value_heads

    with torch.inference_mode():
        hidden = head.fc(torch.cat([embedding, feature], dim=-1))
        values = layer.self_attn.v_proj(hidden).view(target.config.num_key_value_heads, -1)
        hidden = hidden + layer.self_attn.o_proj(values.repeat_interleave(groups, dim=0).view(1, -1))
        expected = hidden + layer.mlp(layer.post_attention_layernorm(hidden))
        mask = torch.zeros(1, 1, 1, 1)
        predicted = head(feature, embedding, torch.tensor([0]), mask, KVCache())

    torch.testing.assert_close(predicted, expected)


def _write_pickled_head(
    folder: Path, target: TargetModel, weights_have_bias: bool, config_bias: bool | None
) -> None:
    """A head as older EAGLE releases ship it: `pytorch_model.bin`, maybe with `embed_tokens`, maybe no flag."""
    head = random_head(target.config, seed=2, fc_bias=weights_have_bias)
    save_head(head, folder)
    (folder / "model.safetensors").unlink()
    weights = head.state_dict() | {
        "embed_tokens.weight": torch.zeros(target.config.vocab_size, target.hidden_size)
    }
    torch.save(weights, folder / "pytorch_model.bin")
    config = json.loads((folder / "config.json").read_text())
    del config["bias"]
    if config_bias is not None:
        config["bias"] = config_bias
    (folder / "config.json").write_text(json.dumps(config))


def test_a_config_without_the_bias_flag_means_an_fc_bias(target: TargetModel, tmp_path: Path) -> None:
    _write_pickled_head(tmp_path, target, weights_have_bias=True, config_bias=None)

    head = load_head(str(tmp_path), tmp_path / "cache", target)

    assert head.fc_bias and head.fc.bias is not None
    assert torch.equal(head.fc.bias, torch.load(tmp_path / "pytorch_model.bin")["fc.bias"])


def test_an_fc_bias_flag_contradicting_the_weights_is_refused_by_name(
    target: TargetModel, tmp_path: Path
) -> None:
    _write_pickled_head(tmp_path / "extra", target, weights_have_bias=True, config_bias=False)
    _write_pickled_head(tmp_path / "missing", target, weights_have_bias=False, config_bias=None)

    with pytest.raises(HeadLoadError, match=r"unexpected \['fc.bias'\]"):
        load_head(str(tmp_path / "extra"), tmp_path / "cache", target)
    with pytest.raises(HeadLoadError, match=r"missing \['fc.bias'\]"):
        load_head(str(tmp_path / "missing"), tmp_path / "cache", target)


def test_embed_tokens_in_the_checkpoint_is_ignored(target: TargetModel, tmp_path: Path) -> None:
    _write_pickled_head(tmp_path, target, weights_have_bias=False, config_bias=False)

    head = load_head(str(tmp_path), tmp_path / "cache", target)

    assert "embed_tokens.weight" not in head.state_dict()


@pytest.mark.parametrize(
    ("overrides", "head_text", "target_text"),
    [
        (
            {"hidden_size": 32, "intermediate_size": 64, "num_attention_heads": 2, "num_key_value_heads": 1},
            "head hidden size 32 and vocabulary 49152",
            "target hidden size 64 and vocabulary 49152",
        ),
        (
            {"vocab_size": 32_000},
            "head hidden size 64 and vocabulary 32000",
            "target hidden size 64 and vocabulary 49152",
        ),
    ],
    ids=["hidden-size", "vocabulary"],
)
def test_a_head_for_another_target_is_refused_naming_both_shapes(
    target: TargetModel, tmp_path: Path, overrides: dict[str, int], head_text: str, target_text: str
) -> None:
    save_head(random_head(target.config, seed=1, **overrides), tmp_path)

    with pytest.raises(HeadLoadError, match="does not fit the target") as error:
        load_head(str(tmp_path), tmp_path / "cache", target)

    assert head_text in str(error.value) and target_text in str(error.value)


def test_weights_that_contradict_the_config_are_refused_by_name(target: TargetModel, tmp_path: Path) -> None:
    save_head(random_head(target.config, seed=1), tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps(config | {"intermediate_size": 96}))

    with pytest.raises(
        HeadLoadError, match=r"layers.0.mlp.gate_proj.weight: checkpoint \(128, 64\), config \(96, 64\)"
    ):
        load_head(str(tmp_path), tmp_path / "cache", target)


def test_a_config_with_several_layers_is_not_an_eagle_1_2_head(target: TargetModel, tmp_path: Path) -> None:
    save_head(random_head(target.config, seed=1), tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps(config | {"num_hidden_layers": 2}))

    with pytest.raises(HeadLoadError, match="exactly one layer"):
        load_head(str(tmp_path), tmp_path / "cache", target)


@pytest.mark.parametrize(
    ("missing", "message"),
    [("config.json", "no config.json"), ("model.safetensors", "no model.safetensors or pytorch_model.bin")],
)
def test_a_folder_missing_a_file_is_a_clear_error(
    target: TargetModel, tmp_path: Path, missing: str, message: str
) -> None:
    saved_random_head(tmp_path, target.config, seed=1)
    (tmp_path / missing).unlink()

    with pytest.raises(HeadLoadError, match=message):
        load_head(str(tmp_path), tmp_path / "cache", target)


def test_a_hub_id_that_is_not_available_offline_fails_clearly(target: TargetModel, tmp_path: Path) -> None:
    with pytest.raises(
        HeadLoadError,
        match="'yuhuili/EAGLE-LLaMA3-Instruct-8B' is neither a local folder nor in the model cache",
    ):
        load_head("yuhuili/EAGLE-LLaMA3-Instruct-8B", tmp_path / "cache", target)


def test_a_head_in_the_model_cache_loads_by_its_hub_name(target: TargetModel, tmp_path: Path) -> None:
    head = random_head(target.config, seed=4)
    with install_atomically("someone/eagle-tiny", tmp_path, sources={}, converter_version=1) as staging:
        save_head(head, staging.model)

    loaded = load_head("someone/eagle-tiny", tmp_path, target)

    assert torch.equal(loaded.fc.weight, head.fc.weight)


def test_the_head_is_placed_on_the_targets_device_and_dtype(tmp_path: Path) -> None:
    target = TargetModel(tiny_llama(seed=0).to(torch.bfloat16))
    saved_random_head(tmp_path, target.config, seed=1)

    head = load_head(str(tmp_path), tmp_path / "cache", target)

    assert {parameter.dtype for parameter in head.parameters()} == {torch.bfloat16}
    assert {parameter.device for parameter in head.parameters()} == {target.device}
    assert head.rotary.inv_freq.dtype == torch.float32  # rotary angles keep full precision


def test_positions_are_sized_by_the_target_not_by_the_heads_config(tmp_path: Path) -> None:
    model = tiny_llama(seed=0)
    model.config.max_position_embeddings = 4096  # RoPE has no table: this only widens the context
    target = TargetModel(model)
    saved_random_head(tmp_path, target.config, seed=1)

    head = load_head(str(tmp_path), tmp_path / "cache", target)

    assert head.config.max_position_embeddings == HEAD_CONFIG_POSITIONS
    assert head.max_positions == target.context_length == 4096


@pytest.mark.parametrize("highest_position", [None, 2048])
def test_a_position_past_the_context_is_refused(
    target: TargetModel, tmp_path: Path, highest_position: int | None
) -> None:
    """Whether the head reads the highest position from the positions (None) or the caller gives it."""
    head = load_head(str(saved_random_head(tmp_path, target.config, seed=1)), tmp_path / "cache", target)
    features = torch.zeros(1, target.hidden_size)
    mask = torch.zeros(1, 1, 1, 1)

    with pytest.raises(PositionOutOfRangeError, match="position 2048 is past the 2048 positions"):
        head(features, features, torch.tensor([2048]), mask, KVCache(), highest_position=highest_position)
