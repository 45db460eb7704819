"""`jax.nn.one_hot(x, n, axis='name')`: the classes run along a named axis, which must have size n."""

from __future__ import annotations

from shapecheck.algebra.outcome import Problem
from shapecheck.codes import Code
from shapecheck.dims import Dim, certainly_differ, format_dim


def named_classes(num_classes: Dim, axis: str, size: Dim) -> tuple[Dim, list[Problem]]:
    """The size of `axis` in one_hot's result, given the size it has where one_hot runs.

    `size` is what the enclosing map (or the argument) says (None: unknown); a `num_classes`
    that certainly differs from it is SC102. After a mismatch the axis keeps `size`, so the
    conflict is reported once.
    """
    if certainly_differ(num_classes, size):
        return size, [Problem(
            Code.NAMED_SIZE_MISMATCH,
            f"one_hot: num_classes is {format_dim(num_classes)} but named axis {axis!r} has size {format_dim(size)}",
            axes=(axis,), sizes=(num_classes, size))]
    return (size if size is not None else num_classes), []
