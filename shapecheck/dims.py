"""Dimension sizes: known ints, symbolic names and the unknown size, and how two of them meet."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeAlias


@dataclass(frozen=True, slots=True)
class Sym:
    """A symbolic size such as `'n'`, bound consistently across one function signature.

    Inside the body of the function whose signature declares it, a symbol is rigid, like a
    type variable: the body must hold for every size it may take, so two distinct rigid
    symbols are not known to be equal where a rule demands equality.
    """

    name: str
    rigid: bool = False

    def __repr__(self) -> str:
        return repr(self.name)


@dataclass(frozen=True, slots=True)
class Conflict:
    """The size of an axis whose sizes conflicted: unknown, and unknown in everything built from
    it (where None would take the size of whatever it meets next), so that one conflict is
    reported once, at its root, and never echoed downstream with a size picked from one side."""

    def __repr__(self) -> str:
        return "None"


CONFLICT = Conflict()

Dim: TypeAlias = int | Sym | Conflict | None
"""A dimension size: a known int, a symbol, or None (or CONFLICT) for "unknown" (gradual)."""


def format_dim(dim: Dim) -> str:
    """Render a size the way a user writes it in an annotation."""
    if dim is None or isinstance(dim, Conflict):
        return "None"
    if isinstance(dim, Sym):
        return repr(dim.name)
    return str(dim)


def format_shape(dims: Sequence[Dim]) -> str:
    """Render positional dims as a Python tuple: `(8, 16)`, `(8,)`, `()`."""
    inner = ", ".join(format_dim(dim) for dim in dims)
    return f"({inner},)" if len(dims) == 1 else f"({inner})"


def certainly_differ(a: Dim, b: Dim) -> bool:
    """True only when two sizes are known ints that differ, or distinct rigid symbols (equal for
    some sizes only, which a generic body may not assume): gradual typing reports nothing else."""
    return (isinstance(a, int) and isinstance(b, int) and a != b) or distinct_symbols(a, b)


def distinct_symbols(a: Dim, b: Dim) -> bool:
    """Two different rigid symbols of one signature."""
    return isinstance(a, Sym) and isinstance(b, Sym) and a.rigid and b.rigid and a.name != b.name


def unify(a: Dim, b: Dim) -> Dim:
    """The most precise size both `a` and `b` describe (callers check `certainly_differ` first)."""
    if isinstance(a, Conflict) or isinstance(b, Conflict):
        return CONFLICT
    if isinstance(a, int):
        return a
    if isinstance(b, int):
        return b
    if a is None:
        return b
    if b is None or a == b:
        return a
    # Two different symbols: they may still be equal at run time, so nothing is certain.
    return None


def broadcast_dim(a: Dim, b: Dim) -> tuple[Dim, bool]:
    """Broadcast two positional sizes NumPy-style: returns (result, ok)."""
    if isinstance(a, Conflict) or isinstance(b, Conflict):
        return CONFLICT, True
    if a == 1:
        return b, True
    if b == 1:
        return a, True
    if isinstance(a, int) and isinstance(b, int):
        return (a, True) if a == b else (a, False)
    if isinstance(a, int):
        # The other side is unknown or symbolic: it must be 1 or `a`, so the result is `a`.
        return a, True
    if isinstance(b, int):
        return b, True
    if a == b:
        return a, True
    # Two distinct symbols, even rigid ones: broadcasting holds where they are equal and where
    # either is 1, and the annotation language cannot say that a symbol is not 1 (a bias of
    # shape ('m',) is often meant to be 1 or n). Not certainly wrong: no report, unknown size.
    return None, True


def product(dims: tuple[Dim, ...]) -> int | None:
    """The number of elements, or None when any size is not a known int."""
    total = 1
    for dim in dims:
        if not isinstance(dim, int):
            return None
        total *= dim
    return total


def total(sizes: Iterable[Dim]) -> int | None:
    """The sizes added up (pieces joined along one dim), or None when any is not a known int."""
    found = 0
    for size in sizes:
        if not isinstance(size, int):
            return None
        found += size
    return found
