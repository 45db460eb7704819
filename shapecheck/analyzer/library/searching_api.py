"""Searching, counting and selecting: searchsorted, digitize, interp, isin, select, nonzero,
argwhere, flatnonzero and unique (with a static `size=`), bincount (with a static `length=`),
tri; and jnp.cross. Their rules are `algebra.searching`'s (cross's, `algebra.linalg`'s)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapecheck.algebra import linalg, searching
from shapecheck.algebra.outcome import Outcome, Problem
from shapecheck.algebra.promotion import default
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import (
    array,
    code_of,
    dtype_or,
    element_labels,
    finished,
    labels,
    passed,
    refused,
)
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.qualnames import JNP
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Const, Seq, Value, as_dim, as_int
from shapecheck.codes import Code
from shapecheck.dims import Dim
from shapecheck.dtypes import kind_of
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

_INDEX = default("i").dtype  # the default int: what the searches count in


@REGISTRY.handles(f"{JNP}.searchsorted", signature="a, v, side='left', sorter=None, *, method='scan'")
def searchsorted(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    a, v = array(call.arg("a")), array(call.arg("v"))
    if a is None or v is None or passed(call, "sorter"):
        return None
    return finished(interp, call, searching.queried(v, a, "jnp.searchsorted", _INDEX, [_label(call, "v"),
                                                                                        _label(call, "a")]))


@REGISTRY.handles(f"{JNP}.digitize", signature="x, bins, right=False, *, method=None")
def digitize(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    x, bins = array(call.arg("x")), array(call.arg("bins"))
    if x is None or bins is None:
        return None
    return finished(interp, call, searching.queried(x, bins, "jnp.digitize", _INDEX, labels(call, 2)))


@REGISTRY.handles(f"{JNP}.interp", signature="x, xp, fp, left=None, right=None, period=None")
def interp_handler(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    x, xp, fp = array(call.arg("x")), array(call.arg("xp")), array(call.arg("fp"))
    if x is None or xp is None or fp is None:
        return None
    return finished(interp, call, searching.interp(x, xp, fp, labels(call, 3)))


@REGISTRY.handles(f"{JNP}.isin", signature="element, test_elements, assume_unique=False, invert=False, *, method='auto'")
def isin(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    element = array(call.arg("element"))
    return element.with_dtype("bool_") if element is not None else None


@REGISTRY.handles(f"{JNP}.select", signature="condlist, choicelist, default=0")
def select(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    conditions, choices = _arrays(call.arg("condlist")), _arrays(call.arg("choicelist"))
    fallback = array(call.arg("default")) if call.given("default") else array(Const(0))
    if conditions is None or choices is None or fallback is None:
        return None
    names = [*element_labels(call, "condlist"), f"default {_label(call, 'default')}" if call.given("default") else "0",
             *element_labels(call, "choicelist")]
    return finished(interp, call, searching.select(conditions, choices, fallback, names))


@REGISTRY.handles(f"{JNP}.nonzero", f"{JNP}.argwhere", f"{JNP}.flatnonzero",
                  signature="a, *, size=None, fill_value=None")
def nonzero(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The indices found: `size=` of them, or as many as the values make (unknown)."""
    value = array(call.arg("a"))
    size = _size(call, "size")
    if value is None or size is False:
        return None
    result = searching.found(value, size, call.short_name, _INDEX)
    if isinstance(result, Outcome):
        return finished(interp, call, result)
    if result is None:
        return None
    return Seq(result) if call.short_name == "nonzero" else result[0]


@REGISTRY.handles(f"{JNP}.unique", signature="ar, return_index=False, return_inverse=False, return_counts=False, "
                                             "axis=None, *, equal_nan=True, size=None, fill_value=None, sorted=True")
def unique(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The distinct elements, flattened: `size=` of them (the other results are not followed)."""
    value = array(call.arg("ar"))
    size = _size(call, "size")
    extras = any(call.given(name) and call.arg(name) != Const(False)
                 for name in ("return_index", "return_inverse", "return_counts", "axis"))
    if value is None or size is False or extras:
        return None
    return ArrayType(value.dtype, (size,))


@REGISTRY.handles(f"{JNP}.bincount", signature="x, weights=None, minlength=0, *, length=None, out_sharding=None")
def bincount(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """A count per value of a 1-d integer array: `length=` of them (else as the values make)."""
    x = array(call.arg("x"))
    length = _size(call, "length")
    if x is None or length is False or x.ellipsis is not None:
        return None
    problem = searching.one_dimensional(x, f"jnp.bincount's {_label(call, 'x')}")
    kind = kind_of(x.dtype)
    if problem is None and kind is not None and kind not in "iu":
        problem = Problem(Code.DTYPE_MISMATCH, f"jnp.bincount counts integers, but {_label(call, 'x')} is of dtype "
                          f"{x.dtype}", operands=(0,))
    if problem is not None:
        return refused(interp, call, problem)
    weights = array(call.arg("weights")) if passed(call, "weights") else None
    dtype = weights.dtype if weights is not None else _INDEX
    return ArrayType(dtype, (length,))


@REGISTRY.handles(f"{JNP}.tri", signature="N, M=None, k=0, dtype=None")
def tri(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    rows = as_dim(call.arg("N"))
    columns = as_dim(call.arg("M")) if passed(call, "M") else rows
    return ArrayType(dtype_or(call, default("f")), (rows, columns))


@REGISTRY.handles(f"{JNP}.cross", signature="a, b, axisa=-1, axisb=-1, axisc=-1, axis=None")
@REGISTRY.handles(f"{JNP}.linalg.cross", signature="a, b, /, *, axis=-1")
def cross(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    a, b = array(call.arg("a")), array(call.arg("b"))
    three = call.name == f"{JNP}.linalg.cross"
    names = ("axis",) if three else ("axisa", "axisb", "axisc")
    given = [as_int(call.arg(name)) if call.given(name) else -1 for name in names]
    if not three and passed(call, "axis"):
        given = [as_int(call.arg("axis"))] * 3
    if a is None or b is None or None in given:
        return None
    axes = tuple(axis for axis in given if axis is not None) * (3 if three else 1)
    assert len(axes) == 3
    return finished(interp, call, linalg.cross(a, b, (axes[0], axes[1], axes[2]), labels(call, 2), three=three))


def _size(call: CallArgs, name: str) -> Dim | bool:
    """A static size argument: its value, None when not given, False when it cannot be read."""
    if not passed(call, name):
        return None
    size = as_dim(call.arg(name))
    return size if size is not None else False


def _arrays(value: Value) -> list[ArrayType] | None:
    if not isinstance(value, Seq):
        return None
    found = [array(item) for item in value.items]
    return None if None in found else [item for item in found if item is not None]


def _label(call: CallArgs, name: str) -> str:
    return f"`{code_of(call.arg_node(name))}`"
