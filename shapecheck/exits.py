"""The exit statuses every command shares (DESIGN section 5).

Imported by the command line before a run answered from its memo exits: nothing here imports
anything.
"""

EXIT_CLEAN = 0
"""Nothing found (or `--exit-zero`)."""

EXIT_FINDINGS = 1
"""Diagnostics, syntax errors among them (as ruff)."""

EXIT_ERROR = 2
"""A usage error, an internal error, or a file that could not be (fully) checked."""

EXIT_TERMINATED = 128 + 15
"""A run stopped by SIGTERM, as a shell reports a process the signal killed."""
