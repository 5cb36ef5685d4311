"""A reduced draft vocabulary (EAGLE-3's `d2t`): saved beside the weights, drafting only those tokens, lossless.

The head ranks only the draft vocabulary's rows of the target's lm_head; verification still runs over the whole
vocabulary, so the output must equal greedy `generate()` token for token whatever the draft vocabulary holds.
"""

import json
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

from speculative.budget.fixed import FixedTreeBudget
from speculative.drafters.registry import drafter_factory
from speculative.eagle.checkpoint import HeadLoadError, load_head, save_head
from speculative.eagle.head import EagleHead
from speculative.engine.drafter import DrafterFactory
from speculative.engine.generator import GenerationResult, SpeculativeGenerator
from speculative.engine.request import GenerationRequest
from speculative.engine.stopping import model_stop_token_ids
from speculative.engine.target import TargetModel
from tests.speculative.conftest import TINY_VOCAB, ReferenceGreedy, tiny_gemma3, tiny_llama
from tests.speculative.eagle_heads import bigram_llama, eagle_settings, random_head, saved_exact_head

MAX_NEW_TOKENS = 32
DRAFT_VOCAB = 512


def draft_ids(count: int, seed: int, always: Sequence[int] = ()) -> torch.Tensor:
    """`count` distinct target ids in a random order, starting with `always`."""
    generator = torch.Generator().manual_seed(seed)
    rest = [
        token for token in torch.randperm(TINY_VOCAB, generator=generator).tolist() if token not in always
    ]
    return torch.tensor([*always, *rest][:count])


def reduced_head(target: TargetModel, ids: torch.Tensor, seed: int = 5) -> EagleHead:
    head = random_head(target.config, seed, draft_vocab_size=len(ids))
    head.set_draft_vocabulary(ids)
    return head


def factory(target: TargetModel, folder: Path, method: str = "eagle2", **settings: object) -> DrafterFactory:
    return drafter_factory(method, eagle_settings(folder, **settings), target)


def generate(target: TargetModel, drafters: DrafterFactory, prompt: Sequence[int]) -> GenerationResult:
    stops = model_stop_token_ids(target.config, target.model.generation_config, None)
    generator = SpeculativeGenerator(target, None, drafters, partial(FixedTreeBudget, 16), stops)
    return generator.generate(GenerationRequest(prompt, MAX_NEW_TOKENS)).run()


def prompts(seed: int) -> list[list[int]]:
    generator = torch.Generator().manual_seed(seed)
    block = torch.randint(3, 5000, (30,), generator=generator).tolist()
    return [torch.randint(3, 5000, (length,), generator=generator).tolist() for length in (5, 60)] + [
        block * 3
    ]


@pytest.fixture(scope="module")
def target() -> TargetModel:
    return TargetModel(tiny_llama(seed=0))


def test_the_draft_vocabulary_is_saved_beside_the_weights_as_eagle3_stores_it(
    target: TargetModel, tmp_path: Path
) -> None:
    ids = draft_ids(DRAFT_VOCAB, seed=1)
    save_head(reduced_head(target, ids), tmp_path)

    weights = load_file(tmp_path / "model.safetensors")
    config = json.loads((tmp_path / "config.json").read_text())

    assert config["draft_vocab_size"] == DRAFT_VOCAB and config["vocab_size"] == TINY_VOCAB
    assert torch.equal(torch.arange(DRAFT_VOCAB) + weights["d2t"], ids)  # draft id i is target id i + d2t[i]
    assert weights["t2d"].shape == (TINY_VOCAB,) and torch.equal(
        weights["t2d"].nonzero()[:, 0], ids.sort()[0]
    )


def test_a_reloaded_head_drafts_from_the_same_tokens_and_half_precision_storage_loads(
    target: TargetModel, tmp_path: Path
) -> None:
    ids = draft_ids(DRAFT_VOCAB, seed=1)
    head = reduced_head(target, ids)
    save_head(head, tmp_path, dtype=torch.float16)

    loaded = load_head(str(tmp_path), tmp_path / "cache", target)

    assert loaded.draft_token_ids is not None and torch.equal(loaded.draft_token_ids, ids)
    assert load_file(tmp_path / "model.safetensors")["fc.weight"].dtype == torch.float16
    assert loaded.fc.weight.dtype == torch.float32
    assert torch.equal(loaded.fc.weight, head.fc.weight.half().float())


def test_a_checkpoint_with_d2t_but_no_t2d_loads(target: TargetModel, tmp_path: Path) -> None:
    ids = draft_ids(DRAFT_VOCAB, seed=1)
    save_head(reduced_head(target, ids), tmp_path)
    weights = load_file(tmp_path / "model.safetensors")
    del weights["t2d"]
    save_file(weights, tmp_path / "model.safetensors")

    loaded = load_head(str(tmp_path), tmp_path / "cache", target)

    assert loaded.draft_token_ids is not None and torch.equal(loaded.draft_token_ids, ids)


def test_a_d2t_pointing_outside_the_targets_vocabulary_is_refused(
    target: TargetModel, tmp_path: Path
) -> None:
    save_head(reduced_head(target, draft_ids(DRAFT_VOCAB, seed=1)), tmp_path)
    weights = load_file(tmp_path / "model.safetensors")
    weights["d2t"][3] = TINY_VOCAB
    save_file(weights, tmp_path / "model.safetensors")

    with pytest.raises(HeadLoadError, match="d2t is invalid"):
        load_head(str(tmp_path), tmp_path / "cache", target)


def test_a_config_naming_a_draft_vocabulary_without_d2t_is_refused(
    target: TargetModel, tmp_path: Path
) -> None:
    save_head(reduced_head(target, draft_ids(DRAFT_VOCAB, seed=1)), tmp_path)
    weights = load_file(tmp_path / "model.safetensors")
    del weights["d2t"], weights["t2d"]
    save_file(weights, tmp_path / "model.safetensors")

    with pytest.raises(HeadLoadError, match=r"missing \['d2t'"):
        load_head(str(tmp_path), tmp_path / "cache", target)


def test_a_draft_vocabulary_larger_than_the_targets_is_refused(target: TargetModel, tmp_path: Path) -> None:
    save_head(reduced_head(target, draft_ids(DRAFT_VOCAB, seed=1)), tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    config["draft_vocab_size"] = TINY_VOCAB + 1
    (tmp_path / "config.json").write_text(json.dumps(config))

    with pytest.raises(HeadLoadError, match=f"drafts from {TINY_VOCAB + 1} tokens.*has {TINY_VOCAB}"):
        load_head(str(tmp_path), tmp_path / "cache", target)


@pytest.mark.parametrize("make_target", [tiny_llama, tiny_gemma3], ids=["llama", "gemma3"])
@pytest.mark.parametrize("method", ["eagle2", "eagle2+casd"])
def test_eagle2_with_a_reduced_vocabulary_equals_greedy_generate(
    make_target: object, method: str, tmp_path: Path, reference_greedy: ReferenceGreedy
) -> None:
    model = make_target(seed=0)  # type: ignore[operator]
    reduced = TargetModel(model)
    save_head(reduced_head(reduced, draft_ids(DRAFT_VOCAB, seed=2)), tmp_path)
    drafters = factory(reduced, tmp_path, method)
    stops = model_stop_token_ids(reduced.config, model.generation_config, None)

    for prompt in prompts(seed=7):
        expected = reference_greedy(model, prompt, MAX_NEW_TOKENS, stops)
        assert generate(reduced, drafters, prompt).token_ids == expected, f"prompt of {len(prompt)} tokens"


def test_drafts_come_only_from_the_draft_vocabulary(target: TargetModel, tmp_path: Path) -> None:
    ids = draft_ids(DRAFT_VOCAB, seed=2)
    save_head(reduced_head(target, ids), tmp_path)
    drafter = factory(target, tmp_path)()
    trees = []
    original = drafter.propose

    def recording(context):  # type: ignore[no-untyped-def]
        trees.append(original(context))
        return trees[-1]

    drafter.propose = recording  # type: ignore[method-assign]
    generate(target, lambda: drafter, prompts(seed=7)[1])

    drafted = {token for tree in trees for token in tree.tokens[1:]}
    assert drafted and drafted <= set(ids.tolist())


def test_the_whole_vocabulary_in_any_order_drafts_what_a_plain_head_drafts(
    target: TargetModel, tmp_path: Path
) -> None:
    """Mapping draft columns back to target ids is checked by a permutation: the trees must not change."""
    plain = random_head(target.config, seed=5)
    permuted = reduced_head(target, torch.randperm(TINY_VOCAB, generator=torch.Generator().manual_seed(4)))
    save_head(plain, tmp_path / "plain")
    save_head(permuted, tmp_path / "permuted")
    prompt = prompts(seed=7)[2]

    results = [generate(target, factory(target, tmp_path / name), prompt) for name in ("plain", "permuted")]

    steps = [
        [(step.acceptance_length, step.nodes_by_source) for step in result.stats.steps] for result in results
    ]
    assert results[0].token_ids == results[1].token_ids and steps[0] == steps[1]


def test_an_exact_head_whose_draft_vocabulary_holds_the_answer_has_its_whole_chain_accepted(
    tmp_path: Path, reference_greedy: ReferenceGreedy
) -> None:
    model = bigram_llama(seed=3)
    target = TargetModel(model)
    prompt = prompts(seed=7)[1]
    stops = model_stop_token_ids(target.config, model.generation_config, None)
    answer = reference_greedy(model, prompt, MAX_NEW_TOKENS, stops)
    saved_exact_head(tmp_path / "full", model)
    exact = load_head(str(tmp_path / "full"), tmp_path / "cache", target)
    head = random_head(target.config, seed=0, draft_vocab_size=DRAFT_VOCAB)
    head.load_state_dict(exact.state_dict(), strict=False)
    head.set_draft_vocabulary(draft_ids(DRAFT_VOCAB, seed=2, always=sorted(set(answer))))
    save_head(head, tmp_path / "reduced")

    result = generate(target, factory(target, tmp_path / "reduced", eagle_top_k=1, eagle_depth=4), prompt)

    lengths = [step.acceptance_length for step in result.stats.steps]
    assert result.token_ids == answer
    assert lengths[:-1] == [6] * (len(lengths) - 1)
