"""nginx in front of the API: Debian's nginx runs the production config (nginx/) with upstreams on loopback."""

import re
import socket
import ssl
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from dotenv import dotenv_values

from research.local_process import free_port
from tests.api.conftest import login_wait
from tests.deploy.conftest import CLINICIAN, PASSWORD
from tests.deploy.dns import loopback_dns
from tests.deploy.nginx_site import NginxSite, nginx_arguments, template_placeholders, write_config
from tests.deploy.servers import UPLOAD_LIMIT_MB, start_nginx

REPO_ROOT = Path(__file__).resolve().parents[2]
NGINX_DOCKERFILE = REPO_ROOT / "nginx" / "Dockerfile"
MEGABYTE = 1024 * 1024


def dockerfile_defaults() -> dict[str, str]:
    """The placeholder values the nginx image sets (its ENV lines)."""
    return dict(re.findall(r"\b(NGINX_[A-Z_]+)=(\S+)", NGINX_DOCKERFILE.read_text()))


def test_the_image_and_compose_give_every_placeholder_of_the_site_template() -> None:
    compose = (REPO_ROOT / "docker-compose.yml").read_text()
    given = set(dockerfile_defaults()) | {name for name in template_placeholders() if f"{name}:" in compose}

    assert template_placeholders() <= given
    assert re.fullmatch(dockerfile_defaults()["NGINX_ENVSUBST_FILTER"].strip('"'), "MAX_UPLOAD_MB")


def test_nginx_accepts_the_production_config_with_a_test_certificate(
    nginx_binary: Path, tls_pair: Path, tmp_path: Path
) -> None:
    values = dockerfile_defaults() | {
        "MAX_UPLOAD_MB": str(dotenv_values(REPO_ROOT / ".env.example")["MAX_UPLOAD_MB"]),
        # `api` resolves only inside the compose network; nginx -t resolves upstream names.
        "NGINX_API_UPSTREAM": "127.0.0.1:8000",
    }
    conf = write_config(tmp_path, tls_pair, values)

    result = subprocess.run(
        [str(nginx_binary), "-t", *nginx_arguments(tmp_path, conf, foreground=False)],
        capture_output=True,
        text=True,
    )

    assert result.returncode == 0, result.stderr
    assert "test is successful" in result.stderr


def test_plain_http_is_redirected_to_https(nginx_before_api: NginxSite) -> None:
    response = httpx.get(f"http://127.0.0.1:{nginx_before_api.http_port}/api/health?from=bookmark")

    assert response.status_code == 301
    assert response.headers["location"] == "https://127.0.0.1/api/health?from=bookmark"


def test_the_api_answers_through_tls_with_the_security_headers(https: httpx.Client) -> None:
    response = https.get("/api/health")

    assert response.status_code == 200
    assert "status" in response.json()
    assert response.headers["strict-transport-security"].startswith("max-age=63072000")
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"
    policy = response.headers["content-security-policy"]
    assert "default-src 'self'" in policy
    assert "worker-src 'self' blob:" in policy
    assert "frame-ancestors 'none'" in policy
    assert "server" not in response.headers or "nginx/" not in response.headers["server"]


def test_errors_carry_the_security_headers_too(https: httpx.Client) -> None:
    response = https.post("/api/admin/uploads", content=b"x" * (UPLOAD_LIMIT_MB * MEGABYTE + 1))

    assert response.status_code == 413
    assert "strict-transport-security" in response.headers


@pytest.mark.parametrize(
    ("path", "field"),
    [("/api/admin/uploads", "files"), ("/api/admin/documents/1/version", "file")],
    ids=["upload", "new-version"],
)
def test_uploads_over_the_api_limit_are_refused_by_nginx_and_smaller_ones_reach_the_api(
    https: httpx.Client, path: str, field: str
) -> None:
    over = https.post(
        path,
        files={field: ("groot.pdf", b"%PDF-1.7\n" + b"0" * (UPLOAD_LIMIT_MB * MEGABYTE), "application/pdf")},
    )
    under = https.post(
        path,
        files={
            field: (
                "klein.pdf",
                b"%PDF-1.7\n" + b"0" * (UPLOAD_LIMIT_MB * MEGABYTE // 2),
                "application/pdf",
            )
        },
    )

    assert over.status_code == 413
    assert "nginx" in over.text  # nginx's own page: the body never reached the API
    assert under.status_code != 413
    assert under.headers["content-type"].startswith("application/json")  # the API answered


def test_the_front_end_is_served_with_a_single_page_fallback(https: httpx.Client) -> None:
    index = https.get("/")
    deep_link = https.get("/gesprekken/42")
    missing_asset = https.get("/assets/index-000000.js")

    assert index.status_code == deep_link.status_code == 200
    assert deep_link.text == index.text
    assert '<div id="root">' in deep_link.text
    assert missing_asset.status_code == 404


def test_assets_are_compressed_and_cached_for_good(https: httpx.Client) -> None:
    response = https.get("/assets/index-3f2a1b.js", headers={"Accept-Encoding": "gzip"})

    assert response.status_code == 200
    assert response.headers["content-encoding"] == "gzip"
    assert "max-age=315360000" in response.headers["cache-control"]
    assert response.text.startswith("console.log")


def test_answers_stream_through_tls_unbuffered_and_uncompressed(https: httpx.Client) -> None:
    """A question through nginx to the real API and worker: events arrive while the worker generates them."""
    login = https.post("/api/auth/login", json={"username": CLINICIAN, "password": PASSWORD})
    assert login.status_code == 200, login.text
    assert "secure" in login.headers["set-cookie"].lower()  # nginx told the API the request came over HTTPS
    csrf = {"X-CSRF-Token": login.json()["csrf_token"]}
    conversation = https.post("/api/conversations", json={}, headers=csrf).json()

    arrivals: list[tuple[str, float]] = []
    with https.stream(
        "POST",
        f"/api/conversations/{conversation['id']}/messages",
        json={"question": "Hoe lang moet ik mijn handen wrijven met handalcohol?"},
        headers={**csrf, "Accept-Encoding": "gzip"},
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert "content-encoding" not in response.headers
        for line in response.iter_lines():
            if line.startswith("event: "):
                arrivals.append((line.removeprefix("event: "), time.monotonic()))

    events = [name for name, _ in arrivals]
    deltas = [moment for name, moment in arrivals if name == "delta"]
    done = next(moment for name, moment in arrivals if name == "done")
    assert events[:2] == ["message", "sources"] and events[-1] == "done", events
    assert len(deltas) >= 3, events
    # Buffered, every event would arrive in one burst at the end; streamed, they arrive as generated.
    assert done - deltas[0] > 0.3, arrivals
    assert len({round(moment, 2) for moment in deltas}) >= 3, arrivals


def test_a_forged_x_forwarded_for_does_not_change_the_login_count_key(https: httpx.Client) -> None:
    """nginx sends its own view of the client address, not one the client wrote: the API counts the same key."""
    guess = {"username": "raadsel", "password": "geraden"}
    for _ in range(5):  # LOGIN_ATTEMPTS unset: 5 per name and address
        assert login_wait(https.post("/api/auth/login", json=guess)) == 0.0

    forged = https.post("/api/auth/login", json=guess, headers={"X-Forwarded-For": "203.0.113.9"})

    assert (forged.status_code, login_wait(forged)) == (401, 1.0)  # LOGIN_DELAY_SECONDS unset: 1


def test_an_oversized_json_body_to_login_is_refused_by_nginx(https: httpx.Client) -> None:
    many_objects = b"[" + b"{}," * 40_000 + b"{}]"

    response = https.post(
        "/api/auth/login", content=many_objects, headers={"Content-Type": "application/json"}
    )

    assert response.status_code == 413
    assert "nginx" in response.text  # nginx's own page: the body never reached the API


def test_an_evaluation_set_of_a_few_megabytes_passes_nginx(https: httpx.Client) -> None:
    questions = b"question,relevant_documents\n" + b"Hoe lang wrijven?,handhygiene\n" * 100_000

    response = https.post("/api/evaluator/sets", files={"file": ("vragen.csv", questions, "text/csv")})

    assert len(questions) > UPLOAD_LIMIT_MB * MEGABYTE
    assert response.status_code == 401  # the API answered: no user
    assert response.headers["content-type"].startswith("application/json")


def test_api_answers_are_not_stored_by_caches(https: httpx.Client) -> None:
    assert https.get("/api/health").headers["cache-control"] == "no-store"


def _quick_logins(site: NginxSite, tls_pair: Path, count: int) -> list[int]:
    with _client(site, tls_pair) as client:
        return [
            client.post("/api/auth/login", json={"username": "a", "password": "b"}).status_code
            for _ in range(count)
        ]


def test_nginx_limits_the_login_rate_per_address_as_set(
    nginx_binary: Path, tls_pair: Path, frontend_build: Path, tmp_path: Path
) -> None:
    """NGINX_LOGIN_RATE_PER_MINUTE and NGINX_LOGIN_BURST: logins past them are answered 429 by nginx itself; a
    Citrix farm's higher setting lets the same burst through (nothing listens upstream: those let through get
    502)."""
    upstream = f"127.0.0.1:{free_port()}"
    (tmp_path / "strict").mkdir()
    (tmp_path / "farm").mkdir()
    for site in start_nginx(
        nginx_binary,
        tmp_path / "strict",
        tls_pair,
        frontend_build,
        upstream,
        login_rate_per_minute=1,
        login_burst=5,
    ):
        strict = _quick_logins(site, tls_pair, 40)
    for site in start_nginx(
        nginx_binary,
        tmp_path / "farm",
        tls_pair,
        frontend_build,
        upstream,
        login_rate_per_minute=6000,
        login_burst=100,
    ):
        farm = _quick_logins(site, tls_pair, 40)

    assert strict == [502] * 6 + [429] * 34, strict  # one, and a burst of five (one more a minute)
    assert farm == [502] * 40, farm


class _Replica(ThreadingHTTPServer):
    """A stand-in API process on its own loopback address: answers every GET with its name."""

    def __init__(self, address: str, port: int) -> None:
        name = address

        class Answer(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = name.encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_: object) -> None:
                pass

        super().__init__((address, port), Answer)
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


def _answered_by(client: httpx.Client, requests: int = 16) -> list[str]:
    return [client.get("/api/replica").text for _ in range(requests)]


def test_replicas_added_or_recreated_after_nginx_started_get_the_requests(
    nginx_binary: Path, tls_pair: Path, frontend_build: Path, tmp_path: Path
) -> None:
    """`api` is resolved at run time (Docker's DNS in compose, a loopback DNS server here): a replica added after
    nginx started gets requests, and one recreated at a new address costs no failed request once resolved."""
    port = free_port()
    first = _Replica("127.0.0.2", port)
    with loopback_dns() as (dns, resolver):
        dns.set("api.vraagbaak.test", "127.0.0.2")
        for site in start_nginx(
            nginx_binary, tmp_path, tls_pair, frontend_build, f"api.vraagbaak.test:{port}", resolver=resolver
        ):
            with _client(site, tls_pair) as client:
                before = _answered_by(client)
                second = _Replica("127.0.0.3", port)
                dns.set("api.vraagbaak.test", "127.0.0.2", "127.0.0.3")  # docker compose up --scale api=2
                time.sleep(2)  # NGINX_RESOLVER_VALID (1 s here)
                scaled = _answered_by(client, 40)
                first.stop()
                dns.set("api.vraagbaak.test", "127.0.0.3")  # the first one recreated elsewhere
                time.sleep(2)
                recreated = [client.get("/api/replica") for _ in range(16)]
                second.stop()

    assert set(before) == {"127.0.0.2"}
    assert set(scaled) == {"127.0.0.2", "127.0.0.3"}
    assert [(answer.status_code, answer.text) for answer in recreated] == [(200, "127.0.0.3")] * 16


def _client(site: NginxSite, tls_pair: Path) -> httpx.Client:
    return httpx.Client(
        base_url=f"https://localhost:{site.https_port}",
        verify=ssl.create_default_context(cafile=tls_pair / "cert.pem"),
        timeout=30,
    )


def test_nginx_limits_the_anonymous_health_check_per_address(
    nginx_binary: Path, tls_pair: Path, frontend_build: Path, tmp_path: Path
) -> None:
    for site in start_nginx(nginx_binary, tmp_path, tls_pair, frontend_build, f"127.0.0.1:{free_port()}"):
        with _client(site, tls_pair) as client:
            answers = [client.get("/api/health").status_code for _ in range(60)]

    assert set(answers) == {502, 429}, answers  # nothing listens upstream: the ones let through get 502
    assert answers.count(429) >= 20, answers


def _holding_upstream() -> tuple[socket.socket, list[socket.socket]]:
    """An API that accepts uploads and never answers: each upload holds its connection, as a slow one does."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(server.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    return server, held


def _upload_head(site: NginxSite, tls_pair: Path) -> ssl.SSLSocket:
    context = ssl.create_default_context(cafile=tls_pair / "cert.pem")
    connection = context.wrap_socket(
        socket.create_connection(("127.0.0.1", site.https_port)), server_hostname="localhost"
    )
    connection.sendall(
        b"POST /api/admin/uploads HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/pdf\r\n"
        b"Content-Length: 500000\r\n\r\n%PDF-1.7\n" + b"0" * 16_384
    )
    connection.settimeout(3)
    return connection


def test_nginx_limits_the_uploads_in_flight_per_address(
    nginx_binary: Path, tls_pair: Path, frontend_build: Path, tmp_path: Path
) -> None:
    upstream, held = _holding_upstream()
    try:
        for site in start_nginx(
            nginx_binary, tmp_path, tls_pair, frontend_build, f"127.0.0.1:{upstream.getsockname()[1]}"
        ):
            uploads = [_upload_head(site, tls_pair) for _ in range(2)]
            time.sleep(0.5)
            third = _upload_head(site, tls_pair)
            status = third.recv(4096).split(b"\r\n", 1)[0]
            for connection in (*uploads, third):
                connection.close()
    finally:
        upstream.close()
        for connection in held:
            connection.close()

    assert status == b"HTTP/1.1 429 Too Many Requests"


def test_a_load_balancer_in_front_names_the_client_the_login_limits_count(
    nginx_binary: Path, tls_pair: Path, frontend_build: Path, tmp_path: Path, api_server: int
) -> None:
    """With NGINX_REAL_IP_FROM naming the balancer (here: the test itself), its X-Forwarded-For is the client."""
    guess = {"username": "achter-de-balancer", "password": "geraden"}
    for site in start_nginx(
        nginx_binary,
        tmp_path,
        tls_pair,
        frontend_build,
        f"127.0.0.1:{api_server}",
        real_ip_from="127.0.0.1/32",
    ):
        with _client(site, tls_pair) as client:
            for _ in range(5):  # LOGIN_ATTEMPTS unset: 5 per name and address
                seen = client.post("/api/auth/login", json=guess, headers={"X-Forwarded-For": "203.0.113.7"})
                assert (seen.status_code, login_wait(seen)) == (401, 0.0)
            same = client.post("/api/auth/login", json=guess, headers={"X-Forwarded-For": "203.0.113.7"})
            other = client.post("/api/auth/login", json=guess, headers={"X-Forwarded-For": "203.0.113.8"})

    assert (login_wait(same), login_wait(other)) == (1.0, 0.0)  # LOGIN_DELAY_SECONDS unset: 1
