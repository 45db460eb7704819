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


def test_each_copy_changes_only_its_own_field() -> None:
    # The copies build the type field by field (faster than dataclasses.replace): a field added
    # to ArrayType and forgotten there would be lost by every copy.
    from dataclasses import fields

    from shapecheck.types import Sharding

    whole = ArrayType("float32", (Sym("n"), 4), (("batch", 2),), None, True, True,
                      Sharding((("X",), ()), (("X", 2),), (("X",), ("Y",)), frozenset({"Z"})))
    # Every field but `ellipsis` (a type with one has no sharding), which with_dims sets.
    assert all(getattr(whole, f.name) != f.default for f in fields(ArrayType) if f.name != "ellipsis")
    sharding = Sharding(((), ()), (("X", 2),))
    assert whole.with_sharding(sharding) == replace(whole, sharding=sharding)
    assert whole.with_sharding(sharding).sharding == sharding
    assert whole.with_named({"k": 3}) == replace(whole, named=(("k", 3),))
    assert whole.with_named({"k": 3}).sharding == whole.sharding
    assert whole.with_dims((5, 6), 1) == replace(whole, dims=(5, 6), ellipsis=1, sharding=None)
    assert whole.with_dtype("int32") == replace(whole, dtype="int32", weak=False)
    assert whole.with_dtype("int32").sharding == whole.sharding
    assert whole.map_dims(lambda size: size) == whole and whole.map_dims(lambda size: size).sharding == whole.sharding
    for copy in (whole.with_sharding(sharding), whole.with_named({}), whole.with_dtype("int32")):
        assert (copy.named_open, copy.weak or copy.dtype == "int32") == (True, True)
