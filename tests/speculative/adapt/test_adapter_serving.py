"""The generator's LoRA adapter as the worker serves it: merged into the target it computes what the adapter does;
an adapter whose files changed or that belongs to another base model stops the worker at start; a full disk
while saving keeps the previous one; the committed adapter installs with `make models` and is the default
generator's, and CASD on the merged model decodes exactly as greedy does."""

import errno
import json
from pathlib import Path

import pytest
import torch
from peft import PeftModel
from transformers import PreTrainedTokenizerBase

from modelstore.provision import provision
from modelstore.registry import REGISTRY
from modelstore.trained import HERE, TRAINED_ADAPTERS
from speculative.adapt.artifact import AdapterError, save_adapter, verified_training
from speculative.adapt.merge import adapter_folder, exit_unless_adapter_fits, merge_adapter
from speculative.build import build_generator, load_target
from speculative.engine.request import GenerationRequest
from speculative.engine.target import TargetModel
from speculative.settings import SpeculativeSettings
from tests.research.adapt.tiny_adapter import TINY_BASE_SEED, save_tiny_base, train_adapter
from tests.speculative.conftest import GEMMA3, cached_model, greedy_reference, tiny_llama

ADAPTER_NAME = "vraagbaak/lora-gemma-3-270m"
COMMITTED_ADAPTER = HERE / TRAINED_ADAPTERS[ADAPTER_NAME]
RAG_PROMPTS = json.loads(
    (Path(__file__).parents[1] / "data" / "rag_prompts.json").read_text(encoding="utf-8")
)


@pytest.fixture(scope="module")
def tiny_base(tmp_path_factory: pytest.TempPathFactory, smollm2_tokenizer: PreTrainedTokenizerBase) -> Path:
    return save_tiny_base(tmp_path_factory.mktemp("tiny-base"), smollm2_tokenizer)


@pytest.fixture(scope="module")
def trained_adapter(tiny_base: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return train_adapter(tiny_base, tmp_path_factory.mktemp("adapt"))


def test_the_merged_model_computes_what_the_adapter_does(trained_adapter: Path, tiny_base: Path) -> None:
    ids = torch.tensor([[1, 200, 300, 400, 500]])
    base = tiny_llama(seed=TINY_BASE_SEED)
    with torch.no_grad():
        plain = base(ids).logits
        adapted = PeftModel.from_pretrained(tiny_llama(seed=TINY_BASE_SEED), str(trained_adapter))(ids).logits
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
