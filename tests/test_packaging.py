"""Every package folder is installed: a plain (non-editable) install gets exactly what
pyproject.toml lists, and an editable install hides a folder left off the list."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INSTALLED_AS = {"shapecheck": "shapecheck", "plugin": "shapecheck.plugin", "rules": "shapecheck.rules"}
# A stub-only package (PEP 561): its folders hold .pyi files and py.typed, no __init__.py.
STUBS_AS = {"stubs/jax": "jax-stubs"}


def test_every_package_folder_is_listed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    assert config["package-dir"] == {name: folder for folder, name in (INSTALLED_AS | STUBS_AS).items()}
    found = set()
    for folder, name in INSTALLED_AS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((name, *relative)))
    for folder, name in STUBS_AS.items():
        for stub in (ROOT / folder).rglob("*"):
            if stub.suffix == ".pyi" or stub.name == "py.typed":
                relative = stub.parent.relative_to(ROOT / folder).parts
                found.add(".".join((name, *relative)))
    assert found == listed, f"missing from pyproject: {sorted(found - listed)}"


def test_every_stub_beside_the_code_is_installed() -> None:
    # A stub-only module (shapecheck/restored_jax_lax.pyi, which the mypy plugin's restored
    # names import) is package data: left off, an installed plugin's names would not resolve.
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for folder, name in INSTALLED_AS.items():
        for stub in (ROOT / folder).rglob("*.pyi"):
            package = ".".join((name, *stub.parent.relative_to(ROOT / folder).parts))
            assert any(stub.match(pattern) for pattern in data.get(package, [])), f"{stub} is not package data"
