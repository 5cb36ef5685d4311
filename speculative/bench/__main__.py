"""`python -m speculative.bench`: see `speculative.bench.cli`."""

from speculative.bench.cli import main

raise SystemExit(main())
