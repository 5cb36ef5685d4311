"""Fixtures for the production stack's tests: Debian's nginx with the project's config, the real API and worker
behind it."""

import os
import shutil
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from modelstore.registry import ALL_MINILM_L6_V2
from research.loopback import api_process, worker_process
from tests.deploy.nginx_site import NginxSite
from tests.deploy.servers import UPLOAD_LIMIT_MB, start_nginx

REPO_ROOT = Path(__file__).resolve().parents[2]
CERT_SCRIPT = REPO_ROOT / "nginx" / "self-signed-cert.sh"
CLINICIAN = "clinicus"
PASSWORD = "een-lang-testwachtwoord"


@pytest.fixture(scope="session")
def nginx_binary() -> Path:
    """Debian's nginx (`make test` installs nginx-light when it is missing)."""
    found = shutil.which("nginx") or next(
        (path for path in ("/usr/sbin/nginx", "/sbin/nginx") if os.access(path, os.X_OK)), None
    )
    if found is None:
        pytest.skip(
            "Debian's nginx is not installed and could not be installed (apt-get install -y nginx-light)"
        )
    return Path(found)


@pytest.fixture(scope="session")
def tls_pair(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A self-signed certificate for 127.0.0.1, made by the script ops use for a trial."""
    folder = tmp_path_factory.mktemp("tls")
    subprocess.run(["sh", str(CERT_SCRIPT), str(folder), "localhost"], check=True, capture_output=True)
    return folder


@pytest.fixture(scope="session")
def frontend_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A stand-in for `frontend/dist`: an index page and one hashed asset, as Vite lays them out."""
    root = tmp_path_factory.mktemp("dist")
    (root / "index.html").write_text(
        '<!doctype html><html><head><script type="module" src="/assets/index-3f2a1b.js"></script>'
        '</head><body><div id="root"></div></body></html>\n'
    )
    (root / "assets").mkdir()
    (root / "assets" / "index-3f2a1b.js").write_text("console.log('vraagbaak');\n" * 400)
    return root


@pytest.fixture(scope="session")
def worker_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real worker (the tiny Llama-architecture model) on loopback, shared by the deployment tests."""
    folder = tmp_path_factory.mktemp("worker")
    with worker_process(folder / "worker.log", MAX_NEW_TOKENS="48", DRAFT_METHOD="casd") as url:
        yield url


@pytest.fixture(scope="session")
def api_server(tmp_path_factory: pytest.TempPathFactory, worker_url: str) -> Iterator[int]:
    """The real API (`python -m api`) on loopback with a real worker behind it (the tiny Llama-architecture model),
    a sample procedure indexed, and a clinician account."""
    folder = tmp_path_factory.mktemp("stack")
    settings = {
        "DATABASE_URL": f"sqlite:///{folder / 'vraagbaak.db'}",
        "INDEX_DIR": str(folder / "index"),
        "EMBEDDING_MODEL": ALL_MINILM_L6_V2,
        "UPLOAD_DIR": str(folder / "uploads"),
        "REPORT_DIR": str(folder / "reports"),
    }
    environment = {**os.environ, "PYTHONPATH": str(REPO_ROOT), **settings}
    subprocess.run(
        [sys.executable, "-m", "ingest", "run", str(REPO_ROOT / "samples" / "documents" / "handhygiene.pdf")],
        env=environment,
        check=True,
        capture_output=True,
    )
    subprocess.run(
        [sys.executable, "-m", "api", "users", "add", CLINICIAN, "--role", "clinician"],
        env=environment,
        input=PASSWORD + "\n",
        text=True,
        check=True,
        capture_output=True,
    )
    with api_process(
        folder / "api.log",
        **settings,
        WORKER_URLS=worker_url,
        MAX_UPLOAD_MB=str(UPLOAD_LIMIT_MB),
        SECRET_KEY="test-secret-key-for-the-nginx-tests",
        RUN_INGESTION_JOBS="false",
        # Always answer (the thresholds were measured for another embedder): this test is about streaming.
        ABSTAIN_MIN_DENSE="0",
        ABSTAIN_MIN_BM25="0",
        ABSTAIN_MIN_COVERAGE="",
    ) as api_url:
        yield int(api_url.rsplit(":", 1)[1])


@pytest.fixture(scope="session")
def nginx_before_api(
    nginx_binary: Path,
    tls_pair: Path,
    frontend_build: Path,
    api_server: int,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[NginxSite]:
    yield from start_nginx(
        nginx_binary, tmp_path_factory.mktemp("nginx"), tls_pair, frontend_build, f"127.0.0.1:{api_server}"
    )


@pytest.fixture
def https(nginx_before_api: NginxSite, tls_pair: Path) -> Iterator[httpx.Client]:
    """A client that trusts only the test certificate, talking to nginx by the name on it."""
    with httpx.Client(
        base_url=f"https://localhost:{nginx_before_api.https_port}",
        verify=ssl.create_default_context(cafile=tls_pair / "cert.pem"),
        timeout=30,
    ) as client:
        yield client
