"""`python -m research.load`: N concurrent chat streams against one worker on loopback (a benchmark, not a test).

Everything is real and local: the PDFs are ingested into a temporary embedded index with the offline embedder,
`python -m speculative.worker` serves the tiny offline model, `python -m api serve` answers, and N clients ask at
the same moment, each in its own conversation. Checked: every stream ends with `done` or gets 503 with
Retry-After, no other 5xx, and every streamed message is in the database in a final state. Measured: the API's own
share of each answered request — total time less retrieval and the time spent waiting on the worker (opening its
stream, then each next event) — from the server's timings in the `done` event (arrival before sign-in → `done`,
storing the end included) and from the client's clock (which adds loopback HTTP and the client itself).
"""

import argparse
import asyncio
import json
import logging
import os
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from httpx_sse import aconnect_sse
from sqlalchemy import select
from sqlalchemy.orm import Session

from api import database_schema
from api.models import Conversation, Message, MessageState, Role
from api.services import sessions, users
from ingest.database import get_engine
from ingest.embedding import Embedder
from ingest.settings import IngestSettings
from research.loopback import TINY_GENERATOR, api_process, worker_process
from research.rag_prompts import build_index, document_chunks, pdf_paths, read_questions

log = logging.getLogger("research.load")


@dataclass
class Stream:
    """What one client saw."""

    question: str
    status: int = 0
    retry_after: str | None = None
    events: list[str] = field(default_factory=list)
    done: dict[str, Any] | None = None
    seconds: float = 0.0
    error: str | None = None

    @property
    def client_overhead(self) -> float | None:
        """Client-observed time less retrieval and the worker's stream (as the server timed them)."""
        if self.done is None:
            return None
        timings = self.done["stats"]["timings"]
        return self.seconds - timings["retrieval_seconds"] - timings["worker_seconds"]


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    args.logs.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="vraagbaak-api-bench-") as folder:
        work = Path(folder)
        database_url = args.database_url or f"sqlite:///{work / 'bench.db'}"
        index_dir = _index(args.documents, work / "index")
        database_schema.migrate(database_url)
        token, conversations = _user_and_conversations(database_url, args.streams)
        questions = read_questions([args.questions], [])
        worker_settings = {"MAX_NEW_TOKENS": str(args.max_new_tokens), "TORCH_THREADS": "1"}
        api_cores, other_cores = _cores(args.pin)
        with ExitStack() as processes:
            with _on_cores(other_cores):
                worker_url = processes.enter_context(
                    worker_process(args.logs / "worker.log", args.model, **worker_settings)
                )
            with _on_cores(api_cores):
                api_url = processes.enter_context(
                    api_process(
                        args.logs / "api.log",
                        DATABASE_URL=database_url,
                        INDEX_DIR=str(index_dir),
                        WORKER_URLS=worker_url,
                        UPLOAD_DIR=str(work / "uploads"),
                        REPORT_DIR=str(work / "reports"),
                        RUN_INGESTION_JOBS="false",
                    )
                )
            with _on_cores(other_cores):  # the clients run beside the worker, off the API's core
                streams = asyncio.run(_load(api_url, token, conversations, questions, args.rounds))
        lost = _lost_messages(database_url, streams)
    result = _summary(streams, lost, args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({**result, "streams": [asdict(s) for s in streams]}, indent=1), "utf-8")
    print(_markdown(result))
    return 0 if result["ok"] else 1


def _cores(pin: bool) -> tuple[set[int] | None, set[int] | None]:
    """With `pin`, the API gets the last core to itself and the worker and the clients share the rest: on a small
    machine the clients parsing each event otherwise run on the API's core and their time is counted as the
    API's (in production the clients are browsers on other machines and the worker has a GPU box)."""
    if not pin:
        return None, None
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        raise SystemExit("--pin needs at least 2 cores")
    return {cores[-1]}, set(cores[:-1])


@contextmanager
def _on_cores(cores: set[int] | None) -> Iterator[None]:
    """Run the block on `cores` (processes started in it inherit them), then return to the cores before."""
    if cores is None:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cores)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def _index(documents: Path, folder: Path) -> Path:
    settings = IngestSettings()
    chunks = [document_chunks(path, settings) for path in pdf_paths([documents])]
    build_index(chunks, Embedder.from_settings(settings), folder).close()
    return folder


def _user_and_conversations(database_url: str, count: int) -> tuple[str, list[int]]:
    with Session(get_engine(database_url)) as db:
        user = users.create_user(db, "bench", "bench password 123", [Role.clinician])
        token = sessions.create_api_token(db, user, "bench", timedelta(days=1))
        conversations = [Conversation(user_id=user.id, title=f"bench {n}") for n in range(count)]
        db.add_all(conversations)
        db.commit()
        return token, [conversation.id for conversation in conversations]


async def _load(
    api_url: str, token: str, conversations: list[int], questions: list[str], rounds: int
) -> list[Stream]:
    """`rounds` bursts one after the other: every conversation asks at the same instant, then again once all
    have ended (`--streams 1 --rounds 20` measures the API alone, without other requests competing)."""
    headers = {"Authorization": f"Bearer {token}"}
    limits = httpx.Limits(max_connections=None)
    streams: list[Stream] = []
    async with httpx.AsyncClient(base_url=api_url, headers=headers, timeout=600, limits=limits) as client:
        warm = Stream(questions[0])  # loads the embedder in the API before the clock starts
        await _ask(client, conversations[0], warm, retrieval_only=True)
        for round_number in range(rounds):
            first = round_number * len(conversations)
            burst = [Stream(questions[(first + n) % len(questions)]) for n in range(len(conversations))]
            await _burst(client, conversations, burst)
            streams.extend(burst)
    return streams


async def _burst(client: httpx.AsyncClient, conversations: list[int], streams: list[Stream]) -> None:
    start = asyncio.Event()
    tasks = [
        asyncio.create_task(_ask(client, conversation, stream, start=start))
        for conversation, stream in zip(conversations, streams, strict=True)
    ]
    await asyncio.sleep(0.1)
    start.set()
    await asyncio.gather(*tasks)


async def _ask(
    client: httpx.AsyncClient,
    conversation: int,
    stream: Stream,
    *,
    retrieval_only: bool = False,
    start: asyncio.Event | None = None,
) -> None:
    if start is not None:
        await start.wait()
    began = time.perf_counter()
    body = {"question": stream.question, "retrieval_only": retrieval_only}
    try:
        async with aconnect_sse(
            client, "POST", f"/api/conversations/{conversation}/messages", json=body
        ) as sse:
            stream.status = sse.response.status_code
            stream.retry_after = sse.response.headers.get("Retry-After")
            if stream.status == 200:
                async for event in sse.aiter_sse():
                    stream.events.append(event.event)
                    if event.event == "done":
                        stream.done = event.json()
            else:
                await sse.response.aread()
    except httpx.HTTPError as error:
        stream.error = f"{error.__class__.__name__}: {error}"
    stream.seconds = time.perf_counter() - began


def _lost_messages(database_url: str, streams: list[Stream]) -> int:
    """Streamed messages missing from the database or left unfinished."""
    ids = {s.done["message_id"] for s in streams if s.done is not None}
    with Session(get_engine(database_url)) as db:
        final = set(
            db.scalars(
                select(Message.id).where(Message.id.in_(ids), Message.state != MessageState.generating)
            )
        )
    return len(ids - final) + sum(s.status == 200 and s.done is None for s in streams)


def _summary(streams: list[Stream], lost: int, args: argparse.Namespace) -> dict[str, Any]:
    completed = [s for s in streams if s.status == 200 and s.done is not None]
    refused = [s for s in streams if s.status == 503]
    other = [s for s in streams if s not in completed and s not in refused]
    answered = [s for s in completed if s.done and "worker" in s.done["stats"]]
    server = [s.done["stats"]["timings"]["overhead_seconds"] * 1000 for s in completed if s.done]
    client = [(s.client_overhead or 0.0) * 1000 for s in completed]
    states: dict[str, int] = {}
    for s in completed:
        if s.done:
            states[s.done["state"]] = states.get(s.done["state"], 0) + 1
    return {
        "streams": args.streams,
        "rounds": args.rounds,
        "model": args.model,
        "max_new_tokens": args.max_new_tokens,
        "pinned": args.pin,
        "completed": len(completed),
        "states": states,
        "generated": len(answered),
        "refused_503": len(refused),
        "refused_with_retry_after": sum(s.retry_after is not None for s in refused),
        "other": [f"{s.status} {s.error or ''}".strip() for s in other],
        "lost_messages": lost,
        "server_overhead_ms": _percentiles(server),
        "client_overhead_ms": _percentiles(client),
        "seconds_p50_p95": _percentiles([s.seconds for s in streams]),
        "refused_ms": _percentiles([s.seconds * 1000 for s in refused]),
        "ok": not other
        and lost == 0
        and len(refused) == sum(s.retry_after is not None for s in refused)
        and len(completed) + len(refused) == args.streams * args.rounds,
    }


def _percentiles(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    p50, p95, top = np.percentile(values, (50, 95, 100))
    return {"p50": round(float(p50), 2), "p95": round(float(p95), 2), "max": round(float(top), 2)}


def _markdown(result: dict[str, Any]) -> str:
    rows = [
        ("streams × rounds", f"{result['streams']} × {result['rounds']}"),
        ("API on a core of its own (--pin)", "yes" if result["pinned"] else "no"),
        ("completed (done event)", f"{result['completed']} {result['states']}"),
        ("answered by the worker", result["generated"]),
        ("503 (with Retry-After)", f"{result['refused_503']} ({result['refused_with_retry_after']})"),
        ("other statuses / errors", result["other"] or "none"),
        ("messages lost or unfinished in the database", result["lost_messages"]),
        ("API overhead, server clock (ms p50 / p95 / max)", _triple(result["server_overhead_ms"])),
        ("API overhead, client clock (ms p50 / p95 / max)", _triple(result["client_overhead_ms"])),
        ("whole request (s p50 / p95 / max)", _triple(result["seconds_p50_p95"])),
        ("time to a 503, client clock (ms p50 / p95 / max)", _triple(result["refused_ms"])),
    ]
    return "\n".join(["| measure | value |", "|---|---|", *(f"| {k} | {v} |" for k, v in rows)])


def _triple(values: dict[str, float] | None) -> str:
    return "—" if values is None else f"{values['p50']} / {values['p95']} / {values['max']}"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m research.load", description=__doc__)
    parser.add_argument("--documents", type=Path, default=Path("samples/documents"), help="PDFs to index")
    parser.add_argument(
        "--questions", type=Path, default=Path("samples/questions.csv"), help="CSV, 'question'"
    )
    parser.add_argument("--streams", type=int, default=50, help="concurrent chat streams")
    parser.add_argument("--rounds", type=int, default=1, help="bursts of --streams, one after the other")
    parser.add_argument("--model", default=TINY_GENERATOR, help="the worker's generator")
    parser.add_argument("--max-new-tokens", type=int, default=32, help="the worker's answer cap")
    parser.add_argument("--database-url", help="default: a temporary SQLite file")
    parser.add_argument(
        "--pin",
        action="store_true",
        help="the API on a core of its own, the worker and the clients on the others (Linux)",
    )
    parser.add_argument("--out", type=Path, default=Path("out/bench/api-load.json"))
    parser.add_argument(
        "--logs", type=Path, default=Path("out/bench/logs"), help="the worker's and API's logs"
    )
    return parser


if __name__ == "__main__":
    sys.exit(main())
