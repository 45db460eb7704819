"""jax.nn.one_hot's result type and its named-axis size check (DESIGN.md section 3)."""

from __future__ import annotations

from shapecheck.algebra.one_hot import one_hot
from shapecheck.codes import Code
from shapecheck.types import ArrayType

LABELS = ArrayType.of("i32", (8,), {"b": 4})


def test_a_named_axis_takes_its_size_from_the_labels_or_the_map() -> None:
    assert one_hot(LABELS, 3, "classes", "f32", bound=3) == (ArrayType.of("f32", (8,), {"b": 4, "classes": 3}), [])
    assert one_hot(LABELS, 3, "classes", "f32") == (ArrayType.of("f32", (8,), {"b": 4, "classes": 3}), [])
    result, problems = one_hot(LABELS, 3, "b", "f32", bound=5)
    assert [(p.code, p.sizes) for p in problems] == [(Code.NAMED_SIZE_MISMATCH, (3, 4))]
    assert result is not None and result.named_dict["b"] == 4  # the conflict is reported once


def test_a_positional_axis_is_a_new_dim_in_range() -> None:
    assert one_hot(LABELS, 3, -1, "f32") == (ArrayType.of("f32", (8, 3), {"b": 4}), [])
    result, problems = one_hot(LABELS, 3, 2, "f32")
    assert result is None and [p.code for p in problems] == [Code.AXIS_OUT_OF_RANGE]
