"""shapecheck: a gradual type checker for named-shape JAX programs.

`from shapecheck import f32` gives the annotation language: `f32[(5, 7), {'batch': 20}]`
evaluates, without jax, to an immutable `ArrayType` that describes the type.
"""

from __future__ import annotations

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
