"""`python -m speculative.worker`: serve the configured model on WORKER_HOST:WORKER_PORT (settings from the
environment, see .env.example)."""

import argparse
import logging
from collections.abc import Sequence
from pathlib import Path

import uvicorn

from modelstore.production import exit_unless_loadable, require_model
from speculative.adapt.merge import exit_unless_adapter_fits
from speculative.drafters.registry import MethodUnavailableError, available_methods, check_method
from speculative.settings import SpeculativeSettings
from speculative.worker.app import create_app
from speculative.worker.memory import free_bytes, memory_refusal


def main(argv: Sequence[str] | None = None) -> None:
    # No options: the parser gives `--help` and refuses a stray argument instead of starting a server.
    argparse.ArgumentParser(prog="python -m speculative.worker", description=__doc__).parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = SpeculativeSettings()
    try:
        check_method(settings.draft_method, available_methods(settings))
    except MethodUnavailableError as error:
        raise SystemExit(f"error: DRAFT_METHOD={settings.draft_method}: {error}") from None
    exit_unless_loadable(
        {"GENERATOR_MODEL": settings.generator_model, "EAGLE_HEAD": settings.eagle_head}, settings.model_cache
    )
    exit_unless_adapter_fits(settings.generator_adapter, settings.generator_model, settings.model_cache)
    exit_unless_memory_suffices(settings)
    uvicorn.run(create_app(settings), host=settings.worker_host, port=settings.worker_port)


def exit_unless_memory_suffices(settings: SpeculativeSettings) -> None:
    """Stop at start, naming the memory needed and free, when the generator cannot be held on its device."""
    folder = Path(require_model(settings.generator_model, settings.model_cache, "GENERATOR_MODEL"))
    if not folder.is_dir():
        return
    refusal = memory_refusal(
        f"GENERATOR_MODEL={settings.generator_model}",
        folder,
        settings.dtype,
        settings.device,
        free_bytes(settings.device),
    )
    if refusal is not None:
        raise SystemExit(f"error: {refusal}")


if __name__ == "__main__":
    main()
