"""Text a client sends may not hold a NUL character: PostgreSQL cannot store one (SQLite can), so it is refused
with 422 at the edge, alike on both databases, instead of crashing a query with a 500."""

from fastapi.testclient import TestClient

from api.models import Role
from tests.api.conftest import SignIn


def test_a_username_with_a_nul_is_refused_at_login(client: TestClient) -> None:
    response = client.post("/api/auth/login", json={"username": "ann\x00", "password": "secret"})

    assert response.status_code == 422
    assert "NUL" in response.text


def test_a_new_account_with_a_nul_in_its_name_is_refused(sign_in: SignIn) -> None:
    admin = sign_in("ada", Role.admin)

    response = admin.post("/api/admin/users", json={"username": "\x00", "password": "long enough password"})

    assert response.status_code == 422
    assert admin.get("/api/admin/users").status_code == 200


def test_a_document_search_or_id_with_a_nul_is_refused(sign_in: SignIn) -> None:
    clinician = sign_in("cas", Role.clinician)

    assert clinician.get("/api/documents", params={"q": "hand\x00hygiene"}).status_code == 422
    assert clinician.get("/api/documents/abc%00def").status_code == 422
    assert clinician.get("/api/documents", params={"q": "handhygiene"}).status_code == 200


def test_a_conversation_title_or_question_with_a_nul_is_refused(sign_in: SignIn) -> None:
    clinician = sign_in("cas", Role.clinician)

    assert clinician.post("/api/conversations", json={"title": "a\x00b"}).status_code == 422
    conversation = clinician.post("/api/conversations", json={"title": "Handhygiëne"}).json()
    question = clinician.post(
        f"/api/conversations/{conversation['id']}/messages", json={"question": "Wat\x00 is handhygiëne?"}
    )
    assert question.status_code == 422
