"""Pytrees: `jax.tree.map` member by member over several trees, `jax.tree.leaves` in JAX's
order, and `dataclasses.replace` (with `NamedTuple._replace` and flax's `.replace`).

A pytree is what JAX flattens (`pytrees.node`): tuples, lists, dicts, NamedTuples and the
registered dataclass-likes (flax.struct, chex, equinox modules); a plain `@dataclass` is one leaf
to JAX. Any part the checker does not know makes that part of the result unknown. Trees that
`jax.tree.map` maps together and that certainly differ in structure (a key, a length, a kind, a
leaf where the first tree has a node) are SC103, as JAX raises there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from shapecheck.algebra.control_flow import describe
from shapecheck.algebra.outcome import Problem
from shapecheck.analyzer import objects
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library import pytrees
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.qualnames import DATACLASSES_REPLACE, TREE_MAP
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Const, Function, Instance, Seq, Value, Variables
from shapecheck.codes import Code
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

_MAX_LEAVES = 256  # larger trees are not mapped leaf by leaf: each leaf costs a call's analysis


@REGISTRY.handles(TREE_MAP, "jax.tree_util.tree_map", takes_functions=True,
                  signature="f, tree, *rest, is_leaf=None")
def tree_map(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if call.opaque or (call.given("is_leaf") and call.arg("is_leaf") != Const(None)):
        return None
    fun, trees = call.arg("f"), [call.arg("tree"), *call.rest()]
    budget = [_MAX_LEAVES]

    def leaf(leaves: list[Value]) -> Value:  # f on one leaf of each tree
        budget[0] -= 1
        if budget[0] < 0:
            return None
        mapped = CallArgs(call.node, list(leaves), [call.node] * len(leaves))
        return interp.call(fun, mapped, ctx, scope)

    problems: list[Problem] = []
    result = _map(trees, leaf, problems)
    interp.reporter.problems(problems[:1], call.node, call.arg_nodes)
    return result


def map_trees(trees: list[Value], leaf: Callable[[list[Value]], Value], problems: list[Problem],
              what: str = "jax.tree.map") -> Value:
    """`leaf` over the first tree's leaves, each with the other trees' members there (a whole
    subtree where the first tree is a prefix of another), as `jax.tree.map` and the functions
    built on it (`what`: optax's `apply_updates`) do; a structure JAX refuses is a problem."""
    return _map(trees, leaf, problems, what=what)


def _map(trees: list[Value], leaf: Callable[[list[Value]], Value], problems: list[Problem], path: str = "",
         what: str = "jax.tree.map") -> Value:
    """`leaf` over the first tree's leaves, each with the other trees' members there (a whole
    subtree where the first tree is a prefix of another)."""
    first = trees[0]
    if first is None:
        return None  # unknown stays unknown
    if isinstance(first, Variables):
        return _map_variables(first, trees[1:], leaf)
    found = pytrees.node(first)  # Python's None is a node without members
    if found is None:
        return leaf(trees) if _is_leaf(first) else None
    shape, members = found
    others = [pytrees.node(tree) for tree in trees[1:]]
    for number, (tree, other) in enumerate(zip(trees[1:], others, strict=True), 2):
        if (other is not None and (other[0].kind, other[0].keys) != (shape.kind, shape.keys)) or (
                other is None and _is_leaf(tree)):
            # JAX raises: the trees after the first have its structure, or it is a prefix of theirs.
            where = f"at `tree{path}`" if path else "at its root"
            problems.append(Problem(
                Code.ANNOTATION_MISMATCH,
                f"{what}: tree {number} is {describe(pytrees.tree(tree))} {where}, where the first tree is "
                f"{describe(pytrees.tree(first))}; each tree after the first must have the first's structure "
                f"(or more below its leaves)"))
            return None
    if any(other is None for other in others):
        return None  # another tree not known there
    columns = [[member, *(other[1][index] for other in others if other is not None)]
               for index, member in enumerate(members)]
    return pytrees.rebuilt(first, [_map(column, leaf, problems, shape.member(path, key), what)
                                   for key, column in zip(shape.keys, columns, strict=True)])


def _map_variables(first: Variables, others: list[Value], leaf: Callable[[list[Value]], Value]) -> Variables:
    """A model's variables mapped leaf by leaf (an SGD step, noise added to the parameters):
    the same parameters, each of the shape `leaf` gives where it is known, else of its own.
    `apply` alone reads variables back, and refuses parameters of any other shape (that check
    is the one that matters: a map that changed a shape is refused there as well)."""
    held = [dict((key, shape) for key, _, shape in other.params) if isinstance(other, Variables) else {}
            for other in others]
    params = []
    for key, what, shape in first.params:
        result = leaf([shape, *(members.get(key) for members in held)]) if shape is not None else None
        params.append((key, what, result if isinstance(result, ArrayType) else shape))
    return Variables(tuple(params), first.node)


def _is_leaf(value: Value) -> bool:
    return isinstance(value, ArrayType) or (isinstance(value, Const) and value.value is not None)


@REGISTRY.handles("jax.tree.leaves", "jax.tree_util.tree_leaves", signature="tree, is_leaf=None")
def tree_leaves(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    if call.given("is_leaf") and call.arg("is_leaf") != Const(None):
        return None
    leaves = _leaves(call.arg("tree"))
    return Seq(tuple(leaves), True) if leaves is not None and len(leaves) <= _MAX_LEAVES else None


def _leaves(tree: Value) -> list[Value] | None:
    found = pytrees.flattened(tree)
    return found if found is not None and all(_is_leaf(item) for item in found) else None


@REGISTRY.handles(DATACLASSES_REPLACE, signature="obj, /, **changes")
def replace(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    obj = call.arg("obj")
    if call.opaque or not isinstance(obj, Instance):
        return None
    if obj.cls.record is not None and isinstance(obj.cls.attribute("__post_init__"), Function):
        # `replace` builds anew through `__init__`: the fields a `__post_init__` derives are
        # derived again from the changed ones.
        given = {name: obj.get(name) for name in obj.cls.fields} | call.keywords()
        return interp.construct(obj.cls, CallArgs(call.node, kwargs=given, kwarg_nodes={k: call.node for k in given}),
                                ctx)
    return objects.replaced(obj, call.keywords())
