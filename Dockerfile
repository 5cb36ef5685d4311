# Images of the Python services, one distribution with two builds of torch:
#   app    — api, ingest and the one-shot `models` service; the CPU build of torch (no CUDA libraries).
#   worker — the GPU generation worker; PyPI's default torch build, which bundles CUDA (the host needs only the
#            NVIDIA driver and container toolkit).
# Exact versions come from constraints.txt (`pip install -c`), the same pins the tests run with.
FROM python:3.11.14-slim-bookworm AS base
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HOME=/tmp/huggingface \
    HF_HUB_OFFLINE=1 \
    MODEL_CACHE=/models
RUN groupadd --system --gid 10001 vraagbaak \
    && useradd --system --uid 10001 --gid vraagbaak --home-dir /srv/vraagbaak --shell /usr/sbin/nologin vraagbaak
WORKDIR /srv/vraagbaak
COPY constraints.txt pyproject.toml README.md ./

FROM base AS app
# Ingestion's tools (in the api image too: embedded jobs run there when RUN_INGESTION_JOBS is on): OCRmyPDF and
# Tesseract's Dutch model for scanned PDFs, LibreOffice Writer without a GUI for Word and OpenDocument files, the
# Dutch word list for text cleaning.
RUN apt-get update -q \
    && apt-get install -y -q --no-install-recommends ocrmypdf tesseract-ocr-nld libreoffice-writer-nogui wdutch \
    && rm -rf /var/lib/apt/lists/*
# The CPU index's 2.13.0+cpu outranks PyPI's CUDA 2.13.0; torch's dependencies come from PyPI at the pinned versions.
RUN pip install -c constraints.txt torch==2.13.0 \
        --index-url https://download.pytorch.org/whl/cpu --extra-index-url https://pypi.org/simple
COPY api ./api
COPY ingest ./ingest
COPY modelstore ./modelstore
COPY speculative ./speculative
RUN pip install -c constraints.txt . \
    && mkdir -p /srv/vraagbaak/uploads/converted /srv/vraagbaak/reports /models \
    && chown -R vraagbaak:vraagbaak /srv/vraagbaak/uploads /srv/vraagbaak/reports /models
USER vraagbaak
EXPOSE 8000

FROM base AS worker
RUN pip install -c constraints.txt torch==2.13.0
COPY api ./api
COPY ingest ./ingest
COPY modelstore ./modelstore
COPY speculative ./speculative
RUN pip install -c constraints.txt . && mkdir -p /models /state && chown vraagbaak:vraagbaak /models /state
USER vraagbaak
EXPOSE 8001
