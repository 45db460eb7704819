"""Shardings and jit: `NamedSharding`, `PartitionSpec`, `device_put`, `with_sharding_constraint`, `jax.jit`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Function, Partial, Value, Vmap, Xmap

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`


@REGISTRY.handles("jax.jit", "jax.experimental.pjit.pjit")
def jit(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    # jit changes how a function runs, never the shapes it computes.
    fun = call.get(0, "fun")
    return fun if isinstance(fun, Function | Partial | Xmap | Vmap) else None
