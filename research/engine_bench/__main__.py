"""`python -m research.engine_bench`: see `research.engine_bench.cli`."""

from research.engine_bench.cli import main

raise SystemExit(main())
