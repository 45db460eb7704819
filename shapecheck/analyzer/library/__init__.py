"""Library rules: what each JAX/NumPy API does to the values it is given.

Each handler reads its call's arguments and hands shapes to the algebra; the registry maps
canonical qualified names (see `qualnames`) to handlers.
"""

from __future__ import annotations

import importlib

from shapecheck.analyzer.calls import Handler
from shapecheck.analyzer.library.registry import HANDLERS, METHODS

_MODULES = ("builtins_api", "lax_api", "maps", "mesh_api", "nn_api", "numpy_constructors", "random_api",
            "elementwise", "reductions", "contractions", "layout_api", "array_attributes", "operators")


def handlers() -> tuple[dict[str, Handler], dict[str, Handler]]:
    """The function and method handler tables, with every library module registered."""
    for name in _MODULES:
        importlib.import_module(f"{__name__}.{name}")  # handlers register themselves on import
    return HANDLERS, METHODS
