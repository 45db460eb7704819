"""Property tests of the shape algebra with NumPy as the oracle.

Every shape rule is checked against what NumPy does on real (empty or tiny) arrays: when NumPy
succeeds the algebra must give the same dims and report nothing; when NumPy raises the algebra
must report a problem of the right code. A second family of properties checks the gradual
guarantee: replacing known sizes by unknown or symbolic ones never adds a problem, and never
contradicts the concrete result.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from shapecheck.algebra import layout, linalg
from shapecheck.algebra.broadcast import broadcast
from shapecheck.algebra.einsum import EinsumSpec, parse_einsum
from shapecheck.algebra.einsum import einsum as einsum_type
from shapecheck.algebra.outcome import Outcome, Problem
from shapecheck.algebra.reduction import reduce
from shapecheck.algebra.reshape import reshape, squeeze
from shapecheck.dims import Dim, Sym
from shapecheck.types import ArrayType

SETTINGS = settings(max_examples=200, deadline=None)
Shape = tuple[int, ...]

sizes = st.integers(0, 4)
shapes = st.lists(sizes, max_size=4).map(tuple)


def typ(shape: Sequence[Dim], named: dict[str, Dim] | None = None) -> ArrayType:
    return ArrayType.of("f32", shape, named or {})


def numpy_shape(fn: Callable[[], np.ndarray]) -> Shape | None:
    """The shape NumPy computes, or None when NumPy refuses the shapes."""
    try:
        return tuple(fn().shape)
    except (ValueError, IndexError, TypeError):
        return None


def codes(outcome: Outcome) -> set[str]:
    return {p.code for p in outcome.problems}


def mentions(problem: Problem, *values: object) -> bool:
    """The message contains each value as a whole number or name (not as part of another)."""
    return all(re.search(rf"(?<![\w]){re.escape(str(v))}(?![\w])", problem.message) for v in values)


def assert_sizes_named(outcome: Outcome) -> None:
    """Every problem that carries two sizes names both of them in its message."""
    for problem in outcome.problems:
        ints = [s for s in problem.sizes if isinstance(s, int)]
        assert mentions(problem, *ints), problem


# --- broadcasting ----------------------------------------------------------------------------


@st.composite
def broadcast_shapes(draw: st.DrawFn) -> list[Shape]:
    """Shapes that broadcast to a common target, with an occasional size made incompatible."""
    target = draw(st.lists(sizes, max_size=4))
    count = draw(st.integers(1, 4))
    result = []
    for _ in range(count):
        rank = draw(st.integers(0, len(target)))
        dims = []
        for size in target[len(target) - rank :]:
            choice = draw(st.sampled_from(["same", "same", "one", "other"]))
            if choice == "one":
                size = 1
            elif choice == "other":
                size = draw(sizes)
            dims.append(size)
        result.append(tuple(dims))
    return result


@SETTINGS
@given(st.one_of(broadcast_shapes(), st.lists(shapes, min_size=1, max_size=3)))
def test_broadcast_matches_numpy(operands: list[Shape]) -> None:
    expected = numpy_shape(lambda: np.zeros(np.broadcast_shapes(*operands)))
    out = broadcast([typ(s) for s in operands])
    if expected is None:
        assert codes(out) == {"SC101"}
        for problem in out.problems:
            left, right = problem.sizes
            # A real conflict: two known sizes, neither 1, that differ.
            assert isinstance(left, int) and isinstance(right, int)
            assert left != right and 1 not in (left, right)
            assert mentions(problem, left, right)
    else:
        assert out.problems == ()
        assert out.type.dims == expected
        assert out.type.rank == len(expected)


# --- gradual: unknowns never add problems -----------------------------------------------------


def abstract(shape: Sequence[int], choices: Sequence[str]) -> ArrayType:
    """Forget some sizes: None (unknown), a symbol named after the size (a consistent binding),
    and, for each "open" the mask starts with, one leading dim behind a `...` of unknown rank."""
    opens = len(choices) - len("".join("x" if c == "open" else "-" for c in choices).lstrip("x"))
    cut = min(opens, len(shape))
    out: list[Dim] = []
    for size, choice in zip(shape[cut:], choices[opens:], strict=False):
        out.append(size if choice in ("keep", "open") else None if choice == "none" else Sym(f"s{size}"))
    out.extend(shape[cut + len(out) :])
    return typ(out).with_dims(out, 0 if opens else None)


forget = st.lists(st.sampled_from(["keep", "keep", "none", "sym", "open"]), min_size=8, max_size=8)


def consistent(claim: ArrayType, concrete: Sequence[int]) -> bool:
    """Every dim the vague result claims agrees with the concrete one (right-aligned after `...`)."""
    if claim.ellipsis is None:
        if len(claim.dims) != len(concrete):
            return False
        pairs = list(zip(claim.dims, concrete, strict=True))
    else:
        head, tail = claim.dims[: claim.ellipsis], claim.dims[claim.ellipsis :]
        if len(head) + len(tail) > len(concrete):
            return False
        pairs = list(zip(head, concrete, strict=False))
        pairs += list(zip(tail, concrete[len(concrete) - len(tail) :], strict=True))
    for dim, real in pairs:
        if isinstance(dim, int) and dim != real:
            return False
        if isinstance(dim, Sym) and dim != Sym(f"s{real}"):
            return False
    return True


@SETTINGS
@given(broadcast_shapes(), st.lists(forget, min_size=4, max_size=4))
def test_broadcast_unknowns_never_add_problems(operands: list[Shape], masks: list[list[str]]) -> None:
    concrete = broadcast([typ(s) for s in operands])
    vague = broadcast([abstract(s, m) for s, m in zip(operands, masks, strict=False)])
    if concrete.ok:
        assert vague.ok, vague
        assert consistent(vague.type, concrete.type.dims), (vague.type, concrete.type)
    # A problem in the vague version must be one the concrete version has too.
    assert codes(vague) <= codes(concrete)


# --- matmul, dot, vdot, tensordot -------------------------------------------------------------


@st.composite
def matmul_shapes(draw: st.DrawFn) -> tuple[Shape, Shape]:
    n, k, m = draw(sizes), draw(sizes), draw(sizes)
    batch = draw(broadcast_shapes())[:2]
    while len(batch) < 2:
        batch.append(())
    a: Shape = (*batch[0], n, k)
    b: Shape = (*batch[1], k, m)
    if draw(st.booleans()):
        a = (k,)
    if draw(st.booleans()):
        b = (k,)
    if draw(st.integers(0, 4)) == 0:
        b = (*b[:-2], draw(sizes), b[-1]) if len(b) >= 2 else (draw(sizes),)
    return a, b


@SETTINGS
@given(st.one_of(matmul_shapes(), st.tuples(shapes, shapes)))
def test_matmul_matches_numpy(pair: tuple[Shape, Shape]) -> None:
    a, b = pair
    expected = numpy_shape(lambda: np.matmul(np.zeros(a), np.zeros(b)))
    out = linalg.matmul(typ(a), typ(b))
    if expected is None:
        assert out.problems
        assert codes(out) <= {"SC101", "SC104", "SC106"}
        assert_sizes_named(out)
    else:
        assert out.problems == ()
        assert out.type.dims == expected


@SETTINGS
@given(matmul_shapes(), forget, forget)
def test_matmul_unknowns_never_add_problems(pair: tuple[Shape, Shape], ma: list[str], mb: list[str]) -> None:
    a, b = pair
    concrete = linalg.matmul(typ(a), typ(b))
    vague = linalg.matmul(abstract(a, ma), abstract(b, mb))
    if concrete.ok:
        assert vague.ok
        assert consistent(vague.type, concrete.type.dims)
    assert codes(vague) <= codes(concrete)


@SETTINGS
@given(st.one_of(matmul_shapes(), st.tuples(shapes, shapes)))
def test_dot_matches_numpy(pair: tuple[Shape, Shape]) -> None:
    a, b = pair
    expected = numpy_shape(lambda: np.dot(np.zeros(a), np.zeros(b)))
    out = linalg.dot(typ(a), typ(b))
    if expected is None:
        assert codes(out) == {"SC104"}
        assert_sizes_named(out)
    else:
        assert out.problems == ()
        assert out.type.dims == expected


@SETTINGS
@given(shapes, shapes)
def test_vdot_matches_numpy(a: Shape, b: Shape) -> None:
    expected = numpy_shape(lambda: np.asarray(np.vdot(np.zeros(a), np.zeros(b))))
    out = linalg.vdot(typ(a), typ(b))
    if expected is None:
        assert codes(out) == {"SC104"}
        assert_sizes_named(out)
    else:
        assert out.problems == ()
        assert out.type.dims == expected


@st.composite
def tensordot_case(draw: st.DrawFn) -> tuple[Shape, Shape, int | tuple[list[int], list[int]]]:
    a = draw(shapes)
    b = draw(shapes)
    if draw(st.booleans()):
        return a, b, draw(st.integers(-1, 3))
    count = draw(st.integers(0, 3))
    left = draw(st.lists(st.integers(-5, 4), min_size=count, max_size=count))
    right = draw(st.lists(st.integers(-5, 4), min_size=count, max_size=count))
    if draw(st.booleans()):
        # Make the contracted dims agree often enough to reach the success path.
        b = tuple(b)
        fixed = list(b)
        for i, j in zip(left, right, strict=True):
            if -len(a) <= i < len(a) and -len(b) <= j < len(b):
                fixed[j] = a[i]
        b = tuple(fixed)
    if draw(st.integers(0, 5)) == 0:
        right = right[:-1]
    return a, b, (left, right)


@SETTINGS
@given(tensordot_case())
def test_tensordot_matches_numpy(case: tuple[Shape, Shape, int | tuple[list[int], list[int]]]) -> None:
    a, b, axes = case
    expected = numpy_shape(lambda: np.tensordot(np.zeros(a), np.zeros(b), axes))
    out = linalg.tensordot(typ(a), typ(b), axes)
    if expected is None:
        assert out.problems
        assert codes(out) <= {"SC104", "SC106"}
        assert_sizes_named(out)
    else:
        assert out.problems == (), out
        assert out.type.dims == expected


# --- reshape ----------------------------------------------------------------------------------


@st.composite
def reshape_case(draw: st.DrawFn) -> tuple[Shape, list[int]]:
    shape = draw(st.lists(st.integers(0, 4), max_size=4).map(tuple))
    if draw(st.booleans()):
        # A regrouping of the same elements: merge neighbours, add 1s.
        target: list[int] = []
        for size in shape:
            if target and draw(st.booleans()):
                target[-1] *= size
            else:
                target.append(size)
            if draw(st.integers(0, 4)) == 0:
                target.append(1)
    else:
        target = draw(st.lists(st.integers(0, 8), max_size=4))
    if target and draw(st.booleans()):
        target[draw(st.integers(0, len(target) - 1))] = -1
    if target and draw(st.integers(0, 6)) == 0:
        target[draw(st.integers(0, len(target) - 1))] = draw(st.sampled_from([-1, -2]))
    return shape, target


@SETTINGS
@given(reshape_case())
def test_reshape_matches_numpy(case: tuple[Shape, list[int]]) -> None:
    shape, target = case
    expected = numpy_shape(lambda: np.zeros(shape).reshape(target))
    if any(size < -1 for size in target):
        # NumPy 2 reads any negative size as -1; JAX refuses all but -1 (test_jax_semantics).
        expected = None
    out = reshape(typ(shape), target)
    if expected is None:
        assert codes(out) == {"SC105"}
    else:
        assert out.problems == ()
        assert out.type.dims == expected


@SETTINGS
@given(
    st.lists(st.sampled_from([1, 1, 2, 0]), max_size=4).map(tuple),
    st.none() | st.integers(-5, 4) | st.lists(st.integers(-5, 4), max_size=3),
)
def test_squeeze_matches_numpy(shape: Shape, axis: int | list[int] | None) -> None:
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    expected = numpy_shape(lambda: np.squeeze(np.zeros(shape), np_axis))
    if shape == () and isinstance(np_axis, int):
        # As for reductions, NumPy accepts axis 0 or -1 on a 0-d array and JAX does not.
        expected = None
    out = squeeze(typ(shape), axis)
    if expected is None:
        assert out.problems
        assert codes(out) <= {"SC105", "SC106"}
        assert_sizes_named(out)
    else:
        assert out.problems == ()
        assert out.type.dims == expected


@SETTINGS
@given(reshape_case(), forget)
def test_reshape_unknowns_never_add_problems(case: tuple[Shape, list[int]], mask: list[str]) -> None:
    shape, target = case
    concrete = reshape(typ(shape), target)
    vague = reshape(abstract(shape, mask), target)
    if concrete.ok:
        assert vague.ok
        assert consistent(vague.type, concrete.type.dims)
    assert codes(vague) <= codes(concrete)


# --- reductions -------------------------------------------------------------------------------


@SETTINGS
@given(shapes, st.none() | st.integers(-5, 4) | st.lists(st.integers(-5, 4), max_size=3), st.booleans())
def test_reduce_matches_numpy(shape: Shape, axis: int | list[int] | None, keepdims: bool) -> None:
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    expected = numpy_shape(lambda: np.sum(np.zeros(shape), axis=np_axis, keepdims=keepdims))
    if shape == () and isinstance(np_axis, int):
        # NumPy still accepts axis 0 or -1 on a 0-d array; JAX refuses it (test_jax_semantics).
        expected = None
    out = reduce(typ(shape), np_axis, keepdims=keepdims)
    if expected is None:
        assert codes(out) == {"SC106"}
    else:
        assert out.problems == ()
        assert out.type.dims == expected


@SETTINGS
@given(shapes, st.none() | st.integers(-5, 4) | st.lists(st.integers(-5, 4), max_size=3), st.booleans(), forget)
def test_reduce_unknowns_never_add_problems(
    shape: Shape, axis: int | list[int] | None, keepdims: bool, mask: list[str]
) -> None:
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    concrete = reduce(typ(shape), np_axis, keepdims=keepdims)
    vague = reduce(abstract(shape, mask), np_axis, keepdims=keepdims)
    if concrete.ok:
        assert vague.ok
        assert consistent(vague.type, concrete.type.dims)
    assert codes(vague) <= codes(concrete)


# --- layout -----------------------------------------------------------------------------------


@SETTINGS
@given(shapes, st.none() | st.lists(st.integers(-5, 4), max_size=5))
def test_transpose_matches_numpy(shape: Shape, axes: list[int] | None) -> None:
    expected = numpy_shape(lambda: np.transpose(np.zeros(shape), axes))
    out = layout.transpose(typ(shape), axes)
    if expected is None:
        assert codes(out) == {"SC106"}
    else:
        assert out.problems == ()
        assert out.type.dims == expected


@SETTINGS
@given(shapes, st.integers(-5, 4), st.integers(-5, 4))
def test_swapaxes_and_moveaxis_match_numpy(shape: Shape, first: int, second: int) -> None:
    for np_fn, fn in ((np.swapaxes, layout.swapaxes), (np.moveaxis, layout.moveaxis)):
        expected = numpy_shape(lambda np_fn=np_fn: np_fn(np.zeros(shape), first, second))
        out = fn(typ(shape), first, second)
        if expected is None:
            assert codes(out) == {"SC106"}
        else:
            assert out.problems == ()
            assert out.type.dims == expected


@SETTINGS
@given(shapes, st.integers(-6, 5) | st.lists(st.integers(-6, 5), max_size=3))
def test_expand_dims_matches_numpy(shape: Shape, axis: int | list[int]) -> None:
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    expected = numpy_shape(lambda: np.expand_dims(np.zeros(shape), np_axis))
    out = layout.expand_dims(typ(shape), axis)
    if expected is None:
        assert codes(out) == {"SC106"}
    else:
        assert out.problems == ()
        assert out.type.dims == expected


@st.composite
def joined_shapes(draw: st.DrawFn) -> list[Shape]:
    base = draw(shapes)
    count = draw(st.integers(1, 3))
    out = []
    for _ in range(count):
        dims = list(base)
        if dims and draw(st.booleans()):
            dims[draw(st.integers(0, len(dims) - 1))] = draw(sizes)
        if draw(st.integers(0, 8)) == 0:
            dims = dims[:-1]
        out.append(tuple(dims))
    return out


@SETTINGS
@given(joined_shapes(), st.none() | st.integers(-5, 4))
def test_concatenate_matches_numpy(operands: list[Shape], axis: int | None) -> None:
    expected = numpy_shape(lambda: np.concatenate([np.zeros(s) for s in operands], axis=axis))
    out = layout.concatenate([typ(s) for s in operands], axis)
    if expected is None:
        assert out.problems
        assert codes(out) <= {"SC101", "SC106"}
        assert_sizes_named(out)
    else:
        assert out.problems == ()
        assert out.type.dims == expected


@SETTINGS
@given(joined_shapes(), st.integers(-5, 4))
def test_stack_matches_numpy(operands: list[Shape], axis: int) -> None:
    expected = numpy_shape(lambda: np.stack([np.zeros(s) for s in operands], axis=axis))
    out = layout.stack([typ(s) for s in operands], axis)
    if expected is None:
        assert out.problems
        assert codes(out) <= {"SC101", "SC106"}
        assert_sizes_named(out)
    else:
        assert out.problems == ()
        assert out.type.dims == expected


@SETTINGS
@given(joined_shapes(), st.integers(-4, 3), st.booleans(), st.lists(forget, min_size=3, max_size=3))
def test_join_unknowns_never_add_problems(
    operands: list[Shape], axis: int, use_stack: bool, masks: list[list[str]]
) -> None:
    join = layout.stack if use_stack else layout.concatenate
    concrete = join([typ(s) for s in operands], axis)
    vague = join([abstract(s, m) for s, m in zip(operands, masks, strict=False)], axis)
    if concrete.ok:
        assert vague.ok, (vague, concrete)
        assert consistent(vague.type, concrete.type.dims), (vague.type, concrete.type)
    assert codes(vague) <= codes(concrete)


index_items = st.one_of(
    st.integers(-5, 4),
    st.builds(
        layout.Slice,
        st.none() | st.integers(-5, 5),
        st.none() | st.integers(-5, 5),
        st.none() | st.integers(-3, 3).filter(bool),
    ),
    st.just(layout.NEW_AXIS),
    st.just(layout.ELLIPSIS),
)


def to_numpy_index(item: layout.IndexItem) -> object:
    if isinstance(item, layout.Slice):
        return slice(item.start, item.stop, item.step)
    if isinstance(item, layout.NewAxis):
        return None
    if isinstance(item, layout.Ellipsis_):
        return Ellipsis
    return item


def clamped(shape: Shape, items: list[layout.IndexItem]) -> list[layout.IndexItem]:
    """The index as JAX reads it: an int beyond a non-empty axis is clamped into it (NumPy raises)."""
    consuming = sum(isinstance(item, int | layout.Slice) for item in items)
    position, out = 0, []
    for item in items:
        if isinstance(item, layout.Ellipsis_):
            position += max(len(shape) - consuming, 0)
        elif isinstance(item, int | layout.Slice):
            if isinstance(item, int) and position < len(shape) and shape[position] > 0:
                item = min(max(item, -shape[position]), shape[position] - 1)
            position += 1
        out.append(item)
    return out


@SETTINGS
@given(shapes, st.lists(index_items, max_size=4))
def test_index_matches_numpy(shape: Shape, items: list[layout.IndexItem]) -> None:
    key = tuple(to_numpy_index(item) for item in clamped(shape, items))
    expected = numpy_shape(lambda: np.zeros(shape)[key])
    out = layout.index(typ(shape), items)
    if expected is None:
        assert codes(out) == {"SC106"}
    else:
        assert out.problems == ()
        assert out.type.dims == expected


# Each layout op with a strategy for its arguments: drawn once, applied to both the concrete
# and the vague type.
LAYOUT_OPS: dict[str, tuple[st.SearchStrategy[Any], Callable[[ArrayType, Any], Outcome]]] = {
    "transpose": (
        st.none() | st.lists(st.integers(-4, 3), max_size=4) | st.permutations(range(3)),
        layout.transpose,
    ),
    "swapaxes": (st.tuples(st.integers(-4, 3), st.integers(-4, 3)), lambda t, a: layout.swapaxes(t, *a)),
    "moveaxis": (st.tuples(st.integers(-4, 3), st.integers(-4, 3)), lambda t, a: layout.moveaxis(t, *a)),
    "expand_dims": (st.integers(-5, 4) | st.lists(st.integers(-5, 4), max_size=2), layout.expand_dims),
    "squeeze": (st.none() | st.lists(st.integers(-4, 3), max_size=2), squeeze),
    "index": (st.lists(index_items, max_size=4), layout.index),
}


@SETTINGS
@given(
    st.sampled_from(sorted(LAYOUT_OPS)),
    st.lists(st.sampled_from([1, 1, 2, 3]), max_size=4),
    # Open ranks are where layout ops go wrong: hide leading dims more often than `forget` does.
    st.one_of(forget, st.tuples(st.integers(1, 3), forget).map(lambda p: ["open"] * p[0] + p[1])),
    st.data(),
)
def test_layout_unknowns_never_add_problems(
    op: str, dims: list[int], mask: list[str], data: st.DataObject
) -> None:
    strategy, fn = LAYOUT_OPS[op]
    args = data.draw(strategy)
    concrete = fn(typ(tuple(dims)), args)
    vague = fn(abstract(dims, mask), args)
    if concrete.ok:
        assert vague.ok, (vague, concrete)
        assert consistent(vague.type, concrete.type.dims), (vague.type, concrete.type)
    assert codes(vague) <= codes(concrete)


# --- einsum -----------------------------------------------------------------------------------

LETTERS = "abcdeAB"  # upper case too: the implicit output sorts them before lower case


@st.composite
def einsum_case(draw: st.DrawFn, perturb: bool = False) -> tuple[str, list[Shape]]:
    """A valid spec and operand shapes that fit it (sizes broadcast from 1 as NumPy allows)."""
    size_of = {letter: draw(st.integers(0, 3)) for letter in LETTERS}
    count = draw(st.integers(1, 3))
    terms: list[str] = []
    operands: list[Shape] = []
    ellipsis_shapes = draw(st.one_of(broadcast_shapes(), st.lists(shapes, min_size=1, max_size=3)))
    for index in range(count):
        letters = draw(st.lists(st.sampled_from(LETTERS), max_size=3))
        dims = []
        for letter in letters:
            size = size_of[letter]
            # Size-1 dims broadcast against the letter's size, unless the letter repeats in
            # this operand (a diagonal), where NumPy requires equal sizes.
            if letters.count(letter) == 1 and draw(st.integers(0, 3)) == 0:
                size = 1
            dims.append(size)
        use_ellipsis = draw(st.integers(0, 2)) == 0
        if use_ellipsis:
            where = draw(st.integers(0, len(letters)))
            extra = ellipsis_shapes[index % len(ellipsis_shapes)]
            terms.append("".join(letters[:where]) + "..." + "".join(letters[where:]))
            operands.append((*dims[:where], *extra, *dims[where:]))
        else:
            terms.append("".join(letters))
            operands.append(tuple(dims))
    if perturb:
        index = draw(st.integers(0, count - 1))
        shape = list(operands[index])
        assume(shape)
        shape[draw(st.integers(0, len(shape) - 1))] = draw(st.integers(0, 3))
        operands[index] = tuple(shape)
    spec = ",".join(terms)
    used = sorted({c for t in terms for c in t if c.isalpha()})
    if draw(st.booleans()):
        output = draw(st.permutations(used))[: draw(st.integers(0, len(used)))]
        out = "".join(output)
        if "..." in spec:
            # NumPy refuses to drop ellipsis dims where JAX sums them: keep `...` in the output.
            where = draw(st.integers(0, len(out)))
            out = out[:where] + "..." + out[where:]
        spec += "->" + out
    return spec, operands


def letter_sizes(term: str, shape: Shape) -> list[tuple[str, int]]:
    """(letter, size) for each letter of one input term, `...` covering the dims between."""
    before, _, after = term.partition("...")
    head = list(zip(before, shape, strict=False))
    tail = list(zip(after, shape[len(shape) - len(after) :], strict=True)) if after else []
    return head + tail


def numpy_einsum(spec: str, operands: list[Shape]) -> Shape | None:
    return numpy_shape(lambda: np.einsum(spec, *[np.ones(s) for s in operands]))


@SETTINGS
@given(einsum_case())
def test_einsum_matches_numpy(case: tuple[str, list[Shape]]) -> None:
    spec_text, operands = case
    expected = numpy_einsum(spec_text, operands)
    spec = parse_einsum(spec_text)
    assert not isinstance(spec, Problem), spec
    out = einsum_type(spec, [typ(s) for s in operands])
    if expected is None:
        # Only ellipsis dims can fail to broadcast in a generated valid spec.
        assert codes(out) == {"SC101"}
    else:
        assert out.problems == (), out
        assert out.type.dims == expected


@SETTINGS
@given(einsum_case(perturb=True))
def test_einsum_inconsistent_sizes_match_numpy(case: tuple[str, list[Shape]]) -> None:
    spec_text, operands = case
    expected = numpy_einsum(spec_text, operands)
    spec = parse_einsum(spec_text)
    assert not isinstance(spec, Problem)
    out = einsum_type(spec, [typ(s) for s in operands])
    # NumPy and JAX part ways on a repeated letter in one operand (a diagonal) with sizes 1
    # and n (JAX accepts it) or 0 and n (NumPy accepts it when 0 comes first). The algebra
    # follows JAX (test_jax_semantics); leave those cases out here.
    for term, shape in zip(spec_text.split("->")[0].split(","), operands, strict=True):
        seen: dict[str, set[int]] = {}
        for letter, size in letter_sizes(term, shape):
            seen.setdefault(letter, set()).add(size)
        assume(not any(len(s) > 1 and s & {0, 1} for s in seen.values()))
    if expected is None:
        assert out.problems
        assert codes(out) <= {"SC101", "SC104"}
        assert_sizes_named(out)
    else:
        assert out.problems == (), out
        assert out.type.dims == expected


@SETTINGS
@given(einsum_case(), st.lists(forget, min_size=3, max_size=3))
def test_einsum_unknowns_never_add_problems(case: tuple[str, list[Shape]], masks: list[list[str]]) -> None:
    spec_text, operands = case
    spec = parse_einsum(spec_text)
    assert not isinstance(spec, Problem)
    concrete = einsum_type(spec, [typ(s) for s in operands])
    vague = einsum_type(spec, [abstract(s, m) for s, m in zip(operands, masks, strict=False)])
    if concrete.ok:
        assert vague.ok, vague
        assert consistent(vague.type, concrete.type.dims), (vague.type, concrete.type)
    assert codes(vague) <= codes(concrete)


@st.composite
def bad_einsum_spec(draw: st.DrawFn) -> tuple[str, list[Shape]]:
    """A spec broken in one of the ways NumPy refuses, with operands that fit the rest."""
    spec, operands = draw(einsum_case())
    lhs, _, rhs = spec.partition("->")
    used = sorted({c for c in lhs if c.isalpha()})
    kind = draw(st.sampled_from(["unknown output", "repeated output", "bad char", "operands"]))
    if kind == "unknown output":
        spec = f"{lhs}->{rhs}{next(c for c in string.ascii_letters if c not in used)}"
    elif kind == "repeated output":
        assume(used)
        letter = draw(st.sampled_from(used))
        spec = f"{lhs}->{rhs.replace(letter, '')}{letter}{letter}"
    elif kind == "bad char":
        # Only the spec's own punctuation: jnp.einsum takes digits and symbols as subscripts.
        spec = lhs + draw(st.sampled_from(["-", "..", ">"])) + ("->" + rhs if rhs else "")
    else:
        operands = [*operands, ()] if draw(st.booleans()) else operands[:-1]
    return spec, operands


@SETTINGS
@given(bad_einsum_spec())
def test_malformed_einsum_is_sc003_where_numpy_refuses(case: tuple[str, list[Shape]]) -> None:
    spec_text, operands = case
    assert numpy_einsum(spec_text, operands) is None
    spec = parse_einsum(spec_text)
    if isinstance(spec, Problem):
        assert spec.code == "SC003"
        return
    out = einsum_type(spec, [typ(s) for s in operands])
    assert "SC003" in codes(out)


# --- named axes: order, union, conflicts ------------------------------------------------------

axis_names = st.sampled_from(["a", "b", "batch", "k", "m", "x"])
named_sizes: st.SearchStrategy[Dim] = st.one_of(
    st.integers(1, 4), st.none(), st.sampled_from([Sym("n"), Sym("m")])
)
named_shapes = st.lists(st.tuples(axis_names, named_sizes), max_size=4, unique_by=lambda p: p[0])


# A named shape and the same pairs in another order.
reordered = named_shapes.flatmap(lambda pairs: st.tuples(st.just(pairs), st.permutations(pairs)))


@SETTINGS
@given(st.lists(reordered, min_size=1, max_size=3))
def test_order_of_named_axes_never_matters(
    cases: list[tuple[list[tuple[str, Dim]], list[tuple[str, Dim]]]],
) -> None:
    straight = [typ((2,), dict(pairs)) for pairs, _ in cases]
    shuffled = [typ((2,), dict(permuted)) for _, permuted in cases]
    assert straight == shuffled
    assert [hash(t) for t in straight] == [hash(t) for t in shuffled]
    assert [repr(t) for t in straight] == [repr(t) for t in shuffled]
    assert broadcast(straight) == broadcast(shuffled)
    if len(straight) == 2:
        assert linalg.matmul(straight[0], straight[1]) == linalg.matmul(shuffled[0], shuffled[1])
        assert layout.concatenate(straight) == layout.concatenate(shuffled)
        named = spec_of_names([p for p, _ in cases])
        assert einsum_type(named, straight) == einsum_type(named, shuffled)
        # The order of names inside braces does not matter either.
        assert einsum_type(spec_of_names([q for _, q in cases]), straight) == einsum_type(named, straight)


def spec_of_names(shapes_: list[list[tuple[str, Dim]]]) -> EinsumSpec:
    """'i{names},i{names}': every operand lists its own named axes, in the order given."""
    text = ",".join("i{" + ",".join(name for name, _ in pairs) + "}" for pairs in shapes_)
    parsed = parse_einsum(text)
    assert isinstance(parsed, EinsumSpec)
    return parsed


@SETTINGS
@given(st.lists(named_shapes, min_size=1, max_size=4))
def test_named_broadcasting_is_a_union_by_name(shapes_: list[list[tuple[str, Dim]]]) -> None:
    out = broadcast([typ((), dict(pairs)) for pairs in shapes_])
    result = out.type.named_dict
    every = {name for pairs in shapes_ for name, _ in pairs}
    assert set(result) == every
    for name in every:
        seen = [size for pairs in shapes_ for n, size in pairs if n == name]
        known = {size for size in seen if isinstance(size, int)}
        conflicts = [p for p in out.problems if p.axes == (name,)]
        if len(known) > 1:
            assert conflicts
            for problem in conflicts:
                assert problem.code == "SC102"
                first, second = problem.sizes
                assert isinstance(first, int) and isinstance(second, int) and first != second
                assert {first, second} <= known
                assert mentions(problem, first, second, name)
        else:
            assert not conflicts
        if len(known) == 1:
            assert result[name] in known
        elif not known:
            # Symbols only: the result is one of them or unknown, never an invented size.
            assert result[name] is None or result[name] in seen
    assert {p.code for p in out.problems} <= {"SC102"}


@SETTINGS
@given(named_shapes, named_shapes)
def test_named_union_is_symmetric_in_its_names(left: list[tuple[str, Dim]], right: list[tuple[str, Dim]]) -> None:
    a, b = typ((), dict(left)), typ((), dict(right))
    ab, ba = broadcast([a, b]), broadcast([b, a])
    assert set(ab.type.named_dict) == set(ba.type.named_dict)
    assert bool(ab.problems) == bool(ba.problems)
    assert {p.axes for p in ab.problems} == {p.axes for p in ba.problems}


@pytest.mark.parametrize("sizes_", [(7, 8), (20, 3), (1, 5)])
def test_named_conflict_names_both_sizes_even_with_one(sizes_: tuple[int, int]) -> None:
    # Named axes never broadcast from 1: equal names need equal sizes.
    first, second = sizes_
    out = broadcast([typ((), {"k": first}), typ((), {"k": second})], ["x", "y"])
    (problem,) = out.problems
    assert problem.code == "SC102"
    assert problem.sizes == (first, second)
    assert problem.operands == (0, 1)
    assert mentions(problem, first, second, "k", "x", "y")
