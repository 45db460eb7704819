"""Sharding in types, for every handler's result (DESIGN.md section 3b).

Every handler's result passes through `typed` (the registry wraps each handler with it): an
API with a rule here gets its result's sharding from the algebra (`sharding_types`), with the
problems JAX raises as ShardingTypeError reported at the call; any other API's result has an
unknown sharding, so a rule that does not say how the split follows never claims one. The
rules are keyed by the handler they follow (`module.function`): every API a handler takes
shares its shape rule, and so its sharding rule; `RULES_BY_NAME` refines single APIs.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final, TypeAlias

from shapecheck.algebra import indexing
from shapecheck.algebra import sharding_types as st
from shapecheck.algebra.indexing import IndexItem
from shapecheck.algebra.outcome import Problem
from shapecheck.algebra.partition_spec import UnknownEntry
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library.common import array, axes, code_of, dimension_numbers, flag, labels
from shapecheck.analyzer.library.partition_specs import resolved
from shapecheck.analyzer.library.placements import reshard_checks, spec_without_mesh
from shapecheck.analyzer.values import (
    Const,
    Dict,
    Mesh,
    Seq,
    Sharding,
    Spec,
    TracedInt,
    Value,
    as_int,
    as_str,
)
from shapecheck.codes import Code
from shapecheck.dims import Dim
from shapecheck.types import ArrayType, MeshShape
from shapecheck.types import Sharding as TypeSharding

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

Rule: TypeAlias = "Callable[[Interpreter, CallArgs, Context, ArrayType], st.Typed]"

KEEP: Final = "keep"
"""A handler that types its result's sharding itself (placing values, maps, jit)."""


def typed(key: str, interp: Interpreter, call: CallArgs, ctx: Context, result: Value, reported: int) -> Value:
    """`result` with its sharding as JAX types it: by the handler's rule, else unknown.

    `reported` is how many findings there were before the handler ran: a call the handler
    already reported on is typed unknown (JAX stopped there)."""
    rule = RULES_BY_NAME.get(call.name) or RULES.get(key)
    if rule == KEEP:
        return result
    if rule is None or not isinstance(result, ArrayType) or len(interp.reporter.findings) > reported:
        return forget(result)
    assert not isinstance(rule, str)
    try:
        outcome = rule(interp, call, ctx, result)
    except (AssertionError, IndexError, KeyError, ValueError):
        # A call its handler read another way (an API passed as a function, a partial): unknown.
        return forget(result)
    if outcome.problems:
        interp.reporter.problems(outcome.problems, call.node, call.arg_nodes)
    sharding = outcome.sharding
    if sharding is not None and sharding.mesh is not None:  # no mesh: placed nowhere
        # Rules that keep an operand's placement over the Auto axes: XLA keeps it, except in a
        # dim where an Auto axis leads an Explicit one.
        sharding = st.elementwise_result(sharding)
        if sharding.placed is None and sharding.known:
            placed_ = _placement_by_rule(rule, interp, call, ctx, result)
            if placed_ is not None:
                sharding = TypeSharding(sharding.dims, sharding.mesh, placed_, sharding.volatile)
        sharding = st.settled(sharding, operands_volatile(call))
    if sharding is result.sharding:
        return result
    return result.with_sharding(sharding)


def _placement_by_rule(rule: Rule, interp: Interpreter, call: CallArgs, ctx: Context,
                       result: ArrayType) -> tuple[tuple[str, ...], ...] | None:
    """Where an op's result lies over every mesh axis, Auto ones included, where each array
    operand's placement is known: the op's own rule applied to the placements, as if every
    axis were Explicit. XLA lays the result out so (JAX 0.10.2: a stack, transpose, concatenate,
    cumsum or sum of values placed `P(None, ('Y', 'X'))` on an Auto mesh); where the rule would
    refuse it, XLA chooses, and it is unknown."""
    swapped = _with_placements(call)
    if swapped is None:
        return None
    interp.reporter.muted += 1
    try:
        outcome = rule(interp, swapped, ctx, result)
    except (AssertionError, IndexError, KeyError, ValueError):
        return None
    finally:
        interp.reporter.muted -= 1
    if outcome.problems or outcome.sharding is None or not outcome.sharding.known:
        return None
    return tuple(entry or () for entry in outcome.sharding.dims)


def _with_placements(call: CallArgs) -> CallArgs | None:
    """`call` with each array operand typed as it is placed (None: some placement unknown, or
    no array operand)."""
    found = False

    def placed_as(value: Value) -> Value:
        nonlocal found
        if isinstance(value, ArrayType) and (value.dims or value.ellipsis is not None):
            sharding = value.sharding
            if sharding is None or sharding.placed is None or not st.keeps_placement(sharding):
                raise LookupError
            found = True
            return value.with_sharding(TypeSharding(sharding.placed, sharding.mesh))
        if isinstance(value, Seq):
            return Seq(tuple(placed_as(item) for item in value.items), value.is_list, value.node, value.lookup)
        return value

    try:
        args = [placed_as(value) for value in call.args]
        kwargs = {key: placed_as(value) for key, value in call.kwargs.items()}
        indexed = placed_as(call.indexed) if call.indexed is not None else None
    except LookupError:
        return None
    if not found:
        return None
    return CallArgs(call.node, args, call.arg_nodes, kwargs, call.kwarg_nodes, call.raw_args, call.raw_kwargs,
                    call.opaque, call.name, call.written, call.signature,
                    indexed if isinstance(indexed, ArrayType) else None)


def operands_volatile(call: CallArgs) -> frozenset[str]:
    """The `volatile` axes of the arrays a call is given (in lists and tuples too): its result,
    computed from them, is typed from its compiled placement."""
    found: frozenset[str] = frozenset()
    pending: list[Value] = [*call.args, *call.kwargs.values()]
    while pending:
        value = pending.pop()
        if isinstance(value, ArrayType):
            if value.sharding is not None and value.sharding.volatile:
                found |= value.sharding.volatile
        elif isinstance(value, Seq):
            pending.extend(value.items)
    return found


def forget(value: Value) -> Value:
    """`value` with the shardings of its arrays unknown (rank 0 is always known)."""
    if isinstance(value, ArrayType):
        return value if value.sharding is None or not value.dims else value.with_sharding(None)
    if isinstance(value, Seq):
        items = tuple(forget(item) for item in value.items)
        return value if all(a is b for a, b in zip(items, value.items, strict=True)) else \
            Seq(items, value.is_list, value.node, value.lookup)
    if isinstance(value, Dict):
        pairs = tuple((key, forget(item)) for key, item in value.items)
        return value if all(a[1] is b[1] for a, b in zip(pairs, value.items, strict=True)) else \
            Dict(pairs, value.node, value.lookup)
    return value


def unplaced(value: Value) -> Value:
    """`value` with what its arrays' shardings say of Auto axes forgotten (their types kept)."""
    if isinstance(value, ArrayType):
        sharding = value.sharding
        if sharding is None or sharding.placed is None:
            return value
        return value.with_sharding(TypeSharding(sharding.dims, sharding.mesh))
    if isinstance(value, Seq):
        return Seq(tuple(unplaced(item) for item in value.items), value.is_list, value.node, value.lookup)
    if isinstance(value, Dict):
        return Dict(tuple((key, unplaced(item)) for key, item in value.items), value.node, value.lookup)
    return value


# ---------------------------------------------------------------- reading specs


def mesh_shape(mesh: Mesh | None) -> MeshShape | None:
    return mesh.axes if mesh is not None else None


def spec_entries(spec: Spec) -> tuple[tuple[str, ...] | None, ...]:
    return tuple(None if isinstance(entry, UnknownEntry) else entry for entry in spec.spec.dims)


def placement(sharding: Value, ctx: Context) -> tuple[tuple[tuple[str, ...] | None, ...], Mesh | None] | None:
    """A `P(...)` (on the mesh in context) or a `NamedSharding` as spec entries and mesh."""
    if isinstance(sharding, Sharding):
        return spec_entries(sharding.spec), sharding.mesh
    if isinstance(sharding, Spec):
        return spec_entries(sharding), ctx.mesh
    return None


def placed(interp: Interpreter, sharding: Value, ctx: Context, rank: int, what: str,
           node: ast.AST | None = None, *, commit: bool = False) -> TypeSharding | None:
    """The type's sharding of a value `what` places with `sharding` (`out_sharding=`,
    `device_put`'s); SC209 where it names axes that are not Explicit (JAX's ValueError).
    `commit`: the value is committed there, Auto axes included (`device_put`)."""
    read = placement(resolved(interp, sharding), ctx)
    if read is None:
        return None
    entries, mesh = read
    if mesh is None:
        return None
    types = mesh.axis_types
    if node is not None:
        problem = st.misnamed_axes(entries, types, what)
        if problem is not None:
            interp.reporter.add(node, problem.code, problem.message)
            return None
    if any(kind is None for kind in types.values()):
        return None
    return (st.committed if commit else st.from_spec)(entries, rank, types, mesh.axes)


def typed_tree(shardings: Value, tree: Value, ctx: Context, *, commit: bool = False) -> Value:
    """`tree` with each array leaf typed as `shardings` (a pytree prefix of it) places it:
    jit's in_shardings and out_shardings, auto_axes' out_sharding. A leaf under None keeps its
    type (jit leaves it unconstrained); under a structure that does not match, or a sharding
    the checker cannot read, its sharding is unknown. `commit`: the leaves are committed there
    (jit's out_shardings), Auto axes included."""
    if shardings == Const(None):
        return tree
    if isinstance(shardings, Spec | Sharding):
        return _each_leaf(tree, lambda leaf: _placed_leaf(shardings, leaf, ctx, commit))
    if isinstance(shardings, Seq) and isinstance(tree, Seq) and len(shardings.items) == len(tree.items):
        return Seq(tuple(typed_tree(sub, item, ctx, commit=commit)
                         for sub, item in zip(shardings.items, tree.items, strict=True)),
                   tree.is_list, tree.node, tree.lookup)
    if isinstance(shardings, Dict) and isinstance(tree, Dict):
        subs = {as_str(key): sub for key, sub in shardings.items}
        if None not in subs and {as_str(key) for key, _ in tree.items} == set(subs):
            return Dict(tuple((key, typed_tree(subs[as_str(key)], item, ctx, commit=commit))
                              for key, item in tree.items), tree.node, tree.lookup)
    return forget(tree)


def _each_leaf(tree: Value, change: Callable[[ArrayType], ArrayType]) -> Value:
    if isinstance(tree, ArrayType):
        return change(tree)
    if isinstance(tree, Seq):
        return Seq(tuple(_each_leaf(item, change) for item in tree.items), tree.is_list, tree.node, tree.lookup)
    if isinstance(tree, Dict):
        return Dict(tuple((key, _each_leaf(item, change)) for key, item in tree.items), tree.node, tree.lookup)
    return tree


def _placed_leaf(sharding: Spec | Sharding, leaf: ArrayType, ctx: Context, commit: bool) -> ArrayType:
    read = placement(sharding, ctx)
    mesh = read[1] if read is not None else None
    if read is None or mesh is None or leaf.rank is None or any(kind is None for kind in mesh.axis_types.values()):
        return leaf.with_sharding(None) if leaf.dims else leaf
    entries = read[0]
    return leaf.with_sharding((st.committed if commit else st.from_spec)(entries, leaf.rank, mesh.axis_types,
                                                                         mesh.axes))


def explicit_mismatch(value: ArrayType, sharding: Spec | Sharding, ctx: Context, *,
                      eager: bool = False) -> TypeSharding | None:
    """The split `sharding` gives `value` where it certainly differs from the value's own, on a
    mesh that the value is committed to (made or placed under it): jit's in_shardings and
    shard_map's in_specs do not reshard such an argument, JAX refuses it. None where they agree
    or anything is unknown. Auto axes are not in the type: on a mesh with some, the placements
    are compared only `eager`, where the value's placement over them is known, as `device_put`
    committed it; else only their Explicit axes, which the type shows."""
    read = placement(sharding, ctx)
    mesh = read[1] if read is not None else None
    if read is None or mesh is None or value.rank is None or value.sharding is None:
        return None
    entries = read[0]
    types = mesh.axis_types
    if not types or value.sharding.mesh != mesh.axes:
        return None
    if any(kind != st.EXPLICIT for kind in types.values()):
        wanted = st.committed(entries, value.rank, types, mesh.axes)
        if wanted is None:
            return None
        if eager and wanted.placed is not None and value.sharding.placed is not None:
            return wanted if st.same_placement(wanted, value.sharding) is False else None
        return wanted if st.explicit_axes_differ(wanted, value.sharding) else None
    else:
        wanted = st.from_spec(entries, value.rank, types, mesh.axes)
    if wanted is None or st.same_placement(wanted, value.sharding) is not False:
        return None
    return wanted


def _out_sharding(interp: Interpreter, call: CallArgs, ctx: Context, rank: int, what: str) -> TypeSharding | bool | None:
    """`out_sharding=` when given (its sharding, None where unknown); False when not given."""
    value = call.kwargs.get("out_sharding")
    if value is None and "out_sharding" not in call.kwargs:
        return False
    if value == Const(None):
        return False
    if spec_without_mesh(interp, resolved(interp, value), ctx, call.kwarg_nodes.get("out_sharding", call.node),
                         f"{what}'s out_sharding="):
        return None
    return placed(interp, value, ctx, rank, what, call.kwarg_nodes.get("out_sharding", call.node))


def _labelled(rule: Callable[[str], st.Typed], call: CallArgs, parameter: str) -> st.Typed:
    """`rule` with the argument's source text, rendered only for a message (rendering it at
    every level of a long chain would make the analysis quadratic)."""
    typed_ = rule("x")
    return rule(_operand(call, parameter)) if typed_.problems else typed_


def _operand(call: CallArgs, parameter: str) -> str:
    node = call.arg_node(parameter)
    if node is call.node and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        node = node.func.value  # a method's receiver
    return f"`{code_of(node)}`"


def _name(call: CallArgs) -> str:
    if call.name.startswith(("method:", "attr:")):
        return f"`.{call.short_name}`"
    written = call.written or call.name
    return f"`{written.replace('jax.numpy.', 'jnp.').replace('jax.lax.', 'lax.')}`"


# ---------------------------------------------------------------- elementwise


def _operator(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    operands = [array(value) for value in call.args]
    if any(operand is None for operand in operands):
        return st.UNKNOWN
    known = [o for o in operands if o is not None]
    typed_ = st.broadcast(known, out, "", labels(call))
    # The operation's text only for a message: rendering it at every level of `x + x + ... + x`
    # would make the analysis quadratic.
    return st.broadcast(known, out, f"`{code_of(call.node)}`", labels(call)) if typed_.problems else typed_


def _elementwise(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    if any(isinstance(value, ArrayType) for value in call.kwargs.values()):
        return st.UNKNOWN
    operands = [array(value) for value in call.rest()]
    if any(operand is None for operand in operands):
        return st.UNKNOWN
    return st.broadcast([o for o in operands if o is not None], out, _name(call), labels(call))


def _same(parameter: str) -> Rule:
    """APIs that keep their operand's split (astype, flip, softmax, activations)."""

    def rule(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
        value = call.arg(parameter)
        if not isinstance(value, ArrayType) or value.sharding is None or len(value.dims) != len(out.dims) \
                or any(isinstance(v, ArrayType) for k, v in call.kwargs.items() if k != parameter):
            return st.UNKNOWN
        return st.Typed(value.sharding)

    return rule


def _where(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    if not (call.given("x") and call.given("y")):
        return st.UNKNOWN
    operands = [array(call.arg(name)) for name in ("condition", "x", "y")]
    condition, x, y = operands
    if condition is None or x is None or y is None:
        return st.UNKNOWN
    return st.select(condition, [x, y], out, "`jnp.where`", labels(call))


def _lax_select(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    operands = [array(value) for value in call.rest()]
    if len(operands) != 3 or any(o is None for o in operands):
        return st.UNKNOWN
    which, x, y = operands
    assert which is not None and x is not None and y is not None
    return st.select(which, [x, y], out, "`lax.select`", labels(call))


# ---------------------------------------------------------------- contractions


def _contraction(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    a, b = call.arg("a"), call.arg("b")
    given = _out_sharding(interp, call, ctx, len(out.dims), _name(call))
    if given is not False:
        return st.Typed(given if isinstance(given, TypeSharding) else None)
    if not isinstance(a, ArrayType) or not isinstance(b, ArrayType) or a.rank is None or b.rank is None:
        return st.UNKNOWN
    ra, rb = a.rank, b.rank
    short = call.short_name
    if short == "vdot" or ra == 0 or rb == 0:
        return st.UNKNOWN
    batch: tuple[list[int], list[int]] = ([], [])
    if short == "matmul" and ra == rb and ra > 2:
        batch = (list(range(ra - 2)), list(range(rb - 2)))
        sa, sb = a.sharding, b.sharding
        if sa is None or sb is None or any(x != y for x, y in zip(sa.dims[:ra - 2], sb.dims[:rb - 2], strict=True)):
            return st.UNKNOWN  # jnp.matmul refuses unlike batch splits with its own ValueError
    elif short == "matmul" and rb > 2:
        return st.UNKNOWN
    contracting = ([ra - 1], [0 if rb == 1 else rb - 2])
    return st.dot_general(a, b, contracting, batch, out, _name(call), labels(call, 2))


def _operator_matmul(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    a, b = call.args[0], call.args[1]
    if not isinstance(a, ArrayType) or not isinstance(b, ArrayType) or a.rank is None or b.rank is None:
        return st.UNKNOWN
    ra, rb = a.rank, b.rank
    if ra == 0 or rb == 0 or (rb > 2 and ra != rb):
        return st.UNKNOWN
    batch: tuple[list[int], list[int]] = ([], [])
    if ra == rb and ra > 2:
        sa, sb = a.sharding, b.sharding
        if sa is None or sb is None or any(x != y for x, y in zip(sa.dims[:ra - 2], sb.dims[:rb - 2], strict=True)):
            return st.UNKNOWN
        batch = (list(range(ra - 2)), list(range(rb - 2)))
    contracting = ([ra - 1], [0 if rb == 1 else rb - 2])
    typed_ = st.dot_general(a, b, contracting, batch, out, "", labels(call, 2))
    return st.dot_general(a, b, contracting, batch, out, f"`{code_of(call.node)}`", labels(call, 2)) \
        if typed_.problems else typed_


def _dot_general(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    """`lax.dot_general(lhs, rhs, ((lc, rc), (lb, rb)), out_sharding=)`."""
    given = _out_sharding(interp, call, ctx, len(out.dims), "`lax.dot_general`")
    if given is not False:
        return st.Typed(given if isinstance(given, TypeSharding) else None)
    lhs, rhs = call.arg("lhs"), call.arg("rhs")
    numbers = dimension_numbers(call.arg("dimension_numbers"))
    if not isinstance(lhs, ArrayType) or not isinstance(rhs, ArrayType) or numbers is None:
        return st.UNKNOWN
    (lc, rc), (lb, rb) = numbers
    return st.dot_general(lhs, rhs, (lc, rc), (lb, rb), out, "`lax.dot_general`", labels(call, 2))


def _tensordot(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    a, b = call.arg("a"), call.arg("b")
    count = as_int(call.arg("axes")) if call.given("axes") else 2
    if not isinstance(a, ArrayType) or not isinstance(b, ArrayType) or a.rank is None or b.rank is None \
            or count is None or count > min(a.rank, b.rank):
        return st.UNKNOWN
    contracting = (list(range(a.rank - count, a.rank)), list(range(count)))
    return st.dot_general(a, b, contracting, ([], []), out, _name(call), labels(call, 2))


def _einsum(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    given = _out_sharding(interp, call, ctx, len(out.dims), "`jnp.einsum`")
    if given is not False:
        return st.Typed(given if isinstance(given, TypeSharding) else None)
    text = as_str(call.arg("subscripts"))
    operands = call.rest()
    if text is None or "->" not in text or "." in text or "{" in text:
        return st.UNKNOWN
    inputs_text, output = (part.replace(" ", "") for part in text.split("->"))
    inputs = inputs_text.split(",")
    arrays = [o for o in operands if isinstance(o, ArrayType)]
    if len(inputs) != len(arrays) or len(arrays) not in (1, 2) or len(set(output)) != len(output):
        return st.UNKNOWN
    for term, operand in zip(inputs, arrays, strict=True):
        if len(set(term)) != len(term) or operand.rank != len(term) or operand.sharding is None:
            return st.UNKNOWN
    if len(arrays) == 1:
        sharding = arrays[0].sharding
        assert sharding is not None
        letters = dict(zip(inputs[0], sharding.dims, strict=True))
        return st.permute(output, letters, out, "`jnp.einsum`", arrays)
    (lt, rt), (lhs, rhs) = inputs, arrays
    # Letters of one operand only and not in the output are summed away before the dot_general.
    lkeep = [i for i, c in enumerate(lt) if c in rt or c in output]
    rkeep = [i for i, c in enumerate(rt) if c in lt or c in output]
    lhs2, rhs2 = _kept(lhs, lkeep), _kept(rhs, rkeep)
    lt2, rt2 = "".join(lt[i] for i in lkeep), "".join(rt[i] for i in rkeep)
    batch = [c for c in lt2 if c in rt2 and c in output]
    contract = [c for c in lt2 if c in rt2 and c not in output]
    free_l = [c for c in lt2 if c not in rt2]
    free_r = [c for c in rt2 if c not in lt2]
    dot_out = ArrayType(out.dtype, (None,) * (len(batch) + len(free_l) + len(free_r)))
    result = st.dot_general(lhs2, rhs2, ([lt2.index(c) for c in contract], [rt2.index(c) for c in contract]),
                            ([lt2.index(c) for c in batch], [rt2.index(c) for c in batch]), dot_out,
                            "`jnp.einsum`", labels(call)[1:])
    if result.sharding is None:
        return result
    letters = dict(zip([*batch, *free_l, *free_r], result.sharding.dims, strict=True))
    return st.permute(output, letters, out, "`jnp.einsum`", arrays)


def _kept(value: ArrayType, keep: Sequence[int]) -> ArrayType:
    assert value.sharding is not None
    return ArrayType(value.dtype, tuple(value.dims[i] for i in keep),
                     sharding=TypeSharding(tuple(value.sharding.dims[i] for i in keep), value.sharding.mesh))


# ---------------------------------------------------------------- reductions


def _reduction(parameter: str, *, keep: bool = False) -> Rule:
    def rule(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
        value = call.arg(parameter)
        if not isinstance(value, ArrayType) or value.named:
            return st.UNKNOWN
        axis = axes(call.arg("axis")) if call.given("axis") else None
        if axis is False or isinstance(axis, str) or (isinstance(axis, tuple) and any(isinstance(a, str) for a in axis)):
            return st.UNKNOWN
        keepdims = flag(call.arg("keepdims"), False) if call.given("keepdims") else False
        if keepdims is None:
            return st.UNKNOWN
        picked = None if axis is None else (axis,) if isinstance(axis, int) else tuple(a for a in axis if isinstance(a, int))
        return st.reduce(value, picked, keepdims or keep, out)

    return rule


def _cumulative(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    value = call.arg("a")
    if not isinstance(value, ArrayType):
        return st.UNKNOWN
    axis = call.arg("axis") if call.given("axis") else Const(None)
    index = None if axis == Const(None) else as_int(axis)
    if index is None and axis != Const(None):
        return st.UNKNOWN
    return _labelled(lambda label: st.along_axis(value, index, _name(call), label), call, "a")


def _sort(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    value = call.arg("a")
    if not isinstance(value, ArrayType):
        return st.UNKNOWN
    axis = call.arg("axis") if call.given("axis") else Const(-1)
    index = None if axis == Const(None) else as_int(axis)
    if index is None:
        return st.UNKNOWN  # axis=None sorts the flattened array: a reshape first
    return _labelled(lambda label: st.along_axis(value, index, _name(call), label), call, "a")


def _roll(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    """`jnp.roll` slices the dim in two and joins them: a split dim keeps its split where its
    axes divide both pieces (the shift, and the rest), and is refused where they do not."""
    value = call.arg("a")
    if not isinstance(value, ArrayType) or value.sharding is None or value.rank is None:
        return st.UNKNOWN
    index = as_int(call.arg("axis")) if call.given("axis") and call.arg("axis") != Const(None) else \
        0 if value.rank == 1 else None  # axis=None rolls the flattened array
    if isinstance(call.arg("shift"), TracedInt):
        return st.Typed(value.sharding)  # a traced shift: JAX's dynamic roll, which keeps the split
    shift, size = as_int(call.arg("shift")), None
    if index is None or not -value.rank <= index < value.rank or shift is None:
        return st.UNKNOWN
    index %= value.rank
    entry, size = value.sharding.dims[index], value.dims[index]
    if entry == ():
        return st.Typed(value.sharding)
    if entry is None or not isinstance(size, int) or size == 0:
        return st.UNKNOWN
    moved = shift % size
    for taken in ((moved, size - moved) if moved else ()):
        kept = st.sliced(value, index, taken, f"`{code_of(call.node)}`")
        if kept.sharding is None:
            return kept
    return st.Typed(value.sharding)


def _slices(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    """`lax.slice`, `lax.dynamic_slice` and their one-axis forms: each split dim keeps its split
    where its axes divide what the slice takes, and is refused where they do not."""
    value = call.arg("operand")
    if not isinstance(value, ArrayType) or value.sharding is None or value.rank is None or out.rank != value.rank:
        return st.UNKNOWN
    for dim, entry in enumerate(value.sharding.dims):
        if entry is None:
            return st.UNKNOWN
        if entry:
            kept = st.sliced(value, dim, out.dims[dim], f"`{code_of(call.node)}`")
            if kept.sharding is None:
                return kept
    return st.Typed(value.sharding)


def _index_in_dim(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    """`lax.index_in_dim`: a slice of one element, its dim dropped where keepdims is false."""
    value = call.arg("operand")
    if not isinstance(value, ArrayType) or value.sharding is None or value.rank is None:
        return st.UNKNOWN
    if out.rank == value.rank:
        return _slices(interp, call, ctx, out)
    index = as_int(call.arg("axis")) if call.given("axis") else 0
    if index is None or not -value.rank <= index < value.rank:
        return st.UNKNOWN
    index %= value.rank
    entry = value.sharding.dims[index]
    if entry is None:
        return st.UNKNOWN
    if entry:
        kept = st.sliced(value, index, 1, f"`{code_of(call.node)}`")
        if kept.sharding is None:
            return kept
    dims = value.sharding.dims
    return st.Typed(TypeSharding(dims[:index] + dims[index + 1:], value.sharding.mesh))


# ---------------------------------------------------------------- layout


def _reshape(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    given = _out_sharding(interp, call, ctx, len(out.dims), _name(call))
    if given is not False:
        return st.Typed(given if isinstance(given, TypeSharding) else None)
    value = call.arg("a")
    if not isinstance(value, ArrayType):
        return st.UNKNOWN
    return _labelled(lambda label: st.reshape(value, out, label), call, "a")


def _permutation(values: Sequence[Value], rank: int) -> list[int] | None:
    if len(values) == 1 and isinstance(values[0], Seq):
        values = values[0].items
    if not values or values == [Const(None)]:
        return list(reversed(range(rank)))
    read = [as_int(v) for v in values]
    if any(r is None for r in read):
        return None
    return [r % rank for r in read if r is not None]


def _transpose(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    value = call.arg("a")
    if not isinstance(value, ArrayType) or value.rank is None:
        return st.UNKNOWN
    rank = value.rank
    permutation: list[int] | None
    if call.signature is not None and call.signature.variadic is not None:
        permutation = _permutation(call.rest(), rank)  # `x.transpose(1, 0)`
    else:
        permutation = _permutation([call.arg("axes")] if call.given("axes") else [], rank)
    return st.transpose(value, permutation) if permutation is not None else st.UNKNOWN


def _attribute_transpose(matrix: bool) -> Rule:
    """`.T` reverses the dims; `.mT` swaps the last two (the interpreter reads attributes unnamed)."""

    def rule(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
        value = call.arg("a")
        if not isinstance(value, ArrayType) or value.rank is None or (matrix and value.rank < 2):
            return st.UNKNOWN
        rank = value.rank
        order = [*range(rank - 2), rank - 1, rank - 2] if matrix else list(reversed(range(rank)))
        return st.transpose(value, order)

    return rule


def _swapaxes(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    value = call.arg("a")
    first, second = as_int(call.arg("axis1")), as_int(call.arg("axis2"))
    if not isinstance(value, ArrayType) or value.rank is None or first is None or second is None \
            or not (-value.rank <= first < value.rank and -value.rank <= second < value.rank):
        return st.UNKNOWN
    permutation = list(range(value.rank))
    permutation[first % value.rank], permutation[second % value.rank] = second % value.rank, first % value.rank
    return st.transpose(value, permutation)


def _expand_dims(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    value = call.arg("a")
    picked = axes(call.arg("axis"))
    if not isinstance(value, ArrayType) or out.rank is None:
        return st.UNKNOWN
    read = (picked,) if isinstance(picked, int) else picked if isinstance(picked, tuple) else None
    if read is None or any(not isinstance(a, int) for a in read):
        return st.UNKNOWN
    positions = [a % out.rank for a in read if isinstance(a, int)]
    return st.insert_unsplit(value, positions, out)


def _squeeze(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    value = call.arg("a")
    if not isinstance(value, ArrayType) or value.sharding is None or value.rank is None or out.rank is None:
        return st.UNKNOWN
    kept = [entry for dim, entry in zip(value.dims, value.sharding.dims, strict=True) if dim != 1]
    if len(kept) != out.rank:
        return st.UNKNOWN
    return st.Typed(TypeSharding(tuple(kept), value.sharding.mesh))


def _arrays(value: Value) -> list[ArrayType] | None:
    if not isinstance(value, Seq):
        return None
    read = [array(item) for item in value.items]
    return None if any(r is None for r in read) else [r for r in read if r is not None]


def _concatenate(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    values = _arrays(call.arg("arrays"))
    if values is None:
        return st.UNKNOWN
    return st.concatenate(values, out, _name(call), [f"`{code_of(n)}`" for n in _elements(call)])


def _stack(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    values = _arrays(call.arg("arrays"))
    axis = as_int(call.arg("axis")) if call.given("axis") else 0
    if values is None or axis is None or out.rank is None:
        return st.UNKNOWN
    checked = st.concatenate(values, ArrayType(None, values[0].dims) if values else out, _name(call),
                             [f"`{code_of(n)}`" for n in _elements(call)])
    if checked.sharding is None or not values:
        return checked
    expanded = values[0].with_sharding(checked.sharding)
    return st.insert_unsplit(expanded, [axis % out.rank], out)


def _elements(call: CallArgs) -> list[ast.expr]:
    first = call.arg_expr("arrays")
    return list(first.elts) if isinstance(first, ast.Tuple | ast.List) else []


def _broadcast_to(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    value = array(call.arg("array"))
    if value is None or value.sharding is None or value.rank is None or out.rank is None or value.rank > out.rank:
        return st.UNKNOWN
    lead = out.rank - value.rank
    entries = [*((),) * lead, *(() if d == 1 and o != 1 else e
                                for d, o, e in zip(value.dims, out.dims[lead:], value.sharding.dims, strict=True))]
    return st.Typed(TypeSharding(tuple(entries), value.sharding.mesh))


def _pad(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    value = call.arg("array")
    mode = call.arg("mode") if call.given("mode") else Const("constant")
    if not isinstance(value, ArrayType) or mode != Const("constant"):
        return st.UNKNOWN
    return _labelled(lambda label: st.pad(value, out, label), call, "array")


def _one_hot(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    value = call.arg("x")
    axis = as_int(call.arg("axis")) if call.given("axis") else -1
    if not isinstance(value, ArrayType) or value.sharding is None or axis != -1 or value.rank is None \
            or out.rank != value.rank + 1:
        return st.UNKNOWN
    return st.Typed(TypeSharding((*value.sharding.dims, ()), value.sharding.mesh))


def _subscript(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    node = call.node
    base = call.arg("value")
    if isinstance(base, Seq | Dict):
        return st.Typed(out.sharding)  # an item of a container, as it was stored (`params["w"]`)
    if not isinstance(node, ast.Subscript) or not isinstance(base, ArrayType) or call.index is None:
        return st.UNKNOWN
    return _gathered(call.index, base, out, f"indexing `{code_of(node.value)}`", code_of(node.value), ctx.traced)


def _at_get(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    """`x.at[idx].get(out_sharding=)`: as `x[idx]`, or typed as out_sharding says. Under a trace
    a static index is sliced first (`lax.slice`), whatever out_sharding says (JAX 0.10.2)."""
    subscript = _at_subscript(call)
    base = call.arg("a")
    gathered = st.UNKNOWN
    if subscript is not None and isinstance(base, ArrayType) and call.index is not None:
        receiver = subscript.value.value if isinstance(subscript.value, ast.Attribute) else subscript.value
        gathered = _gathered(call.index, base, out, f"`{code_of(subscript)}.get()`", code_of(receiver), ctx.traced)
    given = _out_sharding(interp, call, ctx, len(out.dims), "`.at[...].get`")
    if given is False or (ctx.traced and gathered.problems):
        return gathered
    return st.Typed(given if isinstance(given, TypeSharding) else None)


def _at_update(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    """`x.at[idx].set(v)` and the other updates: `x`'s split, unless the index picks from a
    split dim (JAX cannot tell how to split the scatter's result without `out_sharding=`)."""
    given = _out_sharding(interp, call, ctx, len(out.dims), f"`.at[...].{call.short_name.rpartition('.')[2]}`")
    if given is not False:
        return st.Typed(given if isinstance(given, TypeSharding) else None)
    subscript = _at_subscript(call)
    base = call.arg("a")
    if subscript is None or not isinstance(base, ArrayType) or base.sharding is None or base.rank is None \
            or len(out.dims) != base.rank or call.index is None:
        return st.UNKNOWN
    indexed = _indexed(call.index, base)
    if indexed is None or any(kind == "new" for kind, _ in indexed):
        return st.UNKNOWN
    for position, (kind, taken) in enumerate(indexed):
        # A slice of a split dim that its axes cannot split evenly: JAX's ValueError (the
        # update's own sharding), raised before the scatter's ShardingTypeError.
        entry = base.sharding.dims[position]
        if kind == "slice" and entry != ():
            count = st.ways(base.sharding.mesh, entry) if entry is not None else None
            if count is None or taken is None or taken % count:
                return st.UNKNOWN
    for position, (kind, _) in enumerate(indexed):
        entry = base.sharding.dims[position]
        if kind == ":":
            continue
        if entry is None:
            return st.UNKNOWN
        if entry:
            what = f"`{code_of(call.node)}`" if isinstance(call.node, ast.Call) else "the update"
            return st.Typed(None, (Problem(
                Code.SHARDING_TYPE_MISMATCH,
                f"{what} updates {code_of(subscript.value.value) if isinstance(subscript.value, ast.Attribute) else 'x'} "
                f"({st.typeof(base)}) at an index into dim {position}, which is split over "
                f"{', '.join(repr(a) for a in entry)}: JAX cannot tell how to split the result; "
                f"give it out_sharding={base.sharding.spec_text()}", axes=entry),))
    values = array(call.arg("values")) if call.given("values") else None
    if values is not None and values.dims:
        wanted = [entry for (kind, _), entry in zip(indexed, base.sharding.dims, strict=True)
                  if kind not in ("int", "dyn")]
        mismatch = st.update_mismatch(values, wanted, f"`{code_of(call.arg_node('values'))}`",
                                      code_of(call.node) if isinstance(call.node, ast.Call) else "the update")
        if isinstance(mismatch, Problem):
            return st.Typed(None, (mismatch,))
    return st.Typed(base.sharding)


def _at_subscript(call: CallArgs) -> ast.Subscript | None:
    """The `x.at[idx]` of `x.at[idx].get()`."""
    node = call.node
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Subscript):
        subscript = node.func.value
        if isinstance(subscript.value, ast.Attribute) and subscript.value.attr == "at":
            return subscript
    return None


def _indexed(index: Sequence[IndexItem], base: ArrayType) -> list[tuple[str, int | None]] | None:
    """What the index does to each of the base's dims, in order, with new dims where it makes
    them: ":" (the whole dim), "slice" (with how many elements it takes), "int" (a Python int),
    "dyn" (a 0-d integer array: one element, dynamically), "new" (a new dim of 1). None where an
    item is not read (an array of indices, a mask, a bound not known)."""
    if base.rank is None or base.ellipsis is not None:
        return None
    marks = [n for n, item in enumerate(index) if isinstance(item, indexing.Ellipsis_)]
    if len(marks) > 1:
        return None
    before, after = (index[:marks[0]], index[marks[0] + 1:]) if marks else (index, ())
    used = sum(1 for item in (*before, *after) if not isinstance(item, indexing.NewAxis))
    if used > base.rank:
        return None
    # The items after `...` index the last dims.
    head = _items_read(before, base.dims)
    tail = _items_read(after, base.dims[base.rank - sum(1 for i in after if not isinstance(i, indexing.NewAxis)):])
    if head is None or tail is None:
        return None
    return head + [(":", None)] * (base.rank - used) + tail


def _items_read(items: Sequence[IndexItem], dims: Sequence[Dim]) -> list[tuple[str, int | None]] | None:
    kinds: list[tuple[str, int | None]] = []
    dim = 0
    for item in items:
        if isinstance(item, indexing.NewAxis):
            kinds.append(("new", None))
            continue
        size = dims[dim]
        dim += 1
        if isinstance(item, bool):
            return None
        if isinstance(item, int):
            kinds.append(("int", None))
        elif isinstance(item, indexing.Slice):
            if item.unknown or item.step == 0:
                return None
            whole = range(size) if isinstance(size, int) else None
            taken_range = whole[item.start:item.stop:item.step] if whole is not None else None
            if (item.step in (None, 1) and item.start in (None, 0) and item.stop is None) or (
                    taken_range is not None and taken_range == whole):
                kinds.append((":", None))  # `x[:8]`, `x[-8:]` of a dim of 8: the whole dim
            elif taken_range is not None and whole is not None and len(taken_range) == len(whole) > 1:
                return None  # `x[::-1]`: the whole dim reversed, which JAX keeps split; not followed
            else:
                kinds.append(("slice", len(taken_range) if taken_range is not None else None))
        elif isinstance(item, indexing.ArrayIndex) and not item.mask and item.index.rank == 0:
            kinds.append(("dyn", None))
        else:
            return None
    return kinds


def _gathered(index: Sequence[IndexItem], base: ArrayType, out: ArrayType, what: str, receiver: str,
              traced: bool = False) -> st.Typed:
    """`x[idx]`: the whole dims keep their split, the new ones are unsplit, the indexed ones are
    dropped. Indexing a split dim eagerly is a gather JAX refuses (it cannot tell how to split
    the result). Under a trace (`traced`) a static index is `lax.slice`, and a 0-d integer
    array a `dynamic_slice`, eagerly too: they keep the split where the axes divide what they
    take (one element, for an index), and are refused where they do not (JAX 0.10.2)."""
    if base.sharding is None or out.rank is None:
        return st.UNKNOWN
    kinds = _indexed(index, base)
    if kinds is None:
        return st.UNKNOWN
    entries: list[tuple[str, ...] | None] = []
    position = 0
    for kind, taken in kinds:
        if kind == "new":
            entries.append(())
            continue
        entry = base.sharding.dims[position]
        position += 1
        if kind == ":":
            entries.append(entry)
        elif entry is None:
            return st.UNKNOWN
        elif entry and (kind == "dyn" or (traced and kind in ("slice", "int"))):
            kept = st.sliced(base, position - 1, 1 if kind != "slice" else taken, what)
            if kept.sharding is None:
                return kept
            if kind == "slice":
                entries.append(entry)
        elif entry:
            fixed = list(base.sharding.dims)
            fixed[position - 1] = ()
            return st.Typed(None, (Problem(
                Code.SHARDING_TYPE_MISMATCH,
                f"{what} ({st.typeof(base)}) picks from dim {position - 1}, which is "
                f"split over {', '.join(repr(a) for a in entry)}: JAX cannot tell how to split the result; "
                f"use `.at[...].get(out_sharding=P(...))`, or reshard first: "
                f"jax.sharding.reshard({receiver}, {st.spec_text(fixed)})", axes=entry),))
        elif kind == "slice":
            entries.append(())
    if len(entries) != out.rank:
        return st.UNKNOWN
    return st.Typed(TypeSharding(tuple(entries), base.sharding.mesh))


# ---------------------------------------------------------------- constructors


def _constructor(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    if out.rank is None:
        return st.UNKNOWN
    if _refused_placement(interp, call, ctx, out):
        return st.UNKNOWN
    given = _out_sharding(interp, call, ctx, out.rank, _name(call))
    if given is not False:
        return st.Typed(given if isinstance(given, TypeSharding) else None)
    return st.Typed(st.replicated(out.rank, mesh_shape(ctx.mesh)))


def _like(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    if _refused_placement(interp, call, ctx, out):
        return st.UNKNOWN
    given = _out_sharding(interp, call, ctx, out.rank or 0, _name(call))
    if given is not False:
        return st.Typed(given if isinstance(given, TypeSharding) else None)
    source = call.arg("prototype" if call.short_name == "empty_like" else "a")
    if call.given("shape") or not isinstance(source, ArrayType):
        return st.UNKNOWN
    return st.Typed(source.sharding)


def _refused_placement(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> bool:
    """A constructor's `out_sharding=` is checked against the array it makes as `reshard`
    checks its spec (JAX places it so): SC205 for a dim its axes cannot split evenly, SC206
    for an axis not in the mesh. True when reported."""
    if "out_sharding" not in call.kwargs:
        return False
    if spec_without_mesh(interp, resolved(interp, call.kwargs["out_sharding"]), ctx,
                         call.kwarg_nodes.get("out_sharding", call.node), f"{_name(call)}'s out_sharding="):
        return True
    return reshard_checks(interp, resolved(interp, call.kwargs["out_sharding"]), out, f"{_name(call)}'s result",
                          call.kwarg_nodes.get("out_sharding", call.node), ctx)


def _drawn(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    """A sampler with bounds: made as a constructor makes its array, unless a bound is an array
    (its split broadcasts into the draw's)."""
    bounds = [call.arg(bound) for bound in ("minval", "maxval") if call.given(bound)]
    if any(isinstance(bound, ArrayType) and bound.dims for bound in bounds):
        return st.UNKNOWN
    return _constructor(interp, call, ctx, out)


def _as_array(interp: Interpreter, call: CallArgs, ctx: Context, out: ArrayType) -> st.Typed:
    source = call.arg("object" if call.short_name == "array" else "a")
    if isinstance(source, ArrayType):
        return st.Typed(source.sharding)
    if out.rank is None:
        return st.UNKNOWN
    return st.Typed(st.replicated(out.rank, mesh_shape(ctx.mesh)))


RULES: Final[dict[str, Rule | str]] = {
    "operators._binary.<locals>.handler": _operator,
    "operators.comparison": _operator,
    "operators.matmul_operator": _operator_matmul,
    "operators.subscript": _subscript,
    "elementwise.elementwise_handler": _elementwise,
    "elementwise.predicate": _elementwise,
    "elementwise.convert_element_type": _same("operand"),
    "elementwise.flip": _same("m"),
    "elementwise.integer_pow": _same("x"),
    "array_attributes.astype": _same("a"),
    "array_attributes.same_attr": _same("a"),
    "array_attributes.same_method": _same("a"),
    "array_attributes.at_get": _at_get,
    "array_attributes.at_update": _at_update,
    "nn_api.activation": _same("x"),
    "nn_api.softmax": _same("x"),
    "nn_api.logsumexp": _reduction("a"),
    "nn_api.one_hot": _one_hot,
    "reductions.reduce_function": _reduction("a"),
    "reductions.arg_reduce_function": _reduction("a"),
    "reductions.cumulative": _cumulative,
    "contractions.contraction": _contraction,
    "contractions.tensordot": _tensordot,
    "contractions.dot_general": _dot_general,
    "contractions.einsum": _einsum,
    "layout_api.reshape_handler": _reshape,
    "layout_api.ravel": _reshape,
    "layout_api.transpose": _transpose,
    "layout_api.transpose_attr": _attribute_transpose(matrix=False),
    "layout_api.matrix_transpose": _attribute_transpose(matrix=True),
    "layout_api.swapaxes": _swapaxes,
    "layout_api.expand_dims": _expand_dims,
    "layout_api.squeeze": _squeeze,
    "layout_api.concatenate": _concatenate,
    "layout_api.stack": _stack,
    "layout_api.broadcast_to": _broadcast_to,
    "layout_api.pad": _pad,
    "slicing_api.static_slice": _slices,
    "slicing_api.dynamic_slice": _slices,
    "slicing_api.static_slice_in_dim": _slices,
    "slicing_api.slice_in_dim": _slices,
    "slicing_api.static_index_in_dim": _index_in_dim,
    "slicing_api.index_in_dim": _index_in_dim,
    "indexing_api.where": _where,
    "numpy_constructors.zeros": _constructor,
    "numpy_constructors.arange": _constructor,
    "numpy_constructors.eye": _constructor,
    "numpy_constructors.identity": _constructor,
    "numpy_constructors.like": _like,
    "numpy_constructors.array": _as_array,
    "numpy_constructors.asarray": _as_array,
    "numpy_constructors.copy": _as_array,
    "random_api.sampler": _constructor,
    "random_api.uniform": _drawn,
    "random_api.randint": _drawn,
    "sharding_api.device_put": KEEP,
    "sharding_api.with_sharding_constraint": KEEP,
    "sharding_api.reshard": KEEP,
    "axis_types_api.auto_axes_call": KEEP,
    "axis_types_api.explicit_axes_call": KEEP,
}
"""The sharding rule of each handler's APIs, by the handler's module and name."""

RULES_BY_NAME: Final[dict[str, Rule | str]] = {
    "jax.lax.select": _lax_select,
    "jax.numpy.sort": _sort,
    "method:sort": _sort,
    "jax.numpy.roll": _roll,
}
"""Single APIs whose rule differs from their handler's fellows'."""
