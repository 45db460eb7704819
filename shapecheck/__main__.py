"""`python -m shapecheck` is the `shapecheck` command."""

import os
import sys

# `python -m` puts the working directory first on sys.path: run inside the checked project, a
# `libcst.py` or `pathspec.py` there would be imported, that is executed, in place of ours. The
# checker never imports the code it checks, so the working directory leaves the path (as with
# Python's -P); worker processes inherit the cleaned path.
if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from shapecheck.cli import main  # only once the path is safe

# Worker processes start from a fresh interpreter and import __main__ under another name.
if __name__ == "__main__":
    raise SystemExit(main())
