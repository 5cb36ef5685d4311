"""Users and their roles: create, list, disable, set roles and passwords, check a login."""

from collections.abc import Iterable

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from api.models import LoginSession, Role, User, UserRole
from api.security import hash_password, verify_password
from api.services import sessions
from api.services.errors import Invalid

MIN_PASSWORD_LENGTH = 10


class UserError(Invalid):
    """A request about users that cannot be done; the message is shown to the person asking (Dutch)."""


class UserExists(UserError):
    status = 409


def parse_roles(names: Iterable[str]) -> frozenset[Role]:
    roles = set()
    for name in names:
        try:
            roles.add(Role(name.strip()))
        except ValueError:
            raise UserError(f"onbekende rol {name!r}; kies uit {', '.join(r.value for r in Role)}") from None
    return frozenset(roles)


def _check_password(password: str) -> None:
    if len(password) < MIN_PASSWORD_LENGTH:
        raise UserError(f"het wachtwoord moet minstens {MIN_PASSWORD_LENGTH} tekens lang zijn")


def create_user(
    db: Session, username: str, password: str | None, roles: Iterable[Role], oidc_subject: str | None = None
) -> User:
    username = username.strip()
    if not username:
        raise UserError("een gebruikersnaam is verplicht")
    if find_user(db, username) is not None:
        raise UserExists(f"gebruiker {username!r} bestaat al")
    if password is not None:
        _check_password(password)
    user = User(
        username=username,
        password_hash=hash_password(password) if password is not None else None,
        disabled=False,
        oidc_subject=oidc_subject,
    )
    user.role_rows = [UserRole(role=role.value) for role in sorted(set(roles))]
    db.add(user)
    db.flush()
    return user


def find_user(db: Session, username: str) -> User | None:
    return db.scalars(select(User).where(User.username == username.strip())).first()


def get_user(db: Session, user_id: int) -> User | None:
    return db.get(User, user_id)


def require_user(db: Session, username: str) -> User:
    user = find_user(db, username)
    if user is None:
        raise UserError(f"gebruiker {username!r} bestaat niet")
    return user


def list_users(db: Session) -> list[User]:
    return list(db.scalars(select(User).order_by(User.username)))


def set_roles(db: Session, user: User, roles: Iterable[Role]) -> None:
    wanted = set(roles)
    user.role_rows = [row for row in user.role_rows if row.role in wanted]
    user.role_rows.extend(UserRole(role=role.value) for role in sorted(wanted - user.roles))
    db.flush()


def set_disabled(db: Session, user: User, disabled: bool) -> None:
    """A disabled user is signed out everywhere at once."""
    user.disabled = disabled
    if disabled:
        db.execute(delete(LoginSession).where(LoginSession.user_id == user.id))
    db.flush()


def set_password(db: Session, user: User, password: str, keep: LoginSession | None = None) -> None:
    """A new password signs the user out of every other browser session (whoever knew the old one is out)."""
    _check_password(password)
    user.password_hash = hash_password(password)
    sessions.end_other_sessions(db, user, keep)
    db.flush()


def link_subject(db: Session, user: User, subject: str | None) -> None:
    """Lets the provider account with this OIDC subject sign in as the user (None: unlinks it)."""
    if subject is not None:
        subject = subject.strip()
        if not subject:
            raise UserError("een OIDC-subject mag niet leeg zijn")
        holder = db.scalars(select(User).where(User.oidc_subject == subject)).first()
        if holder is not None and holder.id != user.id:
            raise UserExists(f"dit OIDC-subject is al gekoppeld aan {holder.username!r}")
    user.oidc_subject = subject
    db.flush()


def check_login(db: Session, username: str, password: str) -> User | None:
    """The user whose name and password match (disabled or not), else None; rehashes outdated hashes."""
    user = find_user(db, username)
    valid, updated_hash = verify_password(password, user.password_hash if user else None)
    if user is None or not valid:
        return None
    if updated_hash is not None:
        user.password_hash = updated_hash
        db.flush()
    return user
