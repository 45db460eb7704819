"""docs/apis.md lists every API a library handler is registered for, with the module that
handles it: a registered JAX name missing from the table, a name the table promises that no
handler takes, or a row pointing at the wrong module fails here."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

from shapecheck.analyzer import library
from shapecheck.analyzer.library import REGISTRIES

PAGE = Path(__file__).resolve().parent.parent / "docs" / "apis.md"
ROW = re.compile(r"^\| `([\w.]+)` \| (.+) \| `(\w+)\.py` \|$", re.M)


def _documented() -> dict[str, str]:
    """Each qualified name in the table, with the library module its row names."""
    found: dict[str, str] = {}
    for module, names, handler in ROW.findall(PAGE.read_text(encoding="utf-8")):
        for name in re.findall(r"`([\w.]+)`", names):
            assert f"{module}.{name}" not in found, f"{module}.{name} is listed twice"
            found[f"{module}.{name}"] = handler
    return found


def _registered() -> dict[str, str]:
    """Each function name a handler is registered for that a program can write, with its module."""
    owners = {}
    for info in pkgutil.iter_modules(library.__path__):
        registry = getattr(importlib.import_module(f"{library.__name__}.{info.name}"), "REGISTRY", None)
        if registry is not None:
            owners[id(registry)] = info.name
    # `jax.grad()` is a name no program can write (the gradient's call): not an API.
    return {name: owners[id(registry)] for registry in REGISTRIES for name in registry.functions
            if all(part.isidentifier() for part in name.split("."))}


def test_the_table_is_read() -> None:
    documented = _documented()
    assert len(documented) > 300 and documented["jax.lax.all_gather"] == "lax_api"


def test_every_registered_jax_name_is_in_the_table() -> None:
    registered = _registered()
    missing = sorted(name for name in registered if name.startswith("jax.") and name not in _documented())
    assert missing == [], f"add these to docs/apis.md: {missing}"


def test_the_table_promises_only_registered_names() -> None:
    registered = _registered()
    assert sorted(name for name in _documented() if name not in registered) == []


def test_each_row_names_the_module_that_handles_it() -> None:
    registered = _registered()
    wrong = {name: (handler, registered[name]) for name, handler in _documented().items()
             if name in registered and registered[name] != handler}
    assert wrong == {}
