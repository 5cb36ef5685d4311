"""Sign in (password or the hospital's SSO) and out, and who am I.

Login, the SSO redirects and the login page's configuration are (with health) the only routes open without a user.
"""

from html import escape
from typing import Annotated

import anyio
from fastapi import APIRouter, Cookie, Depends, HTTPException, Request, Response, status
from fastapi.responses import HTMLResponse, RedirectResponse
from starlette.concurrency import run_in_threadpool

from api.deps import SESSION_COOKIE, IdentityDep, SessionDep, SettingsDep
from api.schemas import AuthConfigOut, LoginRequest, SessionOut
from api.services import audit, oidc, sessions
from api.services import login as login_service
from api.settings import ApiSettings
from api.views import user_out

router = APIRouter(prefix="/api/auth", tags=["auth"])
LOGIN_WAIT = "login-wait"  # the Server-Timing metric of a login's delay before its password check


def _sso(request: Request) -> oidc.SingleSignOn:
    sso: oidc.SingleSignOn | None = request.app.state.sso
    if sso is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, oidc.OFF)
    return sso


SsoDep = Annotated[oidc.SingleSignOn, Depends(_sso)]


def _set_session_cookie(
    response: Response, request: Request, settings: ApiSettings, opened: sessions.OpenedSession
) -> None:
    secure = settings.cookie_is_secure(request.url.scheme)
    response.set_cookie(
        SESSION_COOKIE,
        opened.token,
        max_age=int(settings.session_hours * 3600),
        httponly=True,
        secure=secure,
        samesite="strict",
        path="/",
    )


@router.post(
    "/login",
    responses={
        401: {"description": "wrong name or password, or a disabled account"},
        429: {
            "description": "nginx's login rate per client address was exceeded (the API never refuses one)"
        },
    },
)
async def login(
    body: LoginRequest,
    request: Request,
    response: Response,
    db: SessionDep,
    settings: SettingsDep,
) -> SessionOut:
    """The client address is the proxy's X-Forwarded-For only when the proxy is in FORWARDED_ALLOW_IPS. Past a
    failure allowance the password is checked after a delay (services/login.py), which the answer names in its
    `Server-Timing: login-wait;dur=<ms>` header: the wait holds no thread."""
    client = request.client.host if request.client else "unknown"
    admitted = await run_in_threadpool(login_service.admit, db, settings, body.username, client)
    waited = {"Server-Timing": f"{LOGIN_WAIT};dur={round(admitted.delay * 1000)}"}
    await anyio.sleep(admitted.delay)
    try:
        done = await run_in_threadpool(
            login_service.check, db, settings, admitted, body.username, body.password
        )
    except login_service.LoginRefused as refused:
        await run_in_threadpool(
            audit.sign_in,
            db,
            body.username,
            client,
            refused.status,
            collapse_seconds=settings.login_window_seconds,
            failed_rows=settings.audit_failed_sign_in_rows,
        )
        raise HTTPException(refused.status, refused.detail, headers=waited) from None
    await run_in_threadpool(audit.sign_in, db, body.username, client, status.HTTP_200_OK)
    _set_session_cookie(response, request, settings, done.session)
    response.headers.update(waited)
    return SessionOut(user=user_out(done.user), csrf_token=done.session.csrf_token)


@router.get("/config")
def config(settings: SettingsDep) -> AuthConfigOut:
    return AuthConfigOut(sso=settings.oidc_enabled)


@router.get(
    "/oidc/login",
    response_class=RedirectResponse,
    status_code=status.HTTP_302_FOUND,
    responses={
        404: {"description": "SSO is off"},
        502: {"description": "the provider is unreachable (a Dutch HTML page)"},
    },
)
async def oidc_login(request: Request, sso: SsoDep) -> Response:
    """To the hospital's sign-in page; it sends the browser back to /api/auth/oidc/callback."""
    try:
        return await sso.redirect(request)
    except oidc.SsoRefused as refused:
        return HTMLResponse(_refusal_page(refused.detail), status_code=refused.status)


@router.get(
    "/oidc/callback",
    response_class=RedirectResponse,
    status_code=status.HTTP_303_SEE_OTHER,
    responses={
        400: {"description": "bad state, provider error or invalid ID token (a Dutch HTML page)"},
        403: {"description": "the account is unknown or disabled (a Dutch HTML page)"},
        404: {"description": "SSO is off"},
        502: {"description": "the provider is unreachable (a Dutch HTML page)"},
    },
)
async def oidc_callback(request: Request, db: SessionDep, settings: SettingsDep, sso: SsoDep) -> Response:
    """Opens the same cookie session as the password login and goes to the app; a refusal is a page, because
    the browser arrives here by navigation, not from the app's code. The audit entry is written on a thread: a
    slow database holds up this request only, not the other requests and streams of this process."""
    client = request.client.host if request.client else None
    try:
        done = await sso.sign_in(request, db)
    except oidc.SsoRefused as refused:
        await run_in_threadpool(
            audit.sign_in,
            db,
            "(sso)",
            client,
            refused.status,
            "oidc",
            collapse_seconds=settings.login_window_seconds,
            failed_rows=settings.audit_failed_sign_in_rows,
        )
        return HTMLResponse(_refusal_page(refused.detail), status_code=refused.status)
    await run_in_threadpool(audit.sign_in, db, done.user.username, client, status.HTTP_200_OK, "oidc")
    response = RedirectResponse("/", status_code=status.HTTP_303_SEE_OTHER)
    _set_session_cookie(response, request, settings, done.session)
    return response


def _refusal_page(message: str) -> str:
    return (
        '<!doctype html><html lang="nl"><head><meta charset="utf-8"><title>Aanmelden mislukt · Vraagbaak</title>'
        f'</head><body><main><h1>Aanmelden mislukt</h1><p role="alert">{escape(message)}</p>'
        '<p><a href="/">Terug naar aanmelden</a></p></main></body></html>'
    )


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
