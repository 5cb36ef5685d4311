"""This process among its replicas: each API process and each report runner registers in `api_instances` (with
its role and host:pid) and beats its heartbeat there, and the answers a process was generating when it died
(killed, out of memory, its machine gone) are closed by the processes that remain, or by the next one to start.

A process is alive while its heartbeat is younger than `INSTANCE_STALE_SECONDS`. Every process, at each
heartbeat, closes the `generating` messages of processes that are not alive (and of none: messages from before
this table) as `failed` with the reason `api_interrupted`, and forgets those processes — but only once it has
itself beaten without a miss for a whole stale period: after a database outage (or at start, which may follow
one) every other process was as silent as it was, and would otherwise be taken for dead the moment the first one
is back. The clocks of the replicas are compared with each other: they run on one host (compose) or keep NTP time.
"""

import asyncio
import logging
import os
import socket
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta

from sqlalchemy import ColumnElement, ScalarSelect, delete, select, update
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from api.models import ApiInstance, Message, MessageState, ProcessRole
from ingest.database import session_scope

log = logging.getLogger(__name__)

API_INTERRUPTED = "api_interrupted"
# The id of this process: new at every start, so a restarted process never passes for the one that died.
THIS_INSTANCE = uuid.uuid4().hex


def live_instances(stale_seconds: float, now: datetime | None = None) -> ScalarSelect[str]:
    """The ids of the processes alive now, for `… .in_(…)`."""
    return select(ApiInstance.id).where(alive(stale_seconds, now)).scalar_subquery()


def alive(stale_seconds: float, now: datetime | None = None) -> ColumnElement[bool]:
    """Matches the processes whose heartbeat is younger than `stale_seconds`."""
    cutoff = (now or datetime.now(UTC)) - timedelta(seconds=stale_seconds)
    return ApiInstance.heartbeat_at >= cutoff


def streaming_on_a_live_instance(stale_seconds: float) -> ColumnElement[bool]:
    """Matches the messages whose answer a live process is generating now."""
    return (Message.state == MessageState.generating) & Message.instance_id.in_(live_instances(stale_seconds))


def process_name() -> str:
    """Where this process runs: host:pid."""
    return f"{socket.gethostname()}:{os.getpid()}"


def beat(database_url: str, instance_id: str = THIS_INSTANCE, role: ProcessRole = ProcessRole.api) -> None:
    """Register the process (its role, host:pid), or record that it is still alive."""
    now = datetime.now(UTC)
    with session_scope(database_url) as db:
        instance = db.get(ApiInstance, instance_id)
        if instance is None:
            db.add(
                ApiInstance(
                    id=instance_id, started_at=now, heartbeat_at=now, role=role, process=process_name()
                )
            )
        else:
            instance.heartbeat_at = now


def close_orphans(database_url: str, stale_seconds: float) -> int:
    """Close the answers of processes that are gone and forget those processes; how many answers were closed."""
    now = datetime.now(UTC)
    live = live_instances(stale_seconds, now)
    orphaned = (Message.state == MessageState.generating) & (
        Message.instance_id.is_(None) | Message.instance_id.not_in(live)
    )
    with session_scope(database_url) as db:
        closed = len(
            db.scalars(
                update(Message)
                .where(orphaned)
                .values(state=MessageState.failed, stop_reason=API_INTERRUPTED, finished_at=now)
                .returning(Message.id)
                .execution_options(synchronize_session=False)
            ).all()
        )
        db.execute(delete(ApiInstance).where(~alive(stale_seconds, now)))
    if closed:
        log.warning("closed %d answer(s) left generating by API processes that are gone", closed)
    return closed


class Heartbeat:
    """This process's heartbeat, and since when it has beaten without a miss (`clock`: `time.monotonic`)."""

    def __init__(
        self,
        database_url: str,
        stale_seconds: float,
        instance_id: str = THIS_INSTANCE,
        clock: Callable[[], float] = time.monotonic,
        also_close: Sequence[Callable[[str, float], int]] = (),
        role: ProcessRole = ProcessRole.api,
    ) -> None:
        """`also_close`: more work that dead processes leave behind (evaluation reports), closed with their
        answers: each is called with the database URL and the stale period."""
        self.database_url = database_url
        self.stale_seconds = stale_seconds
        self.instance_id = instance_id
        self.role = role
        self._clock = clock
        self._also_close = also_close
        self._beating_since: float | None = None

    def beat(self) -> int:
        """Record that this process is alive; then, once it has beaten without a miss for a whole stale period,
        close the answers of the processes that are gone. How many were closed; a database error is raised (and
        starts the period again)."""
        try:
            beat(self.database_url, self.instance_id, self.role)
        except SQLAlchemyError:
            self._beating_since = None
            raise
        now = self._clock()
        if self._beating_since is None:
            self._beating_since = now
        if now - self._beating_since < self.stale_seconds:
            return 0
        for close in self._also_close:
            close(self.database_url, self.stale_seconds)
        return close_orphans(self.database_url, self.stale_seconds)


def start(
    database_url: str, stale_seconds: float, also_close: Sequence[Callable[[str, float], int]] = ()
) -> Heartbeat:
    """At start: register this process; it closes what dead processes left generating from its heartbeats on."""
    heartbeat = Heartbeat(database_url, stale_seconds, also_close=also_close)
    heartbeat.beat()
    return heartbeat


async def keep_beating(heartbeat: Heartbeat, every_seconds: float) -> None:
    """Beat (and close orphans) every `every_seconds` until cancelled; a database that is down is logged and tried
    again at the next beat (the process stays up: it answers 503s meanwhile)."""
    while True:
        await asyncio.sleep(every_seconds)
        try:
            await run_in_threadpool(heartbeat.beat)
        except SQLAlchemyError as error:
            log.warning("heartbeat not recorded: %s", error)
