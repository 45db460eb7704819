"""Named axes in the algebra: broadcasting by name, reductions, and einsum with `{names}`.

The examples are the xmap tutorial's, with NumPy computing the positional result where the
tutorial compares against a positional program.
"""

from __future__ import annotations

import numpy as np
import pytest

from shapecheck import Sym, f32, i32
from shapecheck.algebra import linalg
from shapecheck.algebra.axis_mapping import apply_in_axes, apply_out_axes, parse_axis_spec
from shapecheck.algebra.broadcast import broadcast
from shapecheck.algebra.einsum import EinsumSpec, einsum, parse_einsum
from shapecheck.algebra.outcome import Outcome, Problem
from shapecheck.algebra.reduction import reduce
from shapecheck.literal import from_value
from shapecheck.types import ArrayType, scalar


def spec(text: str) -> EinsumSpec:
    parsed = parse_einsum(text)
    assert isinstance(parsed, EinsumSpec), parsed
    return parsed


def only(outcome: Outcome, code: str) -> Problem:
    assert [p.code for p in outcome.problems] == [code], outcome.problems
    return outcome.problems[0]


def xmap_types(in_axes: object, out_axes: object, args: list[ArrayType], body: object) -> object:
    """Argument types through in_axes, the body, the result through out_axes; no problems."""
    in_spec, problems = parse_axis_spec(from_value(in_axes), "in_axes")
    out_spec, more = parse_axis_spec(from_value(out_axes), "out_axes")
    assert in_spec is not None and out_spec is not None and not problems and not more
    inner, sizes = apply_in_axes(in_spec, args)
    assert sizes.problems == []
    result = body(*inner)  # type: ignore[operator]
    outer, out_problems = apply_out_axes(out_spec, result, sizes.sizes)
    assert out_problems == []
    return outer


# --- broadcasting by name -------------------------------------------------------------------


def named_broadcasting(x: ArrayType, y: ArrayType, z: ArrayType) -> ArrayType:
    """The tutorial's body: i = x + y; j = y + z; k = i + j, checked step by step."""
    i = broadcast([x, y], ["x", "y"])
    assert i.ok and i.type == f32[(2, 3, 1), {"a": 2, "b": 3}]
    j = broadcast([y, z], ["y", "z"])
    assert j.ok and j.type == f32[(1, 3, 5), {"b": 3, "c": 5}]
    k = broadcast([i.type, j.type], ["i", "j"])
    assert k.ok
    return k.type


def test_tutorial_named_broadcasting() -> None:
    k = named_broadcasting(
        f32[(2, 1, 1), {"a": 2}], f32[(1, 3, 1), {"b": 3}], f32[(1, 1, 5), {"c": 5}]
    )
    assert k == f32[(2, 3, 5), {"a": 2, "b": 3, "c": 5}]


def test_tutorial_named_broadcasting_under_xmap() -> None:
    shapes = [(2, 2, 1, 1), (3, 1, 3, 1), (5, 1, 1, 5)]
    k = xmap_types(
        (["a", ...], ["b", ...], ["c", ...]),
        ["a", "b", "c", ...],
        [f32[s] for s in shapes],
        named_broadcasting,
    )
    assert k == f32[(2, 3, 5, 2, 3, 5)]


def test_named_axes_never_meet_positional_ones() -> None:
    # A named axis of size 3 and a positional dim of size 4 are different axes.
    out = broadcast([f32[(4,), {"k": 3}], f32[(4,)]])
    assert out.ok
    assert out.type == f32[(4,), {"k": 3}]


def test_named_size_conflict_names_axis_operands_and_sizes() -> None:
    out = broadcast([f32[(5,), {"k": 7}], f32[(5,), {"k": 8}]], ["x", "y"])
    problem = only(out, "SC102")
    assert problem.axes == ("k",)
    assert problem.sizes == (7, 8)
    assert problem.operands == (0, 1)
    for part in ("'k'", "7", "8", "x", "y"):
        assert part in problem.message


def test_named_unknown_and_symbolic_sizes_unify_without_problems() -> None:
    out = broadcast([f32[(), {"k": None}], f32[(), {"k": "K"}], f32[(), {"k": 4}]])
    assert out.ok
    assert out.type.named_dict == {"k": 4}
    assert broadcast([f32[(), {"k": "K"}], f32[(), {"k": None}]]).type.named_dict == {"k": Sym("K")}


def test_named_open_survives_broadcasting() -> None:
    out = broadcast([f32[(5,), ...], f32[(5,), {"k": 2}]])
    assert out.ok
    assert out.type.named_open
    assert out.type.named_dict == {"k": 2}


def test_positional_conflict_names_both_sizes() -> None:
    out = broadcast([f32[(5, 3)], f32[(4,)]], ["x", "y"])
    problem = only(out, "SC101")
    assert problem.sizes == (3, 4)
    assert problem.operands == (0, 1)
    assert "3" in problem.message and "4" in problem.message


def test_python_scalars_are_weak() -> None:
    out = broadcast([i32[(5,), {"b": 2}], scalar("i64")])  # a Python int
    assert out.ok
    # A weak scalar neither widens the dtype nor adds dims.
    assert out.type == i32[(5,), {"b": 2}]
    assert not out.type.weak
    # A Python float does change an int array's kind: JAX gives a weakly typed default float.
    floated = broadcast([i32[(5,)], scalar("f64")]).type
    assert (floated.dtype, floated.weak) == ("f64", True)


def test_matmul_unions_named_axes() -> None:
    out = linalg.matmul(f32[(5, 7), {"b": 2}], f32[(7, 3), {"h": 4}])
    assert out.ok
    assert out.type == f32[(5, 3), {"b": 2, "h": 4}]
    clash = linalg.matmul(f32[(5, 7), {"b": 2}], f32[(7, 3), {"b": 4}])
    assert [p.code for p in clash.problems] == ["SC102"]


def test_contraction_mismatch_names_both_sizes() -> None:
    out = linalg.matmul(f32[(5, 7)], f32[(8, 3)], ["x", "w"])
    problem = only(out, "SC104")
    assert problem.sizes == (7, 8)
    assert all(part in problem.message for part in ("7", "8", "x", "w"))


# --- reductions -----------------------------------------------------------------------------


def test_tutorial_named_broadcast_and_reduce() -> None:
    x, y = f32[(), {"x": 2}], f32[(5,), {"y": 4}]
    z = broadcast([x, y])
    assert z.ok and z.type == f32[(5,), {"x": 2, "y": 4}]
    w = reduce(z.type, (0, "x", "y"))
    assert w.ok and w.type == f32[()]
    # In steps: the positional axis, then 'x', then 'y'.
    w0 = reduce(z.type, 0)
    assert w0.type == f32[(), {"x": 2, "y": 4}]
    w0x = reduce(w0.type, "x")
    assert w0x.type == f32[(), {"y": 4}]
    assert reduce(w0x.type, "y").type == w.type


def test_tutorial_reduce_under_xmap() -> None:
    def body(x: ArrayType, y: ArrayType) -> ArrayType:
        return reduce(broadcast([x, y]).type, (0, "x", "y")).type

    result = xmap_types(({0: "x"}, {1: "y"}), {}, [f32[(2,)], f32[(5, 4)]], body)
    assert result == f32[()]


@pytest.mark.parametrize(
    ("axis", "keepdims"),
    [(1, False), (1, True), ((0, 2), True), ((0, 2), False), ((-1,), True), (None, True), (None, False)],
)
def test_positional_part_of_mixed_reductions_matches_numpy(axis: int | tuple[int, ...] | None, keepdims: bool) -> None:
    shape = (2, 3, 4)
    mixed: tuple[int | str, ...] | int | None = axis
    if axis is not None:
        mixed = (*(axis if isinstance(axis, tuple) else (axis,)), "k")
    out = reduce(f32[shape, {"k": 5, "b": 6}], mixed, keepdims=keepdims)
    assert out.ok
    assert out.type.dims == np.sum(np.zeros(shape), axis=axis, keepdims=keepdims).shape
    # keepdims applies to positional dims only: the named axis is gone either way.
    expected_named = {"b": 6} if axis is not None else {"k": 5, "b": 6}
    assert out.type.named_dict == expected_named


def test_reduction_axis_none_keeps_named_axes() -> None:
    out = reduce(f32[(2, 3), {"k": 5}], None)
    assert out.type == f32[(), {"k": 5}]


def test_reduction_over_a_name_only() -> None:
    out = reduce(f32[(2, 3), {"k": 5, "b": 6}], "k", keepdims=True)
    assert out.type == f32[(2, 3), {"b": 6}]


def test_reduction_axis_out_of_range() -> None:
    problem = only(reduce(f32[(2, 3), {"k": 5}], (0, 2, "k")), "SC106")
    assert problem.axes == (2,)
    assert "2" in problem.message


def test_reduction_repeated_axis() -> None:
    problem = only(reduce(f32[(2, 3)], (1, -1)), "SC106")
    assert problem.axes == (-1,)


def test_reduction_of_open_rank_removes_names_and_keeps_rank_open() -> None:
    out = reduce(f32[(5, ...), {"k": 2, "b": 3}], (0, "k"))
    assert out.ok
    assert out.type.named_dict == {"b": 3}
    assert out.type.rank is None


def test_reduction_result_dtype() -> None:
    out = reduce(i32[(4,)], 0, dtype="i32", keep_dtype=False)
    assert out.type.dtype == "i32"
    assert reduce(i32[(4,)], 0, keep_dtype=False).type.dtype is None


# --- einsum with braces ---------------------------------------------------------------------

X = f32[(5,), {"b": 20, "k": 7}]
Y = f32[(), {"k": 7, "m": 11}]


def test_tutorial_named_einsum() -> None:
    out = einsum(spec("n{b,k},{k,m}->n{b,m}"), [X, Y])
    assert out.ok
    assert out.type == f32[(5,), {"b": 20, "m": 11}]


def test_tutorial_named_einsum_under_xmap_matches_positional_einsum() -> None:
    x_shape, y_shape = (20, 5, 7), (7, 11)
    expected = np.einsum("bnk,km->bnm", np.ones(x_shape), np.ones(y_shape)).shape

    def body(x: ArrayType, y: ArrayType) -> ArrayType:
        assert x == X and y == Y  # the tutorial's annotations of the body's arguments
        out = einsum(spec("n{b,k},{k,m}->n{b,m}"), [x, y])
        assert out.ok
        return out.type

    result = xmap_types(
        [{0: "b", 2: "k"}, ["k", "m", ...]], {0: "b", 2: "m"}, [f32[x_shape], f32[y_shape]], body
    )
    assert isinstance(result, ArrayType)
    assert result.dims == expected


def test_einsum_names_are_trimmed_of_spaces() -> None:
    assert spec("n{ b , k },{k,m}->n{b, m}") == spec("n{b,k},{k,m}->n{b,m}")


def test_einsum_empty_braces_are_an_empty_list() -> None:
    parsed = spec("n{},{k}->n")
    assert parsed.inputs[0].names == ()
    assert parsed.inputs[1].names == ("k",)
    assert spec("nk,km->nm").inputs[0].names is None


def test_einsum_output_order_is_honoured() -> None:
    out = einsum(spec("ij{k},{k}->ji"), [f32[(2, 3), {"k": 4}], f32[(), {"k": 4}]])
    assert out.ok
    assert out.type == f32[(3, 2)]


def test_einsum_implicit_output_keeps_names_mentioned_once() -> None:
    out = einsum(spec("n{b,k},{k,m}"), [X, Y])
    assert out.ok
    assert out.type == f32[(5,), {"b": 20, "m": 11}]


def test_einsum_named_axes_not_in_the_output_are_contracted() -> None:
    out = einsum(spec("n{b,k},{k,m}->n"), [X, Y])
    assert out.ok
    assert out.type == f32[(5,)]


def test_einsum_axis_omitted_everywhere_broadcasts() -> None:
    # 'b' is in x's named shape but in no term: it is carried over, like any elementwise op.
    out = einsum(spec("n{k},{k,m}->n{m}"), [X, Y])
    assert out.ok
    assert out.type == f32[(5,), {"b": 20, "m": 11}]


def test_einsum_skipping_is_required_where_the_operand_lacks_the_axis() -> None:
    out = einsum(spec("n{b,k},{k,m}->n{b,m}"), [X, Y])  # y has no 'b' and does not list it
    assert out.ok


def test_einsum_sc204_operand_skips_an_axis_it_has() -> None:
    y_with_b = f32[(), {"k": 7, "m": 11, "b": 20}]
    out = einsum(spec("n{k},{k,m,b}->n{m}"), [X, y_with_b], ["x", "y"])
    problem = only(out, "SC204")
    assert problem.axes == ("b",)
    assert problem.operands == (0,)
    assert "'b'" in problem.message and "x" in problem.message


def test_einsum_named_size_mismatch() -> None:
    out = einsum(spec("n{b,k},{k,m}->n{b,m}"), [X, f32[(), {"k": 8, "m": 11}]])
    problem = only(out, "SC102")
    assert problem.axes == ("k",) and problem.sizes == (7, 8)
    assert "7" in problem.message and "8" in problem.message


def test_einsum_letter_size_mismatch() -> None:
    out = einsum(spec("nk,km->nm"), [f32[(5, 7)], f32[(8, 3)]], ["x", "y"])
    problem = only(out, "SC104")
    assert problem.axes == ("k",) and problem.sizes == (7, 8)
    assert all(part in problem.message for part in ("7", "8", "x", "y"))


def test_einsum_ellipsis_dims_that_cannot_broadcast() -> None:
    out = einsum(spec("...i,...i->..."), [f32[(2, 3)], f32[(4, 3)]], ["x", "y"])
    problem = only(out, "SC101")
    assert problem.sizes == (2, 4)
    assert all(part in problem.message for part in ("2", "4", "x", "y"))
    ok = einsum(spec("...i,...i->..."), [f32[(2, 3)], f32[(1, 3)]])
    assert ok.ok and ok.type.dims == (2,)


@pytest.mark.parametrize(
    ("text", "part"),
    [
        ("n{b{k}},{k}", "n{b{k}}"),
        ("n{b,{k}", "{"),
        ("n}b,k", "}"),
        ("n{b,},{k}", "n{b,}"),
        ("n{b,b},{b}", "n{b,b}"),
        ("a->b->c", "->"),
        ("a.b,b", "'.'"),
        ("a b>c", "'>'"),
        ("......a", "..."),
        ("n{b}m,{b}", "n{b}m"),
        ("n{b}{k},{k}", "n{b}{k}"),
    ],
)
def test_einsum_malformed_spec_is_sc003(text: str, part: str) -> None:
    problem = parse_einsum(text)
    assert isinstance(problem, Problem)
    assert problem.code == "SC003"
    assert part in problem.message


@pytest.mark.parametrize(
    ("text", "operands", "part"),
    [
        ("n{b,k},{k,m},->n{b,m}", [X, Y, f32[()]], "3"),  # names allow at most two operands
        ("n,m", [X], "2"),  # operand count
        ("n{b,k},{k,m}->nz", [X, Y], "z"),  # output letter in no operand
        ("n{b,k},{k,m}->nn", [X, Y], "n"),  # output letter repeated
        ("n{b,k},{k,m}->n{b,z}", [X, Y], "z"),  # output name in no operand
        ("n{b,k},{k,q}->n{b}", [X, Y], "q"),  # operand lists a name it lacks
        ("nm{b,k},{k,m}->n", [X, Y], "nm"),  # letters do not match the rank
    ],
)
def test_einsum_spec_that_does_not_fit_is_sc003(text: str, operands: list[ArrayType], part: str) -> None:
    out = einsum(spec(text), operands)
    assert "SC003" in {p.code for p in out.problems}
    assert any(part in p.message for p in out.problems if p.code == "SC003")


def test_einsum_three_positional_operands_are_fine_without_names() -> None:
    out = einsum(spec("ij,jk,kl->il"), [f32[(2, 3)], f32[(3, 4)], f32[(4, 5)]])
    assert out.ok and out.type.dims == (2, 5)


def test_einsum_open_named_operand_may_list_any_name() -> None:
    out = einsum(spec("n{k},{k}->n"), [f32[(5,), ...], f32[(), {"k": 3}]])
    assert out.ok
    assert out.type.named_open


# --- einsum with unknowns: nothing claimed that the unknowns could contradict ----------------


def test_einsum_operand_of_unknown_rank_leaves_size_one_letters_unknown() -> None:
    # The second operand may hold any size for 'a' (a 1 broadcasts against it) but its 'b'
    # must be 3 or 1; the output has no `...`, so its rank is exact.
    out = einsum(spec("ab,ab->ab"), [f32[(1, 3)], f32[...]])
    assert out.ok
    assert out.type == f32[(None, 3), ...]


def test_einsum_open_ellipsis_stays_where_the_output_puts_it() -> None:
    out = einsum(spec("a...,a...->a..."), [f32[(2, 3)], f32[(2, ...)]])
    assert out.ok
    assert out.type.dims == (2,)
    assert out.type.ellipsis == 1  # (2, ...): the dims under `...` are unknown in number


def test_einsum_symbolic_letter_may_broadcast_from_one() -> None:
    # 'n' may be 1 and broadcast against the unknown size: the result is unknown, not 'n'.
    out = einsum(spec("i,i->i"), [f32[("n",)], f32[(None,)]])
    assert out.ok
    assert out.type.dims == (None,)
    assert einsum(spec("i,i->i"), [f32[("n",)], f32[("n",)]]).type.dims == (Sym("n"),)
    assert einsum(spec("i,i->i"), [f32[("n",)], f32[(4,)]]).type.dims == (4,)
