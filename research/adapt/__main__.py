from research.adapt.cli import main

raise SystemExit(main())
