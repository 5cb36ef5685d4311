"""Browser sessions and script tokens: opened at login, found per request, closed at logout, ended when idle
(sessions), expired or revoked (tokens), and all of a user's other sessions ended when the password changes."""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from api.models import ApiToken, LoginSession, User
from api.security import digest, new_token

# A token's last use is recorded at most this often (a write per request would serialise SQLite).
TOKEN_USE_RESOLUTION = timedelta(minutes=5)
# Likewise a session's last request, at most every minute and a quarter of the idle timeout.
SESSION_SEEN_RESOLUTION = timedelta(minutes=1)


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
        LoginSession(
            token_hash=digest(token),
            user_id=user.id,
            csrf_token=csrf,
            expires_at=now + lifetime,
            last_seen_at=now,
        )
    )
    db.flush()
    return OpenedSession(token, csrf, now + lifetime)


def find_session(db: Session, token: str, idle: timedelta) -> LoginSession | None:
    """The live session this cookie belongs to, or None (unknown, expired, or idle longer than `idle`, which
    ends it); notes this request as its last use."""
    login = db.get(LoginSession, digest(token))
    now = datetime.now(UTC)
    if login is None or aware(login.expires_at) <= now:
        return None
    seen = aware(login.last_seen_at)
    if now - seen > idle:
        db.delete(login)
        db.commit()
        return None
    if now - seen > min(SESSION_SEEN_RESOLUTION, idle / 4):
        login.last_seen_at = now
        db.commit()
    return login


def close_session(db: Session, token: str) -> None:
    db.execute(delete(LoginSession).where(LoginSession.token_hash == digest(token)))


def end_other_sessions(db: Session, user: User, keep: LoginSession | None = None) -> None:
    """Sign the user out of every browser session but `keep` (the one making the change, if it is theirs)."""
    ended = delete(LoginSession).where(LoginSession.user_id == user.id)
    if keep is not None and keep.user_id == user.id:
        ended = ended.where(LoginSession.token_hash != keep.token_hash)
    db.execute(ended)


def create_api_token(db: Session, user: User, name: str, lifetime: timedelta) -> str:
    """A new bearer token for scripts, valid for `lifetime`; the value is returned once and never stored."""
    token = new_token()
    expires = datetime.now(UTC) + lifetime
    db.add(ApiToken(user_id=user.id, name=name, token_hash=digest(token), expires_at=expires))
    db.flush()
    return token


def list_api_tokens(db: Session, user: User) -> list[ApiToken]:
    return list(db.scalars(select(ApiToken).where(ApiToken.user_id == user.id).order_by(ApiToken.id)))


def revoke_api_token(db: Session, token_id: int) -> ApiToken | None:
    """End the token now (kept, marked revoked, so the list still shows it); None when there is no such token."""
    row = db.get(ApiToken, token_id)
    if row is not None and row.revoked_at is None:
        row.revoked_at = datetime.now(UTC)
        db.flush()
    return row


def user_for_api_token(db: Session, token: str) -> User | None:
    """The user of a live token: known, not revoked, not expired."""
    row = db.scalars(select(ApiToken).where(ApiToken.token_hash == digest(token))).first()
    now = datetime.now(UTC)
    if row is None or row.revoked_at is not None or aware(row.expires_at) <= now:
        return None
    if row.last_used_at is None or now - aware(row.last_used_at) > TOKEN_USE_RESOLUTION:
        row.last_used_at = now
        db.commit()
    return db.get(User, row.user_id)
