"""Run mypy over the package as it installs: plugin/ and rules/ become shapecheck.plugin/.rules.

mypy maps directories to module names by their place on disk, and plugin/ and rules/ live
beside shapecheck/ rather than in it; a tree of symlinks gives mypy the installed layout
without copying a file.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUBPACKAGES = {"plugin": "plugin", "rules": "rules"}


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="shapecheck-mypy-") as tmp:
        package = Path(tmp) / "shapecheck"
        package.mkdir()
        for entry in (ROOT / "shapecheck").iterdir():
            if entry.name != "__pycache__":
                (package / entry.name).symlink_to(entry)
        for name, source in SUBPACKAGES.items():
            (package / name).symlink_to(ROOT / source)
        command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                   "--cache-dir", str(ROOT / ".mypy_cache"), "-p", "shapecheck"]
        result = subprocess.run(command, cwd=tmp, env={**os.environ, "MYPYPATH": tmp},
                                capture_output=True, text=True)
        # Point messages back at the real files so editors and people can follow them.
        sys.stdout.write(result.stdout.replace(f"{package}/plugin/", "plugin/")
                         .replace(f"{package}/rules/", "rules/").replace(f"{package}/", "shapecheck/")
                         .replace("shapecheck/plugin/", "plugin/").replace("shapecheck/rules/", "rules/"))
        sys.stderr.write(result.stderr)
        return result.returncode


if __name__ == "__main__":
    raise SystemExit(main())
