"""The worker pool: the least-loaded ready worker gets the request, failing and busy workers are skipped, and
with none ready the caller learns how long to wait. Workers here answer over httpx's in-process transport with
the documented /health and /generate replies (docs/worker.md); the pool itself is real."""

import asyncio
import json
from collections.abc import Callable

import httpx
import pytest

from api.chat.worker_pool import (
    Delta,
    Finished,
    GenerationRefused,
    GenerationRequest,
    NoWorkerReady,
    Started,
    WorkerFailed,
    WorkerPool,
)

pytestmark = pytest.mark.anyio

Handler = Callable[[httpx.Request], httpx.Response]
SSE = {"content-type": "text/event-stream"}


def sse(*events: tuple[str, dict[str, object]]) -> bytes:
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


ANSWER = sse(
    ("start", {"queue_seconds": 0.0, "prompt_tokens": 7, "method": "casd"}),
    ("delta", {"text": "Twintig "}),
    ("delta", {"text": "seconden."}),
    ("done", {"stop_reason": "eos", "text": "Twintig seconden.", "stats": {"tau": 2.5}}),
)


class Workers:
    """Workers by host name: each with its health (or an outage) and a log of the generations it was sent."""

    def __init__(self, health: dict[str, dict[str, object] | None]) -> None:
        self.health = health
        self.generated: list[str] = []
        self.health_checks = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        host = request.url.host
        state = self.health[host]
        if state is None:
            raise httpx.ConnectError("connection refused", request=request)
        if request.url.path == "/health":
            self.health_checks += 1
            health = {key: value for key, value in state.items() if key != "stream"}
            return httpx.Response(200 if state.get("status") == "ready" else 503, json=health)
        if state.get("busy"):
            return httpx.Response(503, headers={"Retry-After": "12"}, json={"detail": "queue full"})
        if state.get("too_long"):
            return httpx.Response(413, json={"detail": "prompt too long", "prompt_tokens": 9000})
        self.generated.append(host)
        return httpx.Response(200, headers=SSE, content=state.get("stream", ANSWER))


def ready(depth: int, limit: int = 8, **extra: object) -> dict[str, object]:
    return {"status": "ready", "model": "tiny", "queue_depth": depth, "queue_limit": limit, **extra}


def pool_of(workers: Workers, **options: float) -> WorkerPool:
    client = httpx.AsyncClient(transport=httpx.MockTransport(workers))
    urls = [f"http://{host}:8001" for host in workers.health]
    return WorkerPool(urls, client, **options)  # type: ignore[arg-type]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def collect(pool: WorkerPool) -> list[object]:
    async with await pool.open(GenerationRequest(prompt="vraag")) as stream:
        return [event async for event in stream.events()]


async def test_the_least_loaded_ready_worker_streams_the_answer_as_typed_events() -> None:
    workers = Workers({"busy-one": ready(3), "idle-one": ready(0), "loading": {"status": "loading"}})

    events = await collect(pool_of(workers))

    assert workers.generated == ["idle-one"]
    assert events == [
        Started(0.0, 7, "casd"),
        Delta("Twintig "),
        Delta("seconden."),
        Finished("eos", "Twintig seconden.", {"tau": 2.5}),
    ]


async def test_requests_in_flight_count_as_load_until_the_next_health_check() -> None:
    workers = Workers({"a": ready(0), "b": ready(0)})
    pool = pool_of(workers, health_ttl=60.0)

    first = await pool.open(GenerationRequest(prompt="een"))
    second = await pool.open(GenerationRequest(prompt="twee"))
    await first.aclose()
    await second.aclose()

    assert sorted(workers.generated) == ["a", "b"]
    assert workers.health_checks == 2  # one per worker: the answer was trusted for the TTL


async def test_an_unreachable_worker_and_one_whose_queue_is_full_are_skipped() -> None:
    workers = Workers(
        {"down": None, "full": ready(8, limit=8), "refusing": ready(0, busy=True), "ok": ready(5)}
    )

    await collect(pool_of(workers))

    assert workers.generated == ["ok"]


async def test_a_worker_decoding_answers_together_holds_its_batch_beside_its_queue() -> None:
    workers = Workers(
        {
            "full": ready(2, limit=2, decoding=4, max_batch=4),
            "batching": ready(1, limit=2, decoding=3, max_batch=4),
        }
    )

    await collect(pool_of(workers))

    assert workers.generated == ["batching"]


async def test_with_no_worker_ready_the_pool_says_how_long_to_wait() -> None:
    workers = Workers({"down": None, "loading": {"status": "loading"}, "refusing": ready(0, busy=True)})

    with pytest.raises(NoWorkerReady) as raised:
        await pool_of(workers, retry_after=5).open(GenerationRequest(prompt="vraag"))

    assert raised.value.retry_after == 12  # the refusing worker asked for more than the default
    assert "geen taalmodel beschikbaar" in str(raised.value)


async def test_a_prompt_too_long_for_the_model_is_refused_without_trying_other_workers() -> None:
    workers = Workers({"a": ready(0, too_long=True), "b": ready(1)})

    with pytest.raises(GenerationRefused) as raised:
        await pool_of(workers).open(GenerationRequest(prompt="vraag"))

    assert raised.value.status_code == 413
    assert workers.generated == []


async def test_a_reserved_place_counts_as_load_until_it_is_released() -> None:
    workers = Workers({"only": ready(0, limit=2)})
    pool = pool_of(workers, health_ttl=60.0)

    first = await pool.reserve()
    second = await pool.reserve()
    with pytest.raises(NoWorkerReady):
        await pool.reserve()
    first.release()
    first.release()  # giving a place back twice gives back one
    third = await pool.reserve()

    with pytest.raises(NoWorkerReady):
        await pool.reserve()
    second.release()
    third.release()
    assert workers.generated == []


async def test_a_reservation_opens_its_stream_on_the_worker_it_reserved() -> None:
    workers = Workers({"a": ready(0), "b": ready(0)})
    pool = pool_of(workers, health_ttl=60.0)
    on_a = await pool.reserve()
    on_b = await pool.reserve()

    async with await pool.open(GenerationRequest(prompt="twee"), on_b):
        pass
    async with await pool.open(GenerationRequest(prompt="een"), on_a):
        pass

    assert workers.generated == ["b", "a"]
    with pytest.raises(RuntimeError):
        await pool.open(GenerationRequest(prompt="nog eens"), on_a)


async def test_a_reserved_worker_that_has_filled_up_since_passes_the_request_to_another() -> None:
    workers = Workers({"a": ready(0), "b": ready(1)})
    pool = pool_of(workers, health_ttl=60.0)
    reservation = await pool.reserve()
    workers.health["a"] = ready(0, busy=True)  # another API process filled it in the meantime

    async with await pool.open(GenerationRequest(prompt="vraag"), reservation):
        pass

    assert workers.generated == ["b"]


async def test_a_burst_arriving_before_the_first_health_answer_waits_for_it() -> None:
    workers = Workers({"a": ready(0), "b": ready(0)})
    pool = pool_of(workers, health_ttl=60.0)

    reservations = await asyncio.gather(*(pool.reserve() for _ in range(10)))

    assert len(reservations) == 10
    assert workers.health_checks == 2  # asked once each, every request waited for the same answers


async def test_our_requests_that_ended_since_the_last_health_check_no_longer_count_as_load() -> None:
    workers = Workers({"only": ready(0, limit=8)})
    pool = pool_of(workers, health_ttl=0.2)
    ours = [await pool.reserve() for _ in range(8)]
    workers.health["only"] = ready(8, limit=8)  # the worker's queue holds our eight
    await asyncio.sleep(0.25)
    with pytest.raises(NoWorkerReady):
        await pool.reserve()  # asks again: full

    for reservation in ours:
        reservation.release()

    (await pool.reserve()).release()  # within the TTL: the queue seen was ours, and ours have ended


async def test_another_api_processs_requests_seen_in_the_queue_count_as_load() -> None:
    workers = Workers({"only": ready(7, limit=8)})
    pool = pool_of(workers, health_ttl=60.0)

    first = await pool.reserve()
    with pytest.raises(NoWorkerReady):
        await pool.reserve()
    first.release()


async def test_a_refused_prompt_gives_its_place_back() -> None:
    workers = Workers({"only": ready(0, limit=1, too_long=True)})
    pool = pool_of(workers, health_ttl=60.0)

    for _ in range(3):
        with pytest.raises(GenerationRefused):
            await pool.open(GenerationRequest(prompt="te lang"))

    (await pool.reserve()).release()


async def test_an_error_event_or_a_malformed_event_ends_the_stream_as_a_worker_failure() -> None:
    for stream in (
        sse(("delta", {"text": "Twin"}), ("error", {"message": "CUDA out of memory"})),
        sse(("delta", {"wrong": "field"})),
    ):
        workers = Workers({"a": ready(0, stream=stream)})
        with pytest.raises(WorkerFailed):
            await collect(pool_of(workers))


async def test_the_request_body_leaves_unset_fields_to_the_worker() -> None:
    request = GenerationRequest(prompt="p", context=["c"], stop=["[begin"], max_new_tokens=None)

    assert request.body() == {"prompt": "p", "context": ["c"], "stop": ["[begin"]}


async def test_the_summary_tells_workers_still_loading_from_failed_and_unreachable_ones() -> None:
    workers = Workers(
        {
            "up": ready(0),
            "loading": {"status": "loading", "queue_depth": 0, "queue_limit": 8},
            "failed": {"status": "failed", "error": "OSError: no such model"},
            "down": None,
        }
    )

    assert await pool_of(workers).summary() == {"ready": 1, "loading": 1, "total": 4}
