"""Extra module dependencies: files using the annotations depend on where `jax.Array` lives.

The type-analyze hook turns `f32[...]` into `jax.Array`; that class must be in the build, and
mypy's cache of a module that mentions it must be invalidated with it, even for a file that
imports only `shapecheck`. Added only when jax is installed (where it is not, the annotations
mean Any and there is nothing to depend on).
"""

from __future__ import annotations

import importlib.util
from functools import cache
from typing import Final

from mypy.nodes import Import, ImportAll, ImportFrom, MypyFile

from shapecheck.plugin.annotations import JAX_ARRAY_MODULE

# mypy's priority for an ordinary top-level import (mypy.build.PRI_MED).
PRIORITY: Final = 10
_ROOTS: Final = frozenset({"jax", "shapecheck"})


def additional_deps(file: MypyFile) -> list[tuple[int, str, int]]:
    if file.fullname.split(".", 1)[0] in _ROOTS or not _jax_installed():
        return []
    for node in file.imports:
        if isinstance(node, Import):
            names = [name for name, _ in node.ids]
        elif isinstance(node, ImportFrom | ImportAll):
            names = [node.id]
        else:
            continue
        if any(name.split(".", 1)[0] in _ROOTS for name in names):
            return [(PRIORITY, JAX_ARRAY_MODULE, node.line)]
    return []


@cache
def _jax_installed() -> bool:
    # find_spec on a top-level name locates the package without importing it.
    return importlib.util.find_spec("jax") is not None



