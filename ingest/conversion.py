"""Word and OpenDocument files to PDF with LibreOffice headless, run from the bounded parsing child.

The converted PDF is what gets ingested and what the viewer shows (its text layer is where the highlight is
found); the original stays the document's file, downloadable. Before LibreOffice sees a file, what can be told
cheaply is: a zip container (.docx, .odt) that would unpack to more than `MAX_UNPACKED_BYTES`, or at a ratio no
document has, is refused as a zip bomb; a .docx that is an OLE container is password-protected (Office encrypts
into an `EncryptedPackage` stream). LibreOffice runs with a profile of its own in a scratch folder (so that
conversions never share or lock a profile) that loads nothing a document links to (no image or section from a URL
or another file: a document could otherwise make the converter fetch from the hospital's network or copy a local
file into the PDF that gets indexed) and runs no macro; it is bounded in time and sees none of our environment
(`tools.py`).
"""

import shutil
import zipfile
from pathlib import Path

from ingest.formats import OLE_MAGIC, Kind
from ingest.pdf_reader import UnusableFile
from ingest.tools import ToolTimeout, run_tool

MAX_UNPACKED_BYTES = 512 * 1024 * 1024
MAX_RATIO = 200
SOFFICE = "soffice"
SCRIPTING = "/org.openoffice.Office.Common/Security/Scripting"
PROFILE_SETTINGS = {
    (SCRIPTING, "BlockUntrustedRefererLinks"): "true",  # nothing a document links to is loaded
    (SCRIPTING, "DisableMacrosExecution"): "true",
    (SCRIPTING, "MacroSecurityLevel"): "3",
    ("/org.openoffice.Office.Writer/Content/Update", "Link"): "2",  # links are never updated
}
NOT_INSTALLED = (
    "Word- en OpenDocument-bestanden kunnen hier niet worden omgezet: LibreOffice "
    "(libreoffice-writer-nogui) is niet geïnstalleerd"
)


def converter_available() -> bool:
    return shutil.which(SOFFICE) is not None


def convert_to_pdf(source: Path, kind: Kind, scratch: Path, timeout: float) -> Path:
    """The PDF LibreOffice makes of `source` (a `kind` file) in `scratch`, or `UnusableFile` saying why not."""
    _check_container(source, kind)
    if not converter_available():
        raise UnusableFile(NOT_INSTALLED)
    scratch.mkdir(parents=True, exist_ok=True)
    copy = scratch / f"document{kind.suffix}"
    shutil.copyfile(source, copy)
    arguments = [
        SOFFICE,
        f"-env:UserInstallation={_profile(scratch / 'profile').as_uri()}",
        "--headless",
        "--norestore",
        "--nolockcheck",
        "--convert-to",
        "pdf",
        "--outdir",
        str(scratch),
        str(copy),
    ]
    try:
        result = run_tool(arguments, timeout, scratch)
    except ToolTimeout as error:
        raise UnusableFile(f"omzetten naar PDF afgebroken: {error}") from error
    converted = scratch / "document.pdf"
    if not converted.is_file() or converted.stat().st_size == 0:
        raise UnusableFile(
            f"kon niet naar PDF worden omgezet: LibreOffice kan dit {kind.value}-bestand niet lezen "
            f"(beschadigd, met een wachtwoord beveiligd of een ander formaat; exitcode {result.returncode})"
        )
    return converted


def _profile(folder: Path) -> Path:
    """A LibreOffice profile in `folder` with `PROFILE_SETTINGS` (LibreOffice fills in the rest at start)."""
    items = "".join(
        f'<item oor:path="{path}"><prop oor:name="{name}" oor:op="fuse"><value>{value}</value></prop></item>\n'
        for (path, name), value in PROFILE_SETTINGS.items()
    )
    settings = folder / "user" / "registrymodifications.xcu"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<oor:items xmlns:oor="http://openoffice.org/2001/registry">\n{items}</oor:items>\n',
        encoding="utf-8",
    )
    return folder


def _check_container(source: Path, kind: Kind) -> None:
    with source.open("rb") as handle:
        head = handle.read(len(OLE_MAGIC))
    if kind is Kind.docx and head == OLE_MAGIC:
        raise UnusableFile(
            "met een wachtwoord beveiligd Word-bestand: sla het zonder wachtwoord op en upload het opnieuw"
        )
    if kind in (Kind.docx, Kind.odt):
        _check_unpacked_size(source)


def _check_unpacked_size(source: Path) -> None:
    try:
        with zipfile.ZipFile(source) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        raise UnusableFile(f"beschadigd bestand: geen geldig zip-archief ({error})") from error
    unpacked = sum(member.file_size for member in members)
    packed = sum(member.compress_size for member in members) or 1
    if unpacked > MAX_UNPACKED_BYTES or unpacked / packed > MAX_RATIO:
        raise UnusableFile(
            f"uitgepakt {unpacked / 1e6:.0f} MB uit {packed / 1e6:.1f} MB (een zip-bom?): niet geopend"
        )
