"""What a verification forward costs on this device: measured once per model, device and dtype, then cached.

The adaptive budget weighs expected accepted tokens against time, so it needs the time of one target forward for
each tree size. That curve is the hardware's: on a 2-core CPU 2 rows already cost 2 single-token decodes (the
output layer's matrix-vector path ends at one row) and 64 rows about 5, on a datacentre GPU 64 rows cost about one;
it need not even rise monotonically (on that CPU an odd number of rows costs up to 30 % more than the next even
one: 3 rows more than 4, 13 more than 14), so every size is measured. It is measured after a typical prefill (attention over the context is part of the cost),
interleaving the sizes over several repeats and keeping the median, and stored as JSON keyed by everything that
changes it (model config, device, dtype, attention kernel, torch version), so a worker restart reuses it and a
change of any of them measures again. A server measures a forward at a time in its idle moments
(`CostMeasurement`) and serves meanwhile with a prior tree budget (`budget/prior.py`).
"""

import hashlib
import json
import logging
import statistics
from collections.abc import Callable, Generator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch

from modelstore.device import synced_clock
from speculative.engine.batch_verifier import BatchVerifier, DynamicBatchVerifier
from speculative.engine.kv_cache import KVCache
from speculative.engine.target import TargetModel
from speculative.engine.tree import ROOT, DraftTree

log = logging.getLogger(__name__)

TREE_ROWS = tuple(range(1, 65))
PREFILL_TOKENS = 512
REPEATS = 3


@dataclass(frozen=True)
class CostModel:
    """Median seconds of one verification forward for each measured number of tree rows (root included)."""

    identity: dict[str, str]
    rows: tuple[int, ...]
    seconds: tuple[float, ...]

    def __post_init__(self) -> None:
        if not self.rows or len(self.rows) != len(self.seconds) or list(self.rows) != sorted(set(self.rows)):
            raise ValueError(f"a cost model needs increasing tree sizes with one time each: {self.rows}")

    def verify_seconds(self, rows: int) -> float:
        """Interpolated between measured sizes, extrapolated along the last segment beyond the largest."""
        if rows <= self.rows[0]:
            return self.seconds[0]
        for index in range(1, len(self.rows)):
            if rows <= self.rows[index] or index == len(self.rows) - 1:
                low, high = self.rows[index - 1], self.rows[index]
                slope = (self.seconds[index] - self.seconds[index - 1]) / (high - low)
                return self.seconds[index - 1] + slope * (rows - low)
        return self.seconds[-1]

    @property
    def max_rows(self) -> int:
        return self.rows[-1]

    def relative(self) -> dict[int, float]:
        """Each size's cost in single-token decodes: what the benchmark and the worker report."""
        return {
            rows: seconds / self.seconds[0] for rows, seconds in zip(self.rows, self.seconds, strict=True)
        }

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "relative": {str(rows): ratio for rows, ratio in self.relative().items()}}


def model_identity(
    target: TargetModel, model_name: str, attention: str, verify_mode: str = "eager"
) -> dict[str, str]:
    """Everything a forward's cost depends on; the cache file is named after its digest."""
    config_digest = hashlib.sha256(_architecture(target).encode()).hexdigest()[:16]
    return {
        "model": model_name,
        "config": config_digest,
        "device": str(target.device),
        "dtype": str(target.dtype).removeprefix("torch."),
        "attention": attention,
        "verify": verify_mode,
        "torch": torch.__version__,
        "prefill_tokens": str(PREFILL_TOKENS),
        "tree_rows": ",".join(map(str, TREE_ROWS)),
    }


def _architecture(target: TargetModel) -> str:
    """The config without its private fields (`_name_or_path` is the folder it was loaded from, which differs
    between a relative and an absolute model cache) and the transformers version (torch's is in the identity)."""
    fields = target.config.to_dict()
    kept = {
        key: value
        for key, value in fields.items()
        if not key.startswith("_") and key != "transformers_version"
    }
    return json.dumps(kept, sort_keys=True, default=str)


class CostMeasurement:
    """A measurement run one forward at a time (`step`), so a server can measure in the moments it is idle.

    Times verification forwards of each size after a `prefill_tokens` prefill, interleaving the sizes over
    `repeats` rounds and keeping each size's median; `result` holds the cost model once every forward has run."""

    def __init__(
        self,
        target: TargetModel,
        identity: dict[str, str],
        rows: Sequence[int] = TREE_ROWS,
        prefill_tokens: int = PREFILL_TOKENS,
        repeats: int = REPEATS,
        verifier: BatchVerifier | None = None,
    ) -> None:
        """`verifier`: how the forwards run (as the server runs them: eager, static or graphed; default eager),
        empty until the measurement has ended."""
        self.result: CostModel | None = None
        self._forwards = self._run(
            target, verifier or DynamicBatchVerifier(target), identity, rows, prefill_tokens, repeats
        )

    @torch.inference_mode()
    def step(self) -> bool:
        """Run the next forward (the first one: the prefill); True once the cost model is complete."""
        if self.result is None:
            try:
                next(self._forwards)
            except StopIteration as finished:
                self.result = finished.value
        return self.result is not None

    @staticmethod
    def _run(
        target: TargetModel,
        verifier: BatchVerifier,
        identity: dict[str, str],
        rows: Sequence[int],
        prefill_tokens: int,
        repeats: int,
    ) -> Generator[None, None, CostModel]:
        vocab = int(target.config.vocab_size)
        prompt = [1 + (7919 * position) % (vocab - 1) for position in range(prefill_tokens)]
        cache = KVCache()
        target.prefill(prompt, cache)
        verifier.add(cache)
        trees = {size: _chain(prompt[-1], size, vocab) for size in rows}
        yield  # each pause comes before a forward, so the step running the last one completes the result
        verifier.verify([trees[rows[-1]]])  # the first forward of a size pays for allocations
        times: dict[int, list[float]] = {size: [] for size in rows}
        for _ in range(repeats):
            for size in rows:
                yield
                started = synced_clock(target.device)
                verifier.verify([trees[size]])  # commits nothing: the prefix stays the same
                times[size].append(synced_clock(target.device) - started)
        verifier.remove(0)
        return CostModel(identity, tuple(rows), tuple(statistics.median(times[size]) for size in rows))


def measure(
    target: TargetModel,
    identity: dict[str, str],
    rows: Sequence[int] = TREE_ROWS,
    prefill_tokens: int = PREFILL_TOKENS,
    repeats: int = REPEATS,
    verifier: BatchVerifier | None = None,
) -> CostModel:
    """The whole measurement at once (`CostMeasurement` run to its end).

    The GPU check (`research.gpu_check`) times its Llama-3-8B-shaped model with this same function."""
    measurement = CostMeasurement(target, identity, rows, prefill_tokens, repeats, verifier)
    while not measurement.step():
        pass
    assert measurement.result is not None
    return measurement.result


def _chain(root: int, rows: int, vocab: int) -> DraftTree:
    tree = DraftTree(root)
    tree.add_path([1 + (104729 * depth) % (vocab - 1) for depth in range(1, rows)], "cost-model", ROOT)
    return tree


def load_or_measure(
    target: TargetModel,
    identity: dict[str, str],
    directory: Path | None,
    verifier: Callable[[], BatchVerifier] | None = None,
) -> CostModel:
    """The cached cost model of this identity, or a fresh measurement (stored when `directory` is writable) with
    the `verifier` made for it (default eager)."""
    cached = load_cached(identity, directory)
    if cached is not None:
        return cached
    log.info("measuring the verification cost model of %s on %s", identity["model"], identity["device"])
    model = measure(target, identity, verifier=None if verifier is None else verifier())
    store(model, directory)
    return model


def load_cached(identity: dict[str, str], directory: Path | None) -> CostModel | None:
    """The cost model of this identity cached in `directory`, if there is a readable one."""
    path = _path(identity, directory)
    if path is None or not path.is_file():
        return None
    cached = _read(path)
    return cached if cached is not None and cached.identity == identity else None


def store(model: CostModel, directory: Path | None) -> None:
    """Cache `model` in `directory` (None: nowhere), so that the next start reuses it."""
    path = _path(model.identity, directory)
    if path is not None:
        _write(path, model)


def _path(identity: dict[str, str], directory: Path | None) -> Path | None:
    return None if directory is None else directory / f"{_digest(identity)}.json"


def _digest(identity: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:24]


def _read(path: Path) -> CostModel | None:
    try:
        data = json.loads(path.read_text())
        return CostModel(data["identity"], tuple(data["rows"]), tuple(data["seconds"]))
    except (OSError, ValueError, KeyError, TypeError) as error:
        log.warning("ignoring the unreadable cost model %s: %s", path, error)
        return None


def _write(path: Path, model: CostModel) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(model.to_json(), indent=2))
        temporary.replace(path)
    except OSError as error:
        log.warning(
            "could not cache the cost model in %s (%s): it will be measured again at the next start",
            path,
            error,
        )
