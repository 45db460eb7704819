"""Where a diagnostic's file is, as CI dashboards want it (relative to the project root), and
as every format can write it (valid UTF-8, whatever bytes the name has)."""

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


def shown(text: str) -> str:
    """`text` as valid Unicode: each byte of a file name that is not UTF-8 (decoded by Python
    as a lone surrogate, `bad\\udcff.py`) written as `\\xNN` (`bad\\xff.py`), as Python's
    `backslashreplace` writes it. The output of a run stays valid UTF-8, which every format
    needs (JSON: RFC 8259; terminals and CI logs expect it); SARIF URIs keep the raw bytes
    instead, percent-encoded."""
    if text.isascii():
        return text
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate that stands for no byte: `\\udNNN`
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def one_line(text: str) -> str:
    """`text` on one line, for the formats that give each diagnostic exactly one."""
    return " ".join(text.splitlines()) if "\n" in text or "\r" in text else text
