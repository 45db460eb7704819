"""`python -m shapecheck` is the `shapecheck` command."""

from shapecheck.cli import main

raise SystemExit(main())
