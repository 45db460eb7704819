"""Library rules: what each JAX/NumPy API does to the values it is given.

Each handler reads its call's arguments and hands shapes to the algebra. Each library module
declares what it handles in its own `REGISTRY`; `tables()` gives the tables that map canonical
qualified names (see `qualnames`) and method keys to handlers.

A module is imported only when a name it handles is first called: `index` (written by
`tools/library_index.py` from the registries, and checked against them by a test) says which
module that is. Most files of a large project call no array API at all, and a run that
checks a few of them (a pre-commit hook, one file changed) then never imports the library.
"""

from __future__ import annotations

import importlib
import threading
from functools import cache
from typing import TYPE_CHECKING, Any

from shapecheck.analyzer.library import index

if TYPE_CHECKING:
    from shapecheck.analyzer.calls import CallArgs, Handler
    from shapecheck.analyzer.context import Context
    from shapecheck.analyzer.interpreter import Interpreter
    from shapecheck.analyzer.library.registry import Caller, Registry
    from shapecheck.analyzer.scope import Scope
    from shapecheck.analyzer.values import Value

MODULES: tuple[str, ...] = (
    "builtins_api", "math_api", "lax_api", "transforms", "xmap_api", "vmap_api", "mesh_api", "nn_api",
    "numpy_constructors", "random_api", "conv_api", "elementwise", "reductions", "contractions", "layout_api",
    "indexing_api", "array_attributes", "operators", "sharding_api", "shard_map_api", "trees_api", "control_api",
    "axis_types_api", "einops_api", "layer_calls", "flax_api", "equinox_api", "optax_api",
    "slicing_api", "linalg_api", "fft_api", "lax_structure_api", "searching_api",
    "statistics_api", "stats_api", "image_api", "flax_training_api",
    "optax_updates_api", "haiku_api", "flax_nnx_api", "recurrent_layers", "flax_lifted",
    "haiku_recurrent", "equinox_pooling", "nnx_transforms", "signal_api", "ndimage_api", "scipy_solvers_api",
    "flatten_util_api",
)
"""Every library module with a registry (a test fails for one left out)."""

_functions: dict[str, Handler] = {}
_methods: dict[str, Handler] = {}
_callers: dict[type, Caller] = {}
_loaded: set[str] = set()
_lock = threading.Lock()  # the language server's threads may be first to call a name together


def __getattr__(name: str) -> Any:
    if name == "REGISTRIES":  # every module's registry, each module imported (tests, docs)
        return tuple(_load(module) for module in MODULES)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@cache
def tables() -> tuple[dict[str, Handler], dict[str, Handler]]:
    """The function and method handler tables. A name whose module is not imported yet holds a
    stand-in that imports it, puts the module's handlers in place of their stand-ins, and calls
    the real one: the tables stay plain dicts, read at every call the interpreter meets."""
    for table, names in ((_functions, index.FUNCTIONS), (_methods, index.METHODS)):
        for name, module in names.items():
            table.setdefault(name, _deferred(table, name, module))
    return _functions, _methods


def handlers() -> tuple[dict[str, Handler], dict[str, Handler]]:
    """The tables with every module imported (no name is handled twice)."""
    tables()
    for module in MODULES:
        _load(module)
    return _functions, _methods


def caller_of(kind: type) -> Caller | None:
    """How a kind of value the library defines is called (`vmap(f)(x)`), importing the module
    that says so: it may not be the one that made the value (a flax or equinox layer is made
    by `flax_api` or `equinox_api` and called by `layer_calls`)."""
    found = _callers.get(kind)
    if found is None:
        module = index.CALLERS.get(kind_name(kind))
        if module is not None:
            _load(module)
            found = _callers.get(kind)
    return found


def kind_name(kind: type) -> str:
    """A kind of value as `index.CALLERS` names it: `module.Class`."""
    return f"{kind.__module__}.{kind.__qualname__}"


def takes_functions() -> frozenset[str]:
    """The APIs whose imported arguments are loaded before the call (`Registry.handles`)."""
    return index.TAKES_FUNCTIONS


def binder_callees() -> frozenset[str]:
    """The APIs that bind axis names or carry them (`Registry.handles(binds_names=True)`), as a
    call may name them without its imports: each one's last part, and its aliases' (`P`)."""
    return index.BINDER_CALLEES


def _load(module: str) -> Registry:
    registry: Registry = importlib.import_module(f"{__name__}.{module}").REGISTRY
    with _lock:
        if module not in _loaded:
            _functions.update(registry.functions)
            _methods.update(registry.methods)
            _callers.update(registry.callers)
            _loaded.add(module)
    return registry


def _deferred(table: dict[str, Handler], name: str, module: str) -> Handler:
    def first_call(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
        _load(module)
        handler = table.get(name)
        if handler is None or handler is first_call:  # an index older than the module: unhandled
            table.pop(name, None)
            return None
        return handler(interp, call, ctx, scope)

    return first_call
