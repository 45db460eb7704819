"""The type of an array value: dtype, positional dims, named dims and sharding."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from shapecheck.dims import Dim, Sym, format_dim

NamedShape = tuple[tuple[str, Dim], ...]
"""Named dims as (name, size) pairs sorted by name: order of names has no meaning."""


def named_shape(items: Mapping[str, Dim] | Iterable[tuple[str, Dim]]) -> NamedShape:
    """Normalise named dims into the sorted form that makes equality order-free."""
    pairs = items.items() if isinstance(items, Mapping) else items
    return tuple(sorted(pairs, key=lambda pair: pair[0]))


def invented_axis(label: str) -> str:
    """The name of an axis the checker makes up: an unnamed vmap's or pmap's mapped axis."""
    return f"<{label}>"


def is_invented(name: str) -> bool:
    """Whether a named axis is one the checker made up: no user can write or name it, so no
    message or hover shows it (an annotation's names are never written this way)."""
    return name.startswith("<")


def _sorted_by_name(named: NamedShape) -> bool:
    previous = named[0][0]
    for name, _ in named[1:]:
        if name < previous:
            return False
        previous = name
    return True


MeshShape = tuple[tuple[str, int | None], ...]
"""A mesh's axes in order with their sizes (None where unknown)."""


@dataclass(frozen=True, slots=True)
class Sharding:
    """How JAX's type splits each positional dim over Explicit mesh axes (DESIGN.md section 3b).

    `dims[i]` is the tuple of Explicit mesh axes splitting dim i, major first (`()`: not split),
    or None where that is unknown. `mesh` is the mesh the value is typed on (None: unknown, or
    none): JAX compares shardings only between values on a mesh.
    """

    dims: tuple[tuple[str, ...] | None, ...]
    mesh: MeshShape | None = None
    placed: tuple[tuple[str, ...], ...] | None = None
    """Where the value also lies over Auto axes, which its type does not show: per dim, every
    mesh axis splitting it, as `device_put` or jit's out_shardings committed it; None where
    only the type is known (jit compares a committed argument's placement with in_shardings)."""
    volatile: frozenset[str] = frozenset()
    """Size-1 Explicit axes of a mesh that also has Auto axes. The type of a value placed with
    one keeps it (`float32[2,4@X]`), but an eager op's result there is typed from its compiled
    placement, where such an axis splits nothing: whether the result keeps it depends on where
    XLA put the value over the Auto axes (JAX 0.10.2), so it is unknown in every op's result."""

    @property
    def known(self) -> bool:
        return all(entry is not None for entry in self.dims)

    @property
    def split(self) -> bool:
        """Whether some dim is certainly split over a mesh axis."""
        return any(entry for entry in self.dims)

    def spec_text(self) -> str:
        """The PartitionSpec that places a value so: `P('X', None, ('X', 'Y'))`."""
        entries = list(self.dims)
        while entries and entries[-1] == ():
            entries.pop()
        return "P(" + ", ".join(_entry_text(entry) for entry in entries) + ")"


def _entry_text(entry: tuple[str, ...] | None) -> str:
    if entry is None:
        return "P.UNCONSTRAINED"
    if not entry:
        return "None"
    if len(entry) == 1:
        return repr(entry[0])
    return "(" + ", ".join(repr(axis) for axis in entry) + ")"


SCALAR_SHARDING = Sharding(())


@dataclass(frozen=True, slots=True)
class ArrayType:
    """`DTYPE[POSITIONAL, NAMED]`: what the checker knows of one array value.

    `ellipsis` is the index in `dims` where `...` stands (any number of dims), or None when
    the rank is exact. `named_open` means other named axes may be present besides `named`.
    """

    dtype: str | None
    dims: tuple[Dim, ...] = ()
    named: NamedShape = ()
    ellipsis: int | None = None
    named_open: bool = False
    weak: bool = False  # a Python scalar: takes the dtype of what it meets
    sharding: Sharding | None = field(default=None, compare=False, hash=False)
    """Per positional dim, the Explicit mesh axes splitting it; None: unknown. Not part of
    equality, so every shape rule compares types as before; where it matters (a function's
    summary, a join of two paths) it is compared on its own."""

    def __post_init__(self) -> None:
        # The invariants hold whoever builds the type: tuples (hashable, equal to their twins)
        # and named axes sorted by name, so equal types compare and hash equal. The checks
        # cost less than re-sorting: most callers already pass sorted tuples.
        if type(self.dims) is not tuple:
            object.__setattr__(self, "dims", tuple(self.dims))
        named = self.named
        if type(named) is not tuple or (len(named) > 1 and not _sorted_by_name(named)):
            object.__setattr__(self, "named", named_shape(named))
        sharding = self.sharding
        if sharding is None:
            if not self.dims and self.ellipsis is None:
                object.__setattr__(self, "sharding", SCALAR_SHARDING)  # nothing to split
        elif self.ellipsis is not None or len(sharding.dims) != len(self.dims):
            # A rule that changed the dims without saying how the split follows: unknown.
            object.__setattr__(self, "sharding", None)

    @staticmethod
    def of(
        dtype: str | None,
        dims: Iterable[Dim] = (),
        named: Mapping[str, Dim] | Iterable[tuple[str, Dim]] = (),
        *,
        ellipsis: int | None = None,
        named_open: bool = False,
    ) -> ArrayType:
        return ArrayType(dtype, tuple(dims), named_shape(named), ellipsis, named_open)

    @staticmethod
    def anything(dtype: str | None = None) -> ArrayType:
        """`DTYPE[...]`: any shape and any named shape."""
        return ArrayType(dtype, (), (), 0, True)

    @property
    def named_dict(self) -> dict[str, Dim]:
        return dict(self.named)

    @property
    def rank(self) -> int | None:
        """The number of positional dims, or None when `...` leaves it open."""
        return None if self.ellipsis is not None else len(self.dims)

    @property
    def is_anything(self) -> bool:
        return self.ellipsis is not None and not self.dims and self.named_open and not self.named

    def identical(self, other: ArrayType) -> bool:
        """Equal, the sharding too: what hover shows of them is the same (equality leaves the
        sharding out, as the shape rules compare types without it)."""
        return self == other and self.sharding == other.sharding

    # The copies below call the constructor with every field rather than `dataclasses.replace`,
    # which looks each field up by name: they run for nearly every value the analyser computes.

    def with_dims(self, dims: Iterable[Dim], ellipsis: int | None = None) -> ArrayType:
        return ArrayType(self.dtype, tuple(dims), self.named, ellipsis, self.named_open, self.weak, None)

    def with_named(self, named: Mapping[str, Dim] | Iterable[tuple[str, Dim]]) -> ArrayType:
        return ArrayType(self.dtype, self.dims, named_shape(named), self.ellipsis, self.named_open, self.weak,
                         self.sharding)

    def with_sharding(self, sharding: Sharding | None) -> ArrayType:
        return ArrayType(self.dtype, self.dims, self.named, self.ellipsis, self.named_open, self.weak, sharding)

    def with_dtype(self, dtype: str | None, weak: bool = False) -> ArrayType:
        return ArrayType(dtype, self.dims, self.named, self.ellipsis, self.named_open, weak, self.sharding)

    def map_dims(self, size: Callable[[Dim], Dim]) -> ArrayType:
        """The same type with `size` applied to every positional and named size."""
        return ArrayType(self.dtype, tuple(size(d) for d in self.dims), tuple((n, size(s)) for n, s in self.named),
                         self.ellipsis, self.named_open, self.weak, self.sharding)

    def symbols(self) -> set[str]:
        """Names of the symbolic sizes this type mentions."""
        sizes = list(self.dims) + [size for _, size in self.named]
        return {size.name for size in sizes if isinstance(size, Sym)}

    def positional_text(self) -> str:
        parts = [format_dim(dim) for dim in self.dims]
        if self.ellipsis is not None:
            parts.insert(self.ellipsis, "...")
        if len(parts) == 1:
            return f"({parts[0]},)"
        return "(" + ", ".join(parts) + ")"

    def named_text(self) -> str:
        shown = ((name, size) for name, size in self.named if not is_invented(name))
        return "{" + ", ".join(f"{name!r}: {format_dim(size)}" for name, size in shown) + "}"

    def __str__(self) -> str:
        text = self._shape_text()
        if self.sharding is not None and self.sharding.split:
            return f"{text[:-1]}, {self.sharding.spec_text()}]"
        return text

    def _shape_text(self) -> str:
        head = self.dtype or "Array"
        if self.is_anything:
            return f"{head}[...]"
        named = any(not is_invented(name) for name, _ in self.named)
        if self.named_open and not named:
            return f"{head}[{self.positional_text()}, ...]"
        if self.named_open:
            # The language has no literal for "these names and maybe more"; say it in words.
            return f"{head}[{self.positional_text()}, {self.named_text()} + ...]"
        if not named:
            return f"{head}[{self.positional_text()}]"
        return f"{head}[{self.positional_text()}, {self.named_text()}]"

    def __repr__(self) -> str:
        return str(self)


def scalar(dtype: str | None = None, *, weak: bool = True) -> ArrayType:
    """A Python scalar: a weakly typed `()` value."""
    return ArrayType(dtype, (), (), None, False, weak)
