"""shapecheck: a gradual type checker for named-shape JAX programs.

`from shapecheck import f32` gives the annotation language: `f32[(5, 7), {'batch': 20}]`
evaluates, without jax, to an immutable `ArrayType` that describes the type.
"""

from __future__ import annotations

# Not typing's: a run answered by its memo (memo.py) imports nothing Python has not already.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from shapecheck.dims import Dim, Sym
    from shapecheck.dtype_objects import (
        Array,
        DType,
        InvalidAnnotation,
        bf16,
        bool_,
        c64,
        c128,
        f16,
        f32,
        f64,
        i8,
        i16,
        i32,
        i64,
        u8,
        u16,
        u32,
        u64,
    )
    from shapecheck.types import ArrayType

__version__ = "0.1.0"

__all__ = [
    "Array",
    "ArrayType",
    "DType",
    "Dim",
    "InvalidAnnotation",
    "Sym",
    "bf16",
    "bool_",
    "c64",
    "c128",
    "f16",
    "f32",
    "f64",
    "i8",
    "i16",
    "i32",
    "i64",
    "u8",
    "u16",
    "u32",
    "u64",
]

# Where each public name lives. Imported on first use (PEP 562): every `shapecheck` command
# imports this package, and most (a check answered from the cache) never touch the annotation
# language.
_HOMES = {**dict.fromkeys(__all__, "shapecheck.dtype_objects"),
          "Dim": "shapecheck.dims", "Sym": "shapecheck.dims", "ArrayType": "shapecheck.types"}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'shapecheck' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
