"""einops patterns (`'b (h d) -> b h d'`): parser and shape rules of rearrange, repeat and reduce.

Written from einops' documented semantics and checked against einops itself
(tests/test_einops_differential.py). A side of a pattern is a list of dims; a dim is an axis
name, a numeric axis (`1`, and `2` where repeat adds or reduce drops it), `...`, or a
parenthesised group of those (`()` is a group of none: size 1). Every problem is one einops
raises EinopsError for: a malformed pattern or one that does not fit the operation (SC003), a
dim that a group cannot be split into (SC105), and an axis length given that contradicts the
input (SC102).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

from shapecheck.algebra.outcome import Outcome, Problem
from shapecheck.algebra.promotion import Typed, reduction
from shapecheck.codes import Code
from shapecheck.dims import Conflict, Dim, Sym, certainly_differ, format_dim
from shapecheck.types import ArrayType

ELLIPSIS: Final = "…"  # `...` as einops spells it inside a parsed pattern
Operation: TypeAlias = Literal["rearrange", "repeat", "reduce"]
REDUCTIONS: Final = ("min", "max", "sum", "mean", "prod", "any", "all")


@dataclass(frozen=True, slots=True)
class Numeric:
    """A numeric axis (`1`, `3`): a new axis each time it is written (`position` tells them apart)."""

    size: int
    position: int

    def __str__(self) -> str:
        return str(self.size)


Atom: TypeAlias = "str | Numeric"  # an axis name, ELLIPSIS, or a numeric axis
Entry: TypeAlias = "tuple[Atom, ...] | Literal['…']"  # a dim: a group (a bare axis is a group of one), or a bare `...`


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a pattern: its dims in order."""

    entries: tuple[Entry, ...]

    def atoms(self) -> list[Atom]:
        return [atom for entry in self.entries for atom in ((entry,) if entry == ELLIPSIS else entry)]

    def names(self) -> list[str]:
        """The axis names, and ELLIPSIS where `...` appears."""
        return [atom for atom in self.atoms() if isinstance(atom, str)]

    @property
    def has_ellipsis(self) -> bool:
        return ELLIPSIS in self.atoms()

    @property
    def fixed(self) -> int:
        """How many dims the side has besides a bare `...`."""
        return sum(1 for entry in self.entries if entry != ELLIPSIS)


@dataclass(frozen=True, slots=True)
class Pattern:
    text: str
    left: Side
    right: Side


class PatternError(Exception):
    """Unwinds the parser; callers get an SC003 problem."""


def malformed(what: str, pattern: str, fault: str) -> Problem:
    return Problem(Code.INVALID_EINSUM_SPEC, f"{what}: pattern {pattern!r} {fault}")


def _sides(pattern: str, what: str, hint: str) -> tuple[str, str] | Problem:
    """The text either side of the one `->` of `pattern`; `hint` says how to write it."""
    if pattern.count("->") != 1:
        fault = "has no `->`" if "->" not in pattern else "has more than one `->`"
        return malformed(what, pattern, f"{fault}; {hint}")
    left, _, right = pattern.partition("->")
    return left, right


def parse(pattern: str, what: str) -> Pattern | Problem:
    """`'left -> right'`, each side parsed (`what` names the API in messages)."""
    sides = _sides(pattern, what, "write it as 'input axes -> output axes'")
    if isinstance(sides, Problem):
        return sides
    left, right = sides
    counter = iter(range(len(pattern)))
    try:
        return Pattern(pattern, side(left, counter), side(right, counter))
    except PatternError as error:
        return malformed(what, pattern, str(error))


def side(text: str, counter: Iterable[int], *, unique: bool = True) -> Side:
    """One side's dims; only spaces separate them (einops refuses tabs). `unique`: an axis name
    may appear once."""
    positions = iter(counter)
    entries: list[Entry] = []
    group: list[Atom] | None = None
    for token in _tokens(text.replace("...", ELLIPSIS)):
        if token == "(":
            if group is not None:
                raise PatternError("nests parentheses (axis composition is one level)")
            group = []
        elif token == ")":
            if group is None:
                raise PatternError("has a `)` without its `(`")
            entries.append(tuple(group))
            group = None
        else:
            atom = _atom(token, next(positions))
            if group is not None:
                group.append(atom)
            else:
                entries.append(ELLIPSIS if atom == ELLIPSIS else (atom,))
    if group is not None:
        raise PatternError("has a `(` without its `)`")
    parsed = Side(tuple(entries))
    if parsed.atoms().count(ELLIPSIS) > 1:
        raise PatternError("has `...` more than once on one side")
    duplicates = sorted({name for name in parsed.names() if parsed.names().count(name) > 1})
    if duplicates and unique:
        raise PatternError(f"repeats axis {duplicates[0]!r} on one side")
    return parsed


def _tokens(text: str) -> list[str]:
    tokens: list[str] = []
    current = ""
    for char in text:
        if char in " ()":
            if current:
                tokens.append(current)
            current = ""
            if char != " ":
                tokens.append(char)
        else:
            current += char
    if current:
        tokens.append(current)
    return tokens


def _atom(token: str, position: int) -> Atom:
    if token == ELLIPSIS:
        return token
    if "." in token or ELLIPSIS in token:
        raise PatternError(f"has {token.replace(ELLIPSIS, '...')!r}: dots belong only in `...`")
    if token.isdecimal():
        if int(token) == 0:
            raise PatternError("has a numeric axis of length 0 (lengths are positive)")
        return Numeric(int(token), position)
    if not token.isidentifier():
        raise PatternError(f"has {token!r}, which is not an axis name (a Python identifier)")
    if token.startswith("_") or token.endswith("_"):
        raise PatternError(f"has axis {token!r}: einops refuses names that start or end with `_`")
    return token


def _shown(names: Iterable[Atom]) -> str:
    return ", ".join("..." if name == ELLIPSIS else repr(name) if isinstance(name, str) else str(name)
                     for name in names)


def fit(operation: Operation, pattern: Pattern, given: Iterable[str] | None) -> Problem | None:
    """SC003 where the pattern cannot serve `operation` whatever the input: einops checks this
    before it looks at a shape. `given` is the axis lengths passed by keyword (None: unknown)."""
    what = f"einops.{operation}"
    left, right = pattern.left, pattern.right
    if any(entry != ELLIPSIS and ELLIPSIS in entry for entry in left.entries):
        return malformed(what, pattern.text, "groups `...` on the left; only the output may write `(...)`")
    if right.has_ellipsis and not left.has_ellipsis:
        return malformed(what, pattern.text, "has `...` on the right but not on the left")
    extra_left = _axes(left) - _axes(right)
    extra_right = _axes(right) - _axes(left)
    if operation == "rearrange":
        numeric = [atom for atom in (*left.atoms(), *right.atoms()) if isinstance(atom, Numeric) and atom.size != 1]
        if numeric:
            return malformed(what, pattern.text, f"has numeric axis {numeric[0]}: rearrange takes only 1; "
                             "use einops.repeat to add an axis or einops.reduce to drop one")
        if extra_left or extra_right:
            return malformed(what, pattern.text, f"has {_shown(sorted(extra_left | extra_right, key=str))} on one "
                             "side only; rearrange moves axes, so every axis must be on both sides")
    elif operation == "repeat" and extra_left:
        return malformed(what, pattern.text, f"drops {_shown(sorted(extra_left, key=str))}: repeat keeps every "
                         "input axis (einops.reduce drops axes)")
    elif operation == "reduce" and extra_right:
        return malformed(what, pattern.text, f"has {_shown(sorted(extra_right, key=str))} only on the right: "
                         "reduce cannot add axes (einops.repeat does)")
    if given is None:
        return None
    given = set(given)
    unused = sorted(given - set(left.names()) - set(right.names()))
    if unused:
        return malformed(what, pattern.text, f"does not use axis {unused[0]!r}, whose length is given; "
                         f"remove {unused[0]}=")
    if operation == "repeat":
        new = [name for name in right.names() if name != ELLIPSIS and name not in left.names() and name not in given]
        if new:
            return malformed(what, pattern.text, f"adds axis {new[0]!r} without its length; pass {new[0]}=...")
    for entry in left.entries:
        unknown = [atom for atom in entry if isinstance(atom, str) and atom not in given]
        if entry != ELLIPSIS and len(unknown) > 1:
            return malformed(what, pattern.text, f"splits a dim into {_shown(unknown)} and only one length can be "
                             f"inferred; pass {unknown[0]}=...")
    return None


def _axes(side: Side) -> set[Atom]:
    """The axes a side names: names, `...`, and its numeric axes other than 1."""
    return {atom for atom in side.atoms() if isinstance(atom, str) or atom.size != 1}


def group_size(sizes: Sequence[Dim]) -> Dim:
    """The size of a group of dims: a known int, the one symbol among 1s, or unknown."""
    factor = 1
    rest: list[Dim] = []
    for size in sizes:
        if isinstance(size, int):
            factor *= size
        else:
            rest.append(size)
    if not rest:
        return factor
    if factor == 1 and len(rest) == 1 and isinstance(rest[0], Sym):
        return rest[0]
    return None


def transform(operation: Operation, pattern: Pattern, value: ArrayType, lengths: Mapping[str, Dim]) -> Outcome:
    """The result of `einops.<operation>(value, pattern, **lengths)` (the pattern already `fit`).

    `lengths` are the axis lengths given by keyword (None where a value is not known)."""
    what = f"einops.{operation}"
    unknown = Outcome(ArrayType(value.dtype, (), value.named, 0, value.named_open))
    if value.ellipsis is not None:
        return unknown
    left = pattern.left
    rank = len(value.dims)
    if rank < left.fixed or (rank > left.fixed and not left.has_ellipsis):
        wanted = f"at least {left.fixed}" if left.has_ellipsis else str(left.fixed)
        return Outcome(unknown.type, (Problem(
            Code.INVALID_EINSUM_SPEC, f"{what}: pattern {pattern.text!r} needs {wanted} dim"
            f"{'s' if left.fixed != 1 else ''} on the left, but the input is {value.positional_text()} "
            f"({rank} dim{'s' if rank != 1 else ''})", sizes=(rank,)),))
    sizes: dict[Atom, Dim] = {name: size for name, size in lengths.items()}
    covered: tuple[Dim, ...] = ()
    problems: list[Problem] = []
    index = 0
    for entry in left.entries:
        if entry == ELLIPSIS:
            covered = value.dims[index : index + rank - left.fixed]
            index += len(covered)
            continue
        problem = _bind(entry, value.dims[index], index, sizes, lengths, pattern.text, what)
        if problem is not None:
            problems.append(problem)
        index += 1
    if problems:
        return Outcome(unknown.type, tuple(problems))
    dims: list[Dim] = []
    for entry in pattern.right.entries:
        if entry == ELLIPSIS:
            dims.extend(covered)
            continue
        parts: list[Dim] = []
        for atom in entry:
            if atom == ELLIPSIS:
                parts.append(group_size(covered))
            elif isinstance(atom, Numeric):
                parts.append(atom.size)
            else:
                parts.append(sizes.get(atom))
        dims.append(group_size(parts))
    return Outcome(value.with_dims(dims))


def _bind(entry: tuple[Atom, ...], dim: Dim, index: int, sizes: dict[Atom, Dim], lengths: Mapping[str, Dim],
          pattern: str, what: str) -> Problem | None:
    """Bind the axes of one left-side group to input dim `index`; the problem where they cannot."""
    known = {atom: atom.size if isinstance(atom, Numeric) else lengths.get(atom) for atom in entry}
    missing = [atom for atom, size in known.items() if size is None or isinstance(size, Conflict)]
    written = "(" + " ".join(str(atom) for atom in entry) + ")" if len(entry) != 1 else str(entry[0])
    if not missing:
        total = group_size(list(known.values()))
        if certainly_differ(total, dim):
            if len(entry) == 1 and isinstance(entry[0], str):
                return Problem(Code.NAMED_SIZE_MISMATCH, f"{what}: axis {entry[0]!r} of pattern {pattern!r} is "
                               f"dim {index} of the input, of size {format_dim(dim)}, but {entry[0]}="
                               f"{format_dim(total)} is given", axes=(entry[0],), sizes=(dim, total))
            given = " * ".join(format_dim(size) for size in known.values()) or "1"
            return Problem(Code.RESHAPE_MISMATCH, f"{what}: dim {index} of the input has size {format_dim(dim)}, "
                           f"but {written} in pattern {pattern!r} has size {given}" +
                           (f" = {format_dim(total)}" if len(entry) > 1 else ""), sizes=(dim, total))
        return None
    if len(missing) > 1:
        return None  # `fit` reported the underdetermined group (or the lengths are unknown)
    rest = group_size([size for size in known.values() if size is not None and not isinstance(size, Conflict)])
    (atom,) = missing
    if rest == 1:
        sizes[atom] = dim
    elif isinstance(dim, int) and isinstance(rest, int) and rest > 0:
        if dim % rest:
            return Problem(Code.RESHAPE_MISMATCH, f"{what}: dim {index} of the input has size {dim}, which "
                           f"{written} in pattern {pattern!r} cannot split: {dim} is not a multiple of {rest}",
                           axes=(str(atom),), sizes=(dim, rest))
        sizes[atom] = dim // rest
    return None


def reduced_dtype(reduction_name: str | None, dtype: str | None) -> str | None:
    """The dtype of `einops.reduce` with a named reduction (None: a function, of unknown dtype).

    einops calls jax.numpy's reduction of that name, with its dtype rule; its `mean` refuses
    integer and bool tensors, where the dtype is left unknown (no code says that)."""
    if reduction_name is None:
        return None
    result = reduction(reduction_name, Typed(dtype)).dtype
    if reduction_name == "mean" and result != dtype:
        return None
    return result


def unknown_reduction(name: str, pattern: str) -> Problem:
    return Problem(Code.INVALID_EINSUM_SPEC, f"einops.reduce: reduction {name!r} (pattern {pattern!r}) is not one "
                   f"of {', '.join(map(repr, REDUCTIONS))}; pass a function for any other")


_LETTERS: Final = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def einsum_spec(pattern: str) -> str | Problem | None:
    """`einops.einsum`'s pattern (`'batch d, d k -> batch k'`) as a `jnp.einsum` spec (`'ab,bc->ac'`),
    which is what einops hands to JAX; None where it names more axes than there are letters."""
    what = "einops.einsum"
    sides = _sides(pattern, what, "einops.einsum needs the output axes after `->`")
    if isinstance(sides, Problem):
        return sides
    left, right = sides
    counter = iter(range(len(pattern)))
    try:
        # An input may repeat an axis (a diagonal, `'a a -> a'`); the output may not.
        inputs = [side(term, counter, unique=False) for term in left.split(",")]
        output = side(right, counter)
    except PatternError as error:
        return malformed(what, pattern, str(error))
    for term in (*inputs, output):
        for entry in term.entries:
            if entry == ELLIPSIS:
                continue
            if len(entry) != 1:
                return malformed(what, pattern, "groups axes in parentheses, which einops.einsum does not "
                                 "support; rearrange first")
            if isinstance(entry[0], Numeric):
                return malformed(what, pattern, f"has numeric axis {entry[0]}, which einops.einsum does not support")
    named = [name for term in inputs for name in term.names() if name != ELLIPSIS]
    absent = [name for name in output.names() if name != ELLIPSIS and name not in named]
    if absent:
        return malformed(what, pattern, f"has output axis {absent[0]!r}, which no input has")
    letters: dict[str, str] = {}
    for name in named:
        letters.setdefault(name, _LETTERS[len(letters)] if len(letters) < len(_LETTERS) else "")
    if "" in letters.values():
        return None

    def term_text(term: Side) -> str:
        return "".join("..." if name == ELLIPSIS else letters[name] for name in term.names())

    return ",".join(term_text(term) for term in inputs) + "->" + term_text(output)
