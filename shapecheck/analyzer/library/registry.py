"""What a library module registers: its handlers, by qualified name and by method or attribute."""

from __future__ import annotations

import ast
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any, TypeAlias

from shapecheck.analyzer.calls import CallArgs, Handler, Signature
from shapecheck.analyzer.values import Const, Seq, TracedInt, Value
from shapecheck.analyzer.walk import code
from shapecheck.codes import Code

if TYPE_CHECKING:
    from shapecheck.analyzer.context import Context
    from shapecheck.analyzer.interpreter import Interpreter
    from shapecheck.analyzer.scope import Scope
    from shapecheck.analyzer.values import Value

Caller: TypeAlias = "Callable[[Interpreter, Any, CallArgs, Context, Scope], Value]"
"""How a kind of value is called: `vmap(f)` is a Vmap value, and `vmap(f)(x)` calls it."""


class Registry:
    """The handlers one library module defines, filled by its `@REGISTRY.handles(...)` lines.

    Each module owns one and the library collects them (`library.handlers()`): nothing is
    registered into a global by importing a module.
    """

    __slots__ = ("binders", "callers", "functions", "methods", "signatures", "takes_functions")

    def __init__(self) -> None:
        self.functions: dict[str, Handler] = {}
        self.methods: dict[str, Handler] = {}
        self.signatures: dict[str, Signature] = {}
        self.callers: dict[type, Caller] = {}
        self.takes_functions: set[str] = set()
        self.binders: set[str] = set()

    def handles(self, *names: str, signature: str, takes_functions: bool = False,
                binds_names: bool = False) -> Callable[[Handler], Handler]:
        """Register a handler for qualified names (`jax.numpy.sum`) or keys like `method:sum`.

        `signature` is the APIs' parameters as their docs write them (a method's or an
        attribute's receiver is its first parameter): the handler reads each argument by
        parameter name, `call.arg("axis")`, and a position is written only here.
        `takes_functions`: the API is given functions and specs that may be imported from
        another module (`jax.vmap(model.apply, in_axes=model.AXES)`), so the interpreter loads
        what its arguments name before the call, where other calls leave imports unresolved.
        `binds_names`: the API binds axis names, or carries names to one that does (a map, a
        mesh, a PartitionSpec, `partial`): a string written in its call may name an axis a map
        binds (`walk.map_axis_names`).
        """
        declared = Signature.parse(signature)

        def register(handler: Handler) -> Handler:
            bound = _binding(handler, declared)
            for name in names:
                table = self.methods if name.startswith(("method:", "attr:")) else self.functions
                table[name] = bound
                self.signatures[name] = declared
                if takes_functions:
                    self.takes_functions.add(name)
                if binds_names:
                    self.binders.add(name)
            return handler

        return register

    def calls(self, *kinds: type) -> Callable[[Caller], Caller]:
        """Register how values of these kinds are called, so that a new kind of value (a
        mapped, jitted or shard_mapped function) needs no edit in the interpreter."""

        def register(caller: Caller) -> Caller:
            for kind in kinds:
                self.callers[kind] = caller
            return caller

        return register


def each(module: str, *names: str) -> tuple[str, ...]:
    return tuple(f"{module}.{name}" for name in names)


# The parameters that take a shape: every API with one refuses a float in it (JAX's TypeError
# "Shapes must be 1D sequences of concrete values of integer type"), whatever else it does.
_SHAPES = ("shape", "newshape")

# The parameters JAX needs concrete (Python values, not tracers): sizes, counts, axes. A jit
# argument given there is refused (TypeError, ConcretizationTypeError).
_CONCRETE = ("shape", "newshape", "slice_sizes", "num_classes", "num_segments", "length", "total_repeat_length",
             "num", "N", "M", "k", "indices_or_sections", "reps", "repeats", "axis", "pad_width")
# And those of single APIs, whose names elsewhere take tracers (linspace's start and stop).
_CONCRETE_BY_API = {"jax.numpy.arange": ("start", "stop", "step")}


def _binding(handler: Handler, signature: Signature) -> Handler:
    # Every result is typed with its sharding by the handler's rule (`typed_shardings`).
    key = f"{handler.__module__.rpartition('.')[2]}.{handler.__qualname__}"
    shapes = tuple(name for name in _SHAPES if name in signature.places)
    concrete = tuple(name for name in _CONCRETE if name in signature.places)

    def bound(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
        call.signature = signature
        if shapes and _float_size(interp, call, shapes):
            return None
        if (concrete or call.name in _CONCRETE_BY_API) and _traced(
                interp, call, (*concrete, *_CONCRETE_BY_API.get(call.name, ()))):
            return None
        reported = len(interp.reporter.findings)
        result = handler(interp, call, ctx, scope)
        if result is None:  # most calls: nothing known, nothing to type
            return None
        return _typed()(key, interp, call, ctx, result, reported)

    bound.__name__ = handler.__name__
    bound.__qualname__ = handler.__qualname__
    bound.__doc__ = handler.__doc__
    return bound


def traced_size(what: str, node: ast.AST, parameter: str) -> str:
    """The message where JAX needs a concrete value but is given a jit argument (a tracer)."""
    return (f"{what}: `{code(node, 40)}` comes from an argument of a jitted function, which JAX traces, but its "
            f"{parameter} must be a concrete Python value (JAX: ConcretizationTypeError, or 'Shapes must be 1D "
            "sequences of concrete values'); mark that argument static (static_argnums= or static_argnames=), "
            "or compute the value from an array's .shape")


def holds_traced(value: object, depth: int = 2) -> bool:
    """Whether `value`, or an item of it (pairs of pairs: pad widths), is a traced jit argument."""
    if isinstance(value, TracedInt):
        return True
    return depth > 0 and isinstance(value, Seq) and any(holds_traced(item, depth - 1) for item in value.items)


def _given(call: CallArgs, name: str) -> list[tuple[Value, ast.AST]]:
    """The argument(s) a call gives parameter `name`, with their nodes: each of a variadic's."""
    assert call.signature is not None
    if name == call.signature.variadic:
        start = len(call.signature.positional)
        return list(zip(call.args[start:], call.arg_nodes[start:], strict=False))
    return [(call.arg(name), call.arg_node(name))] if call.given(name) else []


def _traced(interp: Interpreter, call: CallArgs, names: tuple[str, ...]) -> bool:
    """SC107 at an argument JAX needs concrete that holds a traced jit argument; True where so."""
    for name in names:
        if name == "repeats" and call.given("total_repeat_length"):
            continue  # traced repeats are what total_repeat_length is for
        for value, node in _given(call, name):
            if holds_traced(value):
                interp.reporter.add(node, Code.SIZE_ARGUMENT_MISMATCH, traced_size(call.short_name, node, name))
                return True
    return False


def _float_size(interp: Interpreter, call: CallArgs, names: tuple[str, ...]) -> bool:
    """SC107 at a shape argument holding a Python float (`jnp.zeros(n / 2)`); True where so."""
    for name in names:
        for value, node in _given(call, name):
            items = value.items if isinstance(value, Seq) else (value,)
            for item in items:
                if isinstance(item, Const) and isinstance(item.value, float):
                    written = code(node, 40)
                    what = "is a float" if written == repr(item.value) else f"holds {item.value!r}, a float"
                    interp.reporter.add(node, Code.SIZE_ARGUMENT_MISMATCH, (
                        f"{call.short_name}: a shape holds integers, but `{written}` {what} (`/` makes one; `//` "
                        "keeps an int)"))
                    return True
    return False


@cache
def _typed() -> Callable[..., Value]:
    # Imported on first use: typed_shardings imports the library's helpers, which import this.
    from shapecheck.analyzer.library.typed_shardings import typed

    return typed
