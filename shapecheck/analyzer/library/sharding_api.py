"""Shardings and jit: `PartitionSpec`, `NamedSharding`, `device_put`, `with_sharding_constraint`,
`reshard`, `make_array_from_callback`, `ShapeDtypeStruct`, and `jax.jit`'s
`in_shardings`/`out_shardings` (DESIGN.md section 3a).

The rules are the algebra's (`partition_spec.spec_problems`); here arguments are bound, the
mesh is found and the problems reported where JAX raises them: SC206 and SC201 at the spec
(they hold whatever value it shards), SC106 and SC205 at the call that puts a value under it.
A mesh, a sharding or jit binds no axis name: collectives under plain jit stay SC202.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from shapecheck.algebra.partition_spec import spec_faults
from shapecheck.algebra.sharding_types import (
    AUTO,
    EXPLICIT,
    committed,
    from_spec,
    misnamed_axes,
    same_placement,
    settled,
    typeof,
)
from shapecheck.algebra.spec_trees import shardings_arity
from shapecheck.analyzer import walk
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import array, code_of, dtype_arg, flag, labels, shape
from shapecheck.analyzer.library.partition_specs import (
    mesh_axes,
    read_spec,
    report_spec_faults,
    resolved,
)
from shapecheck.analyzer.library.placements import (
    Rules,
    no_mesh_set,
    pairs,
    place,
    reshard_checks,
    spec_without_mesh,
)
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.library.typed_shardings import (
    explicit_mismatch,
    forget,
    placed,
    placement,
    spec_entries,
    typed_tree,
    unplaced,
)
from shapecheck.analyzer.qualnames import (
    DEVICE_PUT,
    JIT,
    MAKE_ARRAY_FROM_CALLBACK,
    NAMED_SHARDING,
    PARTITION_SPEC,
    PJIT,
    RESHARD,
    SHAPE_DTYPE_STRUCT,
    WITH_SHARDING_CONSTRAINT,
)
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    BoundFunction,
    Const,
    DefNode,
    Dict,
    Function,
    Instance,
    Jitted,
    Layer,
    Mesh,
    Partial,
    Qual,
    Seq,
    Sharding,
    ShardMap,
    Spec,
    TracedInt,
    Value,
    Vmap,
    Xmap,
    as_int,
    as_str,
)
from shapecheck.codes import Code
from shapecheck.dims import Dim, format_dim
from shapecheck.types import ArrayType
from shapecheck.types import Sharding as TypeSharding

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`



# ---------------------------------------------------------------- specs and shardings


@REGISTRY.handles(PARTITION_SPEC, signature="*partitions, unreduced=frozenset(), reduced=frozenset()",
                  binds_names=True)
def partition_spec(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if call.opaque:
        return None  # `P(*axes)` not expanded: not even its length is known
    return read_spec(call.rest(), call.node, interp.module_name)


@REGISTRY.handles(NAMED_SHARDING, signature="mesh, spec, *, memory_kind=None", binds_names=True)
def named_sharding(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    spec = resolved(interp, call.arg("spec"))
    if not isinstance(spec, Spec):
        return None
    given = resolved(interp, call.arg("mesh"))
    mesh = given if isinstance(given, Mesh) else None
    # NamedSharding checks its spec against its mesh when it is built, whatever it will shard.
    problems = spec_faults(spec.spec, mesh_axes(mesh), "the NamedSharding")
    report_spec_faults(interp, problems, spec, call.node)
    return Sharding(mesh, spec)


# ---------------------------------------------------------------- placing values


@REGISTRY.handles(DEVICE_PUT, signature="x, device=None, *, src=None, donate=False, may_alias=None")
def device_put(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    x = call.arg("x")
    device = resolved(interp, call.arg("device"))
    if spec_without_mesh(interp, device, ctx, call.node, "jax.device_put"):
        return forget(_arrays(x))
    refused = place(interp, device, x, _label(call, "x"), call.node, ctx, Rules())
    if not call.given("device") or device == Const(None):
        return _arrays(x)  # stays where it is, typed as it was
    if isinstance(x, ArrayType) and x.rank is not None and not refused:
        # Placed on the spec's mesh: its type keeps the spec's Explicit axes (JAX 0.10).
        return x.with_sharding(placed(interp, device, ctx, x.rank, "jax.device_put", commit=True))
    return forget(_arrays(x))


def _arrays(tree: Value) -> Value:
    """`tree` with its Python numbers made arrays: what device_put returns (lists stay lists)."""
    if isinstance(tree, Seq):
        return Seq(tuple(_arrays(item) for item in tree.items), tree.is_list)
    if isinstance(tree, Dict):
        return Dict(tuple((key, _arrays(item)) for key, item in tree.items))
    return array(tree)


@REGISTRY.handles(WITH_SHARDING_CONSTRAINT, signature="x, shardings")
def with_sharding_constraint(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    x = call.arg("x")
    # Under jit (and any traced function may be jitted) an uneven split is padded, not refused;
    # only module-level code certainly runs eagerly, where JAX refuses it.
    eager = all(frame.function is None for frame in interp.frames)
    shardings = resolved(interp, call.arg("shardings"))
    if spec_without_mesh(interp, shardings, ctx, call.node, "jax.lax.with_sharding_constraint") \
            or _explicit_without_mesh(interp, shardings, ctx, call):
        return forget(x)
    refused = place(interp, shardings, x, _label(call, "x"), call.node, ctx, Rules(divisible=eager))
    if not refused and isinstance(x, ArrayType) and not ctx.manual:
        return _constrain(interp, shardings, x, call, ctx)
    return forget(x)


def _explicit_without_mesh(interp: Interpreter, shardings: Value, ctx: Context, call: CallArgs) -> bool:
    """SC209: a NamedSharding naming an Explicit axis of its mesh, given to
    with_sharding_constraint where no mesh is set (only under `jax.set_mesh` does JAX read it
    as an assertion of the value's sharding)."""
    if not ctx.meshless or not isinstance(shardings, Sharding) or shardings.mesh is None:
        return False
    types = shardings.mesh.axis_types
    named = [axis for entry in spec_entries(shardings.spec) for axis in entry or () if types.get(axis) == EXPLICIT]
    if not named or not no_mesh_set(interp, ctx):
        return False
    interp.reporter.add(call.node, Code.AXIS_TYPE_MISUSE, (
        f"with_sharding_constraint is given a NamedSharding {shardings.spec.spec.shown} that names Explicit mesh "
        f"axis {named[0]!r}, with no mesh set: JAX takes only Auto axes there; on Explicit axes place values with "
        f"jax.sharding.reshard, or run this under `with jax.set_mesh(mesh):`, where the constraint asserts the "
        f"value's sharding"))
    return True


def _constrain(interp: Interpreter, shardings: Value, x: ArrayType, call: CallArgs, ctx: Context) -> ArrayType:
    """SC209: with_sharding_constraint names only Auto axes; on a mesh of Explicit axes only, it
    asserts the value's own sharding (JAX's AssertionError where it would change it). On a
    mixed mesh the value's type takes the spec's Explicit axes (none: it names only Auto ones)."""
    read = placement(shardings, ctx)
    if read is None:
        return x.with_sharding(None)
    entries, mesh = read
    if mesh is None:
        return x.with_sharding(None)
    types = mesh.axis_types
    if any(kind is None for kind in types.values()) or x.rank is None:
        return x.with_sharding(None)
    if types and all(kind == EXPLICIT for kind in types.values()):
        if ctx.mesh is None:
            # The assertion is the context mesh's (`jax.set_mesh`); with none set, a spec that
            # names no Explicit axis leaves the value as it is (one that names one is SC209).
            return x if ctx.meshless else x.with_sharding(None)
        wanted = from_spec(entries, x.rank, types, mesh.axes)
        if wanted is not None and x.sharding is not None and wanted.known and x.sharding.known \
                and wanted.dims != x.sharding.dims:
            interp.reporter.add(call.node, Code.AXIS_TYPE_MISUSE, (
                f"with_sharding_constraint on a mesh of Explicit axes only asserts the value's sharding, "
                f"but {_label(call, 'x')} is {typeof(x)} and the constraint says {wanted.spec_text()}; "
                f"to change it, use jax.sharding.reshard({code_of(call.arg_node('x'))}, {wanted.spec_text()})"))
        return x
    problem = misnamed_axes(entries, types, "jax.lax.with_sharding_constraint", allowed=AUTO)
    if problem is not None:
        interp.reporter.add(call.node, problem.code, problem.message)
        return x.with_sharding(None)
    # Committed as the spec says, over its Auto axes too (JAX 0.10.2, eagerly).
    return x.with_sharding(committed(entries, x.rank, types, mesh.axes))


@REGISTRY.handles(RESHARD, signature="xs, out_shardings")
def reshard(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    xs = call.arg("xs")
    out = resolved(interp, call.arg("out_shardings"))
    if spec_without_mesh(interp, out, ctx, call.node, "jax.sharding.reshard"):
        return forget(xs)
    if reshard_checks(interp, out, xs, _label(call, "xs"), call.node, ctx):
        return forget(xs)
    if isinstance(xs, ArrayType) and xs.rank is not None:
        # reshard may name only Explicit axes (SC209), and types the value with them; on a
        # mixed mesh its result is typed from its placement, as an eager op's is.
        typed_ = placed(interp, out, ctx, xs.rank, "jax.sharding.reshard", call.node)
        return xs.with_sharding(None if typed_ is None else settled(typed_, typed_.volatile))
    return forget(xs)


@REGISTRY.handles(MAKE_ARRAY_FROM_CALLBACK, signature="shape, sharding, data_callback, dtype=None")
def make_array_from_callback(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    dims = shape(call.arg("shape"))
    if dims is None:
        return None
    value = ArrayType(dtype_arg(call.arg("dtype")), dims)
    # It builds each device's block from the global shape: an uneven split is refused, a spec
    # with trailing entries is not.
    place(interp, resolved(interp, call.arg("sharding")), value, f"the array of shape {_shown(dims)}",
           call.node, ctx, Rules(rank=False))
    return value


@REGISTRY.handles(SHAPE_DTYPE_STRUCT, signature="shape, dtype, *, sharding=None, weak_type=False")
def shape_dtype_struct(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    dims = shape(call.arg("shape"))
    if dims is not None:
        # An abstract value is never split: only the spec's length is checked.
        place(interp, resolved(interp, call.arg("sharding")), ArrayType(None, dims),
               f"the ShapeDtypeStruct of shape {_shown(dims)}", call.node, ctx, Rules(divisible=False))
    weak = flag(call.arg("weak_type"), False) if call.given("weak_type") else False
    if dims is None or weak is None:
        return None
    # It reads as the array it describes (`jax.eval_shape(f, struct)`, `struct.shape`); where it
    # is placed is not followed.
    return ArrayType(dtype_arg(call.arg("dtype")), dims, weak=weak)


def _shown(dims: tuple[Dim, ...]) -> str:
    return "(" + ", ".join(format_dim(dim) for dim in dims) + (",)" if len(dims) == 1 else ")")


def _label(call: CallArgs, parameter: str) -> str:
    return f"`{code_of(call.arg_node(parameter))}`"


# ---------------------------------------------------------------- jit


JIT_OPTIONS: Final = ("in_shardings=None, out_shardings=None, static_argnums=None, static_argnames=None, "
                       "donate_argnums=None, donate_argnames=None, keep_unused=False, device=None, "
                       "backend=None, inline=False, compiler_options=None")


# What jit wraps and the interpreter can call: a function, a map, a bound method, a model
# (an equinox module or a layer, `eqx.filter_jit(model)(x)`).
_CALLABLE: Final = (Function, Partial, Xmap, Vmap, Jitted, Qual, ShardMap, BoundFunction, Instance, Layer)


@REGISTRY.handles(JIT, signature=f"fun, /, *, {JIT_OPTIONS}", takes_functions=True, binds_names=True)
@REGISTRY.handles(PJIT, signature=f"fun, {JIT_OPTIONS}", takes_functions=True, binds_names=True)
def jit(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    fun = call.arg("fun")
    if not isinstance(fun, _CALLABLE):
        return None
    in_shardings = resolved(interp, call.arg("in_shardings"))
    out_shardings = resolved(interp, call.arg("out_shardings"))
    # Kept even without shardings: its body binds no axis name (`Context.enter_jit`), and its
    # arrays are tracers (`Context.traced`).
    return Jitted(fun, in_shardings, out_shardings, _static(fun, call), call.node)


@REGISTRY.handles("equinox.filter_jit", signature="fun=None, *, donate='none'", takes_functions=True,
                  binds_names=True)
def filter_jit(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """equinox's jit: every argument that is not an array is static, and no sharding is given."""
    fun = call.arg("fun")
    if not isinstance(fun, _CALLABLE):
        return None
    return Jitted(fun, None, None, None, call.node)


def _static(fun: Value, call: CallArgs) -> frozenset[int] | None:
    """The positions of the static arguments (they take no in_shardings entry); None if unknown."""
    positions: set[int] = set()
    numbers = call.arg("static_argnums")
    if call.given("static_argnums") and numbers != Const(None):
        items = numbers.items if isinstance(numbers, Seq) else (numbers,)
        read = [as_int(item) for item in items]
        if any(n is None or n < 0 for n in read):
            return None  # unread, or counted from the end of a call not yet seen
        positions.update(n for n in read if n is not None)
    names = call.arg("static_argnames")
    if call.given("static_argnames") and names != Const(None):
        items = names.items if isinstance(names, Seq) else (names,)
        # jit finds a static name's position in the function's signature.
        if not isinstance(fun, Function):
            return None
        parameters = [p.node.arg for p in walk.parameters(fun.node.args)
                      if p.kind in ("positional_only", "positional")]
        for item in items:
            name = as_str(item)
            if name is None:
                return None
            if name in parameters:
                positions.add(parameters.index(name))
    return frozenset(positions)


@REGISTRY.calls(Jitted)
def call_jitted(interp: Interpreter, jitted: Jitted, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """A jitted function's call: the function's result, with its arguments and result checked
    against in_shardings and out_shardings, and typed by them (DESIGN.md section 3b)."""
    inside = ctx.enter_jit(("this jax.jit binds no axis name", jitted.node))
    if call.opaque:
        return interp.call(jitted.fun, call, inside, scope)
    name = _name(jitted.fun)
    refused = False
    # A Python int given as a non-static argument is traced in the body (a 0-d int32 tracer).
    args = [TracedInt(arg.value) if jitted.static is not None and index not in jitted.static
            and type(arg) is Const and arg.is_int else arg for index, arg in enumerate(call.args)]
    for option, given in (("in_shardings", jitted.in_shardings), ("out_shardings", jitted.out_shardings)):
        if given is not None and spec_without_mesh(interp, given, ctx, call.node, f"{name}'s {option}"):
            return forget(interp.call(jitted.fun, replace(call, args=args), inside, scope))
    # jit refuses keyword arguments when in_shardings is given (its own error, not a shape's).
    if jitted.in_shardings is not None and jitted.static is not None and not call.kwargs:
        dynamic = [index for index in range(len(call.args)) if index not in jitted.static]
        entries: list[Value]
        if isinstance(jitted.in_shardings, Seq):
            entries = list(jitted.in_shardings.items)
            if len(entries) != len(dynamic):  # `in_shardings=()` for no argument is valid
                # JAX's ValueError at this call: the tuple must match the dynamic arguments.
                inline = isinstance(call.node, ast.Call) and call.node.func is jitted.node
                problem = shardings_arity(len(jitted.in_shardings.items), len(dynamic), name)
                interp.reporter.add(call.node, problem.code, problem.message,
                                    [] if inline else [("in_shardings given here", jitted.node)])
                refused = True
        else:
            entries = [jitted.in_shardings] * len(dynamic)  # one sharding for every argument
        arg_labels = labels(call)
        for number, (index, entry) in enumerate(zip(dynamic, entries, strict=False)):
            what = f"argument {arg_labels[index]} of {name} (in_shardings[{number}])"
            placed_here = place(interp, entry, call.args[index], what, call.arg_nodes[index], ctx, Rules())
            if not placed_here:
                placed_here = _committed(interp, entry, call.args[index], what, call.arg_nodes[index], ctx)
            refused |= placed_here
            # The body sees each argument as in_shardings places it (an uncommitted one is
            # moved there; a committed one must already be so).
            args[index] = _entering(args[index], typed_tree(entry, args[index], ctx))
    result = interp.call(jitted.fun, replace(call, args=args), inside, scope)
    # JAX stops at the first argument it refuses: the result is never computed.
    if refused:
        return forget(result)
    if jitted.out_shardings is not None:
        shardings = jitted.out_shardings
        # A tuple of shardings is matched to the result as a tree: a tuple of as many entries
        # (JAX's "pytree structure error" at the call; a list is another type there).
        kind = "tuple" if isinstance(shardings, Seq) and not shardings.is_list else None
        returned = f"a {'list' if result.is_list else 'tuple'} of {len(result.items)}" if isinstance(result, Seq) \
            else "an array" if isinstance(result, ArrayType) else None
        if isinstance(shardings, Seq) and kind is not None and returned is not None and not (
                isinstance(result, Seq) and not result.is_list and len(result.items) == len(shardings.items)):
            interp.reporter.add(call.node, Code.INVALID_AXIS_SPEC, (
                f"out_shardings is a {kind} of {len(shardings.items)} but {name} returns {returned}: out_shardings "
                "needs the structure of the output (a prefix of its tree), or one sharding for all"))
            return forget(result)
        if place(interp, jitted.out_shardings, result, f"the result of {name}", call.node, ctx, Rules()):
            return forget(result)
        return typed_tree(jitted.out_shardings, result, ctx, commit=True)
    # Without out_shardings the compiler places the result over Auto axes: not known.
    return unplaced(result)


def _entering(given: Value, placed_: Value) -> Value:
    """The argument as the body sees it: as in_shardings place it where the checker knows that
    JAX accepts it (a value on no mesh is moved; one split alike is kept; one placed alike,
    as over a size-1 mesh axis that splits nothing, keeps its own split), else unknown."""
    if isinstance(given, ArrayType) and isinstance(placed_, ArrayType):
        mine, theirs = given.sharding, placed_.sharding
        if mine is not None and theirs is not None and mine.known and \
                ((mine.mesh is None and not mine.split) or mine.dims == theirs.dims):
            return placed_
        if mine is not None and theirs is not None and mine.mesh is not None and same_placement(mine, theirs):
            return placed_.with_sharding(mine)
        return forget(placed_)
    if isinstance(given, Seq) and isinstance(placed_, Seq) and len(given.items) == len(placed_.items):
        return Seq(tuple(_entering(a, b) for a, b in zip(given.items, placed_.items, strict=True)),
                   placed_.is_list, placed_.node, placed_.lookup)
    if isinstance(given, Dict) and isinstance(placed_, Dict) and len(given.items) == len(placed_.items):
        return Dict(tuple((key, _entering(a, b)) for (_, a), (key, b) in zip(given.items, placed_.items, strict=True)),
                    placed_.node, placed_.lookup)
    return forget(placed_)


def _committed(interp: Interpreter, sharding: Value, tree: Value, what: str, node: ast.AST, ctx: Context) -> bool:
    """SC208: an argument committed to a mesh of Explicit axes whose split differs from its
    in_shardings entry (JAX's ValueError: Sharding passed to jit does not match the sharding on
    the respective arg); True when reported."""
    if ctx.traced:  # a tracer is committed nowhere: jit's in_shardings constrain it
        return False
    # Only module-level code certainly runs eagerly: there the placement over Auto axes is
    # known too (a function's body may also run under a trace its analysis does not see).
    eager = all(frame.function is None for frame in interp.frames)
    for entry, leaf, path in pairs(sharding, tree, ""):
        wanted = explicit_mismatch(leaf, entry, ctx, eager=eager)
        if wanted is None or leaf.sharding is None:
            continue
        shown = code_of(node)
        if wanted.placed is not None:
            # On a mesh with Auto axes: the placements, which the types do not show.
            theirs = TypeSharding(wanted.placed).spec_text()
            if leaf.sharding.placed is not None:
                mine = TypeSharding(leaf.sharding.placed).spec_text()
                placed_as, instead = f"is placed as {mine}", f", or give in_shardings={mine}"
            else:  # only its Explicit axes are known, and they differ
                placed_as, instead = f"is {typeof(leaf)} (split so over the Explicit mesh axes)", ""
            interp.reporter.add(node, Code.SHARDING_TYPE_MISMATCH, (
                f"{what}{path} {placed_as}, but in_shardings says {theirs}: jit does not move an "
                f"argument already committed to the mesh; place it first: jax.device_put({shown}, {theirs})"
                f"{instead}"))
            return True
        interp.reporter.add(node, Code.SHARDING_TYPE_MISMATCH, (
            f"{what}{path} is {typeof(leaf)}, but in_shardings says {wanted.spec_text()}: jit does not reshard "
            f"an argument already on the mesh; reshard it first: jax.sharding.reshard({shown}, {wanted.spec_text()}), "
            f"or give in_shardings={leaf.sharding.spec_text()}"))
        return True
    return False


def _name(fun: Value) -> str:
    if isinstance(fun, Function) and isinstance(fun.node, DefNode):
        return f"`{fun.name}`"
    return "the jitted function"
