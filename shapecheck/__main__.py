"""`python -m shapecheck` is the `shapecheck` command."""

from shapecheck.cli import main

# Worker processes start from a fresh interpreter and import __main__ under another name.
if __name__ == "__main__":
    raise SystemExit(main())
