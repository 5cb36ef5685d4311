"""The production compose file, checked with the real Docker Compose v2 (no Docker engine needed) and the code.

What a running stack would show and can be proved here: the file validates with `.env.example` once the image
digests are recorded; only nginx publishes ports; nginx shares no network with the worker or the databases; each
service starts a command that exists; each service is given every setting its code reads and no secret its code
does not read; the stack waits on health, restarts, and reserves a GPU for the worker; every container runs
confined (no capability it does not need, a read-only root, memory and process limits, an init process) from
images pinned by digest.
"""

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import compose
import pytest
import yaml
from pydantic_settings import BaseSettings

from api.chat.settings import ChatSettings
from api.settings import ApiSettings, ProcessSettings
from ingest.settings import IngestSettings
from modelstore.production import ConfiguredModels
from speculative.settings import SpeculativeSettings
from tests.deploy.settings_scan import settings_classes

REPO_ROOT = Path(__file__).resolve().parents[2]
COMPOSE_BINARY = Path(compose.__file__).parent / "docker-compose"
PROFILES = ("ingest", "models")
SECRET_NAME = re.compile(r"(PASSWORD|SECRET|SECRET_KEY|API_KEY|ALLOWED_KEYS|TOKEN|DATABASE_URL)$")

# The settings classes whose code runs in each Python service (the api retrieves through ingest's Retriever).
SERVICE_SETTINGS: dict[str, list[type[BaseSettings]]] = {
    "api": [ApiSettings, ChatSettings, IngestSettings],
    "reports": [ProcessSettings, ChatSettings, IngestSettings],
    "ingest": [IngestSettings],
    "worker": [SpeculativeSettings],
    "models": [ConfiguredModels],
}
# A distinct value per secret, to follow where each one ends up.
SECRETS = {
    "POSTGRES_PASSWORD": "pg-secret-0d6c",
    "WEAVIATE_API_KEY": "weaviate-secret-91ab",
    "SECRET_KEY": "session-secret-5e27",
    "HF_TOKEN": "hf-secret-77f3",
    "OIDC_CLIENT_SECRET": "oidc-secret-4c1d",
    "WORKER_TOKEN": "worker-secret-3b9e",
}
# The image digests ops record in .env (docs/operations.md, "Security"): required, like the secrets.
DIGESTS = {
    name: f"sha256:{index:064x}"
    for index, name in enumerate(
        [
            "POSTGRES_IMAGE_DIGEST",
            "WEAVIATE_IMAGE_DIGEST",
            "PYTHON_IMAGE_DIGEST",
            "NODE_IMAGE_DIGEST",
            "NGINX_IMAGE_DIGEST",
        ],
        start=1,
    )
}
# The capabilities a service's start needs back (its image's entrypoint runs as root); the others need none.
CAPABILITIES = {
    "postgres": {"CHOWN", "DAC_READ_SEARCH", "FOWNER", "SETGID", "SETUID"},
    "nginx": {"CHOWN", "DAC_READ_SEARCH", "SETGID", "SETUID"},
}
WRITABLE_ROOT = {"models"}  # a one-shot download whose temporary files are as large as the models
# Where each secret may go, and only there.
SECRET_HOLDERS = {
    "POSTGRES_PASSWORD": {"postgres", "api", "reports", "ingest"},
    "WEAVIATE_API_KEY": {"weaviate", "api", "reports", "ingest"},
    "SECRET_KEY": {"api"},
    "HF_TOKEN": {"models"},
    "OIDC_CLIENT_SECRET": {"api"},
    "WORKER_TOKEN": {"worker", "api", "reports"},
}


@pytest.fixture
def deployment(tmp_path: Path) -> Path:
    """A deployment folder as ops prepare it: the compose file, and `.env` copied from `.env.example` with the
    image digests recorded."""
    shutil.copy(REPO_ROOT / "docker-compose.yml", tmp_path / "docker-compose.yml")
    shutil.copy(REPO_ROOT / ".env.example", tmp_path / ".env")
    _set_env(tmp_path, DIGESTS)
    return tmp_path


def _set_env(folder: Path, values: dict[str, str]) -> None:
    lines = [
        line for line in (folder / ".env").read_text().splitlines() if line.split("=", 1)[0] not in values
    ]
    (folder / ".env").write_text("\n".join([*(f"{k}={v}" for k, v in values.items()), *lines]) + "\n")


def _compose_config(folder: Path) -> subprocess.CompletedProcess[str]:
    profiles = [argument for profile in PROFILES for argument in ("--profile", profile)]
    return subprocess.run(
        [str(COMPOSE_BINARY), *profiles, "config"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )


def _services(folder: Path) -> dict[str, Any]:
    result = _compose_config(folder)
    assert result.returncode == 0, result.stderr
    services: dict[str, Any] = yaml.safe_load(result.stdout)["services"]
    return services


def _environment(service: dict[str, Any]) -> dict[str, str]:
    return {name: value for name, value in (service.get("environment") or {}).items() if value is not None}


def test_compose_file_is_valid_with_the_example_settings(deployment: Path) -> None:
    services = _services(deployment)

    assert {"nginx", "api", "reports", "ingest", "worker", "weaviate", "postgres", "models"} <= set(services)


def test_only_nginx_publishes_ports_http_and_https(deployment: Path) -> None:
    services = _services(deployment)

    published = {name: service["ports"] for name, service in services.items() if service.get("ports")}

    assert set(published) == {"nginx"}
    # nginx listens on unprivileged ports in its container.
    assert {(port["target"], port["published"]) for port in published["nginx"]} == {
        (8443, "443"),
        (8080, "80"),
    }


@pytest.mark.parametrize(
    "secret", ["POSTGRES_PASSWORD", "WEAVIATE_API_KEY", "SECRET_KEY", "DATABASE_URL", "WORKER_TOKEN"]
)
def test_compose_refuses_to_start_without_a_required_secret(deployment: Path, secret: str) -> None:
    env = (deployment / ".env").read_text()
    (deployment / ".env").write_text(
        "\n".join(line for line in env.splitlines() if not line.startswith(f"{secret}="))
    )

    result = _compose_config(deployment)

    assert result.returncode != 0
    assert secret in result.stderr


def _networks(service: dict[str, Any]) -> set[str]:
    return set(service.get("networks") or {"default"})


def test_nginx_reaches_the_api_alone_and_the_backend_has_no_route_out(deployment: Path) -> None:
    """nginx (the only published service) shares a network with the api and nothing else: a compromised or
    misrouted proxy cannot reach the worker, the databases or the search index."""
    result = _compose_config(deployment)
    assert result.returncode == 0, result.stderr
    config = yaml.safe_load(result.stdout)
    services = config["services"]

    reachable_from_nginx = {
        name
        for name, service in services.items()
        if name != "nginx" and _networks(service) & _networks(services["nginx"])
    }

    assert reachable_from_nginx == {"api"}
    for backend_only in ("worker", "postgres", "weaviate", "ingest", "reports"):
        assert _networks(services[backend_only]) == {"backend"}, backend_only
    assert _networks(services["api"]) == {"frontend", "backend"}
    assert config["networks"]["backend"].get("internal") is True


def test_the_worker_answers_only_with_the_token_it_shares_with_the_api(deployment: Path) -> None:
    _set_env(deployment, SECRETS)
    services = _services(deployment)

    worker, api = _environment(services["worker"]), _environment(services["api"])

    assert worker["WORKER_TOKEN"] == api["WORKER_TOKEN"] == SECRETS["WORKER_TOKEN"]
    assert worker["WORKER_HOST"] == "0.0.0.0"  # on the backend network only (the test above)


def test_each_service_gets_only_the_secrets_it_uses(deployment: Path) -> None:
    _set_env(deployment, SECRETS)
    services = _services(deployment)

    holders = {
        secret: {
            name
            for name, service in services.items()
            if any(value in text for text in _environment(service).values())
        }
        for secret, value in SECRETS.items()
    }

    assert holders == SECRET_HOLDERS


def test_the_compose_file_itself_holds_no_secret_value() -> None:
    text = (REPO_ROOT / "docker-compose.yml").read_text()
    services = yaml.safe_load(text)["services"]

    literal = {
        f"{name}.{variable}"
        for name, service in services.items()
        for variable, value in (service.get("environment") or {}).items()
        if SECRET_NAME.search(variable) and value is not None and not str(value).startswith("${")
    }

    assert literal == set()


@pytest.mark.parametrize("service", sorted(SERVICE_SETTINGS))
def test_each_python_service_is_given_every_setting_its_code_reads(deployment: Path, service: str) -> None:
    declared = set(
        (yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())["services"][service]).get(
            "environment", {}
        )
    )
    read = {name.upper() for cls in SERVICE_SETTINGS[service] for name in cls.model_fields}

    assert sorted(read - declared) == []


def test_the_services_share_the_upload_limit_with_nginx(deployment: Path) -> None:
    services = _services(deployment)

    assert _environment(services["api"])["MAX_UPLOAD_MB"] == _environment(services["nginx"])["MAX_UPLOAD_MB"]


def _module_command(service: dict[str, Any]) -> tuple[str, list[str]]:
    command = service["command"]
    assert command[:2] == ["python", "-m"], command
    return command[2], command[3:]


def test_every_settings_class_of_the_code_belongs_to_a_service() -> None:
    assigned = {cls.__name__ for classes in SERVICE_SETTINGS.values() for cls in classes}

    unassigned = {name: path for name, path in settings_classes().items() if name not in assigned}

    assert unassigned == {}, "add each to SERVICE_SETTINGS and pass its variables to that service in compose"


def _runs_as_main(module: str) -> bool:
    """A package with `__main__`, or a module with an `if __name__ == "__main__":` block."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return False
    if spec.submodule_search_locations:
        return importlib.util.find_spec(f"{module}.__main__") is not None
    return 'if __name__ == "__main__":' in Path(spec.origin).read_text(encoding="utf-8")


@pytest.mark.parametrize("service", ["api", "reports", "ingest", "worker", "models"])
def test_each_service_command_exists_in_the_code(service: str) -> None:
    services = yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())["services"]
    module, arguments = _module_command(services[service])

    assert _runs_as_main(module), f"`python -m {module}` runs nothing"
    if arguments:
        # The arguments parse: argparse answers --help for the sub-command (exit 0) or names what is wrong.
        result = subprocess.run(
            [sys.executable, "-m", module, *arguments, "--help"],
            capture_output=True,
            text=True,
            cwd=REPO_ROOT,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr


def test_services_wait_for_the_health_of_what_they_need(deployment: Path) -> None:
    services = _services(deployment)

    needs = {
        name: {dependency: spec["condition"] for dependency, spec in service.get("depends_on", {}).items()}
        for name, service in services.items()
    }

    assert needs["api"] == {"postgres": "service_healthy", "weaviate": "service_healthy"}
    assert needs["ingest"] == {"postgres": "service_healthy", "weaviate": "service_healthy"}
    assert needs["reports"] == {"postgres": "service_healthy", "weaviate": "service_healthy"}
    assert needs["nginx"] == {"api": "service_healthy"}
    for name in ("postgres", "weaviate", "worker", "api", "nginx"):
        assert services[name]["healthcheck"]["test"], name
        assert services[name]["restart"] == "unless-stopped", name


def test_the_worker_reserves_a_gpu_and_reports_health_on_its_health_route(deployment: Path) -> None:
    worker = _services(deployment)["worker"]

    devices = worker["deploy"]["resources"]["reservations"]["devices"]

    assert devices == [{"capabilities": ["gpu"], "driver": "nvidia", "count": 1}]
    assert "http://localhost:8001/health" in " ".join(worker["healthcheck"]["test"])
    mounts = {
        (mount["source"], mount["target"], mount.get("read_only", False)) for mount in worker["volumes"]
    }
    assert ("models", "/models", True) in mounts


def test_weaviate_is_pinned_persistent_authenticated_without_vectorizer_or_telemetry(
    deployment: Path,
) -> None:
    weaviate = _services(deployment)["weaviate"]
    environment = _environment(weaviate)

    assert weaviate["image"].split("@")[0].rsplit(":", 1)[1].count(".") == 2
    assert environment["PERSISTENCE_DATA_PATH"] in {mount["target"] for mount in weaviate["volumes"]}
    assert environment["DEFAULT_VECTORIZER_MODULE"] == "none"
    assert "text2vec" not in environment["ENABLE_MODULES"]
    assert environment["DISABLE_TELEMETRY"] == "true"
    assert environment["AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED"] == "false"
    assert environment["AUTHENTICATION_APIKEY_ENABLED"] == "true"
    assert "/v1/.well-known/ready" in " ".join(weaviate["healthcheck"]["test"])


def test_postgres_is_pinned_and_keeps_its_data_in_a_volume(deployment: Path) -> None:
    postgres = _services(deployment)["postgres"]

    assert postgres["image"].split(":", 1)[1].split("-")[0].count(".") == 1
    assert {mount["target"] for mount in postgres["volumes"]} == {"/var/lib/postgresql/data"}


def test_the_api_believes_forwarded_addresses_from_nginx_s_network_only(deployment: Path) -> None:
    config = yaml.safe_load(_compose_config(deployment).stdout)
    subnets = [entry["subnet"] for entry in config["networks"]["frontend"]["ipam"]["config"]]

    assert [_environment(config["services"]["api"])["FORWARDED_ALLOW_IPS"]] == subnets


def _mount(service: dict[str, Any], target: str) -> tuple[str, bool]:
    """(source, read-only) of what is mounted at `target`."""
    (mount,) = [mount for mount in service.get("volumes", []) if mount["target"] == target]
    return mount["source"], mount.get("read_only", False)


def test_the_api_reads_bulk_ingested_documents_at_the_path_ingest_recorded(deployment: Path) -> None:
    """`python -m ingest run /documents` records /documents/… paths; the api opens those paths (to show and
    reindex the documents), read-only, and DOCUMENTS_DIR tells it that only that folder and the uploads are
    its to open."""
    _set_env(deployment, {"DOCUMENTS_DIR": "/srv/procedures"})
    services = _services(deployment)
    api, ingest = services["api"], services["ingest"]

    assert _mount(ingest, "/documents") == ("/srv/procedures", True)
    assert _mount(api, "/documents") == ("/srv/procedures", True)
    assert _environment(api)["DOCUMENTS_DIR"] == "/documents"


def test_the_api_and_ingest_share_the_uploads_at_the_same_path(deployment: Path) -> None:
    """An uploaded version is stored by the api and read (then, once replaced, removed) by ingest."""
    services = _services(deployment)
    uploads = _environment(services["api"])["UPLOAD_DIR"]

    assert _mount(services["api"], uploads) == ("uploads", False)
    assert _mount(services["ingest"], uploads) == ("uploads", False)


def test_reports_run_in_their_own_service_which_alone_writes_them(deployment: Path) -> None:
    services = _services(deployment)

    def report_mounts(name: str) -> set[tuple[str, bool]]:
        folder = _environment(services[name])["REPORT_DIR"]
        return {
            (mount["source"], mount.get("read_only", False))
            for mount in services[name]["volumes"]
            if mount["target"] == folder
        }

    assert services["reports"]["command"] == ["python", "-m", "api", "reports"]
    assert _environment(services["api"])["REPORT_DIR"] == _environment(services["reports"])["REPORT_DIR"]
    assert report_mounts("api") == {("reports", True)}
    assert report_mounts("reports") == {("reports", False)}
    assert services["reports"]["restart"] == "unless-stopped"


def test_the_ingest_service_reaps_and_bounds_what_its_converters_start(deployment: Path) -> None:
    """LibreOffice and OCRmyPDF (with its tesseract and gs) run in ingest: an init process reaps what a killed tool
    leaves, and the container is bounded in memory (each process alone is bounded by PARSE_MEMORY_MB) and in
    processes."""
    _set_env(deployment, {"INGEST_MEMORY_LIMIT": "16g"})
    ingest = _services(deployment)["ingest"]

    assert ingest["init"] is True
    assert int(ingest["mem_limit"]) == 16 * 1024**3
    assert 0 < ingest["pids_limit"] <= 1024
    assert "OCR_JOBS" in ingest["environment"]


def test_the_compose_file_says_how_nginx_finds_the_api_replicas() -> None:
    """nginx resolves the api at run time (its template's `resolver`), so replicas added or recreated later get
    requests: the compose file must not tell ops to restart nginx for that."""
    text = " ".join((REPO_ROOT / "docker-compose.yml").read_text().replace("#", " ").split())
    template = (REPO_ROOT / "nginx" / "templates" / "vraagbaak.conf.template").read_text()

    assert "resolver ${NGINX_RESOLVER} valid=${NGINX_RESOLVER_VALID}" in template
    assert "when nginx starts" not in text
    assert "nginx resolves `api` at run time" in text


@pytest.mark.parametrize("digest", sorted(DIGESTS))
def test_compose_refuses_to_start_without_an_image_digest(deployment: Path, digest: str) -> None:
    env = (deployment / ".env").read_text()
    (deployment / ".env").write_text(
        "\n".join(line for line in env.splitlines() if not line.startswith(f"{digest}="))
    )

    result = _compose_config(deployment)

    assert result.returncode != 0
    assert digest in result.stderr


def test_every_image_is_pinned_by_tag_and_digest(deployment: Path) -> None:
    services = _services(deployment)

    pulled = {name: service["image"] for name, service in services.items() if "image" in service}
    built = {
        name: service["build"].get("args", {}) for name, service in services.items() if "build" in service
    }

    assert pulled == {
        "postgres": f"postgres:16.10-bookworm@{DIGESTS['POSTGRES_IMAGE_DIGEST']}",
        "weaviate": f"cr.weaviate.io/semitechnologies/weaviate:1.38.0@{DIGESTS['WEAVIATE_IMAGE_DIGEST']}",
    }
    assert built.pop("nginx") == {name: DIGESTS[name] for name in ("NODE_IMAGE_DIGEST", "NGINX_IMAGE_DIGEST")}
    assert built == {key: {"PYTHON_IMAGE_DIGEST": DIGESTS["PYTHON_IMAGE_DIGEST"]} for key in built}


def test_every_service_drops_every_capability_and_gets_no_new_privileges(deployment: Path) -> None:
    services = _services(deployment)

    dropped = {name: service.get("cap_drop") for name, service in services.items()}
    added = {name: set(service.get("cap_add", [])) for name, service in services.items()}

    assert dropped == {key: ["ALL"] for key in services}
    assert added == {name: CAPABILITIES.get(name, set()) for name in services}
    assert all("no-new-privileges:true" in service["security_opt"] for service in services.values())


def test_every_long_running_service_has_a_read_only_root_and_its_scratch_in_tmpfs(deployment: Path) -> None:
    services = _services(deployment)

    read_only = {name for name, service in services.items() if service.get("read_only")}
    scratch = {name: service.get("tmpfs", []) for name, service in services.items() if name in read_only}

    assert read_only == set(services) - WRITABLE_ROOT
    assert all(any(path.split(":")[0] == "/tmp" for path in paths) for paths in scratch.values()), scratch
    assert {"/var/run/postgresql", "/tmp"} <= set(scratch["postgres"])
    assert {"/etc/nginx/conf.d", "/var/cache/nginx", "/var/run"} <= set(scratch["nginx"])


def test_every_service_is_bounded_in_memory_and_processes_and_reaps_its_children(deployment: Path) -> None:
    services = _services(deployment)

    unbounded = {
        name: [key for key in ("mem_limit", "pids_limit") if not service.get(key)]
        for name, service in services.items()
    }

    assert {name: keys for name, keys in unbounded.items() if keys} == {}
    assert all(service.get("init") is True for service in services.values())
    assert all(0 < service["pids_limit"] <= 1024 for service in services.values())
