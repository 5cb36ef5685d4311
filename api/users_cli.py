"""`python -m api users add|list|disable|enable|set-roles|password|token|tokens|revoke-token|link|unlink`: accounts
and API tokens from the command line. Every change is written to the audit log (actor: the command line).

Passwords are read without echo from the terminal, or as one line from standard input when it is not a
terminal (scripts: `printf '%s\\n' "$PW" | python -m api users add NAME --role admin`).
"""

import argparse
import getpass
import sys
from datetime import UTC, datetime, timedelta

from sqlalchemy.orm import Session

from api.models import Role
from api.services import audit, sessions, users
from api.settings import ApiSettings
from ingest.database import get_engine


def add_parser(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = commands.add_parser("users", help="manage accounts")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    add = actions.add_parser("add", help="create a user (asks for the password)")
    add.add_argument("username")
    add.add_argument("--role", action="append", choices=[r.value for r in Role], default=[], dest="roles")
    add.add_argument(
        "--if-missing", action="store_true", help="do nothing when the user exists (scripts, demo)"
    )
    actions.add_parser("list", help="every user with roles and state")
    for name, text in (("disable", "sign a user out and refuse logins"), ("enable", "allow logins again")):
        actions.add_parser(name, help=text).add_argument("username")
    set_roles = actions.add_parser("set-roles", help="replace a user's roles")
    set_roles.add_argument("username")
    set_roles.add_argument("roles", nargs="+", choices=[r.value for r in Role])
    actions.add_parser("password", help="set a new password (ends the user's sessions)").add_argument(
        "username"
    )
    token = actions.add_parser("token", help="print a new bearer token for scripts")
    token.add_argument("username")
    token.add_argument("--name", default="script", help="what the token is for")
    token.add_argument(
        "--days", type=float, default=None, help="days until it expires (default: API_TOKEN_DAYS, 90)"
    )
    actions.add_parser("tokens", help="list a user's tokens (id, name, expiry, state)").add_argument(
        "username"
    )
    revoke = actions.add_parser("revoke-token", help="end a token now (its id from `tokens`)")
    revoke.add_argument("token_id", type=int)
    link = actions.add_parser("link", help="let a hospital (OIDC) account sign in as this user")
    link.add_argument("username")
    link.add_argument("subject", help="the account's `sub` claim at the OIDC provider")
    actions.add_parser("unlink", help="stop the hospital account's sign-in").add_argument("username")


def run(settings: ApiSettings, arguments: argparse.Namespace) -> int:
    with Session(get_engine(settings.database_url)) as db:
        try:
            output = _ACTIONS[arguments.action](db, arguments, settings)
        except users.UserError as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
        if arguments.action not in _READ_ONLY:
            target = getattr(arguments, "username", None) or f"token {arguments.token_id}"
            audit.record(db, audit.CLI_ACTOR, f"cli.{arguments.action}", target)
        db.commit()
    if output:
        print(output)
    return 0


def _read_password() -> str:
    if sys.stdin.isatty():
        first = getpass.getpass("wachtwoord: ")
        if getpass.getpass("nogmaals: ") != first:
            raise users.UserError("de wachtwoorden verschillen")
        return first
    return sys.stdin.readline().rstrip("\n")


def _add(db: Session, arguments: argparse.Namespace, _settings: ApiSettings) -> str:
    if arguments.if_missing and users.find_user(db, arguments.username) is not None:
        return f"{arguments.username} exists; left unchanged"
    roles = users.parse_roles(arguments.roles or [Role.clinician.value])
    user = users.create_user(db, arguments.username, _read_password(), roles)
    return f"created {user.username} ({', '.join(sorted(user.roles))})"


def _list(db: Session, _arguments: argparse.Namespace, _settings: ApiSettings) -> str:
    return "\n".join(
        f"{user.username}\t{','.join(sorted(user.roles)) or '-'}\t{'disabled' if user.disabled else 'active'}"
        for user in users.list_users(db)
    )


def _disable(db: Session, arguments: argparse.Namespace, _settings: ApiSettings) -> str:
    users.set_disabled(db, users.require_user(db, arguments.username), True)
    return f"disabled {arguments.username}"


def _enable(db: Session, arguments: argparse.Namespace, _settings: ApiSettings) -> str:
    users.set_disabled(db, users.require_user(db, arguments.username), False)
    return f"enabled {arguments.username}"


def _set_roles(db: Session, arguments: argparse.Namespace, _settings: ApiSettings) -> str:
    user = users.require_user(db, arguments.username)
    users.set_roles(db, user, users.parse_roles(arguments.roles))
    return f"{user.username}: {', '.join(sorted(user.roles))}"


def _password(db: Session, arguments: argparse.Namespace, _settings: ApiSettings) -> str:
    users.set_password(db, users.require_user(db, arguments.username), _read_password())
    return f"password of {arguments.username} changed"


def _token(db: Session, arguments: argparse.Namespace, settings: ApiSettings) -> str:
    days = arguments.days if arguments.days is not None else settings.api_token_days
    if days <= 0:
        raise users.UserError("--days moet groter dan 0 zijn")
    user = users.require_user(db, arguments.username)
    return sessions.create_api_token(db, user, arguments.name, timedelta(days=days))


def _tokens(db: Session, arguments: argparse.Namespace, _settings: ApiSettings) -> str:
    now = datetime.now(UTC)
    lines = []
    for token in sessions.list_api_tokens(db, users.require_user(db, arguments.username)):
        expires = sessions.aware(token.expires_at)
        state = "revoked" if token.revoked_at else "expired" if expires <= now else "active"
        lines.append(f"{token.id}\t{token.name}\t{state}\texpires {expires:%Y-%m-%d %H:%M} UTC")
    return "\n".join(lines) or f"{arguments.username} has no tokens"


def _revoke_token(db: Session, arguments: argparse.Namespace, _settings: ApiSettings) -> str:
    if sessions.revoke_api_token(db, arguments.token_id) is None:
        raise users.UserError(f"token {arguments.token_id} bestaat niet")
    return f"token {arguments.token_id} revoked"


def _link(db: Session, arguments: argparse.Namespace, _settings: ApiSettings) -> str:
    users.link_subject(db, users.require_user(db, arguments.username), arguments.subject)
    return f"{arguments.username} signs in with OIDC subject {arguments.subject.strip()}"


def _unlink(db: Session, arguments: argparse.Namespace, _settings: ApiSettings) -> str:
    users.link_subject(db, users.require_user(db, arguments.username), None)
    return f"{arguments.username} no longer signs in with OIDC"


_ACTIONS = {
    "add": _add,
    "list": _list,
    "disable": _disable,
    "enable": _enable,
    "set-roles": _set_roles,
    "password": _password,
    "token": _token,
    "tokens": _tokens,
    "revoke-token": _revoke_token,
    "link": _link,
    "unlink": _unlink,
}
_READ_ONLY = frozenset({"list", "tokens"})
