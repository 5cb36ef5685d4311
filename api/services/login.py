"""Password login slowed down, never refused, by earlier failures, counted in the database so that every API
process counts alike.

Failures within one moving window are counted three ways: per name and client address (a user mistyping, or this
account guessed from this address), per address across names (one password tried against many names) and per name
across addresses (guesses spread over many machines). An attempt is written and committed *before* its password
is checked, and counts as a failure until it succeeds, so parallel guesses see each other; a success is marked and
stops counting, but does not wipe earlier failures (no reward for a lucky guess).

Past a count's allowance (LOGIN_ATTEMPTS, LOGIN_ATTEMPTS_PER_ADDRESS, LOGIN_ATTEMPTS_PER_ACCOUNT) the password is
checked after a delay that doubles with each further failure (LOGIN_DELAY_SECONDS, at most
LOGIN_MAX_DELAY_SECONDS), and then answered as usual: a correct password always signs in, at worst after the
longest delay, so nobody behind a shared VDI/NAT address is locked out by a colleague's mistakes or an attacker's
guesses, and new staff sign in at a busy address. A name that signed in from that address before (within
LOGIN_KNOWN_CLIENT_DAYS) waits only for its own failures there, not for those of the address or the account. A
guessing script waits that long for every guess past the allowances; how many it can send at once from one address
is nginx's login rate (NGINX_LOGIN_RATE_PER_MINUTE).
"""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import ColumnElement, delete, func, select, update
from sqlalchemy.orm import Session

from api.models import KnownSignInClient, LoginAttempt, User
from api.services import sessions, users
from api.settings import ApiSettings

WRONG_LOGIN = "Onbekende gebruikersnaam of verkeerd wachtwoord."
# Said only after single sign-on, where the provider has already proved who it is; a password login never says it.
DISABLED = "Dit account is uitgeschakeld."
CLIENT_LENGTH = 64


class LoginRefused(Exception):
    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


@dataclass(frozen=True)
class LoggedIn:
    user: User
    session: sessions.OpenedSession


@dataclass(frozen=True)
class Admitted:
    """An attempt let through to its password check, after `delay` seconds (0: at once)."""

    attempt_id: int
    username: str
    client: str
    delay: float


def admit(db: Session, settings: ApiSettings, username: str, client: str) -> Admitted:
    """Record the attempt and count the failures before it: how long to wait before checking its password."""
    name, address = username.strip().lower()[:150], client[:CLIENT_LENGTH]
    now = datetime.now(UTC)
    since = now - timedelta(seconds=settings.login_window_seconds)
    attempt_id = _record_attempt(db, name, address, now, since)
    counts: list[tuple[int, tuple[ColumnElement[bool], ...]]] = [
        (settings.login_attempts, (LoginAttempt.username == name, LoginAttempt.client == address))
    ]
    if not _known(db, settings, name, address, now):
        counts += [
            (settings.login_attempts_per_address, (LoginAttempt.client == address,)),
            (settings.login_attempts_per_account, (LoginAttempt.username == name,)),
        ]
    excess = max(_failures(db, since, *conditions) - allowance for allowance, conditions in counts)
    return Admitted(attempt_id, name, address, delay_after(settings, excess))


def delay_after(settings: ApiSettings, excess: int) -> float:
    """The wait before a password check that is `excess` failures past an allowance (0 or less: none)."""
    if excess <= 0:
        return 0.0
    return min(settings.login_max_delay_seconds, settings.login_delay_seconds * 2 ** min(excess - 1, 64))


def check(db: Session, settings: ApiSettings, admitted: Admitted, username: str, password: str) -> LoggedIn:
    """A disabled account answers exactly as a wrong password: the password says nothing about the account."""
    user = users.check_login(db, username, password)
    if user is None or user.disabled:
        db.commit()  # a rehashed password of a disabled account is still worth keeping
        raise LoginRefused(401, WRONG_LOGIN)
    now = datetime.now(UTC)
    db.execute(update(LoginAttempt).where(LoginAttempt.id == admitted.attempt_id).values(succeeded=True))
    _remember_client(db, settings, admitted.username, admitted.client, now)
    opened = sessions.open_session(db, user, timedelta(hours=settings.session_hours))
    db.commit()
    return LoggedIn(user, opened)


def _record_attempt(db: Session, username: str, client: str, now: datetime, since: datetime) -> int:
    """Commit the attempt before anything is counted, so parallel attempts see each other."""
    db.execute(delete(LoginAttempt).where(LoginAttempt.at < since))
    attempt = LoginAttempt(username=username, client=client, at=now)
    db.add(attempt)
    db.flush()
    attempt_id = attempt.id
    db.commit()
    return attempt_id


def _failures(db: Session, since: datetime, *conditions: ColumnElement[bool]) -> int:
    """Attempts within the window that did not succeed (failed, or still being checked), this one included."""
    return int(
        db.execute(
            select(func.count()).where(
                LoginAttempt.at >= since, LoginAttempt.succeeded.is_(False), *conditions
            )
        ).scalar_one()
    )


def _known(db: Session, settings: ApiSettings, username: str, client: str, now: datetime) -> bool:
    cutoff = now - timedelta(days=settings.login_known_client_days)
    known = db.get(KnownSignInClient, (username, client))
    return known is not None and sessions.aware(known.last_at) >= cutoff


def _remember_client(db: Session, settings: ApiSettings, username: str, client: str, now: datetime) -> None:
    """This account signed in from this address now; addresses not used for LOGIN_KNOWN_CLIENT_DAYS are forgotten."""
    db.execute(
        delete(KnownSignInClient).where(
            KnownSignInClient.last_at < now - timedelta(days=settings.login_known_client_days)
        )
    )
    known = db.get(KnownSignInClient, (username, client))
    if known is None:
        db.add(KnownSignInClient(username=username, client=client, last_at=now))
    else:
        known.last_at = now
