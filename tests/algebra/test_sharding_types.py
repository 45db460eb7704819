"""Sharding in types, rule by rule (JAX 0.10.2's answers, from reference/jax-sharding-types.md)."""

from __future__ import annotations

from shapecheck.algebra import sharding_types as st
from shapecheck.codes import Code
from shapecheck.types import ArrayType, Sharding

MESH = (("X", 2), ("Y", 4))


def typed(dims: tuple[int, ...], *entries: tuple[str, ...] | None) -> ArrayType:
    return ArrayType.of("f32", dims).with_sharding(Sharding(tuple(entries), MESH))


def test_typeof_prints_as_jax_does() -> None:
    assert st.typeof(typed((8, 16), ("X",), ("Y",))) == "float32[8@X,16@Y]"
    assert st.typeof(typed((128,), ("X", "Y"))) == "float32[128@(X,Y)]"
    assert st.typeof(typed((8, 16), (), ())) == "float32[8,16]"


def test_broadcast_takes_the_one_split_and_refuses_two() -> None:
    a = typed((8, 16), ("X",), ("Y",))
    out = ArrayType.of("f32", (8, 16))
    assert st.broadcast([a, typed((8, 16), ("X",), ())], out, "add").sharding == a.sharding
    assert st.broadcast([a, typed((16,), ())], out, "add").sharding == a.sharding
    refused = st.broadcast([a, typed((8, 16), ("Y",), ("X",))], out, "add")
    assert refused.sharding is None and [p.code for p in refused.problems] == [Code.SHARDING_TYPE_MISMATCH]
    unknown = st.broadcast([a, ArrayType.of("f32", (8, 16))], out, "add")
    assert unknown.sharding is None and not unknown.problems  # an operand of unknown split


def test_a_result_split_twice_over_one_axis_is_refused() -> None:
    u = typed((8, 1), ("X",), ())
    v = typed((1, 16), (), ("X",))
    assert st.broadcast([u, v], ArrayType.of("f32", (8, 16)), "mul").problems


def test_contractions() -> None:
    a = typed((8, 16), ("X",), ("Y",))
    out = ArrayType.of("f32", (8, 4))
    assert st.dot_general(a, typed((16, 4), ("Y",), ()), ([1], [0]), ([], []), out, "dot").problems
    assert st.dot_general(a, typed((16, 4), ("X",), ()), ([1], [0]), ([], []), out, "dot").problems
    fine = st.dot_general(typed((8, 16), ("X",), ()), typed((16, 4), (), ("Y",)), ([1], [0]), ([], []), out, "dot")
    assert fine.sharding is not None and fine.sharding.dims == (("X",), ("Y",))


def test_reshape_splits_merges_and_refuses_regroupings() -> None:
    a = typed((8, 16), ("X",), ("Y",))

    def reshaped(value: ArrayType, *dims: int) -> st.Typed:
        return st.reshape(value, ArrayType.of("f32", dims), "a")

    assert reshaped(a, 128).sharding == Sharding((("X", "Y"),), MESH)
    assert reshaped(a, 8, 8, 2).sharding == Sharding((("X",), ("Y",), ()), MESH)
    assert reshaped(a, 1, 8, 16).sharding == Sharding(((), ("X",), ("Y",)), MESH)
    assert reshaped(a, 16, 8).problems and reshaped(a, 8, 2, 8).problems
    c = typed((2, 4, 16), ("X",), ("Y",), ())
    assert reshaped(c, 8, 16).sharding == Sharding((("X", "Y"), ()), MESH)


def test_along_axis_and_reduce() -> None:
    a = typed((8, 16), ("X",), ("Y",))
    assert st.along_axis(a, 1, "cumsum", "a").problems
    assert st.along_axis(typed((8, 16), ("Y",), ()), 1, "cumsum", "a").sharding is not None
    assert st.reduce(a, (1,), False, ArrayType.of("f32", (8,))).sharding == Sharding((("X",),), MESH)


def test_from_spec_keeps_explicit_axes_only() -> None:
    types = {"X": st.EXPLICIT, "Y": st.AUTO}
    assert st.from_spec((("X",), ("Y",)), 2, types, MESH) == Sharding((("X",), ()), MESH)
    assert st.from_spec((("X",),), 2, types, MESH) == Sharding((("X",), ()), MESH)
    problem = st.misnamed_axes((("Y",),), types, "reshard")
    assert problem is not None and problem.code == Code.AXIS_TYPE_MISUSE
