"""The dtype names of the annotation language and JAX's promotion between them."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

# Each dtype of the annotation language: numpy's name for it (`np.dtype(x).name`, the name of
# `jnp.float32`), and its kind and width: enough to follow JAX's promotion lattice for the common
# cases without importing jax. The one table of dtype names; the others are read from it.
_DTYPES: Final = {
    "bool_": ("bool", "b", 1),
    "i8": ("int8", "i", 8), "i16": ("int16", "i", 16), "i32": ("int32", "i", 32), "i64": ("int64", "i", 64),
    "u8": ("uint8", "u", 8), "u16": ("uint16", "u", 16), "u32": ("uint32", "u", 32), "u64": ("uint64", "u", 64),
    "f16": ("float16", "f", 16), "bf16": ("bfloat16", "f", 16), "f32": ("float32", "f", 32),
    "f64": ("float64", "f", 64), "c64": ("complex64", "c", 64), "c128": ("complex128", "c", 128),
}
_KIND: Final = {name: (kind, width) for name, (_, kind, width) in _DTYPES.items()}

DTYPE_NAMES: Final = tuple(_DTYPES)
"""The dtype names of the annotation language (`f32`, ...), as `from shapecheck import f32` offers them."""

NUMPY_NAMES: Final[Mapping[str, str]] = MappingProxyType(
    {numpy: name for name, (numpy, _, _) in _DTYPES.items()} | {"bool_": "bool_"})  # jnp.bool_
"""numpy's dtype names (and `jnp.bool_`) -> the annotation language's, for the analyzer and the runtime."""

_ORDER: Final = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def promote(a: str | None, b: str | None) -> str | None:
    """The dtype of `a op b` (None means unknown or any dtype)."""
    if a is None or b is None:
        return None
    if a == b:
        return a
    (ka, wa), (kb, wb) = _KIND[a], _KIND[b]
    if _ORDER[ka] != _ORDER[kb]:
        return a if _ORDER[ka] > _ORDER[kb] else b
    if ka != kb:
        # Mixed signed/unsigned ints: JAX widens to a signed type that holds both.
        width = max(wa if ka == "i" else 2 * wa, wb if kb == "i" else 2 * wb)
        return f"i{min(width, 64)}"
    if {a, b} == {"f16", "bf16"}:
        return "f32"
    return a if wa >= wb else b
