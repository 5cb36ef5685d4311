"""The static verifier: a pre-allocated KV pool verified at bucketed shapes, with masks built on the device.

Its answers equal the eager verifier's (tests/speculative/engine/test_continuous_batching.py runs every batching
case with both); here: the shapes it rounds to, the mask it builds against the eager one, what it refuses, and that a
failed CUDA graph capture leaves it verifying eagerly, with a log line, and the answers unchanged; and that its
forward fused by torch.compile decodes the same answers."""

import logging
from collections.abc import Callable
from functools import partial

import pytest
import torch
from transformers import PreTrainedModel

from speculative.budget.fixed import FixedTreeBudget
from speculative.drafters.registry import drafter_factory
from speculative.engine.attention_mask import batch_tree_mask, tree_attention_mask
from speculative.engine.batch import BatchDecoder
from speculative.engine.batch_verifier import DynamicBatchVerifier
from speculative.engine.generator import SpeculativeGenerator
from speculative.engine.kv_cache import KVCache
from speculative.engine.request import GenerationRequest
from speculative.engine.static_verifier import MAX_TREE_ROWS, MIN_KEYS, StaticBatchVerifier, bucket
from speculative.engine.step_graphs import GraphCaptureError
from speculative.engine.stopping import model_stop_token_ids
from speculative.engine.target import TargetModel
from speculative.engine.tree import ROOT, DraftTree
from speculative.engine.tree_batch import TreeBatch
from speculative.settings import SpeculativeSettings


def _tree(root: int, branches: list[list[int]]) -> DraftTree:
    tree = DraftTree(root)
    for branch in branches:
        tree.add_path(branch, "test", ROOT)
    return tree


@pytest.mark.parametrize(
    ("size", "smallest", "largest", "rounded"),
    [
        (1, 1, None, 1),
        (3, 1, None, 4),
        (64, 1, None, 64),
        (65, 1, None, 128),
        (5, 256, None, 256),
        (300, 1, 290, 290),
    ],
)
def test_shapes_round_up_to_powers_of_two_within_their_bounds(
    size: int, smallest: int, largest: int | None, rounded: int
) -> None:
    assert bucket(size, smallest, largest) == rounded


@pytest.mark.parametrize("window", [None, 3])
def test_each_answer_of_the_batched_mask_sees_what_its_tree_sees_alone_and_padding_sees_itself(
    window: int | None,
) -> None:
    trees = [_tree(5, [[6, 7], [8]]), _tree(9, [[10]]), _tree(11, [])]
    lengths, width, rows, keys = [4, 7, 2], 7, 4, 16
    batch = TreeBatch.of(trees, lengths, answers=4, rows=rows)  # the fourth answer is padding

    mask = batch_tree_mask(
        batch.lengths, width, batch.ancestors, batch.positions, keys, window, torch.float32
    )

    visible = mask[:, 0] == 0
    assert mask.shape == (4, 1, rows, keys)
    for answer, (tree, length) in enumerate(zip(trees, lengths, strict=True)):
        count = tree.num_rows
        alone = tree_attention_mask(
            length, tree.ancestor_mask(), tree.position_offsets() + length, {"layer": window}, torch.float32
        )
        assert isinstance(alone, torch.Tensor)
        expected = torch.zeros(rows, keys, dtype=torch.bool)
        expected[:count, :length] = alone[0, 0, :, :length] == 0
        expected[:count, width : width + count] = alone[0, 0, :, length:] == 0
        expected[range(count, rows), range(width + count, width + rows)] = True
        assert torch.equal(visible[answer], expected), f"answer {answer}"
    itself = torch.zeros(rows, keys, dtype=torch.bool)
    itself[range(rows), range(width, width + rows)] = True
    assert torch.equal(visible[3], itself), "every row of a padding answer sees only itself"


def test_it_refuses_what_does_not_fit_with_a_clear_error(tiny_llama_target: TargetModel) -> None:
    verifier = StaticBatchVerifier(tiny_llama_target, slots=1, capacity=32, graphs=False)
    cache = KVCache()
    tiny_llama_target.prefill(list(range(3, 40)), cache)
    with pytest.raises(ValueError, match="exceeds the pool's 32"):
        verifier.add(cache)

    short = KVCache()
    tiny_llama_target.prefill([3, 4, 5], short)
    verifier.add(short)
    with pytest.raises(RuntimeError, match="full"):
        verifier.add(short)
    with pytest.raises(ValueError, match=f"exceeds the {MAX_TREE_ROWS}"):
        verifier.verify([_tree(6, [list(range(7, 7 + MAX_TREE_ROWS))])])


def test_a_repeated_verify_without_keep_commits_nothing_and_gives_the_same_tokens(
    tiny_llama_target: TargetModel,
) -> None:
    verifier = StaticBatchVerifier(tiny_llama_target, slots=2, capacity=128, graphs=False)
    cache = KVCache()
    tiny_llama_target.prefill(list(range(3, 30)), cache)
    verifier.add(cache)
    tree = _tree(30, [[31, 32], [33]])

    first, second = verifier.verify([tree]), verifier.verify([tree])

    assert verifier.lengths == [27]
    assert first[0].target_tokens == second[0].target_tokens
    assert torch.equal(first[0].hidden_states, second[0].hidden_states)


def test_a_tree_whose_padded_rows_pass_the_attended_positions_bucket_widens_it(
    tiny_llama_target: TargetModel,
) -> None:
    """A prefix of MIN_KEYS − 6 positions and a tree of 5 rows fit in MIN_KEYS, but the rows are padded to 8 and
    written too: the step attends to the next bucket and gives the eager verifier's tokens."""
    prompt = [3 + index % 50 for index in range(MIN_KEYS - 6)]
    tree = _tree(60, [[61, 62], [63, 64]])
    assert tree.num_rows == 5
    outputs = []
    for verifier in (
        StaticBatchVerifier(tiny_llama_target, slots=1, capacity=512, graphs=False),
        DynamicBatchVerifier(tiny_llama_target),
    ):
        cache = KVCache()
        tiny_llama_target.prefill(prompt, cache)
        verifier.add(cache)
        outputs.append(verifier.verify([tree])[0].target_tokens)

    assert outputs[0] == outputs[1]


class _FailingCapture:
    """A graph capture that fails as running out of GPU memory does."""

    def capture(self, forward: Callable[[], None], outputs: Callable[[], torch.Tensor]) -> None:
        raise GraphCaptureError("OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")


def test_a_failed_graph_capture_falls_back_to_eager_with_a_log_line_and_the_same_answers(
    make_tiny_llama: Callable[[int, float], PreTrainedModel], caplog: pytest.LogCaptureFixture
) -> None:
    target = TargetModel(make_tiny_llama(1, 0.1))
    stops = model_stop_token_ids(target.config, target.model.generation_config, None)
    factory = drafter_factory("casd", SpeculativeSettings(_env_file=None), target)
    generator = SpeculativeGenerator(target, None, factory, partial(FixedTreeBudget, 8), stops)
    request = GenerationRequest(list(range(3, 40)) * 2, 24)
    alone = generator.generate(request).run()

    verifier = StaticBatchVerifier(target, slots=1, capacity=256, graphs=False, capture=_FailingCapture())
    assert verifier.graphs_active
    decoder = BatchDecoder(target, 1, verifier)
    generation = generator.generate(request)
    with caplog.at_level(logging.WARNING, logger="speculative.engine.static_verifier"):
        decoder.join(generation)
        while decoder.members:
            decoder.step()
    generation.finish()

    assert not verifier.graphs_active
    assert generation.result.token_ids == alone.token_ids
    warnings = [
        record.getMessage() for record in caplog.records if "CUDA graph capture" in record.getMessage()
    ]
    assert len(warnings) == 1, "one log line, at the first failed capture"
    assert "runs eagerly from now on" in warnings[0]
    assert warnings[0].endswith("OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")


def test_a_fused_verifier_gives_the_plain_verifiers_tokens_features_and_cache_step_after_step(
    tiny_llama_target: TargetModel,
) -> None:
    """VERIFY_MODE=compiled: the forward fused by torch.compile (on a CPU: inductor's C++ kernels, no graphs), on
    two answers whose prefixes and trees differ, over two steps with the accepted rows kept in between; fp32. The
    shapes stay within one compiled program (several answers, several tree rows)."""
    prompts = [list(range(3, 40)), [50 + index % 17 for index in range(23)]]
    steps = [
        [_tree(40, [[41, 42, 43], [44]]), _tree(7, [[8, 9]])],
        [_tree(12, [[13], [14, 15]]), _tree(20, [[21, 22, 23, 24]])],
    ]
    kept = [[0, 1, 2], [0]]
    outputs = []
    for fused in (False, True):
        verifier = StaticBatchVerifier(tiny_llama_target, slots=2, capacity=128, graphs=False, fused=fused)
        for prompt in prompts:
            cache = KVCache()
            tiny_llama_target.prefill(prompt, cache)
            verifier.add(cache)
        first = verifier.verify(steps[0])
        verifier.keep(kept)
        outputs.append((verifier.mode, first, verifier.verify(steps[1])))

    (plain_mode, *plain), (fused_mode, *fused_steps) = outputs
    assert (plain_mode, fused_mode) == ("static", "compiled static")
    for plain_step, fused_step in zip(plain, fused_steps, strict=True):
        for alone, compiled in zip(plain_step, fused_step, strict=True):
            assert compiled.target_tokens == alone.target_tokens
            torch.testing.assert_close(compiled.hidden_states, alone.hidden_states, rtol=1e-4, atol=1e-5)
