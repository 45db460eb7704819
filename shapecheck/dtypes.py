"""The dtype names of the annotation language: one table, read by the analyzer, the runtime and
the promotion algebra (shapecheck/algebra/promotion.py)."""

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

NUMPY_OF: Final[Mapping[str, str]] = MappingProxyType({name: numpy for name, (numpy, _, _) in _DTYPES.items()})
"""The annotation language's dtype names -> numpy's (`f32` -> `float32`), as JAX's messages name them."""

KINDS: Final[Mapping[str, tuple[str, int]]] = MappingProxyType(_KIND)
"""Each dtype name -> numpy's kind letter (`b i u f c`) and its width in bits."""

# jaxtyping's dtype categories, by the kinds each admits (bf16 and f16 are both floats). An
# annotation `Float[Array, "n"]` declares one of these names as its dtype.
_CATEGORY_KINDS: Final = {
    "Bool": "b", "UInt": "u", "Int": "i", "Integer": "iu", "Float": "f", "Complex": "c",
    "Inexact": "fc", "Real": "iuf", "Num": "iufc",
}
CATEGORIES: Final[Mapping[str, frozenset[str]]] = MappingProxyType({
    category: frozenset(name for name, (kind, _) in _KIND.items() if kind in kinds)
    for category, kinds in _CATEGORY_KINDS.items()})
"""A jaxtyping dtype category (`Float`, `Int`, ...) -> the dtype names it admits."""


def admitted(dtype: str | None) -> frozenset[str] | None:
    """The dtype names a declared dtype admits: itself, a category's members, or None for any."""
    if dtype is None:
        return None
    if dtype in _KIND:
        return frozenset((dtype,))
    return CATEGORIES.get(dtype)


def kind_of(dtype: str | None) -> str | None:
    """NumPy's kind letter of a dtype (`b`, `i`, `u`, `f`, `c`); None for one not known, or a
    jaxtyping category."""
    found = _KIND.get(dtype) if dtype is not None else None
    return found[0] if found is not None else None


def narrowed(dtype: str) -> str:
    """What JAX makes of `dtype` with `jax_enable_x64` off: 64-bit types become 32-bit ones."""
    kind, width = _KIND[dtype]
    if width < 64 or (kind == "c" and width == 64):
        return dtype
    return _BY_KIND_WIDTH[kind, 64 if kind == "c" else 32]


_BY_KIND_WIDTH: Final = {(kind, width): name for name, (kind, width) in _KIND.items()}
