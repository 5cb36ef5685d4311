"""Every route of the app has an authentication rule, and the app enforces it.

The table below is the rule book: a route added without a line here fails `test_every_route_has_a_rule`, and
each line is checked against the running app: anonymous requests get 401 (except public routes), users without
the role get 403, users with it get through, and with the session cookie no unsafe method works without the
CSRF header.
"""

import re
from datetime import timedelta
from enum import Enum

import pytest
from fastapi import FastAPI
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session
from starlette.routing import Mount

from api.deps import CSRF_HEADER
from api.models import Role
from api.services import sessions, users
from api.settings import ApiSettings
from ingest.database import get_engine
from tests.api.conftest import SignIn, add_user


class Rule(Enum):
    PUBLIC = "anyone"
    USER = "any signed-in user"
    STAFF = "any role"
    CLINICIAN = "role clinician"
    ADMIN = "role admin"
    EVALUATOR = "role evaluator"


RULES: dict[tuple[str, str], Rule] = {
    ("GET", "/api/health"): Rule.PUBLIC,
    ("POST", "/api/auth/login"): Rule.PUBLIC,
    ("GET", "/api/auth/config"): Rule.PUBLIC,
    ("GET", "/api/auth/oidc/login"): Rule.PUBLIC,
    ("GET", "/api/auth/oidc/callback"): Rule.PUBLIC,
    ("GET", "/api/openapi.json"): Rule.USER,
    ("POST", "/api/auth/logout"): Rule.USER,
    ("GET", "/api/auth/me"): Rule.USER,
    ("GET", "/api/conversations"): Rule.CLINICIAN,
    ("POST", "/api/conversations"): Rule.CLINICIAN,
    ("GET", "/api/conversations/{conversation_id}"): Rule.CLINICIAN,
    ("DELETE", "/api/conversations/{conversation_id}"): Rule.CLINICIAN,
    ("PUT", "/api/conversations/{conversation_id}/feedback"): Rule.CLINICIAN,
    ("POST", "/api/conversations/{conversation_id}/messages"): Rule.CLINICIAN,
    ("POST", "/api/messages/{message_id}/stop"): Rule.CLINICIAN,
    ("PUT", "/api/messages/{message_id}/feedback/{document_id}"): Rule.CLINICIAN,
    ("GET", "/api/documents"): Rule.STAFF,
    ("GET", "/api/documents/{document_id}"): Rule.STAFF,
    ("GET", "/api/documents/{document_id}/file"): Rule.STAFF,
    ("GET", "/api/documents/{document_id}/original"): Rule.STAFF,
    ("GET", "/api/documents/{document_id}/passages/{chunk_index}"): Rule.STAFF,
    ("POST", "/api/admin/uploads"): Rule.ADMIN,
    ("GET", "/api/admin/jobs"): Rule.ADMIN,
    ("GET", "/api/admin/jobs/{job_id}"): Rule.ADMIN,
    ("DELETE", "/api/admin/documents/{document_id}"): Rule.ADMIN,
    ("POST", "/api/admin/documents/{document_id}/reindex"): Rule.ADMIN,
    ("POST", "/api/admin/documents/{document_id}/version"): Rule.ADMIN,
    ("GET", "/api/admin/users"): Rule.ADMIN,
    ("POST", "/api/admin/users"): Rule.ADMIN,
    ("PATCH", "/api/admin/users/{user_id}"): Rule.ADMIN,
    ("GET", "/api/admin/users/{user_id}/tokens"): Rule.ADMIN,
    ("DELETE", "/api/admin/tokens/{token_id}"): Rule.ADMIN,
    ("GET", "/api/admin/audit"): Rule.ADMIN,
    ("GET", "/api/evaluator/feedback.csv"): Rule.EVALUATOR,
    ("GET", "/api/evaluator/feedback-set.csv"): Rule.EVALUATOR,
    ("POST", "/api/evaluator/sets"): Rule.EVALUATOR,
    ("GET", "/api/evaluator/sets"): Rule.EVALUATOR,
    ("POST", "/api/evaluator/reports"): Rule.EVALUATOR,
    ("GET", "/api/evaluator/reports"): Rule.EVALUATOR,
    ("GET", "/api/evaluator/reports/{report_id}"): Rule.EVALUATOR,
    ("GET", "/api/evaluator/reports/{report_id}/files/{name}"): Rule.EVALUATOR,
}

# Who is refused each role rule: everyone else holds every other role (an account with no role holds none).
OTHERS = {
    Rule.STAFF: (),
    Rule.CLINICIAN: (Role.admin, Role.evaluator),
    Rule.ADMIN: (Role.clinician, Role.evaluator),
    Rule.EVALUATOR: (Role.clinician, Role.admin),
}
HOLDERS = {
    Rule.USER: (),
    Rule.STAFF: (Role.evaluator,),
    Rule.CLINICIAN: (Role.clinician,),
    Rule.ADMIN: (Role.admin,),
    Rule.EVALUATOR: (Role.evaluator,),
}
UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}
DENIED = {401, 403}


def app_routes(app: FastAPI) -> set[tuple[str, str]]:
    """Every (method, path) the app answers; FastAPI keeps included routers as branches, so walk them."""
    routes = set()
    for route in iter_route_contexts(app.routes):
        if isinstance(route.original_route, Mount):
            routes.add(("GET", f"{route.path}/{{path}}"))
        for method in route.methods or ():
            if method != "HEAD":
                routes.add((method, route.path))
    return routes


def concrete(path: str) -> str:
    """A request path for a route: ids that exist nowhere, so an allowed request ends in 404 or 422 at most."""
    return re.sub(r"\{[^}]+\}", "999999", path)


def _bearer(database_url: str, username: str, *roles: Role) -> dict[str, str]:
    add_user(database_url, username, *roles)
    with Session(get_engine(database_url)) as db:
        token = sessions.create_api_token(
            db, users.require_user(db, username), "route table", timedelta(days=1)
        )
        db.commit()
    return {"Authorization": f"Bearer {token}"}


def test_every_route_has_a_rule(app: FastAPI) -> None:
    unruled = sorted(app_routes(app) - set(RULES))

    assert unruled == [], "add these routes to RULES (and check them in the app)"


def test_the_app_enforces_every_rule(app: FastAPI, api_settings: ApiSettings) -> None:
    anonymous = TestClient(app)
    url = api_settings.database_url
    holders = {rule: _bearer(url, f"holds-{rule.name}", *roles) for rule, roles in HOLDERS.items()}
    others = {rule: _bearer(url, f"lacks-{rule.name}", *roles) for rule, roles in OTHERS.items()}
    failures = []
    for method, path in sorted(app_routes(app) & set(RULES)):
        rule, target = RULES[(method, path)], concrete(path)
        status = anonymous.request(method, target, json={}).status_code
        if (rule is Rule.PUBLIC) == (status == 401):
            failures.append(f"{method} {path} anonymous: {status}")
        if rule in others:
            status = anonymous.request(method, target, json={}, headers=others[rule]).status_code
            if status != 403:
                failures.append(f"{method} {path} without {rule.value}: {status}")
        if rule in holders:
            status = anonymous.request(method, target, json={}, headers=holders[rule]).status_code
            if status in DENIED:
                failures.append(f"{method} {path} with {rule.value}: {status}")

    assert failures == []


@pytest.mark.parametrize("with_token", [False, True])
def test_no_unsafe_route_works_with_the_cookie_alone(app: FastAPI, sign_in: SignIn, with_token: bool) -> None:
    browser = sign_in("everything", Role.clinician, Role.admin, Role.evaluator)
    token = browser.headers.pop(CSRF_HEADER)
    headers = {CSRF_HEADER: token} if with_token else {}
    refused = []
    for method, path in sorted(app_routes(app) & set(RULES)):
        if method in UNSAFE and RULES[(method, path)] is not Rule.PUBLIC:
            status = browser.request(method, concrete(path), json={}, headers=headers).status_code
            if (status == 403) != (not with_token):
                refused.append(f"{method} {path}: {status}")

    assert refused == []
