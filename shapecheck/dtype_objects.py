"""The run-time face of the annotation language: `f32[(5,), {'b': 2}]` builds an ArrayType."""

from __future__ import annotations

from typing import Final

from shapecheck.annotation import AnnotationError, parse_annotation
from shapecheck.literal import from_value
from shapecheck.types import ArrayType


class InvalidAnnotation(TypeError):
    """An annotation outside the language of DESIGN.md section 2."""


class DType:
    """A dtype name that builds array types when subscripted, e.g. `f32[(5, 7)]`."""

    __slots__ = ("name",)

    def __init__(self, name: str | None) -> None:
        self.name = name

    def __getitem__(self, key: object) -> ArrayType:
        # At run time `f32[(5, 7), {...}]` and `f32[(5, 7)]` both arrive as one tuple: a
        # leading tuple (dims are never tuples) marks the form with several parts. Whatever
        # follows it is then parsed as a part, so `f32[(5,), 3]` and `f32[(5,), {}, 3]` are
        # reported for their second and third parts, not as a tuple inside the positional.
        several = isinstance(key, tuple) and bool(key) and isinstance(key[0], tuple)
        parts = list(key) if several and isinstance(key, tuple) else [key]
        parsed = parse_annotation(self.name, [from_value(part) for part in parts])
        if isinstance(parsed, AnnotationError):
            raise InvalidAnnotation(f"{self!r}[...]: {parsed.message}")
        return parsed

    def __repr__(self) -> str:
        return self.name or "Array"

    def __reduce__(self) -> str:
        return repr(self)


bool_: Final = DType("bool_")
i8: Final = DType("i8")
i16: Final = DType("i16")
i32: Final = DType("i32")
i64: Final = DType("i64")
u8: Final = DType("u8")
u16: Final = DType("u16")
u32: Final = DType("u32")
u64: Final = DType("u64")
f16: Final = DType("f16")
bf16: Final = DType("bf16")
f32: Final = DType("f32")
f64: Final = DType("f64")
c64: Final = DType("c64")
c128: Final = DType("c128")
Array: Final = DType(None)
