"""Sign in and out, and who am I. Login is (with health) the only route open without a user."""

from typing import Annotated

from fastapi import APIRouter, Cookie, Depends, HTTPException, Request, Response, status

from api.deps import SESSION_COOKIE, IdentityDep, SessionDep, SettingsDep
from api.schemas import LoginRequest, SessionOut
from api.services import login as login_service
from api.services import sessions
from api.views import user_out

router = APIRouter(prefix="/api/auth", tags=["auth"])


def _throttle(request: Request) -> login_service.LoginThrottle:
    throttle: login_service.LoginThrottle = request.app.state.login_throttle
    return throttle


@router.post(
    "/login",
    responses={401: {"description": "wrong name or password"}, 403: {}, 429: {"description": "Retry-After"}},
)
def login(
    body: LoginRequest,
    request: Request,
    response: Response,
    db: SessionDep,
    settings: SettingsDep,
    throttle: Annotated[login_service.LoginThrottle, Depends(_throttle)],
) -> SessionOut:
    client = request.client.host if request.client else "unknown"
    try:
        done = login_service.login(db, settings, throttle, body.username, body.password, client)
    except login_service.LoginRefused as refused:
        headers = {"Retry-After": str(refused.retry_after)} if refused.retry_after else None
        raise HTTPException(refused.status, refused.detail, headers=headers) from None
    secure = settings.cookie_secure if settings.cookie_secure is not None else request.url.scheme == "https"
    response.set_cookie(
        SESSION_COOKIE,
        done.session.token,
        max_age=int(settings.session_hours * 3600),
        httponly=True,
        secure=secure,
        samesite="strict",
        path="/",
    )
    return SessionOut(user=user_out(done.user), csrf_token=done.session.csrf_token)


@router.post("/logout", status_code=status.HTTP_204_NO_CONTENT)
def logout(
    identity: IdentityDep,
    db: SessionDep,
    response: Response,
    cookie: Annotated[str | None, Cookie(alias=SESSION_COOKIE, include_in_schema=False)] = None,
) -> None:
    if identity.login is not None and cookie:
        sessions.close_session(db, cookie)
        db.commit()
    response.delete_cookie(SESSION_COOKIE, path="/")


@router.get("/me")
def me(identity: IdentityDep) -> SessionOut:
    csrf = identity.login.csrf_token if identity.login is not None else None
    return SessionOut(user=user_out(identity.user), csrf_token=csrf)
