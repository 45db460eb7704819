"""Where a diagnostic's file is, as CI dashboards want it: relative to the project root."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath


def project_relative(path: str, root: Path) -> PurePosixPath | None:
    """`path` relative to `root` with forward slashes, or None for a file outside the root.

    Dashboards (GitHub code scanning, GitLab's merge-request widget) match a result to the file
    of the repository by this path, so it must not depend on the directory the run started in.
    """
    for resolve in (os.path.abspath, os.path.realpath):
        # abspath first: a symlinked file inside the project is named where the user sees it.
        try:
            relative = Path(resolve(path)).relative_to(Path(resolve(root)))
        except ValueError:
            continue
        return PurePosixPath(relative.as_posix())
    return None
