"""`python -m research.ingest_bench --pdf PATH…`: the ingestion benchmark, see `research.ingest_bench.ingestion`."""

from research.ingest_bench.ingestion import main

if __name__ == "__main__":
    raise SystemExit(main())
