"""Library rules: what each JAX/NumPy API does to the values it is given.

Each handler reads its call's arguments and hands shapes to the algebra; the registry maps
canonical qualified names (see `qualnames`) to handlers.
"""

from __future__ import annotations

from shapecheck.analyzer.interpreter import Handler
from shapecheck.analyzer.library.registry import HANDLERS, METHODS


def handlers() -> tuple[dict[str, Handler], dict[str, Handler]]:
    """The function and method handler tables, with every library module registered."""
    from shapecheck.analyzer.library import (  # noqa: F401  (registration on import)
        builtins_api,
        lax_api,
        maps,
        mesh_api,
        nn_api,
        numpy_api,
        operators,
    )

    return HANDLERS, METHODS
