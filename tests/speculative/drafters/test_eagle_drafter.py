"""The `eagle2` drafter and `eagle2+casd`: lossless against greedy `generate()`, and drafting what EAGLE-2 drafts.

Random heads give trees the target mostly rejects (losslessness with few acceptances); the exact head of a bigram
target (see `eagle_heads`) gives trees the target accepts, which checks the head's input alignment end to end.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import pytest
import torch

from speculative.budget.fixed import FixedTreeBudget
from speculative.drafters.eagle2 import Eagle2Drafter, SharedWeights
from speculative.drafters.registry import drafter_factory
from speculative.eagle.checkpoint import HeadLoadError, load_head
from speculative.eagle.dynamic_tree import ROOT_PARENT, DynamicTreeConfig
from speculative.eagle.head import EagleHead, PositionOutOfRangeError
from speculative.engine.attention_mask import additive_mask
from speculative.engine.drafter import DraftContext, Drafter, DrafterFactory
from speculative.engine.generator import GenerationResult, SpeculativeGenerator
from speculative.engine.kv_cache import KVCache
from speculative.engine.request import GenerationRequest
from speculative.engine.stopping import model_stop_token_ids
from speculative.engine.target import TargetModel
from speculative.engine.tree import DraftTree
from speculative.engine.verify import VerificationResult
from tests.speculative.conftest import ReferenceGreedy, tiny_llama
from tests.speculative.eagle_heads import bigram_llama, eagle_settings, saved_exact_head, saved_random_head
from tests.speculative.eagle_selection import HostLevel, host_selection

MAX_NEW_TOKENS = 32
CPU_BUDGET = 16


@dataclass(frozen=True)
class Setup:
    """A target with an EAGLE head saved in the public format."""

    target: TargetModel
    head_folder: Path

    def factory(self, method: str, **settings: object) -> DrafterFactory:
        return drafter_factory(method, eagle_settings(self.head_folder, **settings), self.target)

    def head(self) -> EagleHead:
        return load_head(str(self.head_folder), self.head_folder / "no-cache", self.target)


def _prompts(seed: int) -> list[list[int]]:
    """Random ids, repeated blocks (copyable text), a small alphabet and a long prompt, from a fixed seed."""
    generator = torch.Generator().manual_seed(seed)

    def ids(length: int, high: int = 5000) -> list[int]:
        return torch.randint(3, high, (length,), generator=generator).tolist()

    block, phrase = ids(30), ids(8)
    return [ids(5), ids(60), block + ids(10) + block, (phrase + ids(3)) * 6, ids(40, high=40), ids(700)]


def _stops(target: TargetModel) -> frozenset[int]:
    return model_stop_token_ids(target.config, target.model.generation_config, None)


def _generate(
    target: TargetModel, factory: DrafterFactory, prompt: Sequence[int], budget: int = CPU_BUDGET
) -> GenerationResult:
    generator = SpeculativeGenerator(target, None, factory, partial(FixedTreeBudget, budget), _stops(target))
    return generator.generate(GenerationRequest(prompt, MAX_NEW_TOKENS)).run()


@pytest.fixture(scope="module")
def random_head_llama(tmp_path_factory: pytest.TempPathFactory) -> Setup:
    target = TargetModel(tiny_llama(seed=0))
    return Setup(target, saved_random_head(tmp_path_factory.mktemp("random-head"), target.config, seed=5))


@pytest.fixture(scope="module")
def random_head_looping_llama(tmp_path_factory: pytest.TempPathFactory) -> Setup:
    target = TargetModel(tiny_llama(seed=1, initializer_range=0.1))  # its greedy output falls into loops
    return Setup(target, saved_random_head(tmp_path_factory.mktemp("random-head"), target.config, seed=6))


@pytest.fixture(scope="module")
def exact_head_bigram(tmp_path_factory: pytest.TempPathFactory) -> Setup:
    model = bigram_llama(seed=3)
    return Setup(TargetModel(model), saved_exact_head(tmp_path_factory.mktemp("exact-head"), model))


@pytest.fixture(params=["random_head_llama", "random_head_looping_llama", "exact_head_bigram"])
def setup(request: pytest.FixtureRequest) -> Setup:
    return request.getfixturevalue(request.param)


@pytest.mark.parametrize("method", ["eagle2", "eagle2+casd"])
def test_eagle2_methods_equal_greedy_generate(
    setup: Setup, method: str, reference_greedy: ReferenceGreedy
) -> None:
    factory = setup.factory(method)

    for prompt in _prompts(seed=7):
        expected = reference_greedy(setup.target.model, prompt, MAX_NEW_TOKENS)
        assert _generate(setup.target, factory, prompt).token_ids == expected, (
            f"prompt of {len(prompt)} tokens"
        )


def test_a_prompt_longer_than_the_heads_2048_positions_works(
    tmp_path: Path, reference_greedy: ReferenceGreedy
) -> None:
    model = tiny_llama(seed=0)
    model.config.max_position_embeddings = 4096  # the target's context; the head's config still says 2048
    target = TargetModel(model)
    factory = Setup(target, saved_random_head(tmp_path, target.config, seed=5)).factory("eagle2")
    prompt = _prompts(seed=9)[1] * 40  # 2400 tokens

    result = _generate(target, factory, prompt)

    assert result.token_ids == reference_greedy(model, prompt, MAX_NEW_TOKENS)


def test_an_exact_head_has_its_whole_chain_accepted(exact_head_bigram: Setup) -> None:
    """top_k 1 drafts the head's greedy chain of depth + 1 tokens; an exact head gets all of it accepted."""
    factory = exact_head_bigram.factory("eagle2", eagle_top_k=1, eagle_depth=4)

    result = _generate(exact_head_bigram.target, factory, _prompts(seed=7)[1])

    lengths = [step.acceptance_length for step in result.stats.steps]
    assert lengths[:-1] == [6] * (len(lengths) - 1)  # 5 drafted tokens + the bonus, but the last step is cut
    assert all(step.nodes_by_source == {"eagle2": 5} for step in result.stats.steps[:-1])


def test_an_exact_head_in_the_dynamic_tree_multiplies_tokens_per_forward(exact_head_bigram: Setup) -> None:
    result = _generate(exact_head_bigram.target, exact_head_bigram.factory("eagle2"), _prompts(seed=7)[1])

    assert result.stats.tau > 4
    assert set(result.stats.acceptance_histogram) == {"eagle2"}


class RecordingDrafter(Drafter):
    """Passes every call to an `Eagle2Drafter` and keeps what it was asked and what it drafted."""

    def __init__(self, drafter: Eagle2Drafter) -> None:
        self.drafter = drafter
        self.name = drafter.name
        self.proposals: list[tuple[DraftContext, DraftTree]] = []

    def propose(self, context: DraftContext) -> DraftTree:
        tree = self.drafter.propose(context)
        self.proposals.append((replace(context, sequence=list(context.sequence)), tree))
        return tree

    def observe(self, result: VerificationResult) -> None:
        self.drafter.observe(result)


def _fresh_proposal(setup: Setup, head: EagleHead, context: DraftContext) -> DraftTree:
    """What a new drafter drafts when given the whole committed sequence at once, with fresh target features."""
    features = setup.target.prefill(context.sequence[:-1], KVCache()).hidden_states
    drafter = Eagle2Drafter(head, SharedWeights.of(setup.target), DynamicTreeConfig())
    return drafter.propose(replace(context, new_hidden_states=features))


def test_the_heads_cache_across_steps_drafts_what_a_fresh_head_drafts(setup: Setup) -> None:
    head = setup.head()
    prompt = _prompts(seed=7)[3]
    recording = RecordingDrafter(Eagle2Drafter(head, SharedWeights.of(setup.target), DynamicTreeConfig()))
    _generate(setup.target, lambda: recording, prompt)

    assert len(recording.proposals) > 3
    for context, tree in recording.proposals[1::3]:
        fresh = _fresh_proposal(setup, head, context)
        assert (fresh.tokens, fresh.parents) == (tree.tokens, tree.parents), (
            f"at {len(context.sequence)} tokens"
        )


def _head_on_chain(
    head: EagleHead, shared: SharedWeights, features: torch.Tensor, tokens: list[int]
) -> torch.Tensor:
    """The head run from scratch on one causal chain of (feature, next token) pairs from position 0."""
    rows = len(tokens)
    mask = additive_mask(torch.ones(rows, rows, dtype=torch.bool).tril(), features.dtype)
    return head(features, shared.embed(torch.tensor(tokens)), torch.arange(rows), mask, KVCache())


def _reference_tree(setup: Setup, sequence: list[int], config: DynamicTreeConfig, nodes: int) -> DraftTree:
    """EAGLE-2 grown the slow way: every expanded node's feature comes from running its own path alone, and the
    candidates selected on the host.

    A candidate's path is its tokens below the root and the features its head rows read: the root's predicted
    feature for the first token, then each earlier node's predicted feature.
    """
    head, shared, top_k = setup.head(), SharedWeights.of(setup.target), config.top_k
    prefix_features = setup.target.prefill(sequence[:-1], KVCache()).hidden_states
    prefix_tokens = sequence[1:]

    def predict(inputs: list[torch.Tensor], path: list[int]) -> torch.Tensor:
        features = torch.cat([prefix_features, *[row[None] for row in inputs]])
        return _head_on_chain(head, shared, features, prefix_tokens + path)[-1]

    def top_children(feature: torch.Tensor) -> list[tuple[float, int]]:
        scores, tokens = torch.log_softmax(shared.logits(feature[None]).float(), dim=-1)[0].topk(top_k)
        return list(zip(scores.tolist(), tokens.tolist(), strict=True))

    with torch.inference_mode():
        root = predict([], [])
        children = top_children(root)
        levels = [HostLevel([t for _, t in children], [ROOT_PARENT] * top_k, [s for s, _ in children])]
        paths = [([root], [token]) for _, token in children]
        for _ in range(config.rounds(nodes, MAX_NEW_TOKENS)):
            last = levels[-1]
            frontier = sorted(range(len(last.scores)), key=lambda index: -last.scores[index])[:top_k]
            tokens, parents, scores, next_paths = [], [], [], []
            for parent in frontier:
                inputs, path = paths[parent]
                feature = predict(inputs, path)
                for score, token in top_children(feature):
                    tokens.append(token)
                    parents.append(parent)
                    scores.append(last.scores[parent] + score)
                    next_paths.append(([*inputs, feature], [*path, token]))
            levels.append(HostLevel(tokens, parents, scores))
            paths = next_paths
    tree = DraftTree(sequence[-1])
    added: list[int] = []
    for node in host_selection(levels, nodes):
        parent = 0 if node.parent == ROOT_PARENT else added[node.parent]
        added.append(tree.add_path([node.token], "eagle2", parent)[0])
    return tree


def test_the_drafted_tree_equals_growing_every_path_alone(random_head_llama: Setup) -> None:
    """One head call per round with the draft-side tree mask equals running each node's path as its own chain.

    A budget for every candidate (3 + 5 × 9) keeps the whole grown tree, down to depth 6.
    """
    setup, config = random_head_llama, DynamicTreeConfig(total_tokens=49, depth=5, top_k=3)
    sequence = _prompts(seed=7)[1]
    features = setup.target.prefill(sequence[:-1], KVCache()).hidden_states
    drafter = Eagle2Drafter(setup.head(), SharedWeights.of(setup.target), config)
    context = DraftContext(sequence, len(sequence) - 1, features, 48, MAX_NEW_TOKENS, frozenset())

    tree = drafter.propose(context)
    expected = _reference_tree(setup, sequence, config, nodes=48)

    assert (tree.num_drafted, max(tree.depths)) == (48, 6)
    assert (tree.tokens, tree.parents) == (expected.tokens, expected.parents)


@pytest.mark.parametrize("budget", [0, 1, 4, 16, 60])
def test_the_tree_fills_the_budget_within_total_tokens_and_depth(
    random_head_llama: Setup, budget: int
) -> None:
    setup = random_head_llama
    sequence = _prompts(seed=7)[1]
    features = setup.target.prefill(sequence[:-1], KVCache()).hidden_states
    drafter = Eagle2Drafter(setup.head(), SharedWeights.of(setup.target), DynamicTreeConfig(total_tokens=50))

    context = DraftContext(sequence, len(sequence), features, budget, MAX_NEW_TOKENS, frozenset())
    tree = drafter.propose(context)

    assert tree.num_drafted == min(budget, 49)
    assert max(tree.depths) <= min(budget, 6)
    assert set(tree.sources[1:]) <= {"eagle2"}


@pytest.mark.parametrize("max_depth", [0, 1, 2, 3])
def test_the_tree_stays_within_the_tokens_still_allowed(random_head_llama: Setup, max_depth: int) -> None:
    setup = random_head_llama
    sequence = _prompts(seed=7)[1]
    features = setup.target.prefill(sequence[:-1], KVCache()).hidden_states
    drafter = Eagle2Drafter(setup.head(), SharedWeights.of(setup.target), DynamicTreeConfig())

    tree = drafter.propose(
        DraftContext(sequence, len(sequence), features, CPU_BUDGET, max_depth, frozenset())
    )

    assert max(tree.depths) <= max_depth
    assert tree.num_drafted == {0: 0, 1: 10}.get(max_depth, CPU_BUDGET)  # depth 1 holds the root's top 10


def test_proposing_twice_without_observing_is_refused(random_head_llama: Setup) -> None:
    setup = random_head_llama
    sequence = _prompts(seed=7)[0]
    features = setup.target.prefill(sequence[:-1], KVCache()).hidden_states
    drafter = Eagle2Drafter(setup.head(), SharedWeights.of(setup.target), DynamicTreeConfig())
    context = DraftContext(sequence, len(sequence), features, CPU_BUDGET, MAX_NEW_TOKENS, frozenset())
    drafter.propose(context)

    with pytest.raises(RuntimeError, match="propose and observe must alternate"):
        drafter.propose(replace(context, new_hidden_states=features[-1:]))


@pytest.mark.parametrize(
    ("prompt_length", "where"), [(53, "the committed rows"), (48, "the tree's deepest expanded nodes")]
)
def test_a_position_past_the_targets_context_is_refused(
    tmp_path: Path, prompt_length: int, where: str
) -> None:
    """A 51-position context (0‥50): with 53 tokens the committed rows reach position 51 (the last token is the
    root); with 48 the head expands the tree's nodes at positions 47‥51, the deepest (the fifth round) at 51."""
    model = tiny_llama(seed=0)
    model.config.max_position_embeddings = 51
    setup = Setup(TargetModel(model), saved_random_head(tmp_path, model.config, seed=5))
    sequence = _prompts(seed=7)[1][:prompt_length]
    features = setup.target.prefill(sequence[:-1], KVCache()).hidden_states
    drafter = Eagle2Drafter(setup.head(), SharedWeights.of(setup.target), DynamicTreeConfig())
    context = DraftContext(sequence, len(sequence), features, 60, MAX_NEW_TOKENS, frozenset())

    with pytest.raises(PositionOutOfRangeError, match="position 51 is past the 51 positions"):
        drafter.propose(context)


DEVICE_TO_HOST = ("tolist", "item", "cpu", "numpy", "__bool__", "__int__", "__float__", "__index__")


def test_a_proposal_reads_back_from_the_device_once(
    random_head_llama: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a GPU each read is a host sync: only the selected nodes are read back, in one copy; the head's range
    check takes its positions from the drafter as Python ints."""
    setup = random_head_llama
    sequence = _prompts(seed=7)[1]
    features = setup.target.prefill(sequence[:-1], KVCache()).hidden_states
    drafter = Eagle2Drafter(setup.head(), SharedWeights.of(setup.target), DynamicTreeConfig())
    context = DraftContext(sequence, len(sequence), features, 60, MAX_NEW_TOKENS, frozenset())
    reads: list[str] = []
    for name in DEVICE_TO_HOST:
        monkeypatch.setattr(torch.Tensor, name, _counted(name, getattr(torch.Tensor, name), reads))

    tree = drafter.propose(context)

    assert tree.num_drafted == 59
    assert reads == ["tolist"]


def _counted(name: str, method: Callable[..., object], reads: list[str]) -> Callable[..., object]:
    def read(tensor: torch.Tensor, *args: object, **kwargs: object) -> object:
        reads.append(name)
        return method(tensor, *args, **kwargs)

    return read


@pytest.mark.parametrize("share_budget", [False, True])
def test_eagle2_casd_accounts_nodes_and_the_accepted_source_per_step(
    exact_head_bigram: Setup, share_budget: bool, reference_greedy: ReferenceGreedy
) -> None:
    """The prompt quotes 16 tokens of the answer: CASD's 10-token copies are credited while the answer quotes
    them, EAGLE's 3-deep tree (exact head) afterwards."""
    target = exact_head_bigram.target
    factory = exact_head_bigram.factory("eagle2+casd", casd_shares_budget=share_budget, eagle_depth=2)
    start, filler = 4321, _prompts(seed=8)[1][:20]
    quoted = reference_greedy(target.model, [start], 16)
    prompt = [*filler, start, *quoted, *filler, start]

    result = _generate(target, factory, prompt)

    assert result.token_ids == reference_greedy(target.model, prompt, MAX_NEW_TOKENS)
    sources = [step.accepted_source for step in result.stats.steps]
    assert sources == ["casd", "casd"] + ["eagle2"] * (len(sources) - 2)
    assert max(result.stats.acceptance_histogram["casd"]) == 11  # 10 copied tokens and the bonus
    for step in result.stats.steps:
        eagle_nodes, casd_nodes = step.nodes_by_source["eagle2"], step.nodes_by_source.get("casd", 0)
        assert set(step.nodes_by_source) <= {"eagle2", "casd"} and casd_nodes <= 20
        assert eagle_nodes + casd_nodes <= CPU_BUDGET if share_budget else eagle_nodes == CPU_BUDGET


def _paths(tree: DraftTree) -> set[tuple[int, ...]]:
    """Every drafted node as the tokens from the root down to it: a tree's content, whatever its node order."""
    return {tuple(tree.tokens[node] for node in tree.path_to(end)) for end in range(1, tree.num_rows)}


@pytest.mark.parametrize("budget", [CPU_BUDGET, 40])
def test_eagle2_merged_after_casd_drafts_the_tree_it_drafts_alone(
    random_head_llama: Setup, budget: int
) -> None:
    """In `casd+eagle2` EAGLE keeps its own budget (the step's), not CASD's 20-node cap on its copies."""
    setup = random_head_llama
    sequence = _prompts(seed=7)[3]
    features = setup.target.prefill(sequence[:-1], KVCache()).hidden_states
    context = DraftContext(sequence, len(sequence), features, budget, MAX_NEW_TOKENS, frozenset())

    alone = setup.factory("eagle2")().propose(context)
    merged = setup.factory("casd+eagle2")().propose(context)

    assert alone.num_drafted == budget
    assert _paths(alone) <= _paths(merged)
    assert merged.source_counts()["casd"] > 0


def test_eagle2_needs_an_eagle_head_setting(random_head_llama: Setup) -> None:
    for method in ("eagle2", "eagle2+casd"):
        with pytest.raises(HeadLoadError, match="eagle2 needs EAGLE_HEAD"):
            drafter_factory(method, eagle_settings(None), random_head_llama.target)
