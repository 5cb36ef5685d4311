"""Password login with limits on failed attempts, kept in the database so that every API process counts alike.

Three limits over one moving window: per name and client address (a user mistyping), per address across names (one
password tried against every name) and per name across addresses (guesses spread over many machines). An attempt
is written and committed *before* its password is checked, so parallel guesses see each other and at most the
limit of them reach the password check; a success is marked and stops counting, but does not wipe earlier
failures (no reward for a lucky guess).
"""

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import ColumnElement, delete, func, select, update
from sqlalchemy.orm import Session

from api.models import LoginAttempt, User
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


def login(db: Session, settings: ApiSettings, username: str, password: str, client: str) -> LoggedIn:
    """A disabled account answers exactly as a wrong password: the password says nothing about the account."""
    attempt = _record_attempt(db, settings, username.strip().lower()[:150], client[:CLIENT_LENGTH])
    user = users.check_login(db, username, password)
    if user is None or user.disabled:
        db.commit()  # a rehashed password of a disabled account is still worth keeping
        raise LoginRefused(401, WRONG_LOGIN)
    db.execute(update(LoginAttempt).where(LoginAttempt.id == attempt).values(succeeded=True))
    opened = sessions.open_session(db, user, timedelta(hours=settings.session_hours))
    db.commit()
    return LoggedIn(user, opened)


def _record_attempt(db: Session, settings: ApiSettings, username: str, client: str) -> int:
    """Commit the attempt, then count it with the others: past the limit it is removed again and refused."""
    now = datetime.now(UTC)
    since = now - timedelta(seconds=settings.login_window_seconds)
    db.execute(delete(LoginAttempt).where(LoginAttempt.at < since))
    attempt = LoginAttempt(username=username, client=client, at=now)
    db.add(attempt)
    db.flush()
    attempt_id = attempt.id
    db.commit()
    limits: list[tuple[int, list[ColumnElement[bool]]]] = [
        (settings.login_attempts, [LoginAttempt.username == username, LoginAttempt.client == client]),
        (settings.login_attempts_per_address, [LoginAttempt.client == client]),
        (settings.login_attempts_per_account, [LoginAttempt.username == username]),
    ]
    for limit, conditions in limits:
        counted, oldest = db.execute(
            select(func.count(), func.min(LoginAttempt.at)).where(
                LoginAttempt.at >= since, LoginAttempt.succeeded.is_(False), *conditions
            )
        ).one()
        if counted > limit:
            db.execute(delete(LoginAttempt).where(LoginAttempt.id == attempt_id))
            db.commit()
            ends = sessions.aware(oldest) + timedelta(seconds=settings.login_window_seconds)
            raise LoginRefused(429, TOO_MANY, max(1, math.ceil((ends - now).total_seconds())))
    return attempt_id
