"""API processes know which of them are alive (the database's `api_instances`), on SQLite and PostgreSQL: an answer
left generating by a process that is gone is closed by a process that has beaten for a whole stale period itself
(not at once after a database outage, when every process was silent), and only a live process's answer
counts against the user's cap. A stop is recorded for every answer that may still stream: a live process's, and
one whose process is silent or was taken for dead (it may only have lost the database, and stops once it reads the
stop); the owner sees it. The processes behind nginx: tests/deploy/test_replicas.py."""

from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.chat import instances, storage
from api.models import ApiInstance, Conversation, Message, MessageState, Role, User
from api.routes.chat import STOP_RECORDED
from api.settings import ApiSettings
from ingest.database import get_engine
from tests.api.conftest import SignIn, add_user

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


def test_a_stop_is_recorded_for_every_answer_that_may_still_stream(database_url: str) -> None:
    user, ids = _messages(database_url)
    with Session(get_engine(database_url)) as db:  # a process took another for dead and closed its answer
        interrupted = db.get(Message, ids["none"])
        assert interrupted is not None
        interrupted.state, interrupted.stop_reason = MessageState.failed, instances.API_INTERRUPTED
        db.commit()

    asked = {name: storage.request_stop(database_url, user, ids[name], STALE_SECONDS) for name in ids}

    assert asked == {
        "live": storage.StopRecorded.live,
        "dead": storage.StopRecorded.unconfirmed,  # its process is silent: it may have lost only the database
        "none": storage.StopRecorded.unconfirmed,
        "done": storage.StopRecorded.nothing,
    }
    assert storage.stops_requested(database_url, list(ids.values())) == {
        ids[name] for name in ("live", "dead", "none")
    }


def test_a_stop_sent_to_another_process_while_the_streaming_one_lost_the_database_is_recorded_and_shown(
    sign_in: SignIn, api_settings: ApiSettings
) -> None:
    """The process streaming Ann's answer cannot reach the database (its heartbeat stopped); her stop reaches
    another process: recorded (202, saying so), shown with her message, and read by the streaming process once it
    is back (`stops_requested`). An answer that ended answers 409."""
    ann = sign_in("ann", Role.clinician)
    with Session(get_engine(api_settings.database_url)) as db:
        _instance(db, "lost-the-database", silent_seconds=STALE_SECONDS + 1)
        conversation = Conversation(
            user_id=db.scalars(select(User.id).where(User.username == "ann")).one(), title="?"
        )
        db.add(conversation)
        db.flush()
        streaming = Message(conversation_id=conversation.id, question="?", instance_id="lost-the-database")
        ended = Message(conversation_id=conversation.id, question="?", state=MessageState.answered)
        db.add_all([streaming, ended])
        db.commit()
        streaming_id, ended_id, conversation_id = streaming.id, ended.id, conversation.id

    stop = ann.post(f"/api/messages/{streaming_id}/stop")
    too_late = ann.post(f"/api/messages/{ended_id}/stop")

    assert (stop.status_code, stop.json()["detail"]) == (202, STOP_RECORDED)
    assert too_late.status_code == 409
    shown = {m["id"]: m for m in ann.get(f"/api/conversations/{conversation_id}").json()["messages"]}
    assert shown[streaming_id]["stop_requested_at"] is not None
    assert shown[ended_id]["stop_requested_at"] is None
    assert storage.stops_requested(api_settings.database_url, [streaming_id, ended_id]) == {streaming_id}


def test_the_cap_counts_the_answers_other_live_processes_generate(database_url: str) -> None:
    user, _ = _messages(database_url)

    assert storage.answers_elsewhere(database_url, user.id, STALE_SECONDS) == 1  # the dead one does not count
