"""A real OpenID Connect provider for the SSO tests, on loopback: authlib's own authorization server (the
authorization code grant with PKCE and the OpenID Connect extension), a generated RSA key published as JWKS,
discovery, and an authorize endpoint that consents at once for whoever is signed in at the provider.

A test chooses who that is (`signed_in`, None = the person cancels, so the provider answers `access_denied`) and
can make the provider misbehave as a broken or hostile one would: other claims in the ID token (`id_token_claims`:
expired, another audience or issuer) or an ID token whose payload was changed after signing (`forge_subject`).
"""

import base64
import json
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from authlib.oauth2.rfc6749 import AuthorizationServer, ClientMixin, OAuth2Error, OAuth2Request
from authlib.oauth2.rfc6749.grants import AuthorizationCodeGrant
from authlib.oauth2.rfc6749.requests import BasicOAuth2Payload
from authlib.oauth2.rfc6750 import BearerTokenGenerator
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oidc.core import UserInfo
from authlib.oidc.core.grants import OpenIDCode
from authlib.oidc.core.models import AuthorizationCodeMixin
from joserfc.jwk import KeySet, RSAKey
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.api.chat.servers import api_server

CLIENT_ID = "vraagbaak"
CLIENT_SECRET = "client secret of the test provider"


@dataclass(frozen=True)
class Account:
    """A person signed in at the provider."""

    sub: str
    preferred_username: str


@dataclass(frozen=True)
class Client(ClientMixin):
    """Vraagbaak as registered at the provider: a confidential client with one exact redirect URI."""

    client_id: str
    client_secret: str
    redirect_uri: str

    def get_client_id(self) -> str:
        return self.client_id

    def get_default_redirect_uri(self) -> str:
        return self.redirect_uri

    def get_allowed_scope(self, scope: str) -> str:
        return " ".join(part for part in scope.split() if part in {"openid", "profile", "email"})

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        return redirect_uri == self.redirect_uri

    def check_client_secret(self, client_secret: str) -> bool:
        return secrets.compare_digest(client_secret, self.client_secret)

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        return method in {"client_secret_basic", "client_secret_post"}

    def check_response_type(self, response_type: str) -> bool:
        return response_type == "code"

    def check_grant_type(self, grant_type: str) -> bool:
        return grant_type == "authorization_code"


@dataclass(frozen=True)
class Code(AuthorizationCodeMixin):
    code: str
    client_id: str
    redirect_uri: str
    scope: str
    account: Account
    nonce: str | None
    code_challenge: str | None
    code_challenge_method: str | None

    def get_redirect_uri(self) -> str:
        return self.redirect_uri

    def get_scope(self) -> str:
        return self.scope

    def get_nonce(self) -> str | None:
        return self.nonce

    def get_auth_time(self) -> None:
        return None


class _Request(OAuth2Request):
    """An HTTP request as authlib's server reads it (its own integrations exist for Flask and Django only)."""

    def __init__(self, request: Request, params: dict[str, str]) -> None:
        super().__init__(request.method, str(request.url), headers=request.headers)
        self.payload = BasicOAuth2Payload(params)
        self._params = params

    @property
    def args(self) -> dict[str, str]:
        return self._params

    @property
    def form(self) -> dict[str, str]:
        return self._params


class Provider(AuthorizationServer):
    def __init__(self, issuer: str, redirect_uri: str) -> None:
        super().__init__(scopes_supported=["openid", "profile", "email"])
        self.issuer = issuer
        self.client = Client(CLIENT_ID, CLIENT_SECRET, redirect_uri)
        self.key = RSAKey.generate_key(2048, parameters={"kid": "test-key", "use": "sig"})
        self.codes: dict[str, Code] = {}
        self.signed_in: Account | None = None
        self.id_token_claims: dict[str, Any] = {}
        self.forge_subject: str | None = None
        self.register_token_generator("default", BearerTokenGenerator(lambda **_: secrets.token_urlsafe(32)))
        self.register_grant(_CodeGrant, [CodeChallenge(required=True), _IdTokens(self)])

    def query_client(self, client_id: str) -> Client | None:
        return self.client if client_id == self.client.client_id else None

    def save_token(self, token: dict[str, Any], request: OAuth2Request) -> None:
        """Access tokens are not used after the exchange (Vraagbaak reads only the ID token)."""

    def create_oauth2_request(self, request: OAuth2Request) -> OAuth2Request:
        return request

    def handle_response(self, status: int, body: Any, headers: list[tuple[str, str]]) -> Response:
        content = json.dumps(body) if isinstance(body, dict) else body
        return Response(content, status_code=status, headers=dict(headers))

    def send_signal(self, name: str, *args: Any, **kwargs: Any) -> None:
        """No one listens to the server's signals here."""

    def discovery(self) -> dict[str, Any]:
        return {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "jwks_uri": f"{self.issuer}/jwks",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        }

    def forged(self, id_token: str) -> str:
        """The same signature over a payload that names another subject: what an attacker would send."""
        header, payload, signature = id_token.split(".")
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        claims["sub"] = self.forge_subject
        changed = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
        return f"{header}.{changed}.{signature}"


class _CodeGrant(AuthorizationCodeGrant):
    server: Provider

    def save_authorization_code(self, code: str, request: OAuth2Request) -> None:
        data = request.payload.data
        self.server.codes[code] = Code(
            code=code,
            client_id=request.client.get_client_id(),
            redirect_uri=request.payload.redirect_uri,
            scope=request.scope,
            account=request.user,
            nonce=data.get("nonce"),
            code_challenge=data.get("code_challenge"),
            code_challenge_method=data.get("code_challenge_method"),
        )

    def query_authorization_code(self, code: str, client: Client) -> Code | None:
        found = self.server.codes.get(code)
        return found if found is not None and found.client_id == client.client_id else None

    def delete_authorization_code(self, authorization_code: Code) -> None:
        self.server.codes.pop(authorization_code.code, None)

    def authenticate_user(self, authorization_code: Code) -> Account:
        return authorization_code.account


class _IdTokens(OpenIDCode):
    def __init__(self, provider: Provider) -> None:
        super().__init__(require_nonce=True)
        self.provider = provider

    def exists_nonce(self, nonce: str, request: OAuth2Request) -> bool:
        return any(code.nonce == nonce for code in self.provider.codes.values())

    def resolve_client_private_key(self, client: Client) -> RSAKey:
        return self.provider.key

    def get_client_algorithm(self, client: Client) -> str:
        return "RS256"

    def get_encode_header(self, client: Client) -> dict[str, str]:
        return {"alg": "RS256", "kid": "test-key"}

    def get_client_claims(self, client: Client) -> dict[str, Any]:
        return {"iss": self.provider.issuer, "aud": [client.client_id], **self.provider.id_token_claims}

    def generate_user_info(self, user: Account, scope: str) -> UserInfo:
        return UserInfo(sub=user.sub, preferred_username=user.preferred_username)


def _app(provider: Provider) -> Starlette:
    async def discovery(_request: Request) -> JSONResponse:
        return JSONResponse(provider.discovery())

    async def jwks(_request: Request) -> JSONResponse:
        return JSONResponse(KeySet([provider.key]).as_dict(private=False))

    async def authorize(request: Request) -> Response:
        """Consents at once for the account signed in at the provider; none signed in = the person cancelled."""
        oauth_request = _Request(request, dict(request.query_params))
        try:
            grant = provider.get_consent_grant(oauth_request, end_user=provider.signed_in)
        except OAuth2Error as error:
            return JSONResponse(dict(error.get_body()), status_code=error.status_code)
        response: Response = provider.create_authorization_response(
            oauth_request, grant_user=provider.signed_in, grant=grant
        )
        return response

    async def token(request: Request) -> Response:
        form = await request.form()
        response: Response = provider.create_token_response(
            _Request(request, {key: str(value) for key, value in form.items()})
        )
        if provider.forge_subject is None or response.status_code != 200:
            return response
        body = json.loads(bytes(response.body))
        body["id_token"] = provider.forged(body["id_token"])
        return JSONResponse(body, headers={"Cache-Control": "no-store"})

    return Starlette(
        routes=[
            Route("/.well-known/openid-configuration", discovery),
            Route("/jwks", jwks),
            Route("/authorize", authorize),
            Route("/token", token, methods=["POST"]),
        ]
    )


@contextmanager
def running_provider(redirect_uri: str) -> Iterator[Provider]:
    """The provider under uvicorn on a free loopback port; its issuer is its base URL."""
    provider = Provider("http://placeholder", redirect_uri)
    with api_server(_app(provider)) as url:
        provider.issuer = url
        yield provider
