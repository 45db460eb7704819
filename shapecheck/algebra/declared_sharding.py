"""Does a value's sharding fit the one its annotation declares (SC103)? DESIGN.md section 3b.

An annotation's sharding (`f32[(8, 16), P('X', 'Y')]`) states the value's type as `jax.typeof`
prints it (`float32[8@X,16@Y]`): per dim, the Explicit mesh axes that split it. Auto and Manual
axes split no type, so where a declared axis is known to be one of them it asks for nothing;
where the axis types are unknown, only what holds for every type of axis is reported: a dim
split over an axis the declaration does not give it. The analyzer and the runtime both ask here.
"""

from __future__ import annotations

from collections.abc import Mapping

from shapecheck.algebra.outcome import Problem
from shapecheck.algebra.sharding_types import EXPLICIT, typeof
from shapecheck.codes import Code
from shapecheck.types import ArrayType, Sharding

AxisTypes = Mapping[str, str | None]
"""A mesh axis name -> its AxisType ("Explicit", "Auto", "Manual"); None or absent: unknown."""


def _expected(entry: tuple[str, ...], axis_types: AxisTypes | None) -> tuple[str, ...] | None:
    """The Explicit axes of a declared entry: what `jax.typeof` shows for that dim (None where an
    axis's type is unknown)."""
    if not entry:
        return ()
    kinds = [axis_types.get(axis) if axis_types is not None else None for axis in entry]
    if any(kind is None for kind in kinds):
        return None
    return tuple(axis for axis, kind in zip(entry, kinds, strict=True) if kind == EXPLICIT)


def typed(declared: Sharding, axis_types: AxisTypes | None) -> Sharding:
    """The type a declared sharding gives a value: the Explicit axes of each entry where the axis
    types are known; as written where they are not (the annotation names Explicit axes)."""
    dims = []
    for entry in declared.dims:
        expected = _expected(entry, axis_types) if entry is not None else None
        dims.append(entry if expected is None else expected)
    return Sharding(tuple(dims), declared.mesh)


def sharding_conflict(declared: ArrayType, actual: ArrayType, what: str, *, source: str | None = None,
                      axis_types: AxisTypes | None = None) -> Problem | None:
    """SC103 when `actual`'s sharding certainly differs from the one `declared` states; None where
    they fit, either is unknown, or the ranks differ (a shape mismatch says that)."""
    want, got = declared.sharding, actual.sharding
    if want is None or got is None or declared.ellipsis is not None or actual.ellipsis is not None:
        return None
    if len(want.dims) != len(got.dims) or not want.dims:
        return None
    for declared_entry, actual_entry in zip(want.dims, got.dims, strict=True):
        if declared_entry is None or actual_entry is None:
            continue
        expected = _expected(declared_entry, axis_types)
        if expected is not None:
            differs = actual_entry != expected
        else:
            # Unknown axis types: the declared axes that are Explicit are some of them, in order.
            differs = tuple(axis for axis in declared_entry if axis in actual_entry) != actual_entry
        if differs:
            return _conflict(declared, actual, what, source, axis_types)
    return None


def _conflict(declared: ArrayType, actual: ArrayType, what: str, source: str | None,
              axis_types: AxisTypes | None) -> Problem:
    assert declared.sharding is not None and actual.sharding is not None
    # Both in jax.typeof's notation, on the value's own sizes, so the two line up dim by dim.
    shown = typeof(actual.with_sharding(typed(declared.sharding, axis_types)))
    spec = declared.sharding.spec_text()
    value = source.strip("`") if source else "x"
    axes = tuple(dict.fromkeys(axis for entry in (*declared.sharding.dims, *actual.sharding.dims)
                               for axis in entry or ()))
    return Problem(
        Code.ANNOTATION_MISMATCH,
        f"{what} is {typeof(actual)} but is declared {shown} ({spec}); reshard it to match: "
        f"jax.sharding.reshard({value}, {spec}), or correct the annotation",
        axes=axes)
