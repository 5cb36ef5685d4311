"""Serving an adapted generator: the adapter is checked, applied and merged into the target's weights, so the
engine (tree verification, KV cache, EAGLE features) runs on a plain model and stays lossless."""

from pathlib import Path
from typing import cast

from transformers import PreTrainedModel

from modelstore.production import ModelUnavailable, require_model
from speculative.adapt.artifact import AdapterError, checked_record, verified_training

ADAPTER_SETTING = "GENERATOR_ADAPTER"


def adapter_folder(name: str, cache_dir: Path) -> Path:
    """The adapter's local folder: a cache entry of that name first (as `make models` installs it), else the
    path itself; never the hub, so a missing adapter stops the worker instead of serving the base model."""
    try:
        folder = Path(require_model(name, cache_dir, ADAPTER_SETTING))
    except ModelUnavailable as error:
        raise AdapterError(str(error)) from error
    if not folder.is_dir():
        raise AdapterError(
            f"{ADAPTER_SETTING}={name!r} is neither a folder nor an adapter in the model cache {cache_dir} "
            "(run `make models`)"
        )
    return folder


def merge_adapter(model: PreTrainedModel, folder: Path, base_name: str, base_folder: Path) -> PreTrainedModel:
    """`model` with the verified adapter at `folder` merged into its weights (AdapterError when it does not
    belong to `base_name` at `base_folder`)."""
    # Imported here: only an adapted generator needs peft (a GPU machine serving a plain model may lack it).
    from peft import PeftModel

    verified_training(folder, base_name, base_folder)
    adapted = PeftModel.from_pretrained(model, str(folder))
    return cast(PreTrainedModel, adapted.merge_and_unload())


def exit_unless_adapter_fits(adapter: str | None, base_name: str, cache_dir: Path) -> None:
    """Stop the worker at start when GENERATOR_ADAPTER is set but unusable, before any loading starts: an
    adapter that is missing, changed or made for another base model must never fall back to the plain model."""
    if adapter is None:
        return
    try:
        folder = adapter_folder(adapter, cache_dir)
        checked_record(folder, base_name)  # a wrong base model is named even when that model is not here
        verified_training(folder, base_name, Path(require_model(base_name, cache_dir, "GENERATOR_MODEL")))
    except AdapterError as error:
        raise SystemExit(f"error: {ADAPTER_SETTING}: {error}") from error
