"""`python -m shapecheck` is the `shapecheck` command.

`python -m` puts the working directory first on `sys.path`, and Python imports modules from
there (`runpy`'s own: `warnings`, `contextlib`, ...; `shapecheck` itself) before any line of
this file runs: inside the checked project, a file with one of those names would be executed.
That cannot be undone from here; `python -P -m shapecheck` (or `-I`), or the `shapecheck`
command, keep the working directory off the path from the start.
"""

import os
import sys

# What this file can still do: keep the working directory off the path for everything imported
# from now on (the analyzer, libcst, pathspec), as -P would have. Worker processes do not inherit
# the path: shapecheck.pool starts them with PYTHONSAFEPATH.
if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from shapecheck.cli import main  # only once the path is safe

# Worker processes start from a fresh interpreter and import __main__ under another name.
if __name__ == "__main__":
    raise SystemExit(main())
