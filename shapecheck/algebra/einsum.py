"""The einsum spec language with `{named}` braces: parser and shape rule (SC003, SC104, SC204)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shapecheck.algebra.broadcast import union_named
from shapecheck.algebra.outcome import Outcome, Problem, label
from shapecheck.algebra.promotion import promoted
from shapecheck.codes import Code
from shapecheck.dims import CONFLICT, Dim, broadcast_dim, distinct_symbols, format_dim
from shapecheck.types import ArrayType, named_shape

ELLIPSIS = "..."
_PUNCTUATION = frozenset(".,-><{}")


@dataclass(frozen=True, slots=True)
class Term:
    """One side of a spec: positional letters (with `...` as one element) and named axes.

    `names` is None when the term has no braces at all.
    """

    letters: tuple[str, ...]
    names: tuple[str, ...] | None = None

    @property
    def has_ellipsis(self) -> bool:
        return ELLIPSIS in self.letters


@dataclass(frozen=True, slots=True)
class EinsumSpec:
    inputs: tuple[Term, ...]
    output: Term | None  # None: implicit output (no `->`)

    @property
    def uses_names(self) -> bool:
        terms = (*self.inputs, *((self.output,) if self.output else ()))
        return any(term.names is not None for term in terms)


class SpecError(Exception):
    """Unwinds the parser; callers get a Problem."""


def parse_einsum(spec: str) -> EinsumSpec | Problem:
    """Parse `'n{b,k},{k,m}->n{b,m}'`; a malformed spec is an SC003 problem naming the fault."""
    try:
        if spec.count("->") > 1:
            raise SpecError("has more than one `->`")
        lhs, arrow, rhs = spec.partition("->")
        inputs = tuple(_term(part) for part in _split_operands(lhs))
        output = _term(rhs) if arrow else None
    except SpecError as error:
        return Problem(Code.INVALID_EINSUM_SPEC, f"einsum spec {spec!r} {error}")
    return EinsumSpec(inputs, output)


def _split_operands(text: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    current = ""
    for char in text:
        if char == "{":
            if depth:
                raise SpecError("nests braces")
            depth = 1
        elif char == "}":
            if not depth:
                raise SpecError("has a `}` without its `{`")
            depth = 0
        if char == "," and not depth:
            parts.append(current)
            current = ""
        else:
            current += char
    if depth:
        raise SpecError("has a `{` without its `}`")
    parts.append(current)
    return parts


def _term(text: str) -> Term:
    text = text.strip()
    names: tuple[str, ...] | None = None
    if "{" in text:
        brace = text.index("{")
        if not text.endswith("}") or text.count("{") > 1:
            raise SpecError(f"has named axes in {text!r} that are not one `{{...}}` after the letters")
        inner = text[brace + 1 : -1].strip()
        names = tuple(name.strip() for name in inner.split(",")) if inner else ()
        if any(not name for name in names):
            raise SpecError(f"has an empty axis name in {text!r}")
        if len(set(names)) != len(names):
            raise SpecError(f"repeats an axis name in {text!r}")
        text = text[:brace]
    letters: list[str] = []
    rest = text.replace(" ", "")
    while rest:
        if rest.startswith(ELLIPSIS):
            if ELLIPSIS in letters:
                raise SpecError(f"has `...` twice in {text!r}")
            letters.append(ELLIPSIS)
            rest = rest[3:]
            continue
        char, rest = rest[0], rest[1:]
        # jnp.einsum takes any symbol as a subscript (`'kh1d'` in flax, `_`, Greek letters);
        # only the spec's own punctuation is not one.
        if char in _PUNCTUATION or char.isspace():
            raise SpecError(f"has {char!r} where a subscript, `...` or `{{names}}` belongs")
        letters.append(char)
    return Term(tuple(letters), names)


def operand_count(spec: EinsumSpec, count: int) -> Problem | None:
    """SC003 when `count` operands do not fit the spec: one per term, at most two with named axes."""
    if len(spec.inputs) != count:
        return Problem(
            Code.INVALID_EINSUM_SPEC, f"einsum spec has {len(spec.inputs)} operand{'s' if len(spec.inputs) != 1 else ''} "
            f"but {count} {'were' if count != 1 else 'was'} given")
    if spec.uses_names and count > 2:
        return Problem(Code.INVALID_EINSUM_SPEC, f"einsum with named axes takes at most two operands; got {count}")
    return None


def einsum(spec: EinsumSpec, operands: Sequence[ArrayType], labels: Sequence[str] | None = None) -> Outcome:
    """The result type of `jnp.einsum(spec, *operands)`."""
    problems: list[Problem] = []
    dtype = promoted(operands).dtype
    unknown = Outcome(ArrayType(dtype, (), (), 0, True))
    miscount = operand_count(spec, len(operands))
    if miscount is not None:
        return Outcome(unknown.type, (miscount,))

    sizes: dict[str, Dim] = {}
    source: dict[str, int] = {}
    ellipsis_dims: list[tuple[int, tuple[Dim, ...]]] = []
    unread: list[Term] = []  # terms whose operand's dims could not be read
    for index, (term, operand) in enumerate(zip(spec.inputs, operands, strict=True)):
        letter_dims = _letter_dims(term, operand, index, labels, problems, ellipsis_dims)
        if letter_dims is None:
            unread.append(term)
            continue
        for letter, size in letter_dims:
            if letter not in sizes:
                sizes[letter], source[letter] = size, index
                continue
            # JAX broadcasts a size-1 letter against the others, so sizes meet as in
            # broadcasting: a symbol that may be 1 against an unknown size is unknown.
            merged, ok = broadcast_dim(sizes[letter], size)
            # A letter names one size: two rigid symbols of a signature may differ (only a
            # known 1 broadcasts, and a symbol is not known to be 1).
            if not ok or distinct_symbols(sizes[letter], size):
                problems.append(Problem(
                    Code.CONTRACTION_MISMATCH, f"einsum: axis {letter!r} has size {format_dim(sizes[letter])} in "
                    f"{label(labels, source[letter])} but {format_dim(size)} in {label(labels, index)}",
                    axes=(letter,), sizes=(sizes[letter], size), operands=(source[letter], index)))
                sizes[letter] = CONFLICT  # reported here: unknown from then on
                continue
            if not isinstance(sizes[letter], int) or sizes[letter] == 1:
                source[letter] = index
            sizes[letter] = merged

    # An operand whose dims are unknown may hold any size for its letters: only a known size
    # other than 1 stays certain (the unknown one must equal it or be 1).
    for term in unread:
        for letter in term.letters:
            size = sizes.get(letter)
            if not isinstance(size, int) or size == 1:
                sizes[letter] = None
    # The dims under `...` broadcast together whether or not the output keeps them (JAX sums
    # the ones it drops, after broadcasting them). Known tails that clash clash whatever an
    # unread operand holds; but its own `...` dims are unknown in number and size.
    ellipsis_result = _broadcast_tails(ellipsis_dims, labels, problems)
    ellipsis_unknown = any(term.has_ellipsis for term in unread)
    named_sizes = dict(union_named([o.named for o in operands], labels, problems))
    mentioned: set[str] = set()
    for term in spec.inputs:
        mentioned.update(term.names or ())
    for index, (term, operand) in enumerate(zip(spec.inputs, operands, strict=True)):
        own = set(term.names or ())
        for name in sorted(own):
            if name not in operand.named_dict and not operand.named_open:
                problems.append(Problem(
                    Code.INVALID_EINSUM_SPEC, f"einsum: {label(labels, index)} lists named axis {name!r} but its "
                    f"named shape is {operand.named_text()}", axes=(name,), operands=(index,)))
        for name, _ in operand.named:
            if name in mentioned and name not in own:
                problems.append(Problem(
                    Code.EINSUM_NAMED_AXIS_SKIPPED, f"einsum: {label(labels, index)} has named axis {name!r} but skips it "
                    f"while another operand mentions it; add {{{name}}} to its term",
                    axes=(name,), operands=(index,)))

    output = spec.output or _implicit_output(spec)
    seen: set[str] = set()
    dims: list[Dim] = []
    result_ellipsis: int | None = None
    for letter in output.letters:
        if letter in seen:
            problems.append(Problem(Code.INVALID_EINSUM_SPEC, f"einsum: output repeats axis {letter!r}", axes=(letter,)))
            continue
        seen.add(letter)
        if letter == ELLIPSIS:
            if ellipsis_unknown:
                # The result's rank is open exactly where the output puts `...`.
                result_ellipsis = len(dims)
            else:
                dims.extend(ellipsis_result)
            continue
        if letter not in sizes and not any(letter in t.letters for t in spec.inputs):
            problems.append(Problem(
                Code.INVALID_EINSUM_SPEC, f"einsum: output axis {letter!r} appears in no operand", axes=(letter,)))
            dims.append(None)
            continue
        dims.append(sizes.get(letter))
    any_open = any(o.named_open for o in operands)
    result_named: dict[str, Dim] = {
        name: size for name, size in named_sizes.items() if name not in mentioned
    }
    for name in output.names or ():
        if name in named_sizes:
            result_named[name] = named_sizes[name]
        elif not any_open:
            problems.append(Problem(
                Code.INVALID_EINSUM_SPEC, f"einsum: output named axis {name!r} is in no operand", axes=(name,)))
    result = ArrayType(dtype, tuple(dims), named_shape(result_named), result_ellipsis, any_open)
    return Outcome(result, tuple(problems))


def _letter_dims(
    term: Term, operand: ArrayType, index: int, labels: Sequence[str] | None,
    problems: list[Problem], ellipsis_dims: list[tuple[int, tuple[Dim, ...]]],
) -> list[tuple[str, Dim]] | None:
    letters = [letter for letter in term.letters if letter != ELLIPSIS]
    if operand.ellipsis is not None:
        return None
    rank = len(operand.dims)
    if term.has_ellipsis:
        if rank < len(letters):
            problems.append(_rank_problem(term, operand, index, labels))
            return None
        before = term.letters.index(ELLIPSIS)
        after = len(letters) - before
        ellipsis_dims.append((index, operand.dims[before : rank - after]))
        dims = operand.dims[:before] + operand.dims[rank - after :]
    else:
        if rank != len(letters):
            problems.append(_rank_problem(term, operand, index, labels))
            return None
        dims = operand.dims
    return list(zip(letters, dims, strict=True))


def _rank_problem(term: Term, operand: ArrayType, index: int, labels: Sequence[str] | None) -> Problem:
    return Problem(
        Code.INVALID_EINSUM_SPEC, f"einsum: {label(labels, index)} has {len(operand.dims)} positional dims "
        f"{operand.positional_text()} but its term {''.join(term.letters)!r} names "
        f"{len([x for x in term.letters if x != ELLIPSIS])}", operands=(index,))


def _broadcast_tails(
    tails: list[tuple[int, tuple[Dim, ...]]], labels: Sequence[str] | None, problems: list[Problem],
) -> list[Dim]:
    """Broadcast the dims that `...` stands for in each operand (SC101 when they cannot)."""
    depth = max((len(t) for _, t in tails), default=0)
    result: list[Dim] = []
    for back in range(1, depth + 1):
        size: Dim = 1
        first = -1
        for index, tail in tails:
            if len(tail) < back:
                continue
            merged, ok = broadcast_dim(size, tail[-back])
            if not ok:
                problems.append(Problem(
                    Code.BROADCAST_MISMATCH, f"einsum: the dims under `...` cannot broadcast: {format_dim(size)} in "
                    f"{label(labels, first)} but {format_dim(tail[-back])} in {label(labels, index)}",
                    axes=(-back,), sizes=(size, tail[-back]), operands=(first, index)))
                size = CONFLICT  # reported here: unknown from then on
                break

            if size == 1 or first < 0:
                first = index
            size = merged
        result.append(size)
    return result[::-1]


def _implicit_output(spec: EinsumSpec) -> Term:
    counts: dict[str, int] = {}
    for term in spec.inputs:
        for letter in term.letters:
            if letter != ELLIPSIS:
                counts[letter] = counts.get(letter, 0) + 1
    letters = sorted(letter for letter, count in counts.items() if count == 1)
    if any(term.has_ellipsis for term in spec.inputs):
        letters.insert(0, ELLIPSIS)
    name_counts: dict[str, int] = {}
    for term in spec.inputs:
        for name in term.names or ():
            name_counts[name] = name_counts.get(name, 0) + 1
    names = tuple(sorted(name for name, count in name_counts.items() if count == 1))
    return Term(tuple(letters), names)
