"""`@checked`: a function's `f32[...]` annotations checked at its call boundary, sharding included.

Each call checks the arguments against the parameter annotations and the result against the
return annotation, on what `jax.typeof` says of the values: shape, dtype and, where the
annotation gives one (`f32[(8, 16), P('X', 'Y')]`), the split over Explicit mesh axes, with
the checker's rules and messages (SC103, SC301). Under `jax.jit` the check runs while JAX
traces, on the tracers' types, so it costs nothing per step.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, Final, TypeVar, cast

import jax

from shapecheck.algebra.conformance import Bindings, conform
from shapecheck.algebra.declared_sharding import AxisTypes, sharding_conflict
from shapecheck.algebra.outcome import Problem
from shapecheck.runtime import specs
from shapecheck.runtime.annotations import signature_types
from shapecheck.runtime.boundary import boundary
from shapecheck.runtime.errors import raise_problems
from shapecheck.types import ArrayType, Sharding

F = TypeVar("F", bound=Callable[..., Any])

_ABSENT: Final = "Absent"
"""The type of an axis the value's mesh lacks: like Auto and Manual axes, it splits no type."""


def checked(fun: F) -> F:
    """`fun`, checking its annotations against its arguments and result at every call."""
    signature = inspect.signature(fun)
    params, returns = signature_types(fun)
    declared = {name: annotation for name, annotation in params if annotation is not None}
    name = getattr(fun, "__qualname__", getattr(fun, "__name__", "the function"))

    @functools.wraps(fun)
    def call(*args: Any, **kwargs: Any) -> Any:
        bindings: Bindings = {}
        problems: list[Problem] = []
        if declared:
            bound = signature.bind(*args, **kwargs)
            for parameter, annotation in declared.items():
                if parameter in bound.arguments:
                    problems += check(annotation, bound.arguments[parameter], f"argument `{parameter}` of {name}",
                                      bindings)
            raise_problems(problems)
        result = fun(*args, **kwargs)
        if returns is not None:
            raise_problems(check(returns, result, f"the value {name} returns", bindings))
        return result

    return cast(F, boundary(call))


def check(declared: ArrayType, value: Any, what: str, bindings: Bindings | None = None) -> list[Problem]:
    """What certainly contradicts `declared` in `value` (an array or a tracer); [] for
    anything that is not an array (the runtime checks only the language it owns)."""
    if not hasattr(value, "shape") or not hasattr(value, "dtype"):
        return []
    actual, types = typed(value)
    found = conform(declared, actual, bindings if bindings is not None else {}, what,
                    x64=bool(getattr(jax.config, "jax_enable_x64", False)))
    conflict = sharding_conflict(declared, actual, what, axis_types=types)
    return [*found, *([conflict] if conflict is not None else [])]


def typed(value: Any) -> tuple[ArrayType, AxisTypes]:
    """The checker's type of `value`, sharding included, as `jax.typeof` gives it, and the axis
    types of its mesh (every other axis name reads as absent from it)."""
    aval = jax.typeof(value)
    actual = specs.array_type(value)
    sharding = getattr(aval, "sharding", None)
    spec = getattr(sharding, "spec", None)
    mesh = getattr(sharding, "mesh", None)
    if spec is None or mesh is None:
        return actual, _Types({})
    entries: list[tuple[str, ...] | None] = []
    for entry in list(spec)[: len(actual.dims)]:
        if entry is None:
            entries.append(())
        elif isinstance(entry, str):
            entries.append((entry,))
        elif isinstance(entry, tuple) and all(isinstance(axis, str) for axis in entry):
            entries.append(entry)
        else:
            entries.append(None)  # P.UNCONSTRAINED and the like: unknown
    entries += [()] * (len(actual.dims) - len(entries))
    names = tuple(getattr(mesh, "axis_names", ()))
    kinds = tuple(getattr(kind, "name", str(kind)) for kind in getattr(mesh, "axis_types", ()))
    sizes: tuple[tuple[str, int | None], ...] = tuple(
        (axis, int(size)) for axis, size in zip(names, getattr(mesh, "axis_sizes", ()), strict=False))
    return actual.with_sharding(Sharding(tuple(entries), sizes or None)), _Types(dict(zip(names, kinds, strict=False)))


class _Types(dict[str, str | None]):
    """A value's mesh axis types; an axis name the mesh lacks is `_ABSENT`, never unknown."""

    def get(self, key: str, default: Any = None) -> str | None:
        return super().get(key, _ABSENT)

