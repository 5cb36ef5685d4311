"""`python -m api [serve|migrate|downgrade]`: run the web API, or create / remove the database schema."""

import argparse
import logging

import uvicorn

from api import schema
from api.app import create_app
from api.settings import ApiSettings

log = logging.getLogger("api")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m api", description=__doc__)
    parser.add_argument("command", nargs="?", default="serve", choices=["serve", "migrate", "downgrade"])
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    settings = ApiSettings()
    if args.command == "migrate":
        schema.migrate(settings.database_url)
        log.info("database schema is up to date")
    elif args.command == "downgrade":
        schema.downgrade(settings.database_url)
        log.info("all tables removed")
    else:
        schema.migrate(settings.database_url)
        print(f"Vraagbaak API on http://{settings.api_host}:{settings.api_port}", flush=True)
        uvicorn.run(create_app(settings), host=settings.api_host, port=settings.api_port)


if __name__ == "__main__":
    main()
