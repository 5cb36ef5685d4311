from speculative.train_head.cli import main

raise SystemExit(main())
