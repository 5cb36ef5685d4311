from research.train_head.cli import main

raise SystemExit(main())
