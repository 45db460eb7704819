"""The annotation language of DESIGN.md section 2, parsed from literal trees, never evaluated."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from shapecheck.dims import Dim, Sym
from shapecheck.literal import Kind, Lit
from shapecheck.types import ArrayType, NamedShape, Sharding, named_shape


@dataclass(frozen=True, slots=True)
class AnnotationError:
    """Why an annotation is not in the language, and which part of it is at fault."""

    message: str
    origin: object = field(default=None, compare=False)


ParseResult = ArrayType | AnnotationError

_FORM: Final = "DTYPE[POSITIONAL] or DTYPE[POSITIONAL, NAMED]"


class _Invalid(Exception):
    """Internal unwinding only: every parse entry point returns AnnotationError instead."""

    def __init__(self, message: str, node: Lit) -> None:
        super().__init__(message)
        self.message = message
        self.node = node


def parse_annotation(dtype: str | None, elements: Sequence[Lit], whole: Lit | None = None) -> ParseResult:
    """Parse the subscript elements of `DTYPE[...]` (`dtype` None means `Array`, any dtype).

    A sharding may close the annotation, as `jax.typeof` prints it: `f32[(8, 16), P('X', 'Y')]`
    for `float32[8@X,16@Y]`, `f32[(8, 16), {'batch': 4}, P('X', None)]` with named axes.
    """
    head = dtype or "Array"
    try:
        if len(elements) == 1 and elements[0].kind is Kind.ELLIPSIS:
            return ArrayType.anything(dtype)
        if not elements:
            raise _Invalid(f"expected {_FORM}, e.g. {head}[(5, 7), {{'batch': 20}}]",
                           whole or Lit(Kind.OTHER))
        spec: Lit | None = None
        if len(elements) > 1 and spec_callee(elements[-1]):
            spec, elements = elements[-1], elements[:-1]
        if len(elements) > 2:
            # Name the first part too many, so the user sees which one to remove.
            raise _Invalid(
                f"expected {_FORM}, e.g. {head}[(5, 7), {{'batch': 20}}]; got {len(elements)} "
                f"parts, and `{elements[2].describe()}` is one too many",
                elements[2],
            )
        dims, ellipsis = _positional(elements[0], head)
        named: NamedShape = ()
        named_open = False
        if len(elements) == 2 and elements[1].kind is Kind.ELLIPSIS:
            named_open = True
        elif len(elements) == 2:
            positional = ArrayType(dtype, dims, (), ellipsis, False).positional_text()
            named = _named(elements[1], f"{head}[{positional}")
        sharding = None if spec is None else _sharding(spec, len(dims), ellipsis)
        return ArrayType(dtype, dims, named, ellipsis, named_open, sharding=sharding)
    except _Invalid as invalid:
        return AnnotationError(invalid.message, invalid.node.origin)


SPEC_NAMES: Final = ("P", "PartitionSpec")
"""What a sharding part may call, as written (`P`, `jax.P`, `jax.sharding.PartitionSpec`)."""


def spec_callee(node: Lit) -> bool:
    """Whether `node` is written as a PartitionSpec, `P(...)` or `PartitionSpec(...)`."""
    callee = node.callee
    return callee is not None and callee.rpartition(".")[2] in SPEC_NAMES


def _sharding(node: Lit, rank: int, ellipsis: int | None) -> Sharding:
    """The sharding part: per positional dim, the mesh axes splitting it (`P('X', ('Y', 'Z'))`),
    trailing dims unsplit, as JAX reads a PartitionSpec shorter than the rank."""
    if ellipsis is not None:
        raise _Invalid(
            f"a sharding needs every positional dim written out, but the shape has `...`; "
            f"write the dims (e.g. (8, 16)) before {node.describe()}",
            node,
        )
    entries: list[tuple[str, ...]] = []
    seen: set[str] = set()
    for item in node.items:
        if item.kind is Kind.NONE:
            entries.append(())
            continue
        axes = item.items if item.kind is Kind.TUPLE else (item,)
        for axis in axes:
            if axis.kind is not Kind.STR:
                raise _Invalid(
                    f"a PartitionSpec entry is a mesh axis name ('X'), a tuple of names (('X', 'Y')) "
                    f"or None; got `{axis.describe()}`",
                    axis,
                )
            name = str(axis.value)
            if name in seen:
                # JAX's DuplicateSpecError: one mesh axis splits at most one dim.
                raise _Invalid(f"mesh axis {name!r} appears twice in {node.describe()}: it can "
                               "split at most one dim", axis)
            seen.add(name)
        entries.append(tuple(str(axis.value) for axis in axes))
    while len(entries) > rank and entries[-1] == ():
        entries.pop()  # `P('X', None)` on a rank-1 value: JAX ignores trailing Nones
    if len(entries) > rank:
        raise _Invalid(
            f"{node.describe()} has {len(node.items)} entries but the shape has {rank} "
            f"dim{'s' if rank != 1 else ''}",
            node,
        )
    entries += [()] * (rank - len(entries))
    return Sharding(tuple(entries))


def _positional(node: Lit, head: str) -> tuple[tuple[Dim, ...], int | None]:
    if spec_callee(node):
        raise _Invalid(f"a sharding follows the shape: write {head}[(8, 16), {node.describe()}]", node)
    if node.kind is not Kind.TUPLE:
        hint = f"{head}[({node.describe()},)]" if node.kind is Kind.INT else f"{head}[(5, 7)]"
        raise _Invalid(
            f"the positional shape must be a tuple literal such as (5, 7), (5,) or (); "
            f"got `{node.describe()}` (write {hint})",
            node,
        )
    dims: list[Dim] = []
    ellipsis: int | None = None
    for item in node.items:
        if item.kind is Kind.ELLIPSIS:
            if ellipsis is not None:
                raise _Invalid("`...` may appear at most once in the positional shape", item)
            ellipsis = len(dims)
            continue
        dims.append(_dim(item, "size"))
    return tuple(dims), ellipsis


def _named(node: Lit, opening: str) -> tuple[tuple[str, Dim], ...]:
    """The NAMED part; `opening` is the annotation up to it (`f32[(5,)`), for the fix we suggest."""
    if node.kind is not Kind.DICT:
        # The usual mistake here is a sharding in another spelling (a NamedSharding, a spec with
        # keywords, one held by a variable): say how a sharding is written.
        sharding = ("; a sharding is written as a PartitionSpec of literals, P('X', None)"
                    if node.kind in (Kind.OTHER, Kind.NAME) else "")
        raise _Invalid(
            f"the named shape must be a dict literal such as {{'batch': 20}}, or `...` for any "
            f"named axes; got `{node.describe()}`{sharding}",
            node,
        )
    seen: dict[str, Dim] = {}
    for key, value in node.pairs:
        if key.kind is Kind.ELLIPSIS:
            # The fix must itself parse: `...` replaces the whole dict, after the positional.
            raise _Invalid(
                f"`...` is not valid inside the named shape; write {opening}, ...] "
                "for any named axes",
                key,
            )
        if key.kind is not Kind.STR:
            raise _Invalid(f"axis names must be strings; got `{key.describe()}`", key)
        name = str(key.value)
        if name in seen:
            raise _Invalid(f"named axis {name!r} appears twice in the named shape", key)
        seen[name] = _dim(value, f"size of named axis {name!r}")
    return named_shape(seen)


def _dim(node: Lit, what: str) -> Dim:
    if node.kind is Kind.INT:
        size = node.value
        assert isinstance(size, int)
        if size < 0:
            raise _Invalid(f"{what} {size} is negative: sizes are ints >= 0, None or a name", node)
        return size
    if node.kind is Kind.NONE:
        return None
    if node.kind is Kind.STR:
        name = str(node.value)
        if not name.isidentifier():
            raise _Invalid(f"symbolic {what} {name!r} is not an identifier such as 'n'", node)
        return Sym(name)
    if node.kind is Kind.FLOAT:
        raise _Invalid(f"{what} {node.describe()} is not an int", node)
    if node.kind is Kind.BOOL:
        raise _Invalid(f"{what} {node.describe()} is a bool, not an int", node)
    raise _Invalid(
        f"{what} `{node.describe()}` is not a literal (an int, None or a name in quotes); "
        "annotations are never evaluated",
        node,
    )


# jaxtyping: `Float[Array, "batch seq"]` means positional dims with an empty named shape. A
# category (`Float`, `Int`, ...) is its own dtype name: dtypes.CATEGORIES says what it admits.
JAXTYPING_DTYPES: Final[dict[str, str | None]] = {
    "Shaped": None, "Key": None, "Bool": "bool_",
    **{category: category for category in ("Num", "Real", "Inexact", "Float", "Complex", "Int", "Integer", "UInt")},
    "Float16": "f16", "BFloat16": "bf16", "Float32": "f32", "Float64": "f64",
    "Int8": "i8", "Int16": "i16", "Int32": "i32", "Int64": "i64",
    "UInt8": "u8", "UInt16": "u16", "UInt32": "u32", "UInt64": "u64",
    "Complex64": "c64", "Complex128": "c128",
}


def parse_jaxtyping(dtype: str | None, elements: Sequence[Lit], whole: Lit | None = None) -> ParseResult:
    """Parse `Float[Array, "batch seq"]`; what jaxtyping accepts always parses.

    A dims string that is not a literal (`Float[Array, dims]`, an f-string) is unknown: any
    positional dims of that dtype.
    """
    if len(elements) == 2 and elements[1].kind in (Kind.NAME, Kind.OTHER):
        return ArrayType(dtype, (), (), 0, False)
    if len(elements) == 2 and elements[1].kind is Kind.ELLIPSIS:
        return AnnotationError('jaxtyping dims must be a string: write Dtype[Array, "..."] for any shape',
                               elements[1].origin)
    if len(elements) != 2 or elements[1].kind is not Kind.STR:
        node = elements[1] if len(elements) > 1 else (whole or Lit(Kind.OTHER))
        return AnnotationError('expected jaxtyping form Dtype[Array, "dims"]', node.origin)
    spec = str(elements[1].value)
    dims: list[Dim] = []
    ellipsis: int | None = None
    for token in spec.split():
        variadic, dim = _jaxtyping_token(token)
        if variadic:
            if ellipsis is not None:
                return AnnotationError(
                    f"jaxtyping dims {spec!r} have more than one variadic dim", elements[1].origin
                )
            ellipsis = len(dims)
            continue
        dims.append(dim)
    return ArrayType(dtype, tuple(dims), (), ellipsis, False)


def nest_jaxtyping(outer: ArrayType, inner: ArrayType) -> ArrayType:
    """`Float[Float[Array, "c"], "b"]`: jaxtyping puts the outer dims before the inner ones."""
    if outer.ellipsis is not None and inner.ellipsis is not None:
        return ArrayType(outer.dtype, (), (), 0, False)  # jaxtyping refuses two variadics
    ellipsis = outer.ellipsis if inner.ellipsis is None else (
        inner.ellipsis + len(outer.dims))
    return ArrayType(outer.dtype or inner.dtype, outer.dims + inner.dims, (), ellipsis, False)


def _jaxtyping_token(token: str) -> tuple[bool, Dim]:
    """(variadic, size) of one jaxtyping dim, read the way jaxtyping reads it.

    jaxtyping strips the modifiers `#` (may broadcast), `*` (variadic), `_` (anonymous) and
    `?` (tree-path dependent) in any order, and `name=` before a size.
    """
    if token == "...":
        return True, None
    modifiers: set[str] = set()
    rest = token
    while rest and rest[0] in "#*_?":
        modifiers.add(rest[0])
        rest = rest[1:]
    if "*" in modifiers:
        return True, None
    if rest.count("=") == 1:
        rest = rest.split("=")[1]
    if modifiers:
        # Broadcastable (may be 1), anonymous or tree-path dependent: no size to bind.
        return False, None
    # `isdecimal`, not `isdigit`: int() refuses digits such as '²' that isdigit accepts.
    if rest.isdecimal():
        return False, int(rest)
    if rest.isidentifier():
        return False, Sym(rest)
    # Arithmetic such as `n+1`: no static size.
    return False, None
