"""The Python builtins that carry sizes and containers: len, range, zip, enumerate, dict, tuple,
list, int, reversed, min, max."""

from __future__ import annotations

import ast
import math
from typing import TYPE_CHECKING

from shapecheck.analyzer import containers
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.registry import Registry, traced_size
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Class,
    ClassMethod,
    Const,
    Devices,
    Dict,
    Function,
    Property,
    Seq,
    StaticMethod,
    TracedInt,
    Value,
    as_int,
    as_str,
)
from shapecheck.codes import Code
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

_MAX_RANGE = 64  # longer ranges are loops, not shapes: not worth tracking element by element


@REGISTRY.handles("builtins.len", signature="obj, /")
def length(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("obj")
    if isinstance(value, Seq):
        return Const(len(value.items))
    if isinstance(value, Dict):
        return Const(len(value.items))
    if isinstance(value, Const) and isinstance(value.value, str):
        return Const(len(value.value))  # `jnp.zeros(len(text))`: a string literal's characters
    if isinstance(value, ArrayType) and value.ellipsis is None and value.dims:
        first = value.dims[0]
        return Const(first) if isinstance(first, int) else None
    if isinstance(value, Devices) and value.count is not None:
        return Const(value.count)
    return None


# `range(stop)` or `range(start, stop[, step])`: the bounds are read as they come.
@REGISTRY.handles("builtins.range", signature="*bounds")
def range_(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if _traced_argument(interp, call, "range", "bounds"):
        return None  # JAX's TracerIntegerConversionError
    bounds = [as_int(arg) for arg in call.rest()]
    if not bounds or any(b is None for b in bounds) or call.kwargs or (bounds[-1] == 0 and len(bounds) == 3):
        return None
    values = range(*[b for b in bounds if b is not None])
    if len(values) > _MAX_RANGE:
        return None
    return Seq(tuple(Const(v) for v in values), True)


def _traced_argument(interp: Interpreter, call: CallArgs, what: str, parameter: str) -> bool:
    """SC107 where a builtin that needs a Python int is given a traced jit argument."""
    for value, node in zip(call.args, call.arg_nodes, strict=False):
        if isinstance(value, TracedInt):
            interp.reporter.add(node, Code.SIZE_ARGUMENT_MISMATCH, traced_size(what, node, parameter))
            return True
    return False


@REGISTRY.handles("builtins.tuple", "builtins.list", signature="iterable=(), /")
def sequence(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("iterable")
    if not call.given("iterable"):
        return Seq((), call.short_name == "list")
    items = containers.iteration(value)
    return Seq(items, call.short_name == "list") if items is not None else None


@REGISTRY.handles("builtins.zip", signature="*iterables, strict=False")
def zip_(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    strict = call.arg("strict") if call.given("strict") else Const(False)
    if not isinstance(strict, Const):
        return None
    return containers.zipped([_sequence(v) for v in call.rest()], strict=bool(strict.value))


@REGISTRY.handles("builtins.enumerate", signature="iterable, start=0")
def enumerate_(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return containers.enumerated(_sequence(call.arg("iterable")),
                                 call.arg("start") if call.given("start") else None)


@REGISTRY.handles("builtins.dict", signature="*args, **kwargs")
def dict_(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`dict(a=x, b=y)`, `dict(other, c=z)`, `dict(zip(names, values))`: a dict of known keys."""
    args = call.rest()
    if len(args) > 1:
        return None
    base: Value = Dict(())
    if args:
        base = args[0]
        if isinstance(base, Seq):  # pairs
            pairs = [item.items for item in base.items if isinstance(item, Seq) and len(item.items) == 2]
            if len(pairs) != len(base.items):
                return None
            base = Dict(tuple((key, value) for key, value in pairs))
    keywords = Dict(tuple((Const(name), value) for name, value in call.keywords().items()))
    return containers.merge(base, keywords)


def _sequence(value: Value) -> Value:
    """What iterating `value` gives, as a sequence (a dict's keys), where known."""
    items = containers.iteration(value)
    return Seq(items, True) if items is not None else None


@REGISTRY.handles("builtins.reversed", signature="sequence, /")
def reversed_(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    value = call.arg("sequence")
    return Seq(value.items[::-1], True) if isinstance(value, Seq) else None


@REGISTRY.handles("builtins.int", signature="x=0, /, base=10")
def int_(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if _traced_argument(interp, call, "int", "argument"):
        return None  # JAX's ConcretizationTypeError
    given = call.arg("x")
    if isinstance(given, Const) and isinstance(given.value, float) and math.isfinite(given.value) \
            and not call.given("base"):
        return Const(int(given.value))  # `int(D / H)`, `int(math.sqrt(n))`: truncated, as Python does
    value = as_int(given)
    return Const(value) if value is not None else None


@REGISTRY.handles("builtins.min", "builtins.max", signature="*args, key=None, default=None")
def extreme(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    numbers = [as_int(arg) for arg in call.rest()]
    if len(numbers) < 2 or any(n is None for n in numbers) or call.kwargs:
        return None
    known = [n for n in numbers if n is not None]
    return Const(min(known) if call.short_name == "min" else max(known))


_BUILTIN_TYPES = {"list": Seq, "tuple": Seq, "dict": Dict, "int": Const, "float": Const, "str": Const,
                  "bool": Const}
_ARRAY_TYPES = ("ndarray", "Array", "ArrayImpl", "generic")


@REGISTRY.handles("builtins.isinstance", signature="obj, class_or_tuple, /")
def isinstance_(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """What `isinstance` certainly answers for an array or a literal container; guards such as
    `isinstance(t, list | tuple) and len(t)` then decide which branch runs."""
    value = call.arg("obj")
    names = _class_names(call.arg_expr("class_or_tuple"))
    if value is None or names is None:
        return None
    if isinstance(value, ArrayType):
        if any(name in _ARRAY_TYPES for name in names):
            return Const(True)
        return Const(False) if all(name in _BUILTIN_TYPES for name in names) else None
    if isinstance(value, Seq) and all(name in _BUILTIN_TYPES for name in names):
        wanted = {"list"} if value.is_list else {"tuple"}
        return Const(bool(wanted & set(names)))
    if isinstance(value, Dict) and all(name in _BUILTIN_TYPES for name in names):
        return Const("dict" in names)
    return None


def _class_names(node: ast.expr | None) -> list[str] | None:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.Tuple):
        found: list[str] = []
        for element in node.elts:
            inner = _class_names(element)
            if inner is None:
                return None
            found += inner
        return found
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _class_names(node.left), _class_names(node.right)
        return None if left is None or right is None else left + right
    return None


@REGISTRY.handles("builtins.print", signature="*args, sep=' ', end='\\n', file=None, flush=False")
def print_(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return Const(None)


@REGISTRY.handles("builtins.property", signature="fget=None, fset=None, fdel=None, doc=None")
@REGISTRY.handles("functools.cached_property", signature="fget, /")
def property_(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`@property def head_dim(self)`: the getter, called with the instance where the attribute
    is read (a config's derived sizes are often properties)."""
    getter = call.arg("fget")
    return Property(getter) if isinstance(getter, Function) else None


@REGISTRY.handles("collections.namedtuple", signature="typename, field_names, *, rename=False, defaults=None, "
                                                    "module=None")
@REGISTRY.handles("typing.NamedTuple", "typing_extensions.NamedTuple", signature="typename, fields=None, /")
def namedtuple(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`collections.namedtuple("State", ["h", "c"])` (or `"h c"`), `NamedTuple("State", [("h",
    T), ...])`: a record class, a pytree node of its own kind (a loop carry rebuilt as another
    namedtuple class is refused by JAX as another structure)."""
    name = as_str(call.arg("typename"))
    given = call.arg("field_names") if call.short_name == "namedtuple" else call.arg("fields")
    text = as_str(given)
    if text is not None:
        fields: list[str | None] = list(text.replace(",", " ").split())
    elif isinstance(given, Seq):
        fields = [as_str(item.items[0]) if isinstance(item, Seq) and item.items else as_str(item)
                  for item in given.items]
    else:
        return None
    renames = call.short_name == "namedtuple" and call.given("rename")
    if name is None or call.opaque or renames or any(field is None for field in fields) \
            or len(set(fields)) != len(fields):
        return None
    # Defaults (and a field's default read back) are not followed: a field left out is unknown.
    return Class(name, record="namedtuple", fields=tuple(field for field in fields if field is not None))


@REGISTRY.handles("builtins.classmethod", signature="f, /")
def classmethod_(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`@classmethod def create(cls, ...)`: the class is its first argument (alternative
    constructors of configs and states build with `cls(...)`)."""
    function = call.arg("f")
    return ClassMethod(function) if isinstance(function, Function) else None


@REGISTRY.handles("builtins.staticmethod", signature="f, /")
def staticmethod_(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    function = call.arg("f")
    return StaticMethod(function) if isinstance(function, Function) else None


@REGISTRY.handles("builtins.property.setter", "builtins.property.deleter", signature="prop, function, /")
def property_accessor(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`@head_dim.setter`: the same property; what it reads is still its getter's."""
    prop = call.arg("prop")
    return prop if isinstance(prop, Property) else None


@REGISTRY.handles("builtins.property.getter", signature="prop, function, /")
def property_getter(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    getter = call.arg("function")
    return Property(getter) if isinstance(getter, Function) else None


@REGISTRY.handles("builtins.ord", signature="c, /")
def ord_(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """A character's code point: `jnp.array([ord(ch) for ch in text])` tokenizes known text."""
    value = call.arg("c")
    return Const(ord(value.value)) if isinstance(value, Const) and isinstance(value.value, str) \
        and len(value.value) == 1 else None
