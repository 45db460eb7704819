"""The library's handler tables are collected from each module's own registry."""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

from shapecheck.analyzer.library import MODULES, REGISTRIES, binder_callees, handlers
from shapecheck.analyzer.library.registry import Registry

ROOT = Path(__file__).resolve().parent.parent


def test_no_name_is_handled_by_two_library_modules() -> None:
    # The tables are merged in a fixed order; a name in two registries would make one of its
    # handlers silently dead.
    counts = Counter(name for registry in REGISTRIES for name in (*registry.functions, *registry.methods))
    assert [name for name, count in counts.items() if count > 1] == []


def test_the_tables_hold_every_registered_handler() -> None:
    functions, methods = handlers()
    for registry in REGISTRIES:
        assert registry.functions.items() <= functions.items()
        assert registry.methods.items() <= methods.items()
    assert "jax.numpy.einsum" in functions and "method:sum" in methods
    assert all(name.startswith(("method:", "attr:")) for name in methods)


def test_every_library_module_with_a_registry_is_collected() -> None:
    # A module left out of MODULES (so of REGISTRIES and the index) handles nothing, silently.
    package = importlib.import_module("shapecheck.analyzer.library")
    defined = {info.name: getattr(importlib.import_module(f"{package.__name__}.{info.name}"), "REGISTRY", None)
               for info in pkgutil.iter_modules(package.__path__)}
    assert sorted(name for name, registry in defined.items() if isinstance(registry, Registry)) == sorted(MODULES)
    assert all(registry is defined[name] for name, registry in zip(MODULES, REGISTRIES, strict=True))


def test_the_callees_that_bind_axis_names_come_from_the_registrations() -> None:
    # `walk.map_axis_names` reads the strings of these calls; the set is derived from
    # `Registry.handles(binds_names=True)` and the aliases `qualnames` knows (`jax.P`).
    callees = binder_callees()
    assert {"vmap", "pmap", "xmap", "shard_map", "partial", "Mesh", "make_mesh", "P", "PartitionSpec",
            "NamedSharding", "jit"} <= callees
    assert not {"psum", "einsum", "sum"} & callees
    flagged = {name for registry in REGISTRIES for name in registry.binders}
    assert flagged <= set(handlers()[0])


def test_the_index_is_what_the_registries_hold() -> None:
    # The interpreter finds a handler's module in the index before importing it: a handler
    # missing there would never be called.
    spec = importlib.util.spec_from_file_location("library_index", ROOT / "tools" / "library_index.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert tool.INDEX.read_text(encoding="utf-8") == tool.index_source().rstrip("\n") + "\n", (
        "the library's index is stale: run `python tools/library_index.py`")


# Run in a fresh interpreter: which modules a check imports.
_IMPORTED = """
import sys
from shapecheck.api import check_source
found = check_source("m.py", sys.stdin.read())
print(sorted(name.rpartition(".")[2] for name in sys.modules
             if name.startswith("shapecheck.analyzer.library.") and name.count(".") == 3), [d.code for d in found])
"""


def _imported(source: str) -> str:
    done = subprocess.run([sys.executable, "-c", _IMPORTED], input=source, capture_output=True, text=True,
                          check=True, cwd=ROOT)
    return done.stdout.strip()


def test_a_library_module_is_imported_when_a_name_it_handles_is_called() -> None:
    # The analyzer is imported, the library's modules are not: this code calls none of them.
    assert _imported("import jax.numpy as jnp\n\ndef f(x):\n    return x\n") == "['index'] []"
    # One call: its module (and what it imports), not the rest; and the handler runs.
    found = _imported("import jax.numpy as jnp\n\nx = jnp.zeros((2, 3)) + jnp.zeros((4,))\n")
    assert "numpy_constructors" in found and "xmap_api" not in found and "'SC101'" in found, found


def test_every_sharding_rule_names_a_handler_that_exists() -> None:
    """`typed_shardings.RULES` is keyed by a handler's module and name: a renamed handler would
    leave its APIs' results untyped without any error (jax.random's samplers were, once)."""
    from shapecheck.analyzer.library.typed_shardings import RULES

    for key in RULES:
        module_name, _, qualname = key.partition(".")
        found: object = importlib.import_module(f"shapecheck.analyzer.library.{module_name}")
        for part in qualname.split(".<locals>.")[0].split("."):
            found = getattr(found, part, None)
        assert callable(found), f"{key}: no such handler"
