"""The nginx site template rendered the way the nginx image renders it, and where a test instance listens."""

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
SITE_TEMPLATE = REPO_ROOT / "nginx" / "templates" / "vraagbaak.conf.template"
PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class NginxSite:
    https_port: int
    http_port: int
    folder: Path


def template_placeholders() -> set[str]:
    return set(PLACEHOLDER.findall(SITE_TEMPLATE.read_text(encoding="utf-8")))


def render_template(values: dict[str, str]) -> str:
    """envsubst limited to the given names (as the image's NGINX_ENVSUBST_FILTER does); all must be given."""
    missing = template_placeholders() - set(values)
    assert not missing, f"no value for {sorted(missing)}"
    return PLACEHOLDER.sub(
        lambda match: values.get(match[1], match[0]), SITE_TEMPLATE.read_text(encoding="utf-8")
    )


def write_config(folder: Path, tls_pair: Path, values: dict[str, str]) -> Path:
    """Lay out a config folder as the image has it (nginx.conf, mime.types, tls/, conf.d/) and return it.

    One addition, for running unprivileged from a temp folder: temp paths below `folder` instead of nginx's
    compiled-in /var/lib/nginx.
    """
    conf = folder / "conf"
    (conf / "conf.d").mkdir(parents=True)
    shutil.copy(REPO_ROOT / "nginx" / "nginx.conf", conf / "nginx.conf")
    shutil.copy("/etc/nginx/mime.types", conf / "mime.types")
    shutil.copytree(tls_pair, conf / "tls")
    (conf / "conf.d" / "vraagbaak.conf").write_text(render_template(values))
    temp = folder / "temp"
    temp.mkdir()
    (conf / "conf.d" / "test-temp-paths.conf").write_text(
        "".join(
            f"{kind}_temp_path {temp / kind};\n"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
    )
    return conf


def nginx_arguments(folder: Path, conf: Path, foreground: bool = True) -> list[str]:
    """Prefix, config file, start-up error log and pid file inside `folder`.

    Run by root, the workers keep root's identity: the test's temp folders are private to the user running it.
    """
    directives = f"pid {folder / 'nginx.pid'};"
    if foreground:
        directives += " daemon off;"
    if os.geteuid() == 0:
        directives += " user root;"
    return [
        *("-p", str(folder), "-c", str(conf / "nginx.conf"), "-e", str(folder / "startup-error.log")),
        *("-g", directives),
    ]
