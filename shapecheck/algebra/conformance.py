"""Does an inferred type fit a declared one (SC103)? Symbolic sizes bind along the way."""

from __future__ import annotations

from collections.abc import MutableMapping

from shapecheck.algebra.outcome import Problem
from shapecheck.dims import Dim, Sym, certainly_differ, format_dim
from shapecheck.types import ArrayType

Bindings = MutableMapping[str, Dim]
"""Symbol name -> the size it was bound to in this signature or call."""


def conform(declared: ArrayType, actual: ArrayType, bindings: Bindings, what: str) -> list[Problem]:
    """Problems that certainly hold for `actual` against `declared` (`what` names the value)."""
    problems: list[Problem] = []
    _positional(declared, actual, bindings, what, problems)
    _named(declared, actual, bindings, what, problems)
    return problems


def _mismatch(message: str, *sizes: Dim, axes: tuple[str | int, ...] = ()) -> Problem:
    return Problem("SC103", message, axes=axes, sizes=sizes)


def _size(declared: Dim, actual: Dim, bindings: Bindings) -> Dim | None:
    """The expected size that `actual` contradicts, or None when they fit (binding symbols)."""
    expected = declared
    if isinstance(declared, Sym):
        bound = bindings.get(declared.name)
        if bound is None:
            if actual is not None:
                bindings[declared.name] = actual
            return None
        expected = bound
    return expected if certainly_differ(expected, actual) else None


def _positional(declared: ArrayType, actual: ArrayType, bindings: Bindings, what: str,
                problems: list[Problem]) -> None:
    if actual.ellipsis is not None:
        return
    dims = actual.dims
    if declared.ellipsis is None:
        if len(dims) != len(declared.dims):
            problems.append(_mismatch(
                f"{what} has {len(dims)} positional dim{'s' if len(dims) != 1 else ''} "
                f"{actual.positional_text()} but is declared {declared.positional_text()}"))
            return
        pairs = list(enumerate(zip(declared.dims, dims, strict=True)))
    else:
        head, tail = declared.dims[: declared.ellipsis], declared.dims[declared.ellipsis :]
        if len(dims) < len(head) + len(tail):
            problems.append(_mismatch(
                f"{what} has {len(dims)} positional dims {actual.positional_text()} but is declared "
                f"{declared.positional_text()}"))
            return
        pairs = list(enumerate(zip(head, dims[: len(head)], strict=True)))
        offset = len(dims) - len(tail)
        pairs += [(offset + i, pair) for i, pair in enumerate(zip(tail, dims[offset:], strict=True))]
    for axis, (want, got) in pairs:
        expected = _size(want, got, bindings)
        if expected is not None:
            bound = f" (bound to {format_dim(expected)})" if isinstance(want, Sym) else ""
            problems.append(_mismatch(
                f"{what} has size {format_dim(got)} at axis {axis} where {format_dim(want)}{bound} is "
                f"declared: {actual.positional_text()} vs {declared.positional_text()}",
                expected, got, axes=(axis,)))


def _named(declared: ArrayType, actual: ArrayType, bindings: Bindings, what: str,
           problems: list[Problem]) -> None:
    want = declared.named_dict
    got = actual.named_dict
    for name, size in sorted(got.items()):
        if name in want:
            expected = _size(want[name], size, bindings)
            if expected is not None:
                problems.append(_mismatch(
                    f"{what} has named axis {name!r} of size {format_dim(size)} but "
                    f"{format_dim(expected)} is declared", expected, size, axes=(name,)))
        elif not declared.named_open:
            problems.append(_mismatch(
                f"{what} has named axis {name!r} (size {format_dim(size)}) that its annotation "
                f"{declared} does not declare", size, axes=(name,)))
    if actual.named_open:
        return
    for name in sorted(set(want) - set(got)):
        problems.append(_mismatch(
            f"{what} lacks named axis {name!r} that its annotation {declared} declares; its named "
            f"shape is {actual.named_text()}", axes=(name,)))


def substitute(declared: ArrayType, bindings: Bindings) -> ArrayType:
    """`declared` with bound symbols replaced by their sizes (a call's declared return type)."""

    def resolve(dim: Dim) -> Dim:
        if isinstance(dim, Sym):
            bound = bindings.get(dim.name)
            return bound if bound is not None else dim
        return dim

    return ArrayType(
        declared.dtype,
        tuple(resolve(d) for d in declared.dims),
        tuple((n, resolve(s)) for n, s in declared.named),
        declared.ellipsis,
        declared.named_open,
    )
