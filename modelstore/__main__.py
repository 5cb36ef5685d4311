"""`python -m modelstore provision|list|fetch|check`: fill the offline model cache, or show what it holds;
fetch the production models into it and check that the configured ones are there."""

import argparse
import logging
import os
import sys
from pathlib import Path

from modelstore import production_cli
from modelstore.errors import ModelProvisioningError
from modelstore.production import ConfiguredModels
from modelstore.provision import model_states, provision
from modelstore.registry import REGISTRY, select

DEFAULT_CACHE = Path(".models")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    logging.getLogger("modelstore").setLevel(logging.INFO)
    try:
        if args.command == "provision":
            _provision(args.cache, list(REGISTRY) if args.all else args.only, args.verify, args.jobs)
        elif args.command in production_cli.COMMANDS:
            return production_cli.run(args)
        else:
            _list(args.cache)
    except ModelProvisioningError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"error: cannot use the model cache {args.cache}: {exc}", file=sys.stderr)
        return 1
    return 0


def _provision(cache: Path, only: list[str] | None, verify: bool, jobs: int) -> None:
    configured = ConfiguredModels().by_setting().values()
    for result in provision(select(only, configured), cache, verify=verify, jobs=jobs):
        action = "converted" if result.converted else "up to date"
        print(f"{result.name:<42} {action:<11} {result.seconds:7.1f} s  {result.folder}")


def _list(cache: Path) -> None:
    for state in model_states(REGISTRY.values(), cache):
        print(f"{state.name:<42} {state.status:<16} {state.folder}  ({state.purpose})")


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"a whole number of at least 1, not {text!r}")
    return int(text)


def _parser() -> argparse.ArgumentParser:
    default_cache = Path(os.environ.get("MODEL_CACHE", DEFAULT_CACHE))
    parser = argparse.ArgumentParser(prog="python -m modelstore", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    provision_command = commands.add_parser(
        "provision",
        help="convert the offline models that are not ready: the defaults, the test models and the optional ones "
        "that EMBEDDING_MODEL or GENERATOR_MODEL names",
    )
    chosen = provision_command.add_mutually_exclusive_group()
    chosen.add_argument("--only", nargs="+", metavar="NAME", choices=list(REGISTRY), help="just these")
    chosen.add_argument("--all", action="store_true", help="every model, the optional ones too")
    provision_command.add_argument(
        "--verify", action="store_true", help="re-check sha256 of every cached file"
    )
    provision_command.add_argument(
        "--jobs",
        type=_positive,
        default=2,
        help="models converted at once, each in its own process (default 2; 1 converts one after another)",
    )
    list_command = commands.add_parser("list", help="show each offline model, its status and folder")
    for command in (provision_command, list_command, *production_cli.add_commands(commands)):
        command.add_argument(
            "--cache", type=Path, default=default_cache, help=f"cache folder (default {default_cache})"
        )
    return parser


if __name__ == "__main__":
    sys.exit(main())
