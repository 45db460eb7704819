"""Starting Python processes that import nothing from the checked project.

multiprocessing starts its fork server, its resource tracker and spawned processes as
`python -c ...`, which puts the working directory (the checked project, for a pre-commit hook or
an editor) first on `sys.path`; the fork server also ignores the path it is handed (Python 3.11
to 3.13). A project's `ast.py` or `multiprocessing.py` would then run in them. PYTHONSAFEPATH
(Python's -P) keeps the working directory off; only an interpreter run with -E but neither -P
nor -I would ignore it, and there no process may be started.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager


def isolated() -> bool:
    """Whether processes started under `safe_path()` keep the working directory off `sys.path`."""
    flags = sys.flags
    return bool(flags.isolated or flags.safe_path or not flags.ignore_environment)


_environment_lock = threading.Lock()


@contextmanager
def safe_path() -> Iterator[None]:
    """PYTHONSAFEPATH set for the processes started meanwhile; the environment as it was after."""
    with _environment_lock:
        saved = os.environ.get("PYTHONSAFEPATH")
        os.environ["PYTHONSAFEPATH"] = "1"
        try:
            yield
        finally:
            if saved is None:
                del os.environ["PYTHONSAFEPATH"]
            else:
                os.environ["PYTHONSAFEPATH"] = saved
