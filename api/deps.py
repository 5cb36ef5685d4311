"""FastAPI dependencies shared by the routes: the database session, the signed-in user, role checks.

A request is authenticated by a bearer token (scripts) or by the session cookie (the browser). With the cookie,
every unsafe method must also carry the session's CSRF token in `X-CSRF-Token` (a cross-site form cannot read
it); SameSite=Strict is the second fence.
"""

from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Path, Request, status
from fastapi.security import APIKeyCookie, HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session

from api.models import LoginSession, Role, User
from api.schemas import Text
from api.security import same_token
from api.services import sessions
from api.settings import ApiSettings
from ingest.database import get_engine
from ingest.search.backends import open_search_index
from ingest.search.types import SearchIndex

SESSION_COOKIE = "vraagbaak_session"
CSRF_HEADER = "X-CSRF-Token"
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})

NOT_SIGNED_IN = "Niet aangemeld. Meld je opnieuw aan."
BAD_CSRF = "Ongeldige of ontbrekende CSRF-token. Laad de pagina opnieuw."
DISABLED = "Dit account is uitgeschakeld."

# Ids are 32-bit INTEGER columns on PostgreSQL; a larger number in a path is refused (422), never queried.
MAX_ROW_ID = 2**31 - 1
RowId = Annotated[int, Path(ge=1, le=MAX_ROW_ID)]
DocumentId = Annotated[Text, Path(max_length=64)]

_bearer = HTTPBearer(auto_error=False, description="A token from `python -m api users token NAME`.")
_cookie = APIKeyCookie(name=SESSION_COOKIE, auto_error=False, description="Set by POST /api/auth/login.")


async def get_settings(request: Request) -> ApiSettings:
    """Async, as are the other dependencies that do no I/O: a sync one costs a trip through the thread pool."""
    settings: ApiSettings = request.app.state.settings
    return settings


SettingsDep = Annotated[ApiSettings, Depends(get_settings)]


def get_index(request: Request) -> SearchIndex:
    """The search index, opened at the first request that needs it (the Weaviate client is heavy)."""
    state = request.app.state
    with state.index_lock:
        if state.search_index is None:
            state.search_index = open_search_index(state.ingest_settings)
    index: SearchIndex = state.search_index
    return index


IndexDep = Annotated[SearchIndex, Depends(get_index)]


def get_db(settings: SettingsDep) -> Iterator[Session]:
    """One session per request; services flush, routes commit what they changed."""
    with Session(get_engine(settings.database_url), expire_on_commit=False) as session:
        yield session


SessionDep = Annotated[Session, Depends(get_db)]


@dataclass(frozen=True)
class Identity:
    """Who made the request, and the browser session it came with (None for a bearer token)."""

    user: User
    login: LoginSession | None


def _unauthorized(detail: str = NOT_SIGNED_IN) -> HTTPException:
    return HTTPException(status.HTTP_401_UNAUTHORIZED, detail, headers={"WWW-Authenticate": "Bearer"})


def identify(
    db: Session,
    settings: ApiSettings,
    method: str,
    bearer: str | None,
    cookie: str | None,
    csrf: str | None,
) -> Identity:
    """Who sent a request with this bearer token or session cookie (and, for an unsafe method with the cookie, its
    CSRF header); 401/403 as an HTTPException. Used by the routes (`IdentityDep`) and by the check that runs before
    a large body is read (`api.middleware.SignedInBeforeBody`)."""
    if bearer is not None:
        user = sessions.user_for_api_token(db, bearer)
        if user is None:
            raise _unauthorized()
        identity = Identity(user, None)
    elif cookie:
        login = sessions.find_session(db, cookie, timedelta(minutes=settings.session_idle_minutes))
        if login is None:
            raise _unauthorized()
        if method in UNSAFE_METHODS and not same_token(csrf, login.csrf_token):
            raise HTTPException(status.HTTP_403_FORBIDDEN, BAD_CSRF)
        found = db.get(User, login.user_id)
        if found is None:
            raise _unauthorized()
        identity = Identity(found, login)
    else:
        raise _unauthorized()
    if identity.user.disabled:
        raise HTTPException(status.HTTP_403_FORBIDDEN, DISABLED)
    return identity


@dataclass(frozen=True)
class Credentials:
    """What a request carries to say who sent it, read from its headers alone (no body, no database)."""

    method: str
    bearer: str | None
    cookie: str | None
    csrf: str | None

    @classmethod
    def of(cls, request: Request) -> "Credentials":
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        bearer = token.strip() if scheme.lower() == "bearer" and token.strip() else None
        return cls(
            request.method, bearer, request.cookies.get(SESSION_COOKIE), request.headers.get(CSRF_HEADER)
        )

    @property
    def given(self) -> bool:
        return self.bearer is not None or bool(self.cookie)

    def identify(self, db: Session, settings: ApiSettings) -> Identity:
        return identify(db, settings, self.method, self.bearer, self.cookie, self.csrf)


def current_identity(
    request: Request,
    db: SessionDep,
    settings: SettingsDep,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    cookie: Annotated[str | None, Depends(_cookie)],
) -> Identity:
    token = bearer.credentials if bearer is not None else None
    return identify(db, settings, request.method, token, cookie, request.headers.get(CSRF_HEADER))


IdentityDep = Annotated[Identity, Depends(current_identity)]


async def current_user(identity: IdentityDep) -> User:
    return identity.user


CurrentUser = Annotated[User, Depends(current_user)]


def check_role(user: User, *roles: Role) -> None:
    """403 unless the user holds any of these roles."""
    if not user.has_role(*roles):
        names = " of ".join(role.value for role in roles)
        raise HTTPException(status.HTTP_403_FORBIDDEN, f"Geen toegang: hiervoor is de rol {names} nodig.")


def require_role(*roles: Role) -> Callable[[User], Coroutine[Any, Any, User]]:
    """A dependency that lets through a user holding any of these roles, and refuses others with 403."""

    async def user_with_role(user: CurrentUser) -> User:
        check_role(user, *roles)
        return user

    return user_with_role


# Chat and feedback are the clinicians' (an admin or evaluator who also asks questions holds the role too); the
# documents every role works with (clinicians read them, admins manage them, evaluators label sets with them). An
# account whose roles were all removed reaches neither: only its own session (`/api/auth/me`, logout).
ClinicianUser = Annotated[User, Depends(require_role(Role.clinician))]
StaffUser = Annotated[User, Depends(require_role(*Role))]
AdminUser = Annotated[User, Depends(require_role(Role.admin))]
EvaluatorUser = Annotated[User, Depends(require_role(Role.evaluator))]
