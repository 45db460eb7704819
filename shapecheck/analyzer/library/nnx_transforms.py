"""flax.nnx's transforms of functions: `nnx.vmap` and `nnx.scan`, called or as decorators.

`nnx.vmap(f, in_axes=..., out_axes=..., axis_size=..., axis_name=...)` is `jax.vmap(f, ...)`
(`vmap_api`'s map: every rule of maps, the body checked per member) after what nnx does first:
it binds keyword arguments and defaults to `f`'s positions (`resolve_kwargs`), so in_axes
speaks of them too, and it matches in_axes against the tuple of arguments as a pytree, so a
list there is refused (SC002). A module passed with in_axes None is the same module in every
member. A module `f` builds comes back an ensemble, its arrays stacked along out_axes; mapped
along that axis (an int, or an `nnx.StateAxes` that maps all its state there) it is one member
inside, its count of members sized with the other mapped arguments (`ensembles`); any other
module mapped is unknown inside. The keys to build an ensemble with come from an `nnx.Rngs`
split by `@nnx.split_rngs(splits=n)` or `rngs.fork(split=n)`, or from `axis_size`.

`nnx.scan(f, in_axes=(nnx.Carry, 0), out_axes=(nnx.Carry, 0), length=...)` is `lax.scan` over
`f`, after the same binding: the argument at `nnx.Carry` (the only one, for `in_axes=nnx.Carry`)
is the carry, which `f` must return with its type (SC103, as `lax.scan` reports it); those at
an int are sliced along that axis, their lengths and `length` one count of steps (SC102), an
ensemble (a stack of blocks) one member a step; those at None are passed whole. The result is
the carry where out_axes says `nnx.Carry`, and what `f` returns stacked along the axis given
elsewhere. nnx refuses, when the scan is made, axes where one of in_axes and out_axes has a
`Carry` and the other none, two of them, one nested, or a None in out_axes (SC002).

Only nnx's graph mode with its updates (the default) is followed: `graph=False` is unknown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal, TypeAlias

from shapecheck.algebra import recurrent
from shapecheck.algebra.control_flow import Node, describe
from shapecheck.algebra.outcome import Problem, out_of_range
from shapecheck.analyzer import walk
from shapecheck.analyzer.calls import CallArgs, Signature
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library import control_api, ensembles, vmap_api
from shapecheck.analyzer.library.common import code_of, forwarded, passed, refused
from shapecheck.analyzer.library.pytrees import map_leaves, tree
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Const,
    Dict,
    Function,
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
from shapecheck.codes import Code
from shapecheck.dims import Dim
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

NNX: Final = "flax.nnx"
VMAP: Final = f"{NNX}.vmap"
SCAN: Final = f"{NNX}.scan"
CARRY: Final = f"{NNX}.Carry"
# `nnx.vmap(f)` and `nnx.scan(f)` are partial applications of these names (no program can
# write them): calling one reaches its handler with the transform and the call's arguments.
_VMAPPED: Final = f"{VMAP}()"
_VMAP_BODY: Final = f"{VMAP}().body"  # the function, as `ensembles.unstacking` wraps it
_SCANNED: Final = f"{SCAN}()"
_NNX_OPTIONS: Final = "transform_metadata=None, graph=None, graph_updates=None"
_MAP_SIGNATURE: Final = Signature.parse(vmap_api.VMAP_SIGNATURE)
_DEFAULT_AXES: Final = Seq((Qual(CARRY), Const(0)))

_Entry: TypeAlias = "int | Literal['carry', 'unread'] | None"
"""One argument's (or result's) entry of nnx.scan's axes: an axis, None (passed whole), the
carry, or one the checker cannot read."""


# ---------------------------------------------------------------- vmap

@REGISTRY.handles(VMAP, takes_functions=True, binds_names=True,
                  signature=f"f=None, *, in_axes=0, out_axes=0, axis_name=None, axis_size=None, "
                            f"spmd_axis_name=None, {_NNX_OPTIONS}")
def vmap(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`jax.vmap`'s map of `f`, called through `vmapped`; without `f` (`@nnx.vmap(in_axes=...)`),
    the options, waiting for it."""
    if call.opaque or not _graph_mode(call):
        return None
    if not call.given("f"):
        return Partial(Qual(VMAP), (), tuple(call.kwargs.items()))
    options = {name: call.arg(name) for name in ("in_axes", "out_axes", "axis_name", "axis_size") if call.given(name)}
    bound = CallArgs(call.node, [call.arg("f")], [call.arg_node("f")], options,
                     {name: call.arg_node(name) for name in options})
    bound.signature, bound.name = _MAP_SIGNATURE, VMAP
    mapped = vmap_api.batch_map(interp, bound, "vmap")
    return Partial(Qual(_VMAPPED), (mapped,)) if mapped is not None else None


@REGISTRY.handles(_VMAPPED, signature="map, /, *args, **kwargs")
def vmapped(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The map, on the arguments as nnx binds them to `f`'s positions."""
    vm = call.arg("map")
    if call.opaque or not isinstance(vm, Vmap) or vmap_api.listed_in_axes(interp, vm.in_axes, call.node, "nnx.vmap"):
        return None
    entries = len(vm.in_axes.items) if isinstance(vm.in_axes, Seq) else None
    bound = _positional(interp, vm.fun, call, ctx, entries)
    if bound is None:
        return None
    if entries is not None and entries != len(bound.args):
        return refused(interp, call, _arity("nnx.vmap", vm.in_axes, len(bound.args)))
    # A module the function builds comes back stacked (an ensemble); one mapped in, unstacked.
    wrapped, bound = ensembles.unstacking(vm, bound, ctx, _VMAP_BODY)
    return ensembles.restacked(interp.call(wrapped, bound, ctx, scope), vm.out_axes)


REGISTRY.handles(_VMAP_BODY, signature=ensembles.BODY_SIGNATURE)(ensembles.body)


# ---------------------------------------------------------------- scan

@REGISTRY.handles(SCAN, takes_functions=True,
                  signature=f"f=None, *, length=None, reverse=False, unroll=1, _split_transpose=False, "
                            f"in_axes=(Carry, 0), out_axes=(Carry, 0), {_NNX_OPTIONS}")
def scan(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The scan of `f`, called through `scanned`, where nnx accepts its axes (SC002 where it
    refuses them); without `f` (`@nnx.scan(in_axes=...)`), the options, waiting for it."""
    if call.opaque or not _graph_mode(call):
        return None
    if not call.given("f"):
        return Partial(Qual(SCAN), (), tuple(call.kwargs.items()))
    in_axes, out_axes = (call.arg(name) if call.given(name) else _DEFAULT_AXES for name in ("in_axes", "out_axes"))
    problems = _axes_problems(in_axes, out_axes)
    if problems:
        name, problem = problems[0]
        interp.reporter.add(call.arg_node(name), problem.code, problem.message)
        return None
    length = call.arg("length") if call.given("length") else Const(None)
    return Partial(Qual(_SCANNED), (call.arg("f"), in_axes, out_axes, length))


@REGISTRY.handles(_SCANNED, signature="f, in_axes, out_axes, length, /, *args, **kwargs")
def scanned(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The carry and the stacked outputs, placed as out_axes says."""
    f, in_axes, length = call.arg("f"), call.arg("in_axes"), call.arg("length")
    if call.opaque or vmap_api.listed_in_axes(interp, in_axes, call.node, "nnx.scan"):
        return None
    bound = _positional(interp, f, call, ctx, len(in_axes.items) if isinstance(in_axes, Seq) else None)
    if bound is None:
        return None
    entries = _per_argument(interp, bound, in_axes)
    if entries is None:
        return None
    steps: list[Value] = []
    lengths: list[Dim] = []
    leaves: int | None = 0  # the leaves scanned over; None where not known
    raw = ensembles.per_argument(in_axes, len(entries)) or [None] * len(entries)
    for arg, node, entry, written in zip(bound.args, bound.arg_nodes, entries, raw, strict=True):
        if isinstance(arg, Stacked) and entry != "carry" and entry is not None:
            # An ensemble (a stack of layers a vmapped constructor built), scanned along the
            # axis it is stacked on: one member a step, as many steps as it has members.
            member = ensembles.unstacked(arg, written)
            steps.append(member)
            if member is None:
                leaves = None
                continue
            lengths.append(arg.size)
            leaves = None if leaves is None else leaves + 1
            continue
        if not isinstance(entry, int):
            steps.append(arg if entry in ("carry", None) else None)
            leaves = None if entry == "unread" else leaves
            continue
        sliced, ok = control_api.sliced_steps(interp, CallArgs(call.node, [arg], [node]), arg, entry, "nnx.scan",
                                              f"a dim {entry} to scan over", lengths)
        if not ok:
            return None
        steps.append(sliced)
        held = _leaf_count(arg)
        leaves = None if leaves is None or held is None else leaves + held
    count, problem = recurrent.step_count("nnx.scan", lengths, as_dim(length) if length != Const(None) else None)
    if problem is not None:
        return refused(interp, call, problem)
    if leaves == 0 and length == Const(None):
        return refused(interp, call, Problem(
            Code.INVALID_AXIS_SPEC, f"nnx.scan has no array to scan over (in_axes={_shown(in_axes)}) and "
            "no length: JAX cannot tell how many steps to take; give length="))
    return _outputs(interp, call, ctx, scope, f, call.arg("out_axes"), bound, steps, entries, count)


def _outputs(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope, f: Value, out_axes: Value,
             bound: CallArgs, steps: list[Value], entries: list[_Entry], count: Dim) -> Value:
    """Run the body (as a loop where an argument is the carry) and place what it returns."""
    outs = _entries(out_axes)
    if isinstance(out_axes, Seq) and out_axes.is_list:
        return None
    carry: Value = None
    if "carry" in entries:
        at = entries.index("carry")
        looped = control_api.carried_loop(
            interp, call, ctx, "nnx.scan", f, bound.args[at], lambda c: [*steps[:at], c, *steps[at + 1:]], at,
            lambda out: out if outs == "carry" else _carry_of(out, outs), bound.arg_nodes[at])
        if looped is None:
            return None
        carry, out = looped
    else:
        out = interp.call(f, CallArgs(call.node, steps, list(bound.arg_nodes)), ctx, scope)
    if outs == "carry":
        return carry
    if isinstance(outs, int):
        return _stacked(interp, call, out, outs, count)
    if not isinstance(outs, tuple):
        return None
    returned = tree(out)
    if returned is not None and not (isinstance(out, Seq) and not out.is_list and len(out.items) == len(outs)):
        control_api.report_at_return(interp, call, f, [Problem(
            Code.ANNOTATION_MISMATCH, f"nnx.scan's body must return a tuple of {len(outs)}, one member per entry "
            f"of out_axes={_shown(out_axes)}, but returns {describe(returned)}")])
        return None
    if not isinstance(out, Seq):
        return None
    items: list[Value] = []
    for item, entry in zip(out.items, outs, strict=True):
        items.append(carry if entry == "carry" else
                     _stacked(interp, call, item, entry, count) if isinstance(entry, int) else None)
    return Seq(tuple(items))


def _carry_of(out: Value, outs: tuple[_Entry, ...] | _Entry) -> Value:
    """The carry in a tuple the body returned, at the place of `nnx.Carry` in out_axes (None
    where the body returns something else, or out_axes has no Carry)."""
    if not (isinstance(outs, tuple) and "carry" in outs and isinstance(out, Seq) and len(out.items) == len(outs)):
        return None
    return out.items[outs.index("carry")]


def _stacked(interp: Interpreter, call: CallArgs, ys: Value, axis: int, count: Dim) -> Value:
    """Each leaf of one step's `ys` stacked along `axis` of the stacked array, where nnx moves
    the scan's leading axis; SC106 where the stacked array has no such axis."""
    problems: list[Problem] = []

    def one(y: ArrayType) -> Value:
        if y.rank is None or y.ellipsis is not None:
            return None
        place = axis + y.rank + 1 if axis < 0 else axis
        if not 0 <= place <= y.rank:
            problems.append(out_of_range(axis, y.rank + 1, "nnx.scan's stacked output (out_axes)"))
            return None
        return recurrent.with_time(y, place, count)

    stacked = map_leaves(ys, one)
    return refused(interp, call, problems[0]) if problems else stacked


def _per_argument(interp: Interpreter, call: CallArgs, in_axes: Value) -> list[_Entry] | None:
    """Each argument's entry of in_axes (one for all, or a tuple of one each); None where
    unreadable, or refused as nnx refuses it (SC002)."""
    entries = _entries(in_axes)
    count = len(call.args)
    if entries == "unread":
        return None
    if entries == "carry" and count != 1:
        refused(interp, call, Problem(
            Code.INVALID_AXIS_SPEC, f"nnx.scan with in_axes=Carry takes exactly one argument, the carry, but is "
            f"given {count}; mark each argument in a tuple: in_axes=(nnx.Carry, 0, ...)"))
        return None
    if isinstance(entries, tuple):
        if len(entries) != count:
            refused(interp, call, _arity("nnx.scan", in_axes, count))
            return None
        return list(entries)
    return [entries] * count


def _arity(api: str, in_axes: Value, count: int) -> Problem:
    """A tuple in_axes of another length than the arguments nnx passes on (a pytree structure error)."""
    entries = len(in_axes.items) if isinstance(in_axes, Seq) else 1
    return Problem(Code.INVALID_AXIS_SPEC, f"{api}: in_axes={_shown(in_axes)} has {entries} "
                   f"entr{'y' if entries == 1 else 'ies'}, but the call passes {count} argument"
                   f"{'' if count == 1 else 's'} (nnx binds keywords and defaults to positions); give one entry per "
                   "argument")


def _entries(axes: Value) -> tuple[_Entry, ...] | _Entry:
    """in_axes or out_axes: one entry for all, or a tuple (or list) of them."""
    if isinstance(axes, Seq):
        return tuple(_entry(item) for item in axes.items)
    return _entry(axes)


def _entry(value: Value) -> _Entry:
    if isinstance(value, Qual) and value.name == CARRY:
        return "carry"
    if value == Const(None):  # Python's None; the unknown value (None itself) is unread
        return None
    number = as_int(value)
    return number if number is not None else "unread"


def _axes_problems(in_axes: Value, out_axes: Value) -> list[tuple[str, Problem]]:
    """What nnx refuses in the axes when the scan is made (SC002), with the parameter blamed."""
    found: list[tuple[str, Problem]] = []
    carried: dict[str, bool | None] = {}
    for name, axes in (("in_axes", in_axes), ("out_axes", out_axes)):
        paths = _carry_paths(axes, "")
        carried[name] = bool(paths) if paths is not None else None
        if paths and any(path.count("[") > 1 or "'" in path for path in paths):
            found.append((name, Problem(Code.INVALID_AXIS_SPEC, f"nnx.scan: {name} has nnx.Carry nested inside an "
                                        f"entry ({name}{paths[0]}); Carry must mark a whole argument or result")))
        elif paths and len(paths) > 1:
            found.append((name, Problem(Code.INVALID_AXIS_SPEC, f"nnx.scan: {name} marks nnx.Carry twice "
                                        f"({name}{paths[0]} and {name}{paths[1]}); one argument is the carry")))
    if _has_none(out_axes):
        found.append(("out_axes", Problem(Code.INVALID_AXIS_SPEC, "nnx.scan cannot broadcast an output: out_axes="
                                          f"{_shown(out_axes)} has None; give each output an axis to stack "
                                          "it along")))
    if carried["in_axes"] is not None and carried["out_axes"] is not None \
            and carried["in_axes"] != carried["out_axes"]:
        has, lacks = ("in_axes", "out_axes") if carried["in_axes"] else ("out_axes", "in_axes")
        found.append((lacks, Problem(Code.INVALID_AXIS_SPEC, f"nnx.scan: {has} has nnx.Carry but {lacks} has none; "
                                     "the carry goes in and comes out, so mark it in both")))
    return found


def _carry_paths(axes: Value, path: str) -> list[str] | None:
    """Where nnx.Carry is in `axes` (`""` for all of it, `[0]` for an entry); None where unreadable."""
    if isinstance(axes, Qual) and axes.name == CARRY:
        return [path]
    items: list[tuple[str, Value]] = []
    if isinstance(axes, Seq):
        items = [(f"{path}[{index}]", item) for index, item in enumerate(axes.items)]
    elif isinstance(axes, Dict):
        items = [(f"{path}['{as_str(key)}']", item) for key, item in axes.items]
    elif axes is None:
        return None
    found: list[str] = []
    for where, item in items:
        inner = _carry_paths(item, where)
        if inner is None:
            return None
        found.extend(inner)
    return found


def _has_none(axes: Value) -> bool:
    if isinstance(axes, Seq):
        return any(_has_none(item) for item in axes.items)
    if isinstance(axes, Dict):
        return any(_has_none(item) for _, item in axes.items)
    return axes == Const(None)


def _shown(axes: Value) -> str:
    """An axes value as the program wrote it, where it did."""
    node = axes.node if isinstance(axes, Seq | Dict) else None
    if node is not None:
        return code_of(node)
    if isinstance(axes, Qual) and axes.name == CARRY:
        return "nnx.Carry"
    if isinstance(axes, Seq):
        return f"({', '.join(_shown(item) for item in axes.items)}{',' if len(axes.items) == 1 else ''})"
    number = as_int(axes)
    return str(number) if number is not None else "None" if axes == Const(None) else "..."


def _leaf_count(value: Value) -> int | None:
    """How many arrays `value` holds; None where not known."""
    def count(shape: ArrayType | Node | None) -> int | None:
        if isinstance(shape, ArrayType):
            return 1
        if isinstance(shape, Node):
            counts = [count(item) for item in shape.items]
            return None if None in counts else sum(c for c in counts if c is not None)
        return None

    return count(tree(value))


# ---------------------------------------------------------------- ensembles' rngs and axes

RNGS: Final = f"{NNX}.Rngs"
SPLIT_RNGS: Final = f"{NNX}.split_rngs"
# An `nnx.Rngs` object, known by that name: `rngs.fork` reads as `f"{_AN_RNGS}.fork"`, its
# streams (`rngs.params()`) as names nothing handles (unknown keys).
_AN_RNGS: Final = f"{RNGS}()"
_SPLITTING: Final = f"{SPLIT_RNGS}()"  # `nnx.split_rngs(splits=4)`, waiting for its function
_SPLIT: Final = f"{SPLIT_RNGS}()()"  # that function, called with its Rngs split


@REGISTRY.handles(RNGS, signature="*args, **kwargs")
def rngs(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`nnx.Rngs(0)`, `nnx.Rngs(params=0, dropout=1)`: an Rngs, which `split_rngs` and `fork`
    split into an ensemble's worth of keys (`ensembles`)."""
    return Qual(_AN_RNGS)


@REGISTRY.handles(f"{_AN_RNGS}.fork", signature="*, split=None")
def fork(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`rngs.fork(split=5)`: an Rngs whose keys are stacked 5 along a leading dim (what
    `nnx.vmap` maps to build 5 members); without `split`, an Rngs like the first. A split by
    stream (a dict) is unknown."""
    sizes = _splits(call.arg("split")) if passed(call, "split") else ()
    return ensembles.stacked(Qual(_AN_RNGS), sizes) if sizes is not None else None


@REGISTRY.handles(SPLIT_RNGS, signature="node=None, /, *, splits=None, only=None, squeeze=False, "
                                        "graph=None, graph_updates=None")
def split_rngs(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`@nnx.split_rngs(splits=4)`: a decorator whose function gets each Rngs it is passed split
    4 along a leading dim (for the `nnx.vmap` under it). Its other options (`only` some
    streams, `squeeze`, tree mode) leave the Rngs unknown; its form as a context manager
    (`with nnx.split_rngs(rngs, splits=4)`) is not followed."""
    if call.opaque or call.given("node"):
        return None
    plain = not any(passed(call, name) for name in ("only", "graph", "graph_updates")) \
        and (not call.given("squeeze") or call.arg("squeeze") == Const(False))
    sizes = _splits(call.arg("splits")) if plain and call.given("splits") else None
    return Partial(Qual(_SPLITTING), (Seq(tuple(dim_value(size) for size in sizes)) if sizes is not None else None,))


@REGISTRY.handles(_SPLITTING, signature="splits, /, f")
def splitting(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    return Partial(Qual(_SPLIT), (call.arg("splits"), call.arg("f")))


@REGISTRY.handles(_SPLIT, signature="splits, f, /, *args, **kwargs")
def split_call(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The function, its Rngs arguments split (unknown where the split is)."""
    splits = call.arg("splits")
    sizes = tuple(as_dim(item) for item in splits.items) if isinstance(splits, Seq) else None

    def split(value: Value) -> Value:
        if value != Qual(_AN_RNGS):
            return value
        return ensembles.stacked(value, sizes) if sizes is not None else None

    given = forwarded(call, call.rest())
    return interp.call(call.arg("f"), CallArgs(
        given.node, [split(arg) for arg in given.args], given.arg_nodes,
        {name: split(value) for name, value in given.kwargs.items()}, given.kwarg_nodes), ctx, scope)


def _splits(value: Value) -> tuple[Dim, ...] | None:
    """`splits=4` or `(2, 3)`: the sizes of the leading dims each key is split into; None
    where not read (or negative: refused by JAX, not a shape followed here)."""
    items = value.items if isinstance(value, Seq) else (value,)
    sizes = tuple(as_int(item) for item in items)
    return sizes if all(size is not None and size >= 0 for size in sizes) else None


@REGISTRY.handles(ensembles.STATE_AXES, signature="filter_axes, /")
def state_axes(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """`nnx.StateAxes({...: 0})`, `nnx.StateAxes({nnx.Param: 0})`: an in_axes entry for a module,
    held as written; a map (`ensembles.axis_of`) reads one that maps all its state along one
    axis as that axis, and any other as unknown."""
    return Partial(Qual(ensembles.STATE_AXES), (call.arg("filter_axes"),))


# ---------------------------------------------------------------- both

def _graph_mode(call: CallArgs) -> bool:
    """Whether the transform runs in nnx's graph mode with its updates (the default): the
    mode followed."""
    return all(not call.given(name) or call.arg(name) in (Const(None), Const(True))
               for name in ("graph", "graph_updates"))


def _positional(interp: Interpreter, fun: Value, call: CallArgs, ctx: Context, entries: int | None) -> CallArgs | None:
    """The call's arguments (after the transform's own) as nnx passes them on (`resolve_kwargs`):
    keyword arguments and defaults bound to `fun`'s positions. None where nnx refuses them (a
    keyword-only parameter, a keyword it cannot place) or they are not known (keywords for a
    function whose signature is not read; a tuple of `entries` in_axes, other than the
    arguments, for one that may have defaults)."""
    given = forwarded(call, call.rest())
    if isinstance(fun, Function):
        return _bound(interp, fun, given, ctx)
    if given.kwargs:
        return None  # nnx reads a partial's signature as `(*args, **kwargs)`: no keyword has a place
    if entries is not None and entries != len(given.args) and not isinstance(fun, Partial):
        return None
    return given


def _bound(interp: Interpreter, fun: Function, call: CallArgs, ctx: Context) -> CallArgs | None:
    """`inspect.signature(fun).bind(*args, **kwargs)` with its defaults applied, as positions."""
    listed = walk.parameters(fun.node.args)
    positional = [param for param in listed if param.kind in ("positional_only", "positional")]
    if any(param.kind == "keyword_only" for param in listed):
        return None  # nnx: keyword arguments could not be resolved to positions (a TypeError)
    if len(call.args) > len(positional) and not any(param.kind == "vararg" for param in listed):
        return None
    args, nodes, keywords = list(call.args), list(call.arg_nodes), dict(call.kwargs)
    here = fun.module == interp.module_name
    for param in positional[len(args):]:
        name = param.node.arg
        if name in keywords and param.kind == "positional":
            args.append(keywords.pop(name))
            nodes.append(call.kwarg_nodes.get(name, call.node))
        elif param.default is not None:
            args.append(interp.eval(param.default, fun.scope, ctx))
            nodes.append(param.default if here else call.node)
        else:
            return None  # missing: a TypeError
    return CallArgs(call.node, args, nodes) if not keywords else None

