"""Ensembles: modules built under a map, and maps over them (nnx's and equinox's maps).

A map whose function builds a module (`nnx.vmap` of a function making an `nnx.Linear`,
`eqx.filter_vmap` of one making an `eqx.nn.Linear`) returns one module whose arrays each have
the map's dim inserted where out_axes says: a `Stacked` member. A map along that same axis
gives its body the member again (its arrays unstacked), and checks the ensemble's size against
the other mapped arguments' as JAX does (SC102); along another axis, or any other use of the
ensemble, the checker knows nothing of it.

Both are done around the library's map call, which stays the one that checks in_axes, sizes
and out_axes: `unstacking` puts a stand-in array of the ensemble's size where the ensemble was
mapped, and wraps the function so that its body gets the member there (`body`) and marks the
modules it builds with the map's size; `restacked` turns those marks, once the map has placed
the rest of the result, into `Stacked` values along their out_axes entries.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Final

from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import forwarded
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Const,
    Dict,
    Instance,
    Layer,
    Partial,
    Qual,
    Seq,
    Stacked,
    Value,
    Vmap,
    as_dim,
    as_int,
    as_str,
    dim_value,
)
from shapecheck.dims import Dim, Sym
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

STATE_AXES: Final = "flax.nnx.StateAxes"
BODY_SIGNATURE: Final = "fun, members, outer, /, *args, **kwargs"
"""The signature each library registers `body` with, under a name of its own."""
# A module the body built, with the map's size: what `restacked` stacks. No program can write
# the name; were the mark to escape, calling it is unknown.
_BUILT: Final = "<a module built under a map>"


def stacked(member: Value, sizes: tuple[Dim, ...]) -> Value:
    """`member` stacked along leading dims of `sizes` (nnx's `splits=(2, 3)`: two maps, the
    outer one over the first)."""
    for size in reversed(sizes):
        member = Stacked(member, size, 0)
    return member


def axis_of(entry: Value) -> int | None:
    """The axis an in_axes or out_axes entry maps a module's arrays along: an int, or an
    `nnx.StateAxes` that gives all its filters the same one; None otherwise (None itself, or
    filters mapped apart: not followed)."""
    if isinstance(entry, Partial) and entry.func == Qual(STATE_AXES) and len(entry.args) == 1:
        axes = entry.args[0]
        found = {as_int(value) for _, value in axes.items} if isinstance(axes, Dict) and axes.items else {None}
        return found.pop() if len(found) == 1 else None
    return as_int(entry)


def unstacked(value: Value, entry: Value) -> Value:
    """What a map (or scan) along `entry` gives its body of `value`: an ensemble's member where
    the entry is its stacked axis; unknown where it is another; `value` where it is not an
    ensemble, or the entry is None (passed whole)."""
    if not isinstance(value, Stacked) or entry == Const(None):
        return value
    return value.member if axis_of(entry) == value.axis else None


def per_argument(in_axes: Value, count: int) -> list[Value] | None:
    """Each argument's entry of in_axes: a tuple's items (None where its length is another),
    else one for all."""
    if isinstance(in_axes, Seq):
        return list(in_axes.items) if len(in_axes.items) == count else None
    return [in_axes] * count


def unstacking(vm: Vmap, call: CallArgs, ctx: Context, body: str) -> tuple[Vmap, CallArgs]:
    """`vm` and its positional `call` with each ensemble mapped along its stacked axis replaced
    by a stand-in array with its size there (the map sizes it with the others, and refuses
    another size: SC102), and the function wrapped in `body` (a name whose handler is `body`),
    which gives it the member in the stand-in's place and marks what it builds. An ensemble
    mapped along another axis is unknown."""
    entries = per_argument(vm.in_axes, len(call.args))
    args: list[Value] = list(call.args)
    members: list[Value] = []
    changed = False
    for index, arg in enumerate(call.args):
        if not isinstance(arg, Stacked) or entries is None or entries[index] == Const(None):
            continue
        axis = axis_of(entries[index])
        if axis != arg.axis:
            args[index] = None
            continue
        args[index] = ArrayType(None, (*(None,) * axis, arg.size))
        members.append(Seq((Const(index), arg.member)))
        if entries[index] != Const(axis):  # an nnx.StateAxes, read as the axis it maps all along
            entries[index], changed = Const(axis), True
    in_axes = vm.in_axes
    if changed and entries is not None:
        in_axes = replace(in_axes, items=tuple(entries)) if isinstance(in_axes, Seq) else Seq(tuple(entries))
    outer = Seq(tuple(Const(name) for name in sorted(ctx.hidden)))
    wrapped = Partial(Qual(body), (vm.fun, Seq(tuple(members)), outer))
    return replace(vm, fun=wrapped, in_axes=in_axes), CallArgs(
        call.node, args, list(call.arg_nodes), dict(call.kwargs), dict(call.kwarg_nodes))


def body(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """A map's function as `unstacking` wrapped it: called with each ensemble's member in place
    of its stand-in; the modules it returns marked with the map's size (the one axis this map
    hid from the body's context, as `outer` lists those hidden around it)."""
    fun, members, outer = call.arg("fun"), call.arg("members"), call.arg("outer")
    given = forwarded(call, call.rest())
    args = list(given.args)
    for pair in members.items if isinstance(members, Seq) else ():
        index = as_int(pair.items[0]) if isinstance(pair, Seq) and len(pair.items) == 2 else None
        if index is not None and isinstance(pair, Seq) and 0 <= index < len(args):
            args[index] = pair.items[1]
    out = interp.call(fun, CallArgs(given.node, args, given.arg_nodes, given.kwargs, given.kwarg_nodes), ctx, scope)
    around = {as_str(name) for name in outer.items} if isinstance(outer, Seq) else set()
    hidden = [name for name in ctx.hidden if name not in around]
    if len(hidden) != 1:
        return out  # the map's axis is not told apart (a name bound around it too): modules unknown
    size = ctx.size_of(hidden[0])
    return _marked(out, size if isinstance(size, int | Sym) else None, hidden[0], args)


def _marked(value: Value, size: Dim, axis: str, args: list[Value]) -> Value:
    """`value` with each module in it marked as built under a map of `size` along `axis`. A
    module is what a map cannot place as arrays: a library layer, an ensemble, an object of the
    program's own (its `nnx.Module`s, equinox modules); a record JAX reads field by field is
    looked into. A module the body was given is left unmarked (unknown): nnx refuses one that
    comes back mapped otherwise than it went in (an aliasing error), which is not followed."""
    if isinstance(value, Layer | Stacked) or (isinstance(value, Instance) and not _pytree(value)):
        if any(value is arg for arg in args):
            return value
        return Partial(Qual(_BUILT), (_member(value, axis), dim_value(size)))
    if isinstance(value, Seq):
        return replace(value, items=tuple(_marked(item, size, axis, args) for item in value.items))
    if isinstance(value, Dict):
        return replace(value, items=tuple((key, _marked(item, size, axis, args)) for key, item in value.items))
    if isinstance(value, Instance):
        return Instance(value.cls, tuple((name, _marked(item, size, axis, args)) for name, item in value.fields))
    return value


def _member(value: Value, axis: str) -> Value:
    """A module as one member holds it: its arrays without the map's axis, which the body saw
    them vary along (`self.w = nnx.Param(w)` of a mapped `w`) and the ensemble stacks instead."""
    if isinstance(value, ArrayType):
        return value.with_named((name, size) for name, size in value.named if name != axis) \
            if axis in value.named_dict else value
    if isinstance(value, Seq):
        return replace(value, items=tuple(_member(item, axis) for item in value.items))
    if isinstance(value, Dict):
        return replace(value, items=tuple((key, _member(item, axis)) for key, item in value.items))
    if isinstance(value, Instance):
        return Instance(value.cls, tuple((name, _member(item, axis)) for name, item in value.fields))
    if isinstance(value, Layer):
        settings = tuple((name, _member(item, axis)) for name, item in value.settings)
        same = all(new is old for (_, new), (_, old) in zip(settings, value.settings, strict=True))
        return value if same else Layer(value.name, settings, value.node)
    if isinstance(value, Stacked):
        return replace(value, member=_member(value.member, axis))
    return value


def _pytree(value: Instance) -> bool:
    """Whether JAX reads the object field by field, as the maps place it (`trees.value_tree`)."""
    return value.cls.record in ("struct", "namedtuple")


def restacked(value: Value, out_axes: Value) -> Value:
    """What a map whose function `unstacking` wrapped returns: `value`, as the map placed it,
    with each module its body built stacked along its entry of `out_axes` (unknown where that
    is None, negative or not read)."""
    if isinstance(value, Partial) and value.func == Qual(_BUILT) and len(value.args) == 2:
        axis = axis_of(out_axes)
        return Stacked(value.args[0], as_dim(value.args[1]), axis) if axis is not None and axis >= 0 else None
    if isinstance(value, Seq):
        items = out_axes.items if isinstance(out_axes, Seq) and len(out_axes.items) == len(value.items) else \
            (out_axes,) * len(value.items) if not isinstance(out_axes, Seq | Dict) else (None,) * len(value.items)
        return replace(value, items=tuple(restacked(item, spec) for item, spec in zip(value.items, items, strict=True)))
    if isinstance(value, Dict):
        specs = {as_str(key): spec for key, spec in out_axes.items} if isinstance(out_axes, Dict) else None
        return replace(value, items=tuple(
            (key, restacked(item, specs.get(as_str(key)) if specs is not None else
                            None if isinstance(out_axes, Seq) else out_axes)) for key, item in value.items))
    if isinstance(value, Instance) and _pytree(value):
        specs = {as_str(key): spec for key, spec in out_axes.items} if isinstance(out_axes, Dict) else None
        return Instance(value.cls, tuple(
            (name, restacked(item, specs.get(name) if specs is not None else
                             None if isinstance(out_axes, Seq) else out_axes)) for name, item in value.fields))
    return value
