"""Password login with limits on failed attempts, kept in the database so that every API process counts alike.

Three limits over one moving window: per name and client address (a user mistyping, or this account guessed from
this address), per address across names (one password tried against every name) and per name across addresses
(guesses spread over many machines). An attempt is written and committed *before* its password is checked, so
parallel guesses see each other and at most the limit of them reach the password check; a success is marked and
stops counting, but does not wipe earlier failures (no reward for a lucky guess).

Past the name-and-address limit the account is under attack from that address: 429 for any password. Past the
address-wide or account-wide limit, a name that signed in successfully from that address before (within
LOGIN_KNOWN_CLIENT_DAYS) is still checked, after a delay that doubles with each failure past the limit
(LOGIN_DELAY_SECONDS, at most LOGIN_MAX_DELAY_SECONDS): the nurses of a Citrix farm whose colleagues mistype, or
an admin whose name an attacker guesses from elsewhere, keep signing in; every other name gets 429 as before, so
spraying one password over names and guessing from new addresses stay bounded.
"""

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import NamedTuple, NoReturn

from sqlalchemy import ColumnElement, delete, func, select, update
from sqlalchemy.orm import Session

from api.models import KnownSignInClient, LoginAttempt, User
from api.services import sessions, users
from api.settings import ApiSettings

WRONG_LOGIN = "Onbekende gebruikersnaam of verkeerd wachtwoord."
# Said only after single sign-on, where the provider has already proved who it is; a password login never says it.
DISABLED = "Dit account is uitgeschakeld."
TOO_MANY = "Te veel mislukte aanmeldpogingen. Probeer het later opnieuw."
CLIENT_LENGTH = 64


class LoginRefused(Exception):
    def __init__(self, status: int, detail: str, retry_after: int | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.retry_after = retry_after


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
    """Record the attempt and apply the limits: `LoginRefused` (429) or how long to wait before checking it."""
    name, address = username.strip().lower()[:150], client[:CLIENT_LENGTH]
    now = datetime.now(UTC)
    since = now - timedelta(seconds=settings.login_window_seconds)
    attempt_id = _record_attempt(db, name, address, now, since)
    own = _failures(db, since, LoginAttempt.username == name, LoginAttempt.client == address)
    if own.failed > settings.login_attempts:
        _refuse(db, settings, attempt_id, own.oldest, now)
    wide_limits = (
        (settings.login_attempts_per_address, LoginAttempt.client == address),
        (settings.login_attempts_per_account, LoginAttempt.username == name),
    )
    wide = [  # (failures past the limit, the oldest of them) of each address- or account-wide limit passed
        (counted.failed - limit, counted.oldest)
        for limit, condition in wide_limits
        if (counted := _failures(db, since, condition)).failed > limit
    ]
    if not wide:
        return Admitted(attempt_id, name, address, 0.0)
    if not _known(db, settings, name, address, now):
        _refuse(db, settings, attempt_id, min(oldest for _, oldest in wide), now)
    excess = max(past for past, _ in wide)
    delay = min(settings.login_max_delay_seconds, settings.login_delay_seconds * 2 ** (excess - 1))
    return Admitted(attempt_id, name, address, delay)


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


class _Counted(NamedTuple):
    failed: int
    oldest: datetime


def _record_attempt(db: Session, username: str, client: str, now: datetime, since: datetime) -> int:
    """Commit the attempt before anything is counted, so parallel attempts see each other."""
    db.execute(delete(LoginAttempt).where(LoginAttempt.at < since))
    attempt = LoginAttempt(username=username, client=client, at=now)
    db.add(attempt)
    db.flush()
    attempt_id = attempt.id
    db.commit()
    return attempt_id


def _failures(db: Session, since: datetime, *conditions: ColumnElement[bool]) -> _Counted:
    counted, oldest = db.execute(
        select(func.count(), func.min(LoginAttempt.at)).where(
            LoginAttempt.at >= since, LoginAttempt.succeeded.is_(False), *conditions
        )
    ).one()
    return _Counted(int(counted), sessions.aware(oldest) if oldest is not None else datetime.now(UTC))


def _refuse(db: Session, settings: ApiSettings, attempt_id: int, oldest: datetime, now: datetime) -> NoReturn:
    """Past a limit the attempt is removed again (it was never checked) and refused until the window moves on."""
    db.execute(delete(LoginAttempt).where(LoginAttempt.id == attempt_id))
    db.commit()
    ends = oldest + timedelta(seconds=settings.login_window_seconds)
    raise LoginRefused(429, TOO_MANY, max(1, math.ceil((ends - now).total_seconds())))


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
