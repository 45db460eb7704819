"""The annotation language as mypy types: `f32[(5, 7), {'batch': 20}]` means `jax.Array`.

mypy's parser already accepts the literals inside the brackets (tuples, TypedDict-like dicts,
ints, strings, `...`) as raw type arguments; the type-analyze hook then replaces the whole
subscript with `jax.Array` without looking at them. Whether the dims are valid is the
engine's question (SC001), reported with the rest of the file's diagnostics, so mypy itself
never adds an error of its own here and stays exactly as strict about the value as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from mypy.nodes import SymbolTableNode, TypeInfo, Var
from mypy.plugin import AnalyzeTypeContext
from mypy.types import AnyType, Instance, TupleType, Type, TypedDictType, TypeOfAny, UnboundType

# Where `jax.Array` is defined (jax re-exports it from here).
JAX_ARRAY: Final = "jax._src.basearray.Array"
JAX_ARRAY_MODULE: Final = "jax._src.basearray"

# The module whose DType constants (`f32 = DType("f32")`) are the annotation language.
DTYPE_MODULE: Final = "shapecheck.dtype_objects"

Lookup = Callable[[str], SymbolTableNode | None]


def may_be_annotation(fullname: str, names: frozenset[str]) -> bool:
    """Whether a name used as a type can be one of ours, judged from the name alone: one of
    shapecheck's DType constants, or a configured annotation name (the tutorial's
    `f32 = ArrayType()`). It is one when it also refers to a variable (`refers_to_variable`):
    classes and aliases that share a name (`jax.Array`, `numpy.float32`) are left to mypy.
    """
    module, _, name = fullname.rpartition(".")
    return module == DTYPE_MODULE or name in names


def refers_to_variable(fullname: str, lookup: Lookup) -> bool:
    """Asked on each lookup, not remembered: while semantic analysis is in progress a name may
    not be bound to its variable yet."""
    found = lookup(fullname)
    return found is not None and isinstance(found.node, Var)


def array_type(ctx: AnalyzeTypeContext, lookup: Lookup) -> Type:
    """`jax.Array`, or Any where jax is not part of the build (not installed)."""
    found = lookup(JAX_ARRAY)
    if found is not None and isinstance(found.node, TypeInfo):
        return Instance(found.node, [], line=ctx.type.line, column=ctx.type.column)
    return AnyType(TypeOfAny.special_form, line=ctx.type.line, column=ctx.type.column)


def string_dims(t: Type) -> list[UnboundType]:
    """The quoted dims (`'n'`) inside an annotation's arguments, as mypy parsed them: names.

    mypy's search for a function's type variables runs before the type-analyze hook and looks
    each of them up as a name, reporting `Name "n" is not defined`; the hook withdraws those.
    """
    found: list[UnboundType] = []
    pending = list(t.args) if isinstance(t, UnboundType) else []
    while pending:
        arg = pending.pop()
        if isinstance(arg, UnboundType) and arg.original_str_expr is not None:
            found.append(arg)
        elif isinstance(arg, TupleType):
            pending.extend(arg.items)
        elif isinstance(arg, TypedDictType):
            pending.extend(arg.items.values())
    return found
