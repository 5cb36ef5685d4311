"""The production compose file is valid for the real Docker Compose v2 (no Docker engine needed to check it)."""

import shutil
import subprocess
from pathlib import Path

import compose
import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
COMPOSE_BINARY = Path(compose.__file__).parent / "docker-compose"


@pytest.fixture
def deployment(tmp_path: Path) -> Path:
    """A deployment folder as ops prepare it: the compose file and `.env` copied from `.env.example`."""
    shutil.copy(REPO_ROOT / "docker-compose.yml", tmp_path / "docker-compose.yml")
    shutil.copy(REPO_ROOT / ".env.example", tmp_path / ".env")
    return tmp_path


def _compose_config(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(COMPOSE_BINARY), "--profile", "ingest", "config"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )


def test_compose_file_is_valid_with_the_example_settings(deployment: Path) -> None:
    result = _compose_config(deployment)

    assert result.returncode == 0, result.stderr
    services = yaml.safe_load(result.stdout)["services"]
    assert {"nginx", "api", "ingest", "worker", "weaviate", "postgres"} <= set(services)


def test_only_nginx_publishes_a_port(deployment: Path) -> None:
    services = yaml.safe_load(_compose_config(deployment).stdout)["services"]

    published = {name for name, service in services.items() if service.get("ports")}

    assert published == {"nginx"}


def test_compose_refuses_to_start_without_the_database_password(deployment: Path) -> None:
    env = (deployment / ".env").read_text()
    (deployment / ".env").write_text(
        "\n".join(line for line in env.splitlines() if not line.startswith("POSTGRES_PASSWORD="))
    )

    result = _compose_config(deployment)

    assert result.returncode != 0
    assert "POSTGRES_PASSWORD" in result.stderr
