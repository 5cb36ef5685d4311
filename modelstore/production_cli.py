"""The `fetch` and `check` commands of `python -m modelstore` (production models; see `production`)."""

import argparse
import os
from pathlib import Path
from typing import Any

from modelstore.production import ConfiguredModels, ModelUnavailable, fetch, require_model

COMMANDS = ("fetch", "check")


def add_commands(commands: Any) -> list[argparse.ArgumentParser]:
    """Register the commands on the `python -m modelstore` sub-parsers; return them for shared options."""
    fetch_command = commands.add_parser(
        "fetch",
        help="download (or copy --from a folder) the configured production models into the cache and verify them",
    )
    fetch_command.add_argument(
        "--from", dest="source", type=Path, help="copy from this folder instead of downloading (no internet)"
    )
    fetch_command.add_argument(
        "--models",
        nargs="+",
        metavar="NAME",
        help="these instead of EMBEDDING_MODEL, RERANKER_MODEL, GENERATOR_MODEL, EAGLE_HEAD",
    )
    check_command = commands.add_parser(
        "check", help="exit 1, naming each one, when a configured model cannot be loaded"
    )
    return [fetch_command, check_command]


def run(args: argparse.Namespace) -> int:
    configured = ConfiguredModels()
    if args.command == "fetch":
        names = args.models or list(configured.by_setting().values())
        if not names:
            print(
                "nothing to fetch: set EMBEDDING_MODEL, RERANKER_MODEL, GENERATOR_MODEL or EAGLE_HEAD, or pass --models"
            )
            return 1
        for result in fetch(names, args.cache, args.source, os.environ.get("HF_TOKEN") or None):
            action = f"fetched from {result.source}" if result.copied else "already in the cache, verified"
            print(f"{result.name:<42} {action}  {result.folder}")
        return 0
    if not configured.by_setting():
        print(
            "no model configured: EMBEDDING_MODEL, GENERATOR_MODEL and EAGLE_HEAD are unset (the services use their defaults)"
        )
    missing = 0
    for setting, name in configured.by_setting().items():
        try:
            print(f"{setting:<16} {name:<42} ok  {require_model(name, args.cache, setting)}")
        except ModelUnavailable as error:
            print(f"{setting:<16} {name:<42} MISSING: {error}")
            missing += 1
    return 1 if missing else 0
