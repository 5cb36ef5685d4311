from speculative.adapt.cli import main

raise SystemExit(main())
