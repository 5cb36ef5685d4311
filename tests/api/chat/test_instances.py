"""API processes know which of them are alive (the database's `api_instances`), on SQLite and PostgreSQL: an answer
left generating by a process that is gone is closed by a process that has beaten for a whole stale period itself
(not at once after a database outage, when every process was silent), and only a live process's answer can be
stopped or counts against the user's cap. The processes behind nginx: tests/deploy/test_replicas.py."""

from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.chat import instances, storage
from api.models import ApiInstance, Conversation, Message, MessageState, Role, User
from ingest.database import get_engine
from tests.api.conftest import add_user

STALE_SECONDS = 30.0


def _instance(db: Session, instance_id: str, silent_seconds: float) -> None:
    heartbeat = datetime.now(UTC) - timedelta(seconds=silent_seconds)
    db.add(ApiInstance(id=instance_id, started_at=heartbeat, heartbeat_at=heartbeat))


def _messages(database_url: str) -> tuple[User, dict[str, int]]:
    """Ann's answers: one generating on a live process, one on a process silent too long, one from before the
    instances were recorded (no process), and one finished."""
    user_id = add_user(database_url, "ann", Role.clinician)
    with Session(get_engine(database_url)) as db:
        _instance(db, "live", silent_seconds=1)
        _instance(db, "dead", silent_seconds=STALE_SECONDS + 1)
        conversation = Conversation(user_id=user_id, title="Vragen")
        db.add(conversation)
        db.flush()
        rows = {
            "live": Message(conversation_id=conversation.id, question="?", instance_id="live"),
            "dead": Message(conversation_id=conversation.id, question="?", instance_id="dead"),
            "none": Message(conversation_id=conversation.id, question="?", instance_id=None),
            "done": Message(conversation_id=conversation.id, question="?", state=MessageState.answered),
        }
        db.add_all(rows.values())
        db.commit()
        user = db.get(User, user_id)
        assert user is not None
        db.expunge(user)
        return user, {name: message.id for name, message in rows.items()}


def _states(database_url: str) -> dict[int, tuple[str, str | None]]:
    with Session(get_engine(database_url)) as db:
        return {m.id: (m.state, m.stop_reason) for m in db.scalars(select(Message))}


def test_the_first_beat_of_a_process_closes_no_answer(database_url: str) -> None:
    """At start or back from a database outage every other process was silent too: none is taken for dead yet."""
    _, ids = _messages(database_url)

    instances.start(database_url, STALE_SECONDS)

    states = _states(database_url)
    assert (
        states[ids["dead"]] == states[ids["none"]] == states[ids["live"]] == (MessageState.generating, None)
    )


def test_after_a_whole_stale_period_of_its_own_beats_a_process_closes_the_answers_of_processes_that_are_gone(
    database_url: str,
) -> None:
    _, ids = _messages(database_url)
    now = [0.0]
    heartbeat = instances.Heartbeat(database_url, STALE_SECONDS, clock=lambda: now[0])

    closed_at_first = heartbeat.beat()
    now[0] = STALE_SECONDS
    closed_later = heartbeat.beat()

    assert (closed_at_first, closed_later) == (0, 2)
    states = _states(database_url)
    assert states[ids["dead"]] == states[ids["none"]] == (MessageState.failed, instances.API_INTERRUPTED)
    assert states[ids["live"]] == (MessageState.generating, None)
    assert states[ids["done"]] == (MessageState.answered, None)
    with Session(get_engine(database_url)) as db:
        assert set(db.scalars(select(ApiInstance.id))) == {"live", instances.THIS_INSTANCE}


def test_only_an_answer_a_live_process_generates_can_be_stopped(database_url: str) -> None:
    user, ids = _messages(database_url)

    asked = {name: storage.request_stop(database_url, user, ids[name], STALE_SECONDS) for name in ids}

    assert asked == {"live": True, "dead": False, "none": False, "done": False}
    assert storage.stops_requested(database_url, list(ids.values())) == {ids["live"]}


def test_the_cap_counts_the_answers_other_live_processes_generate(database_url: str) -> None:
    user, _ = _messages(database_url)

    assert storage.answers_elsewhere(database_url, user.id, STALE_SECONDS) == 1  # the dead one does not count
