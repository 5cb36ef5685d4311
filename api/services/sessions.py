"""Browser sessions and script tokens: opened at login, found per request, closed at logout."""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from api.models import ApiToken, LoginSession, User
from api.security import digest, new_token

# A token's last use is recorded at most this often (a write per request would serialise SQLite).
TOKEN_USE_RESOLUTION = timedelta(minutes=5)


@dataclass(frozen=True)
class OpenedSession:
    token: str
    csrf_token: str
    expires_at: datetime


def aware(moment: datetime) -> datetime:
    """SQLite returns naive datetimes even for timezone-aware columns; they were stored in UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def open_session(db: Session, user: User, lifetime: timedelta) -> OpenedSession:
    now = datetime.now(UTC)
    db.execute(delete(LoginSession).where(LoginSession.expires_at < now))
    token, csrf = new_token(), new_token()
    db.add(
        LoginSession(token_hash=digest(token), user_id=user.id, csrf_token=csrf, expires_at=now + lifetime)
    )
    db.flush()
    return OpenedSession(token, csrf, now + lifetime)


def find_session(db: Session, token: str) -> LoginSession | None:
    """The live session this cookie belongs to, or None (unknown or expired)."""
    login = db.get(LoginSession, digest(token))
    if login is None or aware(login.expires_at) <= datetime.now(UTC):
        return None
    return login


def close_session(db: Session, token: str) -> None:
    db.execute(delete(LoginSession).where(LoginSession.token_hash == digest(token)))


def create_api_token(db: Session, user: User, name: str) -> str:
    """A new bearer token for scripts; the value is returned once and never stored."""
    token = new_token()
    db.add(ApiToken(user_id=user.id, name=name, token_hash=digest(token)))
    db.flush()
    return token


def user_for_api_token(db: Session, token: str) -> User | None:
    row = db.scalars(select(ApiToken).where(ApiToken.token_hash == digest(token))).first()
    if row is None:
        return None
    now = datetime.now(UTC)
    if row.last_used_at is None or now - aware(row.last_used_at) > TOKEN_USE_RESOLUTION:
        row.last_used_at = now
        db.commit()
    return db.get(User, row.user_id)
