"""A clinician's conversations: create, list newest first, read with messages, delete; nobody sees another's."""

from fastapi.testclient import TestClient

from api.models import Role
from api.settings import ApiSettings
from tests.api.conftest import SignIn
from tests.api.stored_answers import source, store_answer


def test_create_list_read_and_delete(sign_in: SignIn, api_settings: ApiSettings) -> None:
    ann = sign_in("ann", Role.clinician)
    first = ann.post("/api/conversations", json={"title": "Insuline"}).json()
    second = ann.post("/api/conversations", json={}).json()
    store_answer(api_settings.database_url, first["id"], "dosis insuline?", [source("d1", "Insuline")])

    listed = ann.get("/api/conversations").json()
    detail = ann.get(f"/api/conversations/{first['id']}").json()

    assert [c["id"] for c in listed] == [second["id"], first["id"]]
    assert second["title"] == "Nieuw gesprek"
    assert detail["answer_found"] is None
    assert [m["question"] for m in detail["messages"]] == ["dosis insuline?"]
    assert detail["messages"][0]["sources"][0]["document_id"] == "d1"
    assert ann.delete(f"/api/conversations/{first['id']}").status_code == 204
    assert ann.get(f"/api/conversations/{first['id']}").status_code == 404


def test_another_users_conversation_is_not_found(sign_in: SignIn) -> None:
    ann, bob = sign_in("ann", Role.clinician), sign_in("bob", Role.clinician)
    conversation = ann.post("/api/conversations", json={"title": "van Ann"}).json()

    assert bob.get("/api/conversations").json() == []
    for response in (
        bob.get(f"/api/conversations/{conversation['id']}"),
        bob.delete(f"/api/conversations/{conversation['id']}"),
        bob.put(f"/api/conversations/{conversation['id']}/feedback", json={"answer_found": True}),
    ):
        assert response.status_code == 404
    assert ann.get(f"/api/conversations/{conversation['id']}").status_code == 200


def test_a_too_long_title_is_refused(sign_in: SignIn) -> None:
    ann: TestClient = sign_in("ann", Role.clinician)

    assert ann.post("/api/conversations", json={"title": "x" * 201}).status_code == 422


def test_every_moment_says_it_is_utc_so_a_browser_in_another_zone_reads_it_right(sign_in: SignIn) -> None:
    """SQLite hands back naive datetimes; sent without an offset, a browser in Brussels read 23:16 UTC as 23:16
    local time and put a conversation of tonight under "Gisteren"."""
    ann = sign_in("ann", Role.clinician)
    created = ann.post("/api/conversations", json={"title": "Insuline"}).json()
    listed = ann.get("/api/conversations").json()

    for moment in (
        created["created_at"],
        created["updated_at"],
        listed[0]["created_at"],
        listed[0]["updated_at"],
    ):
        assert moment.endswith(("Z", "+00:00")), moment
