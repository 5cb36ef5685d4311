"""`python -m api [serve|reports|migrate|downgrade|users …]`: run the web API or the report runner, manage the
schema or the accounts.

The API and the report runner (and the embedder they load) are imported only by the commands that run them, so
managing the schema or an account starts in a second, not after loading the whole app (4 s on 2 cores)."""

import argparse
import logging
import sys

from sqlalchemy import make_url

from api import database_schema, users_cli
from api.settings import ApiSettings

log = logging.getLogger("api")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m api", description=__doc__)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("serve", help="run the API (the default; migrates first)")
    commands.add_parser("reports", help="run the evaluation reports the API queues (migrates first)")
    commands.add_parser("migrate", help="create or update the database schema")
    downgrade = commands.add_parser("downgrade", help="remove every table (asks first)")
    downgrade.add_argument("--yes", action="store_true", help="do not ask (scripts)")
    users_cli.add_parser(commands)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    settings = ApiSettings()
    if args.command == "migrate":
        database_schema.migrate(settings.database_url)
        log.info("database schema is up to date")
    elif args.command == "downgrade":
        if not (args.yes or _confirmed(settings.database_url)):
            print("nothing removed", file=sys.stderr)
            return 1
        database_schema.downgrade(settings.database_url)
        log.info("all tables removed")
    elif args.command == "reports":
        from api import report_runner

        database_schema.migrate(settings.database_url)
        return report_runner.main(settings)
    elif args.command == "users":
        database_schema.migrate(settings.database_url)
        return users_cli.run(settings, args)
    else:
        return _serve(settings)
    return 0


def _serve(settings: ApiSettings) -> int:
    """Check the secrets, the models and the index, migrate, then serve the API until stopped."""
    import uvicorn

    from api.app import create_app
    from ingest.embedding import exit_unless_embedder_loadable
    from ingest.reembed import exit_unless_index_matches_embedder
    from ingest.rerank import exit_unless_reranker_loadable
    from ingest.settings import IngestSettings

    ingest_settings = IngestSettings(database_url=settings.database_url)
    placeholders = settings.placeholder_secrets(ingest_settings)
    if placeholders:
        log.error("%s still hold the change-me placeholder of .env.example: set real secrets", placeholders)
        return 2
    exit_unless_embedder_loadable(ingest_settings)
    exit_unless_index_matches_embedder(ingest_settings)
    exit_unless_reranker_loadable(ingest_settings)
    database_schema.migrate(settings.database_url)
    print(f"Vraagbaak API on http://{settings.api_host}:{settings.api_port}", flush=True)
    uvicorn.run(
        create_app(settings, ingest_settings),
        host=settings.api_host,
        port=settings.api_port,
        proxy_headers=True,
        forwarded_allow_ips=settings.forwarded_allow_ips,
    )
    return 0


def _confirmed(database_url: str) -> bool:
    """Every table and all data go: only on an explicit yes (no answer, as from a script without --yes: no)."""
    where = make_url(database_url).render_as_string(hide_password=True)
    try:
        answer = input(f"Remove every table and ALL data of {where}? Type yes to continue: ")
    except EOFError:
        return False
    return answer.strip().lower() == "yes"


if __name__ == "__main__":
    sys.exit(main())
