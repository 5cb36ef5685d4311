"""Training state files (`*.state.pt`, `training_state.pt`) read back for a resumed run: tensors, numbers,
strings and containers only (`torch.load(weights_only=True)`), never pickled code, so a state file planted in an
output folder cannot run anything when a run resumes."""

import pickle
from pathlib import Path
from typing import Any

import torch


class CheckpointError(ValueError):
    """The file is not a training state this program wrote (it holds more than tensors and plain values)."""


def load_training_state(path: Path, map_location: str | torch.device) -> dict[str, Any]:
    try:
        state = torch.load(path, map_location=map_location, weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError) as error:
        raise CheckpointError(
            f"{path} is not a training state of this program (it holds more than tensors and plain values, "
            f"or is damaged): delete it or give another output folder ({error.__class__.__name__})"
        ) from None
    if not isinstance(state, dict):
        raise CheckpointError(f"{path} is not a training state of this program: delete it")
    return state
