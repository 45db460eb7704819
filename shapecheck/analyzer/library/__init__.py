"""Library rules: what each JAX/NumPy API does to the values it is given.

Each handler reads its call's arguments and hands shapes to the algebra. Each library module
declares what it handles in its own `REGISTRY`; `handlers()` collects them into the tables
that map canonical qualified names (see `qualnames`) and method keys to handlers.
"""

from __future__ import annotations

from functools import cache

from shapecheck.analyzer.calls import Handler
from shapecheck.analyzer.library import (
    array_attributes,
    axis_types_api,
    builtins_api,
    contractions,
    control_api,
    conv_api,
    einops_api,
    elementwise,
    equinox_api,
    flax_api,
    indexing_api,
    lax_api,
    layer_calls,
    layout_api,
    math_api,
    mesh_api,
    nn_api,
    numpy_constructors,
    operators,
    random_api,
    reductions,
    shard_map_api,
    sharding_api,
    transforms,
    trees_api,
    vmap_api,
    xmap_api,
)
from shapecheck.analyzer.library.registry import Caller, Registry
from shapecheck.analyzer.qualnames import spellings

REGISTRIES: tuple[Registry, ...] = tuple(module.REGISTRY for module in (
    builtins_api, math_api, lax_api, transforms, xmap_api, vmap_api, mesh_api, nn_api, numpy_constructors, random_api,
    conv_api, elementwise, reductions, contractions, layout_api, indexing_api, array_attributes, operators, sharding_api,
    shard_map_api, trees_api, control_api, axis_types_api, einops_api, layer_calls, flax_api, equinox_api,
))


@cache
def callers() -> dict[type, Caller]:
    """How each kind of value the library defines is called."""
    return {kind: caller for registry in REGISTRIES for kind, caller in registry.callers.items()}


@cache
def takes_functions() -> frozenset[str]:
    """The APIs whose imported arguments are loaded before the call (`Registry.handles`)."""
    return frozenset(name for registry in REGISTRIES for name in registry.takes_functions)


@cache
def binder_callees() -> frozenset[str]:
    """The APIs that bind axis names or carry them (`Registry.handles(binds_names=True)`), as a
    call may name them without its imports: each one's last part, and its aliases' (`P`)."""
    return frozenset(spelled.rpartition(".")[2] for registry in REGISTRIES for name in registry.binders
                     for spelled in spellings(name))


@cache
def handlers() -> tuple[dict[str, Handler], dict[str, Handler]]:
    """The function and method handler tables of every library module (no name is handled twice)."""
    functions: dict[str, Handler] = {}
    methods: dict[str, Handler] = {}
    for registry in REGISTRIES:
        functions.update(registry.functions)
        methods.update(registry.methods)
    return functions, methods
