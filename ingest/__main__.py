"""`python -m ingest`: see `ingest.cli`."""

from ingest.cli import main

raise SystemExit(main())
