"""`jax.flatten_util.ravel_pytree`: a pytree's leaves as one 1-d array, and the function back.

`flat, unravel = ravel_pytree(tree)`: `flat` holds every leaf's elements in JAX's leaf order (a
dict's keys sorted), as many as the leaves hold together, of their promoted dtype (JAX's
`dtypes.result_type` of the leaves' dtypes: a Python number counts at its default dtype, not
weakly; an empty tree gives float32 `(0,)`). `unravel(v)` splits `v` along its first dim into
the leaves again (`lax.split`), each of its own shape: a `v` of another length is refused (a
ValueError, SC107), and so is a 0-d one (SC106). Where the leaves are of one dtype, the leaves
come back in `v`'s dtype; where they differ, `v` must be of `flat`'s dtype (a TypeError, SC301),
and each leaf comes back in its own. Inside a map the leaves' mapped axes are `flat`'s, and
`v`'s are the leaves' `unravel` gives.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from shapecheck.algebra import promotion
from shapecheck.algebra.broadcast import union_named
from shapecheck.algebra.outcome import Problem
from shapecheck.algebra.promotion import Typed
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.library import pytrees
from shapecheck.analyzer.library.common import array, code_of, refused
from shapecheck.analyzer.library.registry import Registry
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Partial, Qual, Seq, Value, Variables
from shapecheck.codes import Code
from shapecheck.dims import Dim, certainly_differ, format_dim, product, total
from shapecheck.dtypes import narrowed
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

REGISTRY = Registry()  # what this module handles; collected by `library.handlers()`

RAVEL_PYTREE: Final = "jax.flatten_util.ravel_pytree"
# `unravel` is a partial application of this name to the tree (no program can write it), so
# that calling it reaches `unravel` with the tree and the flat array.
_UNRAVEL: Final = f"{RAVEL_PYTREE}()"
_EMPTY: Final = ArrayType("f32", (0,))  # `lax.full([0], 0, "float32")`, whatever the x64 mode


@REGISTRY.handles(RAVEL_PYTREE, signature="pytree")
def ravel_pytree(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    tree = call.arg("pytree")
    if call.opaque or not call.given("pytree"):
        return None
    leaves = _leaves(tree)
    flat = _flat(leaves) if leaves is not None else ArrayType(None, (None,), named_open=True)
    return Seq((flat, Partial(Qual(_UNRAVEL), (tree,))))


def _flat(leaves: list[ArrayType | None]) -> ArrayType:
    """The 1-d array of the leaves' elements: their total, of their promoted dtype, mapped
    over the axes any of them is (JAX's `concatenate` of their ravels); unknown leaves leave
    the length and dtype unknown, and the mapped axes open."""
    if not leaves:
        return _EMPTY
    known = [leaf for leaf in leaves if leaf is not None]
    named = union_named([leaf.named for leaf in known])
    open_named = len(known) < len(leaves) or any(leaf.named_open for leaf in known)
    sizes = [_size(leaf) for leaf in known]
    length: Dim = total(sizes) if len(known) == len(leaves) else None
    if length is None and len(sizes) == len(leaves) == 1:
        length = sizes[0]  # one leaf: its length, a symbol where it is one
    dtype = _dtype(leaves)
    weak = len(known) == len(leaves) and all(leaf.weak for leaf in known) and _single(leaves) is True
    return ArrayType(dtype, (length,), named, None, open_named, weak=weak)


def _size(leaf: ArrayType) -> Dim:
    if leaf.ellipsis is not None:
        return None
    return leaf.dims[0] if len(leaf.dims) == 1 else product(leaf.dims)


def _dtype(leaves: list[ArrayType | None]) -> str | None:
    """`dtypes.result_type` of the leaves' dtypes, as dtypes: a weak leaf counts at its width."""
    dtypes = [leaf.dtype if leaf is not None else None for leaf in leaves]
    if any(dtype is None for dtype in dtypes):
        return None
    return promotion.result_type(*(Typed(dtype) for dtype in dtypes)).dtype


def _single(leaves: list[ArrayType | None]) -> bool | None:
    """Whether the leaves are of one dtype, which decides whether `unravel` keeps its input's
    dtype (True) or casts to the leaves' own and refuses another (False): in both x64 modes,
    else None (f32 with a Python float is one dtype without x64, two with it)."""
    dtypes = [leaf.dtype if leaf is not None else None for leaf in leaves]
    if any(dtype is None for dtype in dtypes):
        return None
    known = [dtype for dtype in dtypes if dtype is not None]
    if len(set(known)) <= 1:
        return True
    if len({narrowed(dtype) for dtype in known}) > 1:
        return False
    return None


def _leaves(tree: Value) -> list[ArrayType | None] | None:
    """The tree's leaves in JAX's order (one the checker cannot read as an array: None); None
    where the structure is not known."""
    found = pytrees.flattened(tree)
    return None if found is None else [pytrees.leaf(item) for item in found]


@REGISTRY.handles(_UNRAVEL, signature="tree, /, flat")
def unravel(interp: Interpreter, call: CallArgs, ctx: Context, scope: Scope) -> Value:
    """The tree again, each leaf of its own shape, from `flat` split along its first dim."""
    tree = call.arg("tree")
    flat = array(call.arg("flat"))
    if call.opaque or flat is None:
        return None
    leaves = _leaves(tree)
    if leaves == []:
        return tree  # JAX's unravel of no leaves ignores its argument
    written = f"`{code_of(call.arg_node('flat'))}`"
    if flat.ellipsis is None and not flat.dims:
        return refused(interp, call, Problem(
            Code.AXIS_OUT_OF_RANGE, f"unravel splits its argument along axis 0 into the tree's leaves, but {written} "
            "is 0-d (a ValueError); pass a 1-d array such as the one ravel_pytree returned", axes=(0,)))
    length = _flat(leaves).dims[0] if leaves is not None else None
    if flat.ellipsis is None and certainly_differ(flat.dims[0], length):
        return refused(interp, call, Problem(
            Code.SIZE_ARGUMENT_MISMATCH, f"unravel splits its argument along axis 0 into the tree's leaves, "
            f"{format_dim(length)} elements in all, but {written} has {format_dim(flat.dims[0])} there (lax.split's "
            f"ValueError: \"Sum of sizes {format_dim(length)} must be equal to dimension 0 of the operand shape\")",
            sizes=(flat.dims[0], length)))
    if flat.ellipsis is not None or (len(flat.dims) > 1 and product(flat.dims[1:]) != 1):
        return None  # more dims than one: each piece reshaped to its leaf's shape, not followed
    single = _single(leaves) if leaves is not None else None
    expected = _dtype(leaves) if leaves is not None else None
    if single is False and flat.dtype is not None and expected is not None and \
            promotion.dtypes_differ(Typed(flat.dtype), Typed(expected)):
        return refused(interp, call, Problem(
            Code.DTYPE_MISMATCH, f"unravel takes an array of the dtype ravel_pytree gave, "
            f"{promotion.shown(Typed(expected))}, as the tree's leaves differ in dtype, but {written} is of dtype "
            f"{promotion.shown(Typed(flat.dtype))} (a TypeError); cast it with `.astype`"))

    def leaf(original: ArrayType) -> ArrayType:
        dtype: str | None = None
        weak = False
        if single is True:
            dtype, weak = flat.dtype, flat.weak  # the pieces of `flat`, reshaped
        elif single is False or (flat.dtype is not None and flat.dtype == expected):
            dtype = original.dtype  # each piece cast back to its leaf's dtype
        elif flat.dtype is not None and flat.dtype == original.dtype and not flat.weak:
            dtype = original.dtype  # this leaf's dtype either way, where JAX accepts `flat`
        return ArrayType(dtype, original.dims, flat.named, original.ellipsis, flat.named_open, weak=weak)

    return _unraveled(tree, leaf)


def _unraveled(tree: Value, leaf: Callable[[ArrayType], ArrayType]) -> Value:
    """`tree` with `leaf` applied to each leaf (an unknown one stays unknown), a model's
    parameters among them: they stay parameters, which `apply` reads back."""
    found = pytrees.node(tree)
    if found is not None:
        return pytrees.rebuilt(tree, [_unraveled(member, leaf) for member in found[1]])
    if isinstance(tree, Variables):
        return Variables(tuple((key, what, leaf(shape) if shape is not None else None)
                               for key, what, shape in tree.params), tree.node)
    known = pytrees.leaf(tree)
    return leaf(known) if known is not None else None
