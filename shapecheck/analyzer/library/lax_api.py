"""jax.lax collectives over named axes: psum/pmean/pmax/pmin, pdot, all_gather, axis_index, ..."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapecheck.algebra import reduction
from shapecheck.algebra.broadcast import union_named
from shapecheck.algebra.outcome import Problem
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import (
    axes,
    axis_names,
    check_bound,
    finish,
    flag,
    labels,
    shape,
)
from shapecheck.analyzer.library.registry import Registry, each
from shapecheck.analyzer.qualnames import LAX
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import AxisSize, Const, Seq, Value, as_int
from shapecheck.codes import Code
from shapecheck.dims import CONFLICT, Dim, certainly_differ, format_dim
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`


def _names(interp: Interpreter, call: CallArgs, ctx: Context, index: int, what: str) -> tuple[int | str, ...] | None:
    value = axes(call.get(index, "axis_name"))
    if value is False or value is None or isinstance(value, bool):
        return None
    check_bound(interp, axis_names(value), call, ctx, call.node_of(index, "axis_name"), what)
    return value if isinstance(value, tuple) else (value,)


@REGISTRY.handles(*each(LAX, "psum", "pmean", "pmax", "pmin"))
def collective(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    what = f"lax.{call.short_name}"
    names = _names(interp, call, ctx, 1, what)
    value = call.get(0, "x")
    if names is None:
        return None
    if isinstance(value, Const) and value.is_int and call.short_name == "psum":
        # `lax.psum(1, 'k')` is the size of 'k': a constant wherever that size is known.
        named = [n for n in names if isinstance(n, str)]
        if len(named) == 1 and value.value == 1:
            size = ctx.size_of(named[0])
            return AxisSize(named[0], size if isinstance(size, int) else None)
        return None
    return _reduce_tree(interp, call, value, names, what)


def _reduce_tree(interp: Interpreter, call: CallArgs, value: Value, names: tuple[int | str, ...], what: str) -> Value:
    if isinstance(value, ArrayType):
        return finish(interp, reduction.reduce(value, names, what=f"the argument of {what}"), call)
    if isinstance(value, Seq):
        return Seq(tuple(_reduce_tree(interp, call, item, names, what) for item in value.items), value.is_list)
    return None


@REGISTRY.handles(f"{LAX}.pdot")
def pdot(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    x, y = call.get(0, "x"), call.get(1, "y")
    names = _names(interp, call, ctx, 2, "lax.pdot")
    if not (isinstance(x, ArrayType) and isinstance(y, ArrayType)) or names is None:
        return None
    problems: list[Problem] = []
    named = dict(union_named([x.named, y.named], labels(call, 2), problems))
    for name in names:
        if isinstance(name, str):
            named.pop(name, None)
    if x.ellipsis is not None or y.ellipsis is not None:
        interp.reporter.problems(problems, call.node, call.arg_nodes)
        return ArrayType(None, (), tuple(named.items()), 0, x.named_open or y.named_open)
    contract = _pairs(call.get(3, "pos_contract"))
    batch = _pairs(call.get(4, "pos_batch"))
    if contract is None or batch is None:
        interp.reporter.problems(problems, call.node, call.arg_nodes)
        return ArrayType(None, (), tuple(named.items()), 0, x.named_open or y.named_open)
    conflicted: set[int] = set()  # batch dims of x reported here: unknown in the result
    for (left, right), kind in [(p, "contracted") for p in zip(*contract, strict=True)] + \
            [(p, "batch") for p in zip(*batch, strict=True)]:
        if left >= len(x.dims) or right >= len(y.dims):
            problems.append(Problem(Code.AXIS_OUT_OF_RANGE, f"lax.pdot: {kind} axes ({left}, {right}) are out of range"))
            continue
        if certainly_differ(x.dims[left], y.dims[right]):
            problems.append(Problem(
                Code.CONTRACTION_MISMATCH, f"lax.pdot: {kind} dims differ: {format_dim(x.dims[left])} vs "
                f"{format_dim(y.dims[right])}", sizes=(x.dims[left], y.dims[right])))
            conflicted.add(left)
    interp.reporter.problems(problems, call.node, call.arg_nodes)
    used_x = set(contract[0]) | set(batch[0])
    used_y = set(contract[1]) | set(batch[1])
    dims: list[Dim] = [CONFLICT if i in conflicted else x.dims[i] for i in batch[0] if i < len(x.dims)]
    dims += [d for i, d in enumerate(x.dims) if i not in used_x]
    dims += [d for i, d in enumerate(y.dims) if i not in used_y]
    return ArrayType(x.dtype if x.dtype == y.dtype else None, tuple(dims), tuple(named.items()),
                     None, x.named_open or y.named_open)


def _pairs(value: Value) -> tuple[list[int], list[int]] | None:
    if value is None:
        return [], []
    if isinstance(value, Seq) and len(value.items) == 2:
        sides = [shape(item) for item in value.items]
        if all(side is not None and all(isinstance(d, int) for d in side) for side in sides):
            left = [d for d in sides[0] or () if isinstance(d, int)]
            right = [d for d in sides[1] or () if isinstance(d, int)]
            if len(left) == len(right):
                return left, right
    return None


@REGISTRY.handles(f"{LAX}.all_gather")
def all_gather(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    names = _names(interp, call, ctx, 1, "lax.all_gather")
    value = call.get(0, "x")
    if not isinstance(value, ArrayType) or names is None or len(names) != 1 or not isinstance(names[0], str):
        return None
    name = names[0]
    size = value.named_dict.get(name, ctx.size_of(name))
    axis = as_int(call.kwargs.get("axis", Const(0)))
    tiled = flag(call.kwargs.get("tiled"), False)
    named = tuple((n, s) for n, s in value.named if n != name)
    if value.ellipsis is not None or axis is None or tiled is None:
        return ArrayType(value.dtype, (), named, 0, value.named_open)
    dims = list(value.dims)
    if tiled:
        if not 0 <= axis < len(dims):
            return ArrayType(value.dtype, (), named, 0, value.named_open)
        current = dims[axis]
        dims[axis] = current * size if isinstance(current, int) and isinstance(size, int) else None
    else:
        if not 0 <= axis <= len(dims):
            return ArrayType(value.dtype, (), named, 0, value.named_open)
        dims.insert(axis, size)
    return ArrayType(value.dtype, tuple(dims), named, None, value.named_open)


@REGISTRY.handles(f"{LAX}.axis_index")
def axis_index(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    names = _names(interp, call, ctx, 0, "lax.axis_index")
    if names is None or len(names) != 1 or not isinstance(names[0], str):
        return None
    return ArrayType("i32", (), ((names[0], ctx.size_of(names[0])),))


@REGISTRY.handles(*each(LAX, "ppermute", "pshuffle", "pswapaxes"))
def permute(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    _names(interp, call, ctx, 1, f"lax.{call.short_name}")
    value = call.get(0, "x")
    return value if isinstance(value, ArrayType) else None


@REGISTRY.handles(*each(LAX, "psum_scatter", "all_to_all"))
def scatter(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    names = _names(interp, call, ctx, 1, f"lax.{call.short_name}")
    value = call.get(0, "x")
    if not isinstance(value, ArrayType) or names is None:
        return None
    named = dict(value.named)
    for name in names:
        if isinstance(name, str):
            named[name] = ctx.size_of(name)
    return ArrayType(value.dtype, (), tuple(named.items()), 0, value.named_open)
