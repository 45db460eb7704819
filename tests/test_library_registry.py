"""The library's handler tables are collected from each module's own registry."""

from __future__ import annotations

import importlib
import pkgutil
from collections import Counter

from shapecheck.analyzer.library import REGISTRIES, binder_callees, handlers
from shapecheck.analyzer.library.registry import Registry


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
    # A module whose REGISTRY is left out of REGISTRIES handles nothing, silently.
    package = importlib.import_module("shapecheck.analyzer.library")
    defined = {info.name: getattr(importlib.import_module(f"{package.__name__}.{info.name}"), "REGISTRY", None)
               for info in pkgutil.iter_modules(package.__path__)}
    missing = [name for name, registry in defined.items()
               if isinstance(registry, Registry) and not any(registry is r for r in REGISTRIES)]
    assert missing == []
    assert sum(isinstance(registry, Registry) for registry in defined.values()) == len(REGISTRIES)


def test_the_callees_that_bind_axis_names_come_from_the_registrations() -> None:
    # `walk.map_axis_names` reads the strings of these calls; the set is derived from
    # `Registry.handles(binds_names=True)` and the aliases `qualnames` knows (`jax.P`).
    callees = binder_callees()
    assert {"vmap", "pmap", "xmap", "shard_map", "partial", "Mesh", "make_mesh", "P", "PartitionSpec",
            "NamedSharding", "jit"} <= callees
    assert not {"psum", "einsum", "sum"} & callees
    flagged = {name for registry in REGISTRIES for name in registry.binders}
    assert flagged <= set(handlers()[0])
