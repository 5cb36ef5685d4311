"""The adaptive tree budget: acceptance learnt from the answer's last steps, weighed against the device's measured
verification costs, decides per step how much of the drafted tree is verified."""

import json
from pathlib import Path

import pytest
import torch

from speculative.budget.acceptance import AcceptanceHistory, evidence_class
from speculative.budget.adaptive import HISTORY_STEPS, POOL_MARGIN, AdaptiveTreeBudget, long_run_history
from speculative.budget.cost_model import TREE_ROWS, CostModel, load_or_measure, model_identity
from speculative.engine.target import TargetModel
from speculative.engine.tree import ROOT, DraftTree
from speculative.engine.verify import VerificationResult, verify_greedy
from tests.speculative.conftest import tiny_llama

CPU_LIKE = CostModel({"device": "cpu"}, (1, 2, 16, 64), (0.05, 0.07, 0.11, 0.23))
GPU_LIKE = CostModel({"device": "cuda"}, (1, 64), (0.020, 0.021))


def casd_tree(root: int, branch: list[int], match_length: int) -> DraftTree:
    tree = DraftTree(root)
    tree.add_path(branch, "casd", evidence=match_length)
    return tree


def verified(tree: DraftTree, accepted: int) -> VerificationResult:
    """Verification that accepts the first `accepted` nodes (at most all) of the tree's last branch."""
    path = tree.path_to(tree.num_rows - 1)
    accepted = min(accepted, len(path))
    target_tokens = [0] * tree.num_rows
    for depth in range(accepted):
        target_tokens[tree.parents[path[depth]]] = tree.tokens[path[depth]]
    target_tokens[path[accepted - 1] if accepted else ROOT] = 99_999
    return verify_greedy(tree, target_tokens)


def test_acceptance_is_the_windowed_maximum_likelihood_with_a_prior() -> None:
    history = AcceptanceHistory(window=2, prior_rate=0.5, prior_weight=2)
    first, deep = evidence_class("casd", 8, depth=1), evidence_class("casd", 8, depth=3)
    assert history.rate(first) == history.rate(deep) == 0.5

    history.record(verified(casd_tree(1, [2, 3, 4, 5], match_length=8), accepted=3))
    assert history.rate(first) == pytest.approx((1 + 1) / (1 + 2))
    assert history.rate(deep) == pytest.approx((1 + 1) / (2 + 2))  # depths 3 and 4: one accepted, one not

    history.record(verified(casd_tree(1, [2, 3], match_length=8), accepted=0))
    history.record(verified(casd_tree(1, [2, 3], match_length=8), accepted=0))
    assert history.rate(first) == pytest.approx((0 + 1) / (2 + 2))  # the first step has left the window
    assert history.rate(deep) == 0.5


def test_untested_nodes_teach_nothing_and_classes_are_kept_apart() -> None:
    history = AcceptanceHistory(window=8, prior_rate=0.5, prior_weight=2)

    history.record(verified(casd_tree(1, [2, 3, 4], match_length=2), accepted=0))

    assert history.rate(evidence_class("casd", 2)) == pytest.approx(1 / 3)  # only the first node was tested
    assert history.rate(evidence_class("casd", 2, depth=2)) == 0.5
    assert history.rate(evidence_class("casd", 8)) == 0.5
    assert history.rate(evidence_class("eagle2", 0.9)) == 0.5


def test_a_node_is_never_more_likely_than_its_parent_and_siblings_share_their_parent() -> None:
    history = AcceptanceHistory(window=8, prior_rate=0.9, prior_weight=2)
    tree = DraftTree(1)
    first = tree.add(ROOT, 2, "eagle2", 0.6)
    assert first is not None
    tree.add(ROOT, 3, "eagle2", 0.3)
    tree.add(first, 4, "eagle2", 0.9)

    probabilities = history.node_probabilities(tree)

    assert probabilities[1] + probabilities[2] == pytest.approx(1.0)
    assert probabilities[3] < probabilities[1]


def run_steps(
    budget: AdaptiveTreeBudget, match_length: int, accepted: int, steps: int, draft_seconds: float = 0.001
) -> list[int]:
    """Select, verify (accepting `accepted` nodes) and observe `steps` times; returns the verified sizes."""
    sizes = []
    for _ in range(steps):
        tree = budget.select(casd_tree(1, list(range(2, 12)), match_length), draft_seconds)
        budget.observe(verified(tree, accepted), 0.08)
        sizes.append(tree.num_drafted)
    return sizes


def test_a_new_answer_tries_its_drafts_then_verifies_the_root_alone_when_nothing_is_accepted_on_a_cpu() -> (
    None
):
    budget = AdaptiveTreeBudget(CPU_LIKE, max_nodes=63)

    sizes = run_steps(budget, match_length=1, accepted=0, steps=10)

    assert sizes[0] > 0
    assert sizes[-4:] == [0, 0, 0, 0]
    assert budget.nodes_for_next_step() == 63  # drafting this cheap keeps the whole pool


def test_costly_drafting_shrinks_with_the_choices() -> None:
    budget = AdaptiveTreeBudget(CPU_LIKE, max_nodes=63)

    sizes = run_steps(budget, match_length=1, accepted=0, steps=10, draft_seconds=0.02)

    assert sizes[-4:] == [0, 0, 0, 0]
    assert budget.nodes_for_next_step() == POOL_MARGIN


def test_drafts_are_tried_again_once_their_failures_have_left_the_window() -> None:
    budget = AdaptiveTreeBudget(CPU_LIKE, max_nodes=63)
    run_steps(budget, match_length=1, accepted=0, steps=10)

    sizes = run_steps(budget, match_length=1, accepted=0, steps=HISTORY_STEPS)

    assert max(sizes) > 0


def test_a_copying_answer_gets_its_whole_branch_verified() -> None:
    budget = AdaptiveTreeBudget(CPU_LIKE, max_nodes=63)

    sizes = run_steps(budget, match_length=8, accepted=10, steps=10)

    assert 0 < sizes[0] <= sizes[1]
    assert sizes[2:] == [10] * 8  # two steps of evidence suffice


def test_a_device_where_nodes_are_almost_free_verifies_more_of_an_uncertain_tree() -> None:
    def eagle_tree() -> DraftTree:
        tree = DraftTree(1)
        for token in range(2, 12):
            tree.add(ROOT, token, "eagle2", 0.02)
        return tree

    chosen = {
        device: AdaptiveTreeBudget(costs, max_nodes=63).select(eagle_tree(), draft_seconds=0.001).num_drafted
        for device, costs in {"cpu": CPU_LIKE, "gpu": GPU_LIKE}.items()
    }

    assert chosen["gpu"] == 10
    assert chosen["cpu"] < chosen["gpu"]


def test_the_same_history_and_cost_table_give_the_same_choices() -> None:
    outcomes = [(8, 6), (8, 0), (2, 1), (1, 0), (8, 10), (4, 3)] * 3

    def choices() -> list[list[int]]:
        budget = AdaptiveTreeBudget(CPU_LIKE, max_nodes=63)
        chosen = []
        for match_length, accepted in outcomes:
            tree = budget.select(casd_tree(1, list(range(2, 12)), match_length), draft_seconds=0.002)
            chosen.append(tree.tokens)
            budget.observe(verified(tree, min(accepted, tree.num_drafted)), 0.08)
        return chosen

    assert choices() == choices()


def test_the_cost_model_interpolates_between_measured_sizes_and_extrapolates_beyond() -> None:
    assert CPU_LIKE.verify_seconds(1) == 0.05
    assert CPU_LIKE.verify_seconds(9) == pytest.approx(0.09)
    assert CPU_LIKE.verify_seconds(100) == pytest.approx(0.23 + 36 * 0.12 / 48)
    with pytest.raises(ValueError, match="increasing"):
        CostModel({}, (4, 2), (0.1, 0.2))


def test_the_cost_model_is_measured_once_per_model_device_and_dtype(tmp_path: Path) -> None:
    fp32 = TargetModel(tiny_llama(seed=3))
    identity = model_identity(fp32, "tiny-llama", "sdpa")

    measured = load_or_measure(fp32, identity, tmp_path)
    reused = load_or_measure(fp32, identity, tmp_path)

    assert measured == reused  # timings never repeat exactly: the second one was read from the cache
    assert measured.rows == TREE_ROWS and len(list(tmp_path.glob("*.json"))) == 1
    assert all(seconds > 0 for seconds in measured.seconds)

    bf16 = TargetModel(tiny_llama(seed=3).to(torch.bfloat16))
    other_dtype = model_identity(bf16, "tiny-llama", "sdpa")
    other_model = model_identity(
        TargetModel(tiny_llama(seed=3, initializer_range=0.1)), "tiny-llama-2", "sdpa"
    )
    assert other_dtype["dtype"] == "bfloat16" and other_dtype != identity and other_model != identity

    assert load_or_measure(bf16, other_dtype, tmp_path) != measured
    assert len(list(tmp_path.glob("*.json"))) == 2


def test_a_corrupt_cost_model_file_is_measured_again(tmp_path: Path) -> None:
    target = TargetModel(tiny_llama(seed=3))
    identity = model_identity(target, "tiny-llama", "sdpa")
    load_or_measure(target, identity, tmp_path)
    [cached] = tmp_path.glob("*.json")
    cached.write_text("{not json")

    measured = load_or_measure(target, identity, tmp_path)

    assert json.loads(cached.read_text())["seconds"] == list(measured.seconds)


def test_a_new_answer_starts_from_what_earlier_answers_achieved() -> None:
    long_run = long_run_history()
    earlier = AdaptiveTreeBudget(CPU_LIKE, max_nodes=63, long_run=long_run)
    run_steps(earlier, match_length=8, accepted=10, steps=10)

    first_step_with_record = run_steps(AdaptiveTreeBudget(CPU_LIKE, 63, long_run), 8, accepted=10, steps=1)
    first_step_without = run_steps(AdaptiveTreeBudget(CPU_LIKE, 63), 8, accepted=10, steps=1)

    assert first_step_with_record == [10]
    assert first_step_without[0] < 10


def test_a_class_earlier_answers_gave_up_on_is_still_tried_in_a_new_answer() -> None:
    long_run = long_run_history()
    run_steps(AdaptiveTreeBudget(CPU_LIKE, 63, long_run), match_length=2, accepted=0, steps=40)

    first_step = run_steps(AdaptiveTreeBudget(CPU_LIKE, 63, long_run), match_length=2, accepted=0, steps=1)

    assert first_step[0] > 0


def test_the_same_model_loaded_from_another_folder_reuses_its_cost_model(tmp_path: Path) -> None:
    model = tiny_llama(seed=3)
    here, there = TargetModel(model), TargetModel(tiny_llama(seed=3))
    there.config._name_or_path = "/elsewhere/tiny-llama"

    assert model_identity(here, "tiny-llama", "sdpa") == model_identity(there, "tiny-llama", "sdpa")
