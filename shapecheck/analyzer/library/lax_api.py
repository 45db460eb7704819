"""jax.lax collectives over named axes: psum/pmean/pmax/pmin, pdot, all_gather, axis_index, ..."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapecheck.algebra import collectives, reduction, replication
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import (
    axes,
    axis_names,
    check_bound,
    code_of,
    finish,
    flag,
    labels,
    shape,
)
from shapecheck.analyzer.library.pytrees import map_leaves
from shapecheck.analyzer.library.registry import Registry, each
from shapecheck.analyzer.qualnames import LAX
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import AxisSize, Const, Seq, Value, as_int, as_str
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`


def _names(interp: Interpreter, call: CallArgs, ctx: Context, what: str) -> tuple[int | str, ...] | None:
    """The call's `axis_name` (names, and positional ints among them), each checked bound (SC202)."""
    value = axes(call.arg("axis_name"))
    if value is False or value is None or isinstance(value, bool):
        return None
    if check_bound(interp, axis_names(value), call, ctx, call.arg_node("axis_name"), what):
        return None  # JAX raises here: the result (and what it varies over) is unknown
    return value if isinstance(value, tuple) else (value,)


@REGISTRY.handles(*each(LAX, "psum", "pmean", "pmax", "pmin"), signature="x, axis_name, *, axis_index_groups=None")
def collective(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    what = f"lax.{call.short_name}"
    names = _names(interp, call, ctx, what)
    value = call.arg("x")
    if names is None:
        return None
    if isinstance(value, Const) and value.is_int and call.short_name == "psum":
        # `lax.psum(1, 'k')` is the size of 'k': a constant wherever that size is known.
        named = [n for n in names if isinstance(n, str)]
        if len(named) == 1 and value.value == 1:
            size = ctx.size_of(named[0])
            return AxisSize(named[0], size if isinstance(size, int) else None)
        return None
    if isinstance(value, ArrayType) and ctx.checked and call.short_name in ("psum", "pmean"):
        mixed = replication.mixed_reduction(value, [n for n in names if isinstance(n, str)], ctx.checked, what,
                                            code_of(call.arg_node("x")))
        if mixed is not None:
            interp.reporter.problems([mixed], call.arg_node("x") or call.node, fallback=call.node)
    return _reduce_tree(interp, call, value, names, what)


def _reduce_tree(interp: Interpreter, call: CallArgs, value: Value, names: tuple[int | str, ...], what: str) -> Value:
    # Every leaf of a tree (`lax.pmean(grads, 'batch')` of a dict of gradients).
    return map_leaves(value, lambda leaf: finish(interp, reduction.reduce(leaf, names, what=f"the argument of {what}"),
                                                 call))


# Removed from JAX (the runtime keeps it); its parameters as JAX 0.4 wrote them.
@REGISTRY.handles(f"{LAX}.pdot", signature="x, y, axis_name, pos_contract=((), ()), pos_batch=((), ()), precision=None")
def pdot(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    x, y = call.arg("x"), call.arg("y")
    names = _names(interp, call, ctx, "lax.pdot")
    if not (isinstance(x, ArrayType) and isinstance(y, ArrayType)) or names is None:
        return None
    outcome = collectives.pdot(x, y, names, _pairs(call.arg("pos_contract")), _pairs(call.arg("pos_batch")),
                               labels(call, 2))
    interp.reporter.problems(outcome.problems, call.node, call.arg_nodes)
    return outcome.type


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


@REGISTRY.handles(f"{LAX}.all_gather",
                  signature="x, axis_name, *, axis_index_groups=None, axis=0, tiled=False, to='varying'")
def all_gather(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    names = _names(interp, call, ctx, "lax.all_gather")
    if names is None or len(names) != 1 or not isinstance(names[0], str):
        return None
    name = names[0]
    axis = call.arg("axis") if call.given("axis") else Const(0)
    tiled = call.arg("tiled") if call.given("tiled") else Const(False)

    def gather(value: ArrayType) -> Value:
        size = value.named_dict.get(name, ctx.size_of(name))
        problems = collectives.all_gather_problems(value, as_int(axis), flag(tiled, False))
        interp.reporter.problems(problems, call.arg_node("axis") or call.node)
        return collectives.all_gather(value, name, size, as_int(axis), flag(tiled, False), manual=name in ctx.manual)

    return map_leaves(call.arg("x"), gather)  # a tree's leaves, each gathered


@REGISTRY.handles(f"{LAX}.axis_index", signature="axis_name")
def axis_index(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    names = _names(interp, call, ctx, "lax.axis_index")
    if names is None or len(names) != 1 or not isinstance(names[0], str):
        return None
    return ArrayType("i32", (), ((names[0], ctx.size_of(names[0])),))


@REGISTRY.handles(*each(LAX, "ppermute", "pshuffle"), signature="x, axis_name, perm")
@REGISTRY.handles(f"{LAX}.pswapaxes", signature="x, axis_name, axis, *, axis_index_groups=None")
def permute(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    names = _names(interp, call, ctx, f"lax.{call.short_name}")
    if names is None:
        return None
    perm = _perm(call.arg("perm")) if call.short_name == "ppermute" else None
    if perm is not None and len(names) == 1 and isinstance(names[0], str):
        interp.reporter.problems(collectives.ppermute_problems(perm, names[0], ctx.size_of(names[0])),
                                 call.arg_node("perm"))
    # In a shard_map body the result varies over the axis it moves along (JAX 0.10.2 types a
    # ppermute of an invariant value `float32[3]{V:X}`).
    moved = [name for name in names or () if isinstance(name, str) and name in ctx.manual]

    def move(value: ArrayType) -> Value:
        named = value.named_dict
        named.update((name, named.get(name, ctx.size_of(name))) for name in moved)
        return value.with_named(named) if moved else value

    return map_leaves(call.arg("x"), move)  # a tree's leaves, each moved


def _perm(value: Value) -> list[tuple[int, int]] | None:
    """A perm written as pairs of ints; None where any part is not known."""
    if not isinstance(value, Seq):
        return None
    pairs: list[tuple[int, int]] = []
    for item in value.items:
        if not isinstance(item, Seq) or len(item.items) != 2:
            return None
        source, dest = (as_int(part) for part in item.items)
        if source is None or dest is None:
            return None
        pairs.append((source, dest))
    return pairs


# `lax.pvary(x, axes)` is how JAX 0.6 to 0.9 spelled `pcast(x, axes, to='varying')`.
@REGISTRY.handles(f"{LAX}.pvary", signature="x, axis_name")
@REGISTRY.handles(f"{LAX}.pcast", signature="x, axis_name, *, to")
def pcast(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`lax.pcast(x, axes, to='varying')`: `x`, varying over `axes` too."""
    names = _names(interp, call, ctx, f"lax.{call.short_name}")
    value = call.arg("x")
    if call.short_name == "pcast" and as_str(call.arg("to")) != "varying":
        return value if isinstance(value, ArrayType) else None  # to='reduced'/'unreduced': not tracked
    if names is None:
        return None
    cast = tuple(name for name in names if isinstance(name, str) and name in ctx.manual)
    sizes = {name: ctx.size_of(name) for name in cast}
    shown = code_of(call.arg_node("x"))

    def one(leaf: ArrayType) -> Value:
        result, problems = replication.pcast(leaf, cast, sizes, ctx.checked, shown)
        interp.reporter.problems(problems, call.node)
        return result

    return map_leaves(value, one)


@REGISTRY.handles(f"{LAX}.psum_scatter",
                  signature="x, axis_name, *, scatter_dimension=0, axis_index_groups=None, tiled=False")
@REGISTRY.handles(f"{LAX}.all_to_all",
                  signature="x, axis_name, split_axis, concat_axis, *, axis_index_groups=None, tiled=False")
def scatter(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    names = _names(interp, call, ctx, f"lax.{call.short_name}")
    value = call.arg("x")
    if not isinstance(value, ArrayType) or names is None:
        return None
    named = dict(value.named)
    for name in names:
        if isinstance(name, str):
            named[name] = ctx.size_of(name)
    result = ArrayType(value.dtype, (), tuple(named.items()), 0, value.named_open)
    if len(names) != 1 or not isinstance(names[0], str):
        return result
    name = names[0]
    size = value.named_dict.get(name, ctx.size_of(name))
    tiled = flag(call.arg("tiled") if call.given("tiled") else Const(False), False)
    if call.short_name == "psum_scatter":
        dimension = call.arg("scatter_dimension") if call.given("scatter_dimension") else Const(0)
        outcome = collectives.psum_scatter(value, name, size, as_int(dimension), tiled)
    else:
        outcome = collectives.all_to_all(value, name, size, as_int(call.arg("split_axis")),
                                         as_int(call.arg("concat_axis")), tiled)
    interp.reporter.problems(outcome.problems, call.node, call.arg_nodes)
    return outcome.type.with_named(named)
