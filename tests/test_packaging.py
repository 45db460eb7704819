"""Every package folder is installed: a plain (non-editable) install gets exactly what
pyproject.toml lists, and an editable install hides a folder left off the list."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INSTALLED_AS = {"shapecheck": "shapecheck", "plugin": "shapecheck.plugin", "rules": "shapecheck.rules"}


def test_every_package_folder_is_listed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    assert config["package-dir"] == {name: folder for folder, name in INSTALLED_AS.items()}
    found = set()
    for folder, name in INSTALLED_AS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((name, *relative)))
    assert found == listed, f"missing from pyproject: {sorted(found - listed)}"
