"""Password login with a limit on failed attempts per name and client address (a moving window)."""

import math
import time
from dataclasses import dataclass
from datetime import timedelta

from limits import RateLimitItemPerSecond
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from sqlalchemy.orm import Session

from api.models import User
from api.services import sessions, users
from api.settings import ApiSettings

WRONG_LOGIN = "Onbekende gebruikersnaam of verkeerd wachtwoord."
DISABLED = "Dit account is uitgeschakeld."
TOO_MANY = "Te veel mislukte aanmeldpogingen. Probeer het later opnieuw."


class LoginRefused(Exception):
    def __init__(self, status: int, detail: str, retry_after: int | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.retry_after = retry_after


class LoginThrottle:
    """Counts failed logins per (name, address); a success does not reset the count (no guessing reward)."""

    def __init__(self, attempts: int, window_seconds: int) -> None:
        self._limit = RateLimitItemPerSecond(attempts, window_seconds)
        self._limiter = MovingWindowRateLimiter(MemoryStorage())

    def check(self, key: str) -> None:
        if not self._limiter.test(self._limit, key):
            reset = self._limiter.get_window_stats(self._limit, key).reset_time
            raise LoginRefused(429, TOO_MANY, max(1, math.ceil(reset - time.time())))

    def failed(self, key: str) -> None:
        self._limiter.hit(self._limit, key)


@dataclass(frozen=True)
class LoggedIn:
    user: User
    session: sessions.OpenedSession


def login(
    db: Session, settings: ApiSettings, throttle: LoginThrottle, username: str, password: str, client: str
) -> LoggedIn:
    key = f"{username.strip().lower()}|{client}"
    throttle.check(key)
    user = users.check_login(db, username, password)
    if user is None:
        throttle.failed(key)
        raise LoginRefused(401, WRONG_LOGIN)
    if user.disabled:
        raise LoginRefused(403, DISABLED)
    opened = sessions.open_session(db, user, timedelta(hours=settings.session_hours))
    db.commit()
    return LoggedIn(user, opened)
