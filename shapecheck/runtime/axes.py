"""Named axes as arguments: split `axis=(0, 'batch')` into positions and names, gather names.

Inside xmap a named axis is a vmap level. `lax.all_gather` over a level turns that named axis
into a leading positional dim (under vmap it is a transpose, not communication), after which
any positional jax.numpy function can reduce or contract it, with its own derivative rules.
That is how every named reduction and contraction here is built.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from jax import lax


def split(axis: Any) -> tuple[tuple[int, ...] | None, tuple[str, ...]]:
    """(positional axes or None for "none given", named axes) of an `axis` argument."""
    if axis is None:
        return None, ()
    items = axis if isinstance(axis, tuple | list) else (axis,)
    positions = tuple(item for item in items if isinstance(item, int))
    names = tuple(str(item) for item in items if not isinstance(item, int) and isinstance(item, Hashable))
    return positions, names


def has_names(axis: Any) -> bool:
    return bool(split(axis)[1])


def gather(x: Any, names: tuple[str, ...]) -> Any:
    """`x` with each named axis in `names` made a leading positional dim, in order."""
    for name in reversed(names):
        x = lax.all_gather(x, name, axis=0, tiled=False)
    return x

