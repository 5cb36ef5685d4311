"""LoRA adaptation (`python -m research.adapt`) on a tiny random Llama: the example file's checks, the loss on
the target rows only, resuming, the adapter folder written whole with its training record, and head features taken
from the adapted target. Serving the adapter is tests/speculative/adapt."""

from pathlib import Path

import pytest
import torch
from transformers import PreTrainedTokenizerBase

from modelstore.checksums import file_sha256
from research.adapt.examples import ExampleError, TokenizedExample, read_examples, tokenize
from research.adapt.train import AdapterTrainer, Hyperparameters, add_lora, target_loss
from research.train_head.cli import main as train_head_main
from research.train_head.shards import ShardStoreError, read_sequences
from speculative.adapt.artifact import verified_training
from tests.research.adapt.tiny_adapter import rows, save_tiny_base, train_adapter, write_rows
from tests.speculative.conftest import tiny_llama

NO_DROPOUT = Hyperparameters(dropout=0.0, rank=4, alpha=8, warmup_steps=1, eval_examples=2, top_layers=0)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"prompt": "p", "target": "t"}, "missing field 'id'"),
        ({"id": "a", "target": "t"}, "missing field 'prompt'"),
        ({"id": "a", "prompt": "p", "target": "  "}, "field 'target' is empty"),
        ({"id": "a", "prompt": "p", "target": "t", "split": 3}, "field 'split' must be a string"),
    ],
)
def test_a_bad_row_names_its_line_and_field(tmp_path: Path, row: dict[str, object], message: str) -> None:
    path = write_rows(tmp_path / "data.jsonl", [{"id": "ok", "prompt": "p", "target": "t"}, row])
    with pytest.raises(ExampleError, match=f"data.jsonl:2: {message}"):
        read_examples(path)


def test_duplicate_ids_and_files_without_training_rows_are_refused(tmp_path: Path) -> None:
    duplicate = write_rows(tmp_path / "d.jsonl", [{"id": "a", "prompt": "p", "target": "t"}] * 2)
    with pytest.raises(ExampleError, match=r"d.jsonl:2: duplicate id 'a' \(first on line 1\)"):
        read_examples(duplicate)
    only_val = write_rows(tmp_path / "v.jsonl", [{"id": "a", "prompt": "p", "target": "t", "split": "val"}])
    with pytest.raises(ExampleError, match="no training rows"):
        read_examples(only_val)
    (tmp_path / "broken.jsonl").write_text("{not json\n", encoding="utf-8")
    with pytest.raises(ExampleError, match=r"broken.jsonl:1: not JSON"):
        read_examples(tmp_path / "broken.jsonl")


def test_test_rows_are_never_read_and_too_long_examples_are_refused(
    tmp_path: Path, smollm2_tokenizer: PreTrainedTokenizerBase
) -> None:
    examples = read_examples(write_rows(tmp_path / "data.jsonl", rows()))
    assert "t0" not in {example.id for example in examples}
    by_split = tokenize(examples, smollm2_tokenizer, max_length=64)
    assert [len(by_split["train"]), len(by_split["val"])] == [4, 2]
    with pytest.raises(ExampleError, match=r"'q0': prompt and target are \d+ tokens, over the context limit"):
        tokenize(examples, smollm2_tokenizer, max_length=8)


def test_the_loss_covers_exactly_the_target_tokens() -> None:
    """Slicing the hidden states before the lm_head gives the loss of the full logits at the target rows."""
    model = tiny_llama(seed=1)
    example = TokenizedExample("x", prompt_ids=(1, 50, 60, 70), target_ids=(80, 90, 100))
    with torch.no_grad():
        full = model(torch.tensor([example.prompt_ids + example.target_ids])).logits[0]
        expected = torch.nn.functional.cross_entropy(full[3:6], torch.tensor(example.target_ids))
        assert torch.allclose(target_loss(model, example, torch.device("cpu")), expected, atol=1e-5)
        shifted = torch.nn.functional.cross_entropy(full[4:7], torch.tensor(example.target_ids))
        assert not torch.allclose(shifted, expected, atol=1e-3)


def test_only_the_lora_weights_of_the_top_layers_train() -> None:
    peft_model = add_lora(tiny_llama(seed=2), Hyperparameters(rank=4, top_layers=1))
    trainable = [name for name, parameter in peft_model.named_parameters() if parameter.requires_grad]
    assert trainable and all("lora_" in name and ".layers.1." in name for name in trainable)
    assert {name.split(".layers.1.")[1].split(".")[1] for name in trainable} == {
        "q_proj",
        "k_proj",
        "v_proj",
        "o_proj",
        "gate_proj",
        "up_proj",
        "down_proj",
    }


def examples_for_training(count: int = 6) -> list[TokenizedExample]:
    return [TokenizedExample(f"e{i}", (1, 10 + i, 20 + i, 30), (40 + i, 50, 60)) for i in range(count)]


def lora_state(trainer: AdapterTrainer) -> dict[str, torch.Tensor]:
    return {k: v.clone() for k, v in trainer.peft_model.state_dict().items() if "lora_" in k}


def test_training_lowers_the_loss_and_a_resumed_run_ends_where_an_uninterrupted_one_does(
    tmp_path: Path,
) -> None:
    data = examples_for_training()
    hyper = Hyperparameters(
        **{**NO_DROPOUT.__dict__, "epochs": 3, "checkpoint_every": 100, "eval_every": 100}
    )

    def trainer(state: Path) -> AdapterTrainer:
        return AdapterTrainer(add_lora(tiny_llama(seed=3), hyper), data, data[:2], hyper, state, {"run": 1})

    straight = trainer(tmp_path / "straight.pt")
    before = straight.held_out_loss()
    assert straight.run(None, lambda line: None) == "done"
    assert straight.held_out_loss() < before  # type: ignore[operator]

    first = trainer(tmp_path / "resumed.pt")
    first.total_steps = 7  # stop part-way (as --max-minutes would), keeping the schedule of the full run
    first.run(None, lambda line: None)
    resumed = trainer(tmp_path / "resumed.pt")
    assert resumed.resume() and resumed.progress.step == 7
    resumed.run(None, lambda line: None)
    assert resumed.progress.step == straight.progress.step == 18
    for name, weight in lora_state(straight).items():
        assert torch.allclose(lora_state(resumed)[name], weight, atol=1e-6), name


def test_a_checkpoint_of_another_run_is_not_resumed(tmp_path: Path) -> None:
    data = examples_for_training(2)
    state = tmp_path / "state.pt"
    AdapterTrainer(add_lora(tiny_llama(seed=4), NO_DROPOUT), data, [], NO_DROPOUT, state, {"data": "a"}).run(
        None, lambda line: None
    )
    other = AdapterTrainer(
        add_lora(tiny_llama(seed=4), NO_DROPOUT), data, [], NO_DROPOUT, state, {"data": "b"}
    )
    with pytest.raises(ValueError, match="belongs to another run"):
        other.resume()


@pytest.fixture(scope="module")
def tiny_base(tmp_path_factory: pytest.TempPathFactory, smollm2_tokenizer: PreTrainedTokenizerBase) -> Path:
    return save_tiny_base(tmp_path_factory.mktemp("tiny-base"), smollm2_tokenizer)


@pytest.fixture(scope="module")
def trained_adapter(tiny_base: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return train_adapter(tiny_base, tmp_path_factory.mktemp("adapt"))


def test_the_command_writes_a_checked_adapter_with_its_training_record(
    trained_adapter: Path, tiny_base: Path
) -> None:
    assert sorted(path.name for path in trained_adapter.iterdir()) == [
        "SHA256SUMS",
        "adapter_config.json",
        "adapter_model.safetensors",
        "training.json",
    ]
    training = verified_training(trained_adapter, str(tiny_base), tiny_base)
    assert training["command"].startswith("python -m research.adapt --data ")
    assert training["steps"] == 8 and training["stopped"] == "done"
    assert training["data"]["train_examples"] == 4 and training["data"]["val_examples"] == 2
    assert [entry["step"] for entry in training["history"]] == [0, 2, 4, 6, 8]
    assert all("val_loss" in entry and "train_loss" in entry for entry in training["history"][1:])
    assert training["data"]["sha256"] == file_sha256(trained_adapter.parent / "data.jsonl")


def test_head_features_are_taken_from_the_adapted_target_and_kept_apart_from_the_plain_ones(
    trained_adapter: Path, tiny_base: Path, tmp_path: Path
) -> None:
    text = tmp_path / "text.txt"
    text.write_text("Wrijf de handen 20 tot 30 seconden in met handalcohol. " * 4, encoding="utf-8")

    def extract(out: Path, adapter: str) -> list[torch.Tensor]:
        arguments = ["extract", "--model", str(tiny_base), "--adapter", adapter, "--documents", str(text)]
        assert train_head_main([*arguments, "--out", str(out), "--max-length", "32", "--threads", "1"]) == 0
        return [sequence.features for sequence in read_sequences(out)]

    adapted = extract(tmp_path / "adapted", str(trained_adapter))
    plain = extract(tmp_path / "plain", "none")

    assert not torch.allclose(adapted[0].float(), plain[0].float(), atol=1e-3)
    with pytest.raises(ShardStoreError, match=r"holds features of target .* \+ "):
        extract(tmp_path / "adapted", "none")
    with pytest.raises(ShardStoreError, match=r"holds features of target .* \+ .*; this head is for"):
        train_head_main(["train", "--model", str(tiny_base), "--adapter", "none", "--features",
                         str(tmp_path / "adapted"), "--out", str(tmp_path / "head")])  # fmt: skip
