"""The dtype names of the annotation language and JAX's promotion between them."""

from __future__ import annotations

from typing import Final

DTYPE_NAMES: Final = (
    "bool_", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
    "f16", "bf16", "f32", "f64", "c64", "c128",
)

# The kind and width of each dtype: enough to follow JAX's promotion lattice for the
# common cases without importing jax.
_KIND: Final = {
    "bool_": ("b", 1),
    "i8": ("i", 8), "i16": ("i", 16), "i32": ("i", 32), "i64": ("i", 64),
    "u8": ("u", 8), "u16": ("u", 16), "u32": ("u", 32), "u64": ("u", 64),
    "f16": ("f", 16), "bf16": ("f", 16), "f32": ("f", 32), "f64": ("f", 64),
    "c64": ("c", 64), "c128": ("c", 128),
}
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
