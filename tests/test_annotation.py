"""The annotation language (DESIGN.md section 2): run-time `f32[...]` objects, SC001 forms, jaxtyping."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import shapecheck
from shapecheck import Array, ArrayType, DType, InvalidAnnotation, Sym, bf16, bool_, f32, i32
from shapecheck.annotation import AnnotationError, parse_annotation, parse_jaxtyping
from shapecheck.dims import Dim
from shapecheck.dtypes import DTYPE_NAMES
from shapecheck.literal import Kind, Lit, from_value

# What `from shapecheck import *` brings into scope: the namespace a repr must evaluate in.
STAR: dict[str, Any] = {name: getattr(shapecheck, name) for name in shapecheck.__all__}


def roundtrip(value: ArrayType) -> object:
    return eval(repr(value), dict(STAR))


# --- valid annotations ---------------------------------------------------------------------


def test_positional_and_named() -> None:
    t = f32[(5, 7), {"batch": 20}]
    assert isinstance(t, ArrayType)
    assert t.dtype == "f32"
    assert t.dims == (5, 7)
    assert t.named_dict == {"batch": 20}
    assert t.rank == 2
    assert not t.named_open
    assert t.ellipsis is None


def test_omitted_named_shape_means_no_named_axes() -> None:
    t = f32[(5, 7)]
    assert t.named == ()
    assert not t.named_open
    assert t == f32[(5, 7), {}]


def test_scalar() -> None:
    t = f32[()]
    assert t.dims == () and t.rank == 0 and t.named == () and t.ellipsis is None
    assert t != f32[(1,)]


def test_one_dim_tuple() -> None:
    t = i32[(5,)]
    assert t.dims == (5,) and t.dtype == "i32"


def test_unknown_symbolic_and_ellipsis_dims() -> None:
    t = f32[(None, "n", ...)]
    assert t.dims == (None, Sym("n"))
    assert t.ellipsis == 2
    assert t.rank is None
    assert t.symbols() == {"n"}
    leading = f32[(..., 3)]
    assert leading.dims == (3,) and leading.ellipsis == 0


def test_any_named_axes() -> None:
    t = f32[(5,), ...]
    assert t.dims == (5,)
    assert t.named == ()
    assert t.named_open
    assert not t.is_anything
    assert t != f32[(5,)]


def test_anything() -> None:
    assert Array[...].is_anything
    assert Array[...].dtype is None
    assert f32[...].dtype == "f32"
    assert f32[...].is_anything
    assert f32[...] != Array[...]
    # Any positional shape and any named axes, spelled out, is the same type.
    assert f32[(...,), ...] == f32[...]


def test_array_means_any_dtype() -> None:
    t = Array[(2, 3), {"k": 4}]
    assert t.dtype is None
    assert t.dims == (2, 3)
    assert t != f32[(2, 3), {"k": 4}]


def test_symbolic_named_size() -> None:
    t = f32[(5,), {"batch": "B", "seq": None}]
    assert t.named_dict == {"batch": Sym("B"), "seq": None}
    assert t.symbols() == {"B"}


def test_zero_size_is_valid() -> None:
    assert f32[(0, 3), {"e": 0}].dims == (0, 3)


def test_every_dtype_name_is_exported() -> None:
    for name in DTYPE_NAMES:
        dtype = getattr(shapecheck, name)
        assert isinstance(dtype, DType)
        assert dtype[(2,)].dtype == name
        assert repr(dtype) == name


def test_order_of_named_keys_is_irrelevant() -> None:
    a = f32[(5,), {"a": 2, "b": 3, "c": None}]
    b = f32[(5,), {"c": None, "b": 3, "a": 2}]
    assert a == b
    assert hash(a) == hash(b)
    assert repr(a) == repr(b)
    assert len({a, b}) == 1


def test_equality_distinguishes_every_part() -> None:
    base = f32[(5, 7), {"b": 2}]
    others = [
        bf16[(5, 7), {"b": 2}],
        f32[(7, 5), {"b": 2}],
        f32[(5, 7), {"b": 3}],
        f32[(5, 7), {"c": 2}],
        f32[(5, 7, ...), {"b": 2}],
        f32[(5, None), {"b": 2}],
        f32[(5, "n"), {"b": 2}],
        f32[(5, 7)],
    ]
    for other in others:
        assert other != base, other
    assert f32[(5, 7), {"b": 2}] == base
    assert hash(f32[(5, 7), {"b": 2}]) == hash(base)


def test_immutable() -> None:
    t = f32[(5,)]
    with pytest.raises(AttributeError):
        t.dims = (6,)  # type: ignore[misc]


@pytest.mark.parametrize(
    "value",
    [
        f32[(5, 7), {"batch": 20}],
        f32[()],
        f32[(5,)],
        f32[(None, "n", ...)],
        f32[(5,), ...],
        f32[(...,)],
        Array[...],
        f32[...],
        Array[(2,), {"k": "K", "b": None}],
        bool_[(0,)],
        bf16[(1, ..., 2), {"z": 1, "a": 3}],
    ],
    ids=repr,
)
def test_repr_round_trips(value: ArrayType) -> None:
    assert roundtrip(value) == value


# Random annotations: every one the language can write evaluates back to itself from its repr.
names = st.text(alphabet="abcdefgxyz_", min_size=1, max_size=4).filter(str.isidentifier)
dims: st.SearchStrategy[Dim] = st.one_of(
    st.integers(0, 64), st.none(), names.map(Sym)
)


@st.composite
def annotations(draw: st.DrawFn) -> tuple[DType, tuple[object, ...], dict[str, object] | None]:
    dtype = draw(st.sampled_from([getattr(shapecheck, n) for n in DTYPE_NAMES] + [Array]))
    raw = [d.name if isinstance(d, Sym) else d for d in draw(st.lists(dims, max_size=4))]
    positional: list[object] = list(raw)
    if draw(st.booleans()):
        positional.insert(draw(st.integers(0, len(raw))), ...)
    named = draw(st.none() | st.dictionaries(names, dims, max_size=3))
    named_raw = None if named is None else {
        k: (v.name if isinstance(v, Sym) else v) for k, v in named.items()
    }
    return dtype, tuple(positional), named_raw


@settings(max_examples=200, deadline=None)
@given(annotations())
def test_random_annotations_round_trip(case: tuple[DType, tuple[object, ...], dict[str, object] | None]) -> None:
    dtype, positional, named = case
    value = dtype[positional] if named is None else dtype[positional, named]
    assert roundtrip(value) == value
    assert hash(roundtrip(value)) == hash(value)
    expected_dims = tuple(Sym(d) if isinstance(d, str) else d for d in positional if d is not ...)
    assert value.dims == expected_dims
    assert value.named_dict == {
        k: (Sym(v) if isinstance(v, str) else v) for k, v in (named or {}).items()
    }


# --- invalid annotations (SC001) -----------------------------------------------------------


def raises_naming(build: Any, *parts: str) -> str:
    with pytest.raises(InvalidAnnotation) as info:
        build()
    message = str(info.value)
    for part in parts:
        assert part in message, (part, message)
    return message


def test_invalid_annotation_is_a_type_error() -> None:
    assert issubclass(InvalidAnnotation, TypeError)


def test_negative_size() -> None:
    raises_naming(lambda: f32[(5, -3)], "-3")
    raises_naming(lambda: f32[(5,), {"batch": -20}], "-20", "batch")


def test_float_size() -> None:
    raises_naming(lambda: f32[(2.5,)], "2.5")
    raises_naming(lambda: f32[(5,), {"k": 7.0}], "7.0", "k")


def test_bool_size() -> None:
    # bool is an int subclass in Python: it must not slip through as 1.
    raises_naming(lambda: f32[(True,)], "True")
    raises_naming(lambda: f32[(2,), {"k": False}], "False", "k")


def test_symbol_that_is_not_an_identifier() -> None:
    raises_naming(lambda: f32[("n m",)], "n m")


def test_non_string_axis_name() -> None:
    raises_naming(lambda: f32[(5,), {17: 3}], "17")
    raises_naming(lambda: f32[(5,), {None: 3}], "None")


def test_ellipsis_twice() -> None:
    raises_naming(lambda: f32[(..., 5, ...)], "...")


def test_ellipsis_inside_named_shape() -> None:
    message = raises_naming(lambda: f32[(5,), {"batch": 20, ...: ...}], "...")
    # The fix it names must itself be valid: for "any named axes" write f32[(5,), ...].
    assert "f32[(5,), ...]" in message
    raises_naming(lambda: f32[(5,), {...: ...}], "...")


def test_set_in_place_of_named_shape() -> None:
    # `{..., ...}` is a set literal, not a dict.
    raises_naming(lambda: f32[(5,), {..., ...}], "named shape")  # noqa: B033


def test_named_shape_that_is_not_a_dict() -> None:
    raises_naming(lambda: f32[(5,), 3], "named shape", "3")
    raises_naming(lambda: f32[(5,), ["k"]], "named shape", "['k']")


def test_three_parts() -> None:
    raises_naming(lambda: f32[(5,), {"b": 2}, 99], "99")


def test_non_tuple_positional() -> None:
    raises_naming(lambda: f32[[5, 7]], "[5, 7]")
    raises_naming(lambda: f32[5], "5", "(5,)")
    raises_naming(lambda: f32["n"], "'n'")
    raises_naming(lambda: f32[[5], {"b": 2}], "[5]")


def test_non_literal_dim() -> None:
    raises_naming(lambda: f32[(object(),)], "object")
    raises_naming(lambda: f32[(5, (6,))], "(6,)")


def test_trailing_comma_is_the_one_part_form() -> None:
    # `f32[(5,),]` is valid syntax for `f32[(5,)]`; at run time it arrives as `((5,),)`.
    assert f32[(5,),] == f32[(5,)]


def test_message_names_the_dtype() -> None:
    raises_naming(lambda: i32[(-1,)], "i32")
    raises_naming(lambda: Array[(-1,)], "Array")


# The static path: front ends hand parse_annotation literal trees, duplicates included.


def lit_dict(*pairs: tuple[Lit, Lit]) -> Lit:
    return Lit(Kind.DICT, items=tuple(node for pair in pairs for node in pair))


def test_duplicate_axis_name() -> None:
    origin = object()
    positional = from_value((5,))
    named = lit_dict(
        (from_value("batch"), from_value(20)),
        (Lit(Kind.STR, "batch", text="'batch'", origin=origin), from_value(20)),
    )
    result = parse_annotation("f32", [positional, named])
    assert isinstance(result, AnnotationError)
    assert "'batch'" in result.message
    # The error points at the repeated key, so a front end can underline it.
    assert result.origin is origin


def test_static_errors_point_at_the_bad_node() -> None:
    marker = object()
    bad = Lit(Kind.INT, -4, text="-4", origin=marker)
    result = parse_annotation("f32", [Lit(Kind.TUPLE, items=(from_value(3), bad))])
    assert isinstance(result, AnnotationError)
    assert result.origin is marker
    assert "-4" in result.message


def test_static_call_and_name_are_never_evaluated() -> None:
    call = Lit(Kind.OTHER, text="compute_size()")
    name = Lit(Kind.NAME, "N", text="N")
    for node in (call, name):
        result = parse_annotation("f32", [Lit(Kind.TUPLE, items=(node,))])
        assert isinstance(result, AnnotationError)
        assert node.text in result.message


def test_static_empty_subscript() -> None:
    assert isinstance(parse_annotation("f32", []), AnnotationError)


def test_static_three_parts_points_at_the_extra_part() -> None:
    marker = object()
    extra = Lit(Kind.INT, 99, text="99", origin=marker)
    result = parse_annotation("f32", [from_value((5,)), from_value({}), extra])
    assert isinstance(result, AnnotationError)
    assert result.origin is marker
    assert "99" in result.message


def test_static_valid_forms_match_run_time_objects() -> None:
    cases: list[tuple[list[object], ArrayType]] = [
        ([(5, 7), {"batch": 20}], f32[(5, 7), {"batch": 20}]),
        ([()], f32[()]),
        ([(None, "n", ...)], f32[(None, "n", ...)]),
        ([(5,), ...], f32[(5,), ...]),
        ([...], f32[...]),
    ]
    for parts, expected in cases:
        assert parse_annotation("f32", [from_value(p) for p in parts]) == expected


# --- jaxtyping -----------------------------------------------------------------------------


def jaxtyping(spec: str, dtype: str | None = None) -> ArrayType:
    result = parse_jaxtyping(dtype, [Lit(Kind.NAME, "Array", text="Array"), from_value(spec)])
    assert isinstance(result, ArrayType), result
    assert result.named == () and not result.named_open
    return result


@pytest.mark.parametrize(
    ("spec", "dims", "ellipsis"),
    [
        ("batch seq", (Sym("batch"), Sym("seq")), None),
        ("*b n", (Sym("n"),), 0),
        ("n *b", (Sym("n"),), 1),
        ("#n", (None,), None),  # broadcastable: may be 1
        ("#4", (None,), None),  # broadcastable fixed size: 4 or 1
        ("_", (None,), None),
        ("_n", (None,), None),  # anonymous: not bound across arguments
        ("n=4", (4,), None),
        ("rows=3 cols=4", (3, 4), None),
        ("3", (3,), None),
        ("28 28", (28, 28), None),
        ("...", (), 0),
        ("b ... c", (Sym("b"), Sym("c")), 1),
        ("", (), None),
        ("  batch   seq ", (Sym("batch"), Sym("seq")), None),
        ("dim-1", (None,), None),  # a symbolic expression: no static size
        ("?n", (None,), None),
        ("#*b n", (Sym("n"),), 0),
        ("*#b n", (Sym("n"),), 0),
        ("_*b n", (Sym("n"),), 0),  # modifiers come in any order
        ("*_ n", (Sym("n"),), 0),
    ],
)
def test_jaxtyping_dims(spec: str, dims: tuple[Dim, ...], ellipsis: int | None) -> None:
    result = jaxtyping(spec, "f32")
    assert result.dims == dims
    assert result.ellipsis == ellipsis
    assert result.dtype == "f32"


def test_jaxtyping_same_type_as_the_language() -> None:
    assert jaxtyping("batch 5 *rest", "f32") == f32[("batch", 5, ...)]
    assert jaxtyping("", "f32") == f32[()]


def test_jaxtyping_odd_digits_do_not_crash() -> None:
    # `str.isdigit` accepts '²', which int() refuses: jaxtyping reads it as a symbolic expression.
    assert jaxtyping("²").dims == (None,)


def test_jaxtyping_two_variadics_are_rejected_as_jaxtyping_does() -> None:
    result = parse_jaxtyping(None, [Lit(Kind.NAME, "Array"), from_value("*a *b")])
    assert isinstance(result, AnnotationError)
    assert "*a *b" in result.message


def test_jaxtyping_needs_a_dims_string() -> None:
    assert isinstance(parse_jaxtyping(None, [Lit(Kind.NAME, "Array")]), AnnotationError)
    result = parse_jaxtyping(None, [Lit(Kind.NAME, "Array"), from_value(3)])
    assert isinstance(result, AnnotationError)


def test_jaxtyping_bare_ellipsis_names_the_fix() -> None:
    # jaxtyping calls `.strip()` on the dims: `Float[Array, ...]` fails; `"..."` is what it means.
    result = parse_jaxtyping(None, [Lit(Kind.NAME, "Array"), Lit(Kind.ELLIPSIS, text="...")])
    assert isinstance(result, AnnotationError)
    assert 'Dtype[Array, "..."]' in result.message
