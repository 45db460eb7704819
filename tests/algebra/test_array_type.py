"""`ArrayType`'s invariants hold by construction, whichever constructor built it."""

from __future__ import annotations

from dataclasses import replace

from shapecheck.dims import Sym
from shapecheck.types import ArrayType


def test_named_axes_in_any_order_make_equal_types() -> None:
    forward = ArrayType("f32", (3,), (("batch", 4), ("heads", Sym("h")), ("seq", 7)))
    backward = ArrayType("f32", (3,), (("seq", 7), ("heads", Sym("h")), ("batch", 4)))
    assert forward == backward
    assert hash(forward) == hash(backward)
    assert forward.named == (("batch", 4), ("heads", Sym("h")), ("seq", 7))
    assert str(backward) == "f32[(3,), {'batch': 4, 'heads': 'h', 'seq': 7}]"


def test_plain_constructor_agrees_with_of_and_with_named() -> None:
    plain = ArrayType("f32", (2,), (("k", 5), ("i", 3)), None, True)
    assert plain == ArrayType.of("f32", [2], {"i": 3, "k": 5}, named_open=True)
    assert plain == ArrayType("f32", (2,), (), None, True).with_named({"k": 5, "i": 3})
    assert len({plain, ArrayType.of("f32", [2], {"k": 5, "i": 3}, named_open=True)}) == 1


def test_replace_keeps_the_invariants() -> None:
    base = ArrayType("f32", (2,))
    changed = replace(base, named=(("z", 1), ("a", 2)))
    assert changed.named == (("a", 2), ("z", 1))


def test_sequences_become_tuples() -> None:
    # A list passed by a caller would make the type unhashable and unequal to its tuple twin.
    built = ArrayType("f32", [2, 3], [("b", 1), ("a", 2)])  # type: ignore[arg-type]
    assert built.dims == (2, 3) and isinstance(built.dims, tuple)
    assert built.named == (("a", 2), ("b", 1)) and isinstance(built.named, tuple)
    assert built == ArrayType("f32", (2, 3), (("a", 2), ("b", 1)))
    assert hash(built) == hash(ArrayType("f32", (2, 3), (("a", 2), ("b", 1))))
