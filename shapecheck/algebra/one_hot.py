"""`jax.nn.one_hot(x, n, axis=...)`: the classes run along a new positional dim or a named axis.

Along a named axis, that axis must have size n (SC102): the analyzer's handler and the
runtime's `nn.one_hot` both call `named_classes`, so the check and its message exist once.
"""

from __future__ import annotations

from shapecheck.algebra.outcome import Problem, normalize_axis, out_of_range
from shapecheck.codes import Code
from shapecheck.dims import Dim, certainly_differ, format_dim
from shapecheck.types import ArrayType, named_shape


def one_hot(labels: ArrayType, num_classes: Dim, axis: int | str, dtype: str | None,
            bound: Dim = None) -> tuple[ArrayType | None, list[Problem]]:
    """The type of `one_hot(labels, num_classes, axis=axis)`; None where it is not known.

    A named `axis` has the size `labels` gives it, else `bound` (the enclosing map's size, None
    where unknown). A positional `axis` is a new dim in `-(r+1)..r` for labels of rank r (SC106).
    """
    if isinstance(axis, str):
        named = labels.named_dict
        size = named.get(axis)
        named[axis], problems = named_classes(num_classes, axis, bound if size is None else size)
        return ArrayType(dtype, labels.dims, named_shape(named), labels.ellipsis, labels.named_open), problems
    if labels.ellipsis is not None:
        return None, []
    rank = len(labels.dims) + 1
    position = normalize_axis(axis, rank)
    if position is None:
        return None, [out_of_range(axis, rank, "one_hot's result")]
    dims = list(labels.dims)
    dims.insert(position, num_classes)
    return labels.with_dims(dims).with_dtype(dtype), []


def named_classes(num_classes: Dim, axis: str, size: Dim) -> tuple[Dim, list[Problem]]:
    """The size of `axis` in one_hot's result, given the size it has where one_hot runs.

    `size` is what the enclosing map (or the argument) says (None: unknown); a `num_classes`
    that certainly differs from it is SC102, blaming operand 1 (num_classes). After a mismatch
    the axis keeps `size`, so the conflict is reported once.
    """
    if certainly_differ(num_classes, size):
        return size, [Problem(
            Code.NAMED_SIZE_MISMATCH,
            f"one_hot: num_classes is {format_dim(num_classes)} but named axis {axis!r} has size {format_dim(size)}",
            axes=(axis,), sizes=(num_classes, size), operands=(1,))]
    return (size if size is not None else num_classes), []
