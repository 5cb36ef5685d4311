"""LoRA adaptation (`python -m research.adapt`) on a tiny random Llama: the example file's checks, the loss on
the target rows only, resuming, the adapter folder written whole, and serving refusing an adapter that does not
belong to its base model."""

import errno
import json
from pathlib import Path

import pytest
import torch
from peft import PeftModel
from transformers import PreTrainedTokenizerBase

from modelstore.checksums import file_sha256
from modelstore.provision import provision
from modelstore.registry import REGISTRY
from modelstore.trained import HERE, TRAINED_ADAPTERS
from research.adapt.cli import main as adapt_main
from research.adapt.examples import ExampleError, TokenizedExample, read_examples, tokenize
from research.adapt.train import AdapterTrainer, Hyperparameters, add_lora, target_loss
from research.train_head.cli import main as train_head_main
from research.train_head.shards import ShardStoreError, read_sequences
from speculative.adapt.artifact import AdapterError, save_adapter, verified_training
from speculative.adapt.merge import adapter_folder, exit_unless_adapter_fits, merge_adapter
from speculative.build import build_generator, load_target
from speculative.engine.request import GenerationRequest
from speculative.engine.target import TargetModel
from speculative.settings import SpeculativeSettings
from tests.speculative.conftest import GEMMA3, cached_model, greedy_reference, tiny_llama

ADAPTER_NAME = "vraagbaak/lora-gemma-3-270m"
COMMITTED_ADAPTER = HERE / TRAINED_ADAPTERS[ADAPTER_NAME]
RAG_PROMPTS = json.loads(
    (Path(__file__).parents[1] / "data" / "rag_prompts.json").read_text(encoding="utf-8")
)

NO_DROPOUT = Hyperparameters(dropout=0.0, rank=4, alpha=8, warmup_steps=1, eval_examples=2, top_layers=0)


def write_rows(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def rows(count: int = 6) -> list[dict[str, object]]:
    """Train and val rows, and one test row that training must never read."""
    made: list[dict[str, object]] = [
        {
            "id": f"q{i}",
            "prompt": f"Vraag {i}: hoe lang wrijven?\n",
            "target": f"{10 * i} seconden.",
            "split": "val" if i % 3 == 2 else "train",
        }
        for i in range(count)
    ]
    return [*made, {"id": "t0", "prompt": "Testvraag\n", "target": "nooit getraind", "split": "test"}]


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
    """A tiny random Llama saved as a model folder with the SmolLM2 tokenizer (what `--model` takes)."""
    folder = tmp_path_factory.mktemp("tiny-base")
    tiny_llama(seed=5).save_pretrained(folder)
    smollm2_tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def trained_adapter(tiny_base: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("adapt")
    data = write_rows(work / "data.jsonl", rows())
    out = work / "adapter"
    assert (
        adapt_main(
            [
                "--data",
                str(data),
                "--out",
                str(out),
                "--model",
                str(tiny_base),
                "--rank",
                "4",
                "--epochs",
                "2",
                "--eval-every",
                "2",
                "--dtype",
                "float32",
                "--device",
                "cpu",
                "--save-dtype",
                "float32",
            ]
        )
        == 0
    )
    return out


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


def test_the_merged_model_computes_what_the_adapter_does(trained_adapter: Path, tiny_base: Path) -> None:
    ids = torch.tensor([[1, 200, 300, 400, 500]])
    base = tiny_llama(seed=5)
    with torch.no_grad():
        plain = base(ids).logits
        adapted = PeftModel.from_pretrained(tiny_llama(seed=5), str(trained_adapter))(ids).logits
        merged_model = merge_adapter(base, trained_adapter, str(tiny_base), tiny_base)
        merged = merged_model(ids).logits
    assert not torch.allclose(adapted, plain, atol=1e-4)
    assert torch.allclose(merged, adapted, atol=1e-4)
    assert not any("lora_" in name for name, _ in merged_model.named_parameters())


def copy_adapter(source: Path, target: Path) -> Path:
    target.mkdir()
    for path in source.iterdir():
        (target / path.name).write_bytes(path.read_bytes())
    return target


def test_a_changed_file_or_another_base_model_stops_the_worker_at_start(
    trained_adapter: Path, tiny_base: Path, tmp_path: Path
) -> None:
    changed = copy_adapter(trained_adapter, tmp_path / "changed")
    (changed / "adapter_model.safetensors").write_bytes(b"not the trained weights")
    with pytest.raises(
        SystemExit, match=r"GENERATOR_ADAPTER: .*adapter_model.safetensors is missing or does not"
    ):
        exit_unless_adapter_fits(str(changed), str(tiny_base), tmp_path)
    with pytest.raises(
        SystemExit, match=r"was trained on '.*tiny-base.*', not on GENERATOR_MODEL='other/model'"
    ):
        exit_unless_adapter_fits(str(trained_adapter), "other/model", tmp_path)
    other_weights = copy_adapter(tiny_base, tmp_path / "tiny-base")
    tiny_llama(seed=6).save_pretrained(other_weights)
    record = json.loads((trained_adapter / "training.json").read_text(encoding="utf-8"))
    with pytest.raises(AdapterError, match="was trained on other weights"):
        verified_training(trained_adapter, record["base_model"]["name"], other_weights)
    with pytest.raises(AdapterError, match=r"GENERATOR_ADAPTER='.*absent' cannot be loaded"):
        adapter_folder(str(tmp_path / "absent"), tmp_path)
    with pytest.raises(
        AdapterError, match=r"'vraagbaak/not-provisioned' .*(is neither|is not in the model cache)"
    ):
        adapter_folder("vraagbaak/not-provisioned", tmp_path)
    exit_unless_adapter_fits(str(trained_adapter), str(tiny_base), tmp_path)


def test_a_full_disk_while_saving_keeps_the_previous_adapter(trained_adapter: Path, tmp_path: Path) -> None:
    out = copy_adapter(trained_adapter, tmp_path / "adapter")
    before = {path.name: path.read_bytes() for path in out.iterdir()}

    def fill_the_disk(folder: Path) -> None:
        (folder / "adapter_model.safetensors").write_bytes(b"partial")
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(
        AdapterError, match=r"the disk is full while saving the adapter .* previous adapter there is intact"
    ):
        save_adapter(out, fill_the_disk, {"steps": 1})
    assert {path.name: path.read_bytes() for path in out.iterdir()} == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["adapter"]


def test_make_models_installs_the_committed_adapter_which_the_worker_accepts_by_name(tmp_path: Path) -> None:
    base = Path(cached_model(GEMMA3)).resolve()  # MODEL_CACHE may be relative (make exports `.models`)
    (tmp_path / base.name).symlink_to(base)
    (result,) = provision([REGISTRY[ADAPTER_NAME]], tmp_path)
    assert result.converted and (result.folder / "SHA256SUMS").is_file()
    training = verified_training(adapter_folder(ADAPTER_NAME, tmp_path), GEMMA3, base)
    assert training["base_model"]["name"] == GEMMA3
    assert (COMMITTED_ADAPTER / "adapter_model.safetensors").stat().st_size < 5_000_000
    exit_unless_adapter_fits(ADAPTER_NAME, GEMMA3, tmp_path)


@pytest.mark.slow
def test_casd_on_the_merged_committed_adapter_equals_plain_greedy() -> None:
    """The served model (Gemma 3 270M with the committed adapter merged, as the worker loads it) decodes with
    CASD exactly as plain greedy `generate()` does on it, in fp32, past the 512-token sliding window."""
    base_folder = Path(cached_model(GEMMA3))
    settings = SpeculativeSettings(
        _env_file=None,
        generator_adapter=str(COMMITTED_ADAPTER),
        model_cache=base_folder.parent,
        tree_policy="fixed",
    )
    target, tokenizer = load_target(settings)
    plain = TargetModel.load(base_folder, "cpu", "float32")
    name = "model.layers.17.self_attn.q_proj.weight"
    assert not torch.equal(target.model.state_dict()[name], plain.model.state_dict()[name])
    prompt_ids = tokenizer(RAG_PROMPTS["long"]).input_ids
    generator = build_generator(settings, target, tokenizer, "casd")

    result = generator.generate(GenerationRequest(prompt_ids, 40)).run()

    assert tuple(result.token_ids) == tuple(greedy_reference(target.model, prompt_ids, 40))


def test_the_default_generator_is_served_with_its_committed_adapter_unless_told_otherwise() -> None:
    def adapter(**values: str) -> str | None:
        return SpeculativeSettings(_env_file=None, **values).generator_adapter  # type: ignore[arg-type]

    assert adapter() == ADAPTER_NAME
    assert adapter(generator_adapter="none") is None and adapter(generator_adapter="") is None
    assert adapter(generator_model="meta-llama/Meta-Llama-3-8B-Instruct") is None
    assert adapter(generator_model="x/y", generator_adapter="/srv/adapter") == "/srv/adapter"


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
