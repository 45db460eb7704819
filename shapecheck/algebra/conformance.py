"""Does an inferred type fit a declared one (SC103 for shapes, SC301 for dtypes)? Symbolic sizes
bind along the way."""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence

from shapecheck.algebra.outcome import Problem
from shapecheck.algebra.promotion import Typed, admits, mismatch_message
from shapecheck.codes import Code
from shapecheck.dims import CONFLICT, Dim, Sym, certainly_differ, distinct_symbols, format_dim
from shapecheck.types import ArrayType, named_shape

Bindings = MutableMapping[str, Dim]
"""Symbol name -> the size it was bound to in this signature or call. A symbol bound to
CONFLICT had conflicting sizes: reported once, and unknown from then on."""


def conform(declared: ArrayType, actual: ArrayType, bindings: Bindings, what: str, *,
            source: str | None = None, x64: bool | None = None) -> list[Problem]:
    """Problems that certainly hold for `actual` against `declared` (`what` names the value,
    `source` the expression that computed it; `x64` is the jax_enable_x64 mode, None if unknown)."""
    problems: list[Problem] = []
    _positional(declared, actual, bindings, what, problems)
    _named(declared, actual, bindings, what, problems)
    dtype = dtype_problem(declared, actual, what, source, x64)
    if dtype is not None:
        problems.append(dtype)
    return problems


def dtype_problem(declared: ArrayType, actual: ArrayType, what: str, source: str | None = None,
                  x64: bool | None = None) -> Problem | None:
    """SC301: `actual`'s dtype contradicts `declared`'s in every reading that JAX's promotion,
    weak types and the x64 mode leave open; None where it may fit or either side is unknown."""
    inferred = Typed(actual.dtype, actual.weak)
    if declared.dtype is None or admits(declared.dtype, inferred, x64):
        return None
    return Problem(Code.DTYPE_MISMATCH, mismatch_message(what, declared.dtype, inferred, source, x64))


def _mismatch(message: str, *sizes: Dim, axes: tuple[str | int, ...] = ()) -> Problem:
    return Problem(Code.ANNOTATION_MISMATCH, message, axes=axes, sizes=sizes)


def _size(declared: Dim, actual: Dim, bindings: Bindings) -> Dim | None:
    """The expected size that `actual` contradicts, or None when they fit (binding symbols)."""
    expected = declared
    if isinstance(declared, Sym):
        bound = bindings.get(declared.name)
        if bound is None:
            if actual is not None:
                bindings[declared.name] = actual
            return None
        if certainly_differ(bound, actual):
            bindings[declared.name] = CONFLICT
            return bound
        return None
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
            bound = ""
            if isinstance(want, Sym) and not (isinstance(expected, Sym) and expected.name == want.name):
                bound = f" (bound to {format_dim(expected)})"
            problems.append(_mismatch(
                f"{what} has size {format_dim(got)} at axis {axis} where {format_dim(want)}{bound} is "
                f"declared: {actual.positional_text()} vs {declared.positional_text()}"
                f"{_rigid_note(expected, got)}",
                expected, got, axes=(axis,)))


def _rigid_note(expected: Dim, got: Dim) -> str:
    if not distinct_symbols(expected, got):
        return ""
    return (f"; {format_dim(got)} and {format_dim(expected)} are distinct symbols of the signature, "
            "not known to be equal: the body must hold for every size each may take")


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
                    f"{format_dim(expected)} is declared{_rigid_note(expected, size)}", expected, size,
                    axes=(name,)))
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


def substitute(declared: ArrayType, bindings: Bindings, *, free: bool = True) -> ArrayType:
    """`declared` with bound symbols replaced by their sizes (a call's declared return type).

    A symbol whose sizes conflicted stays unknown. An unbound symbol stays a symbol when `free`
    (the function's own view of its signature), else it is unknown: outside the function it
    names nothing, and must not meet a caller's symbol of the same name.
    """

    def resolve(dim: Dim) -> Dim:
        if isinstance(dim, Sym):
            bound = bindings.get(dim.name)
            if bound is not None:
                return bound
            return dim if free else None
        return dim

    return declared.map_dims(resolve)


def unknown_where(value: ArrayType, problems: Sequence[Problem]) -> ArrayType:
    """`value` with the parts that `problems` (from `conform`) contradict made unknown.

    After an SC103 the value goes on with what is not in doubt, so the mismatch is reported
    once, at the annotation, and not again by every use of the value.
    """
    if not problems:
        return value
    if any(p.code is Code.DTYPE_MISMATCH for p in problems):
        value = value.with_dtype(None)
        problems = [p for p in problems if p.code is not Code.DTYPE_MISMATCH]
        if not problems:
            return value
    dims = list(value.dims)
    named = value.named_dict
    open_named = value.named_open
    positional_unknown = False
    for problem in problems:
        if not problem.axes:
            positional_unknown = True  # a rank mismatch: the positional shape is in doubt
        for axis in problem.axes:
            if isinstance(axis, str):
                if axis in named:
                    named[axis] = CONFLICT
                else:
                    open_named = True
            elif value.ellipsis is None and 0 <= axis < len(dims):
                dims[axis] = CONFLICT
            else:
                positional_unknown = True
    if positional_unknown:
        return ArrayType(value.dtype, (), named_shape(named), 0, open_named)
    return ArrayType(value.dtype, tuple(dims), named_shape(named), value.ellipsis, open_named)


def forget_symbols(declared: ArrayType, value: ArrayType, symbols: set[str]) -> ArrayType:
    """`value` (typed by `declared`) with the sizes that `declared` gives as one of `symbols` unknown."""

    def hit(dim: Dim) -> bool:
        return isinstance(dim, Sym) and dim.name in symbols

    named = {name: CONFLICT if hit(declared.named_dict.get(name)) else size for name, size in value.named}
    dims = value.dims
    if declared.ellipsis is None and value.ellipsis is None and len(declared.dims) == len(dims):
        dims = tuple(CONFLICT if hit(want) else got for want, got in zip(declared.dims, dims, strict=True))
    return ArrayType(value.dtype, dims, named_shape(named), value.ellipsis, value.named_open, value.weak)


def rigid(declared: ArrayType, bindings: Bindings) -> ArrayType:
    """`declared` as its own function's body sees it: its symbols rigid (type variables), and
    each bound to itself in `bindings`, so the return is checked against the same symbols."""

    def make(dim: Dim) -> Dim:
        if isinstance(dim, Sym):
            symbol = Sym(dim.name, rigid=True)
            bindings.setdefault(dim.name, symbol)
            return bindings[dim.name]
        return dim

    return declared.map_dims(make)
