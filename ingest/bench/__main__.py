"""`python -m ingest.bench --pdf PATH…`: the ingestion benchmark, see `ingest.bench.ingestion`."""

from ingest.bench.ingestion import main

if __name__ == "__main__":
    raise SystemExit(main())
