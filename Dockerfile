# One image definition for the Python services. `app` (api + ingest) and `worker` (the GPU generation worker)
# share the code; the worker gets PyPI's default torch build, which carries CUDA.
FROM python:3.11-slim-bookworm AS base
ENV PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /srv/vraagbaak
COPY pyproject.toml README.md ./
COPY api ./api
COPY ingest ./ingest
COPY speculative ./speculative

FROM base AS app
RUN pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu && pip install .
USER nobody

FROM base AS worker
RUN pip install torch==2.13.0 && pip install .
USER nobody
