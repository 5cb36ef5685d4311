"""Word files through the API: an upload of a .docx is converted, the viewer gets the converted PDF and the
original stays downloadable under the name the admin gave it; names with folders or without an extension."""

import shutil
from pathlib import Path

import pytest

from api.models import Role
from ingest.embedding import Embedder
from ingest.settings import IngestSettings
from tests.api.conftest import SAMPLES, SignIn, run_queued_jobs
from tests.ingest.real_files import word_procedure

DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


@pytest.mark.skipif(
    shutil.which("soffice") is None, reason="LibreOffice is not installed: `make system-packages`"
)
def test_an_uploaded_word_file_is_shown_converted_and_downloadable_as_it_was(
    sign_in: SignIn, ingest_settings: IngestSettings, minilm: Embedder, tmp_path: Path
) -> None:
    admin = sign_in("root", Role.admin)
    word = word_procedure(tmp_path / "injectie.docx").read_bytes()

    response = admin.post(
        "/api/admin/uploads", files=[("files", ("../../Subcutane injectie.docx", word, DOCX))]
    )
    assert response.status_code == 201, response.text
    (job,) = run_queued_jobs(ingest_settings, minilm)

    assert [(file.status, file.message) for file in job.files] == [("indexed", None)]
    (document,) = admin.get("/api/documents").json()
    assert (document["file_name"], document["converted"]) == ("Subcutane injectie.docx", True)
    shown = admin.get(f"/api/documents/{document['id']}/file")
    assert shown.headers["content-type"] == "application/pdf"
    assert shown.content.startswith(b"%PDF-")
    original = admin.get(f"/api/documents/{document['id']}/original")
    assert original.content == word
    assert original.headers["content-type"] == DOCX
    assert "attachment" in original.headers["content-disposition"]


def test_a_pdf_without_an_extension_is_taken_for_what_it_is(
    sign_in: SignIn, ingest_settings: IngestSettings, minilm: Embedder
) -> None:
    admin = sign_in("root", Role.admin)
    pdf = (SAMPLES / "bloedafname.pdf").read_bytes()

    response = admin.post(
        "/api/admin/uploads", files=[("files", ("bloedafname", pdf, "application/octet-stream"))]
    )
    assert response.status_code == 201, response.text
    run_queued_jobs(ingest_settings, minilm)

    (document,) = admin.get("/api/documents").json()
    assert (document["file_name"], document["converted"]) == ("bloedafname", False)
    assert admin.get(f"/api/documents/{document['id']}/file").content == pdf
