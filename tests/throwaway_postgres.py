"""A PostgreSQL server of a test's own (initdb in a temporary folder, a free loopback port), which the test may stop
and start again: the shared server on 5432 must never go down under the other tests."""

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest

from research.local_process import free_port

POSTGRES_ROOT = Path("/usr/lib/postgresql")
SERVER_USER = "postgres"  # initdb and postgres refuse to run as root


def _binaries() -> Path | None:
    """The newest installed PostgreSQL's bin folder that has initdb and pg_ctl."""
    found = [folder for folder in POSTGRES_ROOT.glob("*/bin") if (folder / "initdb").exists()]
    return max(found, key=lambda folder: int(folder.parent.name), default=None)


class ThrowawayPostgres:
    """One cluster in `folder`, listening on 127.0.0.1:`port` only, trust authentication, fsync off."""

    def __init__(self, binaries: Path, folder: Path, user: str | None) -> None:
        self.binaries = binaries
        self.folder = folder
        self.user = user
        self.port = free_port()

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/vraagbaak"

    def _run(self, program: str, *arguments: str) -> None:
        command = [str(self.binaries / program), *arguments]
        subprocess.run(
            command, user=self.user, check=True, capture_output=True, timeout=60, start_new_session=True
        )

    def init(self) -> None:
        self._run("initdb", "-D", str(self.folder / "data"), "-U", "postgres", "-A", "trust", "--no-sync")
        self.start()
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres", autocommit=True) as admin:
            admin.execute("CREATE DATABASE vraagbaak")

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.folder} -c fsync=off"
        self._run(
            "pg_ctl",
            "start",
            "-w",
            "-D",
            str(self.folder / "data"),
            "-l",
            str(self.folder / "log"),
            "-o",
            options,
        )

    def stop(self) -> None:
        """A fast shutdown, as a restart by an operator: open connections are cut."""
        self._run("pg_ctl", "stop", "-w", "-m", "fast", "-D", str(self.folder / "data"))


@contextmanager
def throwaway_postgres() -> Iterator[ThrowawayPostgres]:
    """A running throwaway server with an empty database `vraagbaak`; stopped and removed afterwards. Skips, saying
    why, where PostgreSQL's server programs are not installed."""
    binaries = _binaries()
    if binaries is None:
        pytest.skip(f"no PostgreSQL server programs (initdb, pg_ctl) under {POSTGRES_ROOT}/*/bin")
    user = SERVER_USER if os.geteuid() == 0 else None
    try:
        account = pwd.getpwnam(user) if user is not None else None
    except KeyError:
        pytest.skip(f"running as root, and there is no {SERVER_USER} account to run PostgreSQL's server as")
    folder = Path(tempfile.mkdtemp(prefix="vraagbaak-postgres-"))
    if account is not None:
        os.chown(folder, account.pw_uid, account.pw_gid)
    server = ThrowawayPostgres(binaries, folder, user)
    try:
        server.init()
        yield server
    finally:
        subprocess.run(
            [str(binaries / "pg_ctl"), "stop", "-m", "immediate", "-D", str(folder / "data")],
            user=user,
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(folder, ignore_errors=True)
