# Images of the Python services, one distribution with two builds of torch:
#   app    — api, ingest and the one-shot `models` service; the CPU build of torch (no CUDA libraries).
#   worker — the GPU generation worker; PyPI's default torch build, which bundles CUDA (the host needs only the
#            NVIDIA driver and container toolkit).
# Pinned: the base image by tag and digest (PYTHON_IMAGE_DIGEST, which docker-compose.yml requires), the Debian
# packages by version, and every Python package by version and hash (`pip install --require-hashes` from
# requirements/image-*.txt, which `make image-locks` writes from constraints.txt, the pins the tests run with).
# A Debian security update replaces a pinned version in the archive: the build then fails until the pin is raised
# (docs/operations.md, "Security").
ARG PYTHON_IMAGE_DIGEST
FROM python:3.11.14-slim-bookworm@${PYTHON_IMAGE_DIGEST} AS base
# The root filesystem is read-only in compose: HOME, and with it every cache (Hugging Face, torch, Triton, CUDA,
# matplotlib), is the /tmp tmpfs.
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HOME=/tmp \
    HF_HOME=/tmp/huggingface \
    HF_HUB_OFFLINE=1 \
    MODEL_CACHE=/models
RUN groupadd --system --gid 10001 vraagbaak \
    && useradd --system --uid 10001 --gid vraagbaak --home-dir /srv/vraagbaak --shell /usr/sbin/nologin vraagbaak
WORKDIR /srv/vraagbaak
COPY constraints.txt pyproject.toml README.md ./
COPY requirements/ ./requirements/

# hnswlib has no wheel: built here from its hashed source with hashed build tools, without build isolation; the
# compiler stays in this stage.
FROM base AS wheels
RUN apt-get update -q \
    && apt-get install -y -q --no-install-recommends g++=4:12.2.0-3 \
    && rm -rf /var/lib/apt/lists/*
RUN pip install --require-hashes --no-deps -r requirements/image-build.txt \
    && pip wheel --require-hashes --no-deps --no-build-isolation --wheel-dir /wheels -r requirements/image-sources.txt

FROM base AS app
# Ingestion's tools (in the api image too: embedded jobs run there when RUN_INGESTION_JOBS is on): OCRmyPDF with
# Tesseract's Dutch model and Ghostscript for scanned PDFs, LibreOffice Writer without a GUI for Word and
# OpenDocument files, the Dutch word list for text cleaning.
RUN apt-get update -q \
    && apt-get install -y -q --no-install-recommends \
        ocrmypdf=14.0.1+dfsg1-1 \
        tesseract-ocr=5.3.0-2 \
        tesseract-ocr-nld=1:4.1.0-2 \
        ghostscript=10.0.0~dfsg-11+deb12u9 \
        libreoffice-writer-nogui=4:7.4.7-1+deb12u14 \
        wdutch=1:2.20.19-2 \
    && rm -rf /var/lib/apt/lists/*
# The CPU index holds torch's CPU build; its dependencies come from PyPI.
COPY --from=wheels /wheels /wheels
RUN pip install --require-hashes --no-deps -r requirements/image-app.txt \
        --index-url https://download.pytorch.org/whl/cpu --extra-index-url https://pypi.org/simple \
    && pip install --no-deps /wheels/*.whl
COPY api ./api
COPY ingest ./ingest
COPY modelstore ./modelstore
COPY speculative ./speculative
RUN pip install --no-deps --no-build-isolation . \
    && mkdir -p /srv/vraagbaak/uploads/converted /srv/vraagbaak/reports /models \
    && chown -R vraagbaak:vraagbaak /srv/vraagbaak/uploads /srv/vraagbaak/reports /models
USER vraagbaak
EXPOSE 8000

FROM base AS worker
COPY --from=wheels /wheels /wheels
RUN pip install --require-hashes --no-deps -r requirements/image-worker.txt \
    && pip install --no-deps /wheels/*.whl
COPY api ./api
COPY ingest ./ingest
COPY modelstore ./modelstore
COPY speculative ./speculative
RUN pip install --no-deps --no-build-isolation . && mkdir -p /models /state && chown vraagbaak:vraagbaak /models /state
USER vraagbaak
EXPOSE 8001
