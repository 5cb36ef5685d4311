"""Processes the deployment tests start: free loopback ports, waiting for a listener, nginx in the foreground."""

import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from research.local_process import free_port
from tests.deploy.nginx_site import NginxSite, nginx_arguments, write_config

UPLOAD_LIMIT_MB = 1
START_TIMEOUT = 60.0


def wait_until_listening(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"process exited with {process.returncode}:\n{log.read_text(errors='replace')}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    pytest.fail(f"nothing listens on port {port} after {START_TIMEOUT} s:\n{log.read_text(errors='replace')}")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def start_nginx(
    nginx_binary: Path,
    folder: Path,
    tls_pair: Path,
    frontend_build: Path,
    upstream: str,
    *,
    resolver: str = "127.0.0.1:53",
    real_ip_from: str = "0.0.0.0/32",
    login_rate_per_minute: int = 120,
    login_burst: int = 60,
) -> Iterator[NginxSite]:
    """Run the production nginx.conf and site template in the foreground with the API at `upstream` (`host:port`;
    a name is resolved at run time through `resolver`, answers kept 1 s); the login rate as the image sets it
    unless given."""
    site = NginxSite(https_port=free_port(), http_port=free_port(), folder=folder)
    conf = write_config(
        folder,
        tls_pair,
        {
            "NGINX_HTTPS_LISTEN": f"127.0.0.1:{site.https_port}",
            "NGINX_HTTP_LISTEN": f"127.0.0.1:{site.http_port}",
            "NGINX_API_UPSTREAM": upstream,
            "NGINX_RESOLVER": resolver,
            "NGINX_RESOLVER_VALID": "1s",
            "NGINX_REAL_IP_FROM": real_ip_from,
            "NGINX_FRONTEND_ROOT": str(frontend_build),
            "MAX_UPLOAD_MB": str(UPLOAD_LIMIT_MB),
            "NGINX_LOGIN_RATE_PER_MINUTE": str(login_rate_per_minute),
            "NGINX_LOGIN_BURST": str(login_burst),
        },
    )
    log = folder / "nginx.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [str(nginx_binary), *nginx_arguments(folder, conf)], stdout=output, stderr=subprocess.STDOUT
        )
    try:
        wait_until_listening(site.https_port, process, log)
        wait_until_listening(site.http_port, process, log)
        yield site
    finally:
        stop(process)
