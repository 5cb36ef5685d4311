"""What a verification forward costs on this device: measured once per model, device and dtype, then cached.

The adaptive budget weighs expected accepted tokens against time, so it needs the time of one target forward for
each tree size. That curve is the hardware's: on a 2-core CPU 2 rows already cost 2 single-token decodes (the
output layer's matrix-vector path ends at one row) and 64 rows about 5, on a datacentre GPU 64 rows cost about one;
it need not even rise monotonically (on that CPU an odd number of rows costs up to 30 % more than the next even
one: 3 rows more than 4, 13 more than 14), so every size is measured. It is measured after a typical prefill (attention over the context is part of the cost),
interleaving the sizes over several repeats and keeping the median, and stored as JSON keyed by everything that
changes it (model config, device, dtype, attention kernel, torch version), so a worker restart reuses it and a
change of any of them measures again.
"""

import hashlib
import json
import logging
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch

from modelstore.device import synced_clock
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


def model_identity(target: TargetModel, model_name: str, attention: str) -> dict[str, str]:
    """Everything a forward's cost depends on; the cache file is named after its digest."""
    config_digest = hashlib.sha256(_architecture(target).encode()).hexdigest()[:16]
    return {
        "model": model_name,
        "config": config_digest,
        "device": str(target.device),
        "dtype": str(target.dtype).removeprefix("torch."),
        "attention": attention,
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


@torch.inference_mode()
def measure(
    target: TargetModel,
    identity: dict[str, str],
    rows: Sequence[int] = TREE_ROWS,
    prefill_tokens: int = PREFILL_TOKENS,
    repeats: int = REPEATS,
) -> CostModel:
    """Time verification forwards of each size after a `prefill_tokens` prefill (median of interleaved repeats).

    The GPU check (`speculative.gpu_check`) times its Llama-3-8B-shaped model with this same function."""
    vocab = int(target.config.vocab_size)
    prompt = [1 + (7919 * position) % (vocab - 1) for position in range(prefill_tokens)]
    cache = KVCache()
    target.prefill(prompt, cache)
    trees = {size: _chain(prompt[-1], size, vocab) for size in rows}
    target.verify(trees[rows[-1]], cache)  # the first forward of a size pays for allocations
    cache.keep(prefill_tokens, ())
    times: dict[int, list[float]] = {size: [] for size in rows}
    for _ in range(repeats):
        for size in rows:
            started = synced_clock(target.device)
            target.verify(trees[size], cache)
            times[size].append(synced_clock(target.device) - started)
            cache.keep(prefill_tokens, ())
    return CostModel(identity, tuple(rows), tuple(statistics.median(times[size]) for size in rows))


def _chain(root: int, rows: int, vocab: int) -> DraftTree:
    tree = DraftTree(root)
    tree.add_path([1 + (104729 * depth) % (vocab - 1) for depth in range(1, rows)], "cost-model", ROOT)
    return tree


def load_or_measure(target: TargetModel, identity: dict[str, str], directory: Path | None) -> CostModel:
    """The cached cost model of this identity, or a fresh measurement (stored when `directory` is writable)."""
    path = None if directory is None else directory / f"{_digest(identity)}.json"
    if path is not None and path.is_file():
        cached = _read(path)
        if cached is not None and cached.identity == identity:
            return cached
    log.info("measuring the verification cost model of %s on %s", identity["model"], identity["device"])
    model = measure(target, identity)
    if path is not None:
        _write(path, model)
    return model


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
