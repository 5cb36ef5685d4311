"""`.env.example` is the complete list of settings: every variable the code reads is in it, and every one in it is read.

The code side is found statically (`settings_scan`), so a settings class or an `os.environ` read added anywhere
in `api/`, `ingest/` or `speculative/` is covered without registering it here. A documented variable counts as
read when the code reads it or `docker-compose.yml` uses it (`POSTGRES_PASSWORD` sets up the database container, `HF_TOKEN` goes to the
one-shot service that downloads the models).
"""

import re
from pathlib import Path

import yaml
from dotenv import dotenv_values

from tests.deploy.settings_scan import PACKAGES, settings_read_by_the_code

REPO_ROOT = Path(__file__).resolve().parents[2]
ENV_EXAMPLE = REPO_ROOT / ".env.example"
COMPOSE_FILE = REPO_ROOT / "docker-compose.yml"
_INTERPOLATION = re.compile(r"\$\{([A-Z_][A-Z0-9_]*)")
_ASSIGNMENT = re.compile(r"[A-Z][A-Z0-9_]*=.*")
_COMMENTED = re.compile(r"# ([A-Z][A-Z0-9_]*)=")
_ASSIGNED = re.compile(r"([A-Z][A-Z0-9_]*)=")


def documented_settings() -> set[str]:
    """Assigned settings, and optional ones shown commented out (`# OIDC_ISSUER=...`: unset is meaningful)."""
    commented = {
        match[1]
        for line in ENV_EXAMPLE.read_text(encoding="utf-8").splitlines()
        if (match := _COMMENTED.match(line))
    }
    return set(dotenv_values(ENV_EXAMPLE, interpolate=False)) | commented


def compose_reads() -> set[str]:
    """Variables docker compose takes from `.env`: interpolated anywhere, or passed to a service by name."""
    text = COMPOSE_FILE.read_text(encoding="utf-8")
    services = yaml.safe_load(text)["services"].values()
    passed = {name for service in services for name in service.get("environment", {})}
    return set(_INTERPOLATION.findall(text)) | passed


def test_the_scan_finds_the_settings_classes_of_every_package() -> None:
    owners = {read.where.split("/")[0] for read in settings_read_by_the_code() if ":" in read.where}
    variables = {read.variable for read in settings_read_by_the_code()}

    assert set(PACKAGES) <= owners
    assert {"DATABASE_URL", "EMBEDDING_MODEL", "GENERATOR_MODEL", "SECRET_KEY", "MODEL_CACHE"} <= variables


def test_every_setting_the_code_reads_is_in_env_example() -> None:
    documented = documented_settings()

    missing = sorted(
        f"{read.variable} (read in {read.where})"
        for read in settings_read_by_the_code()
        if read.variable not in documented
    )

    assert missing == [], "add these to .env.example, with a comment giving the embedded default"


def test_every_setting_in_env_example_is_read_by_the_code_or_the_compose_file() -> None:
    read = {setting.variable for setting in settings_read_by_the_code()} | compose_reads()

    unread = sorted(documented_settings() - read)

    assert unread == [], "these are documented in .env.example but nothing reads them"


def test_every_variable_compose_takes_from_env_is_in_env_example() -> None:
    """Such as nginx's login rate (NGINX_LOGIN_RATE_PER_MINUTE), which no Python code reads."""
    interpolated = set(_INTERPOLATION.findall(COMPOSE_FILE.read_text(encoding="utf-8")))

    missing = sorted(interpolated - documented_settings())

    assert missing == [], "add these to .env.example, with a comment giving the default compose uses"


def test_env_example_holds_only_comments_and_assignments() -> None:
    lines = ENV_EXAMPLE.read_text(encoding="utf-8").splitlines()

    odd = [line for line in lines if line and not line.startswith("#") and not _ASSIGNMENT.fullmatch(line)]

    assert odd == []


def test_no_setting_is_documented_twice() -> None:
    lines = ENV_EXAMPLE.read_text(encoding="utf-8").splitlines()
    names = [match[1] for line in lines if (match := _COMMENTED.match(line) or _ASSIGNED.match(line))]

    assert sorted({name for name in names if names.count(name) > 1}) == []
