"""The trained heads committed with the code: intact, provisioned like the models, and lossless on their targets."""

import shutil
from pathlib import Path

import pytest

from modelstore.checksums import SUMS_NAME, file_sha256, read_sums
from modelstore.errors import ModelProvisioningError
from modelstore.provision import Status, model_status, provision
from modelstore.registry import REGISTRY
from modelstore.trained import HERE, TRAINED_HEADS, install_trained_head
from speculative.budget.cost_model import measure, model_identity
from speculative.build import budget_factory, load_target
from speculative.drafters.registry import drafter_factory
from speculative.eagle.checkpoint import load_head
from speculative.engine.generator import SpeculativeGenerator
from speculative.engine.request import GenerationRequest
from speculative.engine.stopping import model_stop_token_ids
from speculative.settings import SpeculativeSettings, TreePolicy
from tests.speculative.conftest import GEMMA3, SMOLLM2, ReferenceGreedy, cached_model
from tests.speculative.eagle_heads import eagle_settings

# The model each head drafts for: (target, its adapter; "none" = the plain model).
TARGETS = {
    "vraagbaak/eagle2-gemma-3-270m": (GEMMA3, "none"),
    "vraagbaak/eagle2-gemma-3-270m-lora": (GEMMA3, "vraagbaak/lora-gemma-3-270m"),
    "vraagbaak/eagle2-smollm2-135m-instruct": (SMOLLM2, "none"),
}
MAX_FILE_BYTES = 5_000_000


@pytest.mark.parametrize("name", sorted(TRAINED_HEADS))
def test_a_committed_head_is_small_and_matches_its_checksums(name: str) -> None:
    folder = HERE / TRAINED_HEADS[name]
    sums = read_sums(folder / SUMS_NAME)

    assert set(sums) == {"config.json", "model.safetensors", "training.json"}
    assert all(file_sha256(folder / file) == digest for file, digest in sums.items())
    assert (folder / "model.safetensors").stat().st_size < MAX_FILE_BYTES


@pytest.mark.parametrize("name", sorted(TRAINED_HEADS))
def test_provisioning_installs_a_head_into_the_model_cache_by_name(name: str, tmp_path: Path) -> None:
    (result,) = provision([REGISTRY[name]], tmp_path)

    assert result.converted and (result.folder / "model.safetensors").is_file()
    assert provision([REGISTRY[name]], tmp_path)[0].converted is False  # no-op when done


def test_a_retrained_committed_head_replaces_the_one_in_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = sorted(TRAINED_HEADS)[0]
    copy = tmp_path / "heads"
    shutil.copytree(HERE, copy, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    monkeypatch.setattr("modelstore.trained.HERE", copy)
    cache = tmp_path / "cache"
    assert provision([REGISTRY[name]], cache)[0].converted
    retrained = copy / TRAINED_HEADS[name]
    (retrained / "training.json").write_text('{"retrained": true}', encoding="utf-8")
    sums = read_sums(retrained / SUMS_NAME) | {"training.json": file_sha256(retrained / "training.json")}
    (retrained / SUMS_NAME).write_text("".join(f"{d}  {f}\n" for f, d in sums.items()), encoding="utf-8")

    assert model_status(REGISTRY[name], cache) is Status.OUTDATED
    (again,) = provision([REGISTRY[name]], cache)
    assert again.converted
    assert (again.folder / "training.json").read_text(encoding="utf-8") == '{"retrained": true}'


def test_a_damaged_committed_head_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = sorted(TRAINED_HEADS)[0]
    copy = tmp_path / "heads"
    shutil.copytree(HERE, copy, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    (copy / TRAINED_HEADS[name] / "model.safetensors").write_bytes(b"truncated")
    monkeypatch.setattr("modelstore.trained.HERE", copy)
    (tmp_path / "out").mkdir()

    with pytest.raises(ModelProvisioningError, match="does not match SHA256SUMS"):
        install_trained_head(name, tmp_path / "out")


@pytest.mark.slow
@pytest.mark.parametrize("policy", ["adaptive", "fixed"])
@pytest.mark.parametrize("name", sorted(TRAINED_HEADS))
def test_a_trained_head_loads_on_its_target_and_stays_lossless(
    name: str, policy: TreePolicy, tmp_path: Path, reference_greedy: ReferenceGreedy
) -> None:
    model, adapter = TARGETS[name]
    cache = Path(cached_model(model)).parent
    settings = SpeculativeSettings(
        _env_file=None, generator_model=model, generator_adapter=adapter, model_cache=cache
    )
    target, tokenizer = load_target(settings)
    head_folder = HERE / TRAINED_HEADS[name]
    head = load_head(str(head_folder), tmp_path, target)
    chunk = "Wrijf de handen 20 tot 30 seconden in met handalcohol. Was de handen met water en zeep bij zichtbaar vuil."
    rendered = f"[begin documenten]\n{chunk}\n[einde documenten]\n\n[begin vraag]\nHoe lang handen wrijven met handalcohol?\n[einde vraag]\n\n[begin antwoord]\n"
    prompt = tokenizer(rendered)["input_ids"]
    stops = model_stop_token_ids(target.config, target.model.generation_config, tokenizer)
    settings = eagle_settings(head_folder, tree_policy=policy, tree_budget=16)
    factory = drafter_factory("eagle2+casd", settings, target)
    # the adaptive policy over a quick measurement of 4 tree sizes (the worker's full one takes minutes here)
    costs = (
        measure(target, model_identity(target, model, "sdpa"), (1, 4, 16, 64), 128, 1)
        if policy == "adaptive"
        else None
    )
    budgets = budget_factory(settings, policy, costs)

    result = SpeculativeGenerator(target, tokenizer, factory, budgets, stops).generate(
        GenerationRequest(prompt, 24)
    )

    assert head.draft_token_ids is not None
    assert result.run().token_ids == reference_greedy(target.model, prompt, 24, stops)
