from scholarbench.cli import main

raise SystemExit(main())
