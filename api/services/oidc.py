"""Single sign-on with the hospital's OpenID Connect provider: the authorization code flow with PKCE.

authlib does the protocol: discovery, state, nonce and the PKCE verifier (kept in a signed cookie that lives ten
minutes, so any API process can finish a login another one started), the code exchange, and the ID token's
checks (signature against the provider's JWKS, issuer, audience, expiry, nonce). This module decides which
Vraagbaak user the token's subject is: a user an admin linked to it, or, only when OIDC_AUTO_PROVISION allows,
a new clinician. Roles are never taken from the provider, so SSO cannot make anyone an admin or evaluator.
"""

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from authlib.integrations.base_client import MismatchingStateError, OAuthError
from authlib.integrations.httpx_client._compat import httpx2  # the HTTP library authlib talks through
from authlib.integrations.starlette_client import OAuth, StarletteOAuth2App
from joserfc.errors import JoseError
from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse

from api.models import Role, User
from api.services import sessions, users
from api.services.errors import ServiceError
from api.services.login import DISABLED, LoggedIn
from api.settings import ApiSettings

log = logging.getLogger(__name__)

CALLBACK_PATH = "/api/auth/oidc/callback"
FLOW_COOKIE = "vraagbaak_oidc"
FLOW_SECONDS = 600
PROVIDER_TIMEOUT_SECONDS = 10
MAX_USERNAME_LENGTH = 150  # users.username

OFF = "Aanmelden met het ziekenhuisaccount is niet ingeschakeld."
BAD_STATE = "Deze aanmelding is verlopen of niet in deze browser begonnen. Probeer opnieuw."
PROVIDER_REFUSED = "Het ziekenhuisaccount heeft de aanmelding geweigerd of afgebroken. Probeer opnieuw."
BAD_TOKEN = "Het ziekenhuisaccount gaf een ongeldig aanmeldbewijs. Probeer opnieuw of meld de fout."
UNREACHABLE = "De aanmeldserver van het ziekenhuis is niet bereikbaar. Probeer het later opnieuw."
NOT_LINKED = "Je ziekenhuisaccount heeft (nog) geen toegang tot Vraagbaak. Vraag een beheerder om toegang."
NAME_TAKEN = (
    "Er bestaat al een Vraagbaak-account met jouw naam dat niet aan je ziekenhuisaccount gekoppeld is. "
    "Vraag een beheerder om de twee te koppelen."
)


class SsoRefused(ServiceError):
    """A sign-in through the provider that cannot go on; the message is for the clinician (Dutch)."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status


class SingleSignOn:
    """The provider as configured in the settings; one per app, created only when OIDC is on."""

    def __init__(self, settings: ApiSettings) -> None:
        assert settings.oidc_issuer and settings.oidc_client_secret and settings.oidc_redirect_base_url
        self._settings = settings
        self._issuer = settings.oidc_issuer
        self._client_id = settings.oidc_client_id
        self.redirect_uri = settings.oidc_redirect_base_url.rstrip("/") + CALLBACK_PATH
        client = OAuth().register(
            "hospital",
            client_id=settings.oidc_client_id,
            client_secret=settings.oidc_client_secret.get_secret_value(),
            server_metadata_url=self._issuer.rstrip("/") + "/.well-known/openid-configuration",
            client_kwargs={
                "scope": settings.oidc_scopes,
                "code_challenge_method": "S256",
                "timeout": PROVIDER_TIMEOUT_SECONDS,
            },
        )
        assert isinstance(client, StarletteOAuth2App)
        self._client = client

    async def redirect(self, request: Request) -> RedirectResponse:
        """To the provider's sign-in page; state, nonce and PKCE verifier go into the flow cookie."""
        try:
            response: RedirectResponse = await self._client.authorize_redirect(request, self.redirect_uri)
        except httpx2.HTTPError as error:
            log.warning("OIDC discovery at %s failed: %s", self._issuer, error)
            raise SsoRefused(502, UNREACHABLE) from None
        return response

    async def sign_in(self, request: Request, db: Session) -> LoggedIn:
        """Finish the provider's redirect back: a browser session for the user the ID token names."""
        claims = await self._verified_claims(request)
        return await run_in_threadpool(sign_in_subject, db, self._settings, claims)

    async def _verified_claims(self, request: Request) -> dict[str, Any]:
        try:
            token = await self._client.authorize_access_token(
                request,
                claims_options={
                    "iss": {"essential": True, "value": self._issuer},
                    "aud": {"essential": True, "value": self._client_id},
                },
            )
        except MismatchingStateError:
            raise SsoRefused(400, BAD_STATE) from None
        except OAuthError as error:
            log.warning("OIDC provider refused the sign-in: %s %s", error.error, error.description)
            raise SsoRefused(400, PROVIDER_REFUSED) from None
        except JoseError as error:
            log.warning("OIDC ID token refused: %r", error)
            raise SsoRefused(400, BAD_TOKEN) from None
        except httpx2.HTTPError as error:
            log.warning("OIDC provider %s unreachable or failing: %s", self._issuer, error)
            raise SsoRefused(502, UNREACHABLE) from None
        if "userinfo" not in token:
            log.warning("OIDC token response without an ID token")
            raise SsoRefused(400, BAD_TOKEN)
        return dict(token["userinfo"])


@dataclass(frozen=True)
class _Subject:
    sub: str
    username: str | None


def sign_in_subject(db: Session, settings: ApiSettings, claims: dict[str, Any]) -> LoggedIn:
    """The user linked to the verified subject (or a new clinician, when auto-provisioning is on), signed in."""
    subject = _Subject(str(claims["sub"]), _claimed_username(claims, settings.oidc_username_claim))
    user = db.scalars(select(User).where(User.oidc_subject == subject.sub)).first()
    if user is None:
        user = _provision(db, settings, subject)
    if user.disabled:
        raise SsoRefused(403, DISABLED)
    opened = sessions.open_session(db, user, timedelta(hours=settings.session_hours))
    db.commit()
    return LoggedIn(user, opened)


def _claimed_username(claims: dict[str, Any], claim: str) -> str | None:
    value = claims.get(claim)
    if not isinstance(value, str) or not value.strip() or len(value.strip()) > MAX_USERNAME_LENGTH:
        return None
    return value.strip()


def _provision(db: Session, settings: ApiSettings, subject: _Subject) -> User:
    """A new clinician for an unlinked subject, never taking over an existing account with the same name."""
    if not settings.oidc_auto_provision or subject.username is None:
        log.info("OIDC subject %s (%s) is linked to no user", subject.sub, subject.username)
        raise SsoRefused(403, NOT_LINKED)
    if users.find_user(db, subject.username) is not None:
        raise SsoRefused(403, NAME_TAKEN)
    user = users.create_user(db, subject.username, None, [Role.clinician], oidc_subject=subject.sub)
    log.info("OIDC subject %s provisioned as clinician %s", subject.sub, user.username)
    return user
