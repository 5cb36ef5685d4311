"""Ready at once: until the device's cost model is measured, answers get the device's prior tree budget; the
measurement runs a forward at a time, and once it is installed new answers adapt. The tokens never change."""

import threading

import torch

from speculative.budget.adaptive import AdaptiveTreeBudget
from speculative.budget.cost_model import TREE_ROWS, CostMeasurement, CostModel, model_identity
from speculative.budget.fixed import CPU_TREE_BUDGET, FixedTreeBudget
from speculative.budget.prior import CostModelSlot
from speculative.build import build_generator
from speculative.engine.request import GenerationRequest
from speculative.engine.target import TargetModel
from speculative.settings import SpeculativeSettings
from tests.speculative.conftest import ReferenceGreedy, tiny_llama

CPU_LIKE = CostModel({"device": "cpu"}, (1, 2, 16, 64), (0.05, 0.07, 0.11, 0.23))


def test_a_measurement_runs_one_forward_per_step_and_then_holds_the_cost_model() -> None:
    target = TargetModel(tiny_llama(seed=3))
    identity = model_identity(target, "tiny-llama", "sdpa")
    measurement = CostMeasurement(target, identity, rows=(1, 4, 8), prefill_tokens=32, repeats=2)

    steps = 1
    while not measurement.step():
        steps += 1

    # the prefill, one allocating forward of the largest size, then every size in every repeat
    assert steps == 1 + 1 + 2 * 3
    assert measurement.result is not None
    assert measurement.result.rows == (1, 4, 8) and measurement.result.identity == identity
    assert all(seconds > 0 for seconds in measurement.result.seconds)
    assert measurement.step() and measurement.result.rows == (1, 4, 8)  # a finished one stays finished


def test_answers_get_the_prior_budget_until_the_cost_model_is_installed_then_the_adaptive_one() -> None:
    settings = SpeculativeSettings(_env_file=None, device="cpu", tree_policy="adaptive")
    target = TargetModel(tiny_llama(seed=0))
    slot = CostModelSlot()
    generator = build_generator(settings, target, None, "casd", slot)

    before = generator.tree_budget()
    installer = threading.Thread(target=slot.install, args=(CPU_LIKE,))
    installer.start()
    installer.join()
    after = generator.tree_budget()

    assert isinstance(before, FixedTreeBudget) and before.nodes == CPU_TREE_BUDGET
    assert isinstance(after, AdaptiveTreeBudget) and after.cost_model is CPU_LIKE
    assert after.max_nodes == TREE_ROWS[-1] - 1


def test_the_prior_and_the_cap_follow_tree_budget() -> None:
    settings = SpeculativeSettings(_env_file=None, device="cuda", tree_policy="adaptive", tree_budget=24)
    target = TargetModel(tiny_llama(seed=0))
    slot = CostModelSlot()
    generator = build_generator(settings, target, None, "casd", slot)

    before = generator.tree_budget()
    slot.install(CPU_LIKE)
    after = generator.tree_budget()

    assert isinstance(before, FixedTreeBudget) and before.nodes == 24
    assert isinstance(after, AdaptiveTreeBudget) and after.max_nodes == 24


def test_an_answer_started_on_the_prior_and_one_after_the_swap_are_both_plain_greedy(
    reference_greedy: ReferenceGreedy,
) -> None:
    model = tiny_llama(seed=1, initializer_range=0.1)  # loops: CASD's copies get accepted
    target = TargetModel(model)
    settings = SpeculativeSettings(_env_file=None, device="cpu", tree_policy="adaptive")
    slot = CostModelSlot()
    generator = build_generator(settings, target, None, "casd", slot)
    prompt = torch.randint(3, 500, (40,), generator=torch.Generator().manual_seed(5)).tolist()
    expected = reference_greedy(model, prompt, 48)

    on_the_prior = generator.generate(GenerationRequest(prompt, 48))
    steps = on_the_prior.steps()
    next(steps)  # prefill; the swap comes mid-answer
    slot.install(CostModel({"device": "cpu"}, (1, 64), (0.01, 0.011)))
    for _ in steps:
        pass
    adapted = generator.generate(GenerationRequest(prompt, 48)).run()

    assert on_the_prior.result.token_ids == expected
    assert adapted.token_ids == expected
    assert adapted.stats.target_forwards < len(expected)  # it did speculate
