"""The array APIs of model code, checked against JAX itself (0.10.2, on CPU).

Each case is a small program: inputs of drawn shapes and dtypes, and one call of the API with
drawn arguments. JAX runs it (`jax.eval_shape`, or eagerly where the result depends on values:
boolean masks, `jnp.where(c)`), and the checker analyses the same text. The checker must

- report nothing where JAX accepts the call, and give the result JAX gives: its dims (exactly,
  where every input is known; a dim JAX computes from values is unknown) and its dtype;
- report the call where JAX refuses it (any exception), except the few refusals each family
  lists as out of scope (`exempt`), which it must then merely not contradict.

APIs: split, array_split, hsplit, vsplit, dsplit, unstack; stack, concatenate, hstack, vstack,
dstack, column_stack; repeat, tile, cumsum, cumprod, sort, argsort, flip, roll; tril, triu; where (both forms); pad; take, take_along_axis, indexing with
ints, slices, None, `...`, integer arrays and masks; lax.top_k; jax.ops.segment_sum/max/min/prod.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shapecheck.api import analyze_source
from shapecheck.dtypes import NUMPY_NAMES, narrowed
from shapecheck.types import ArrayType

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
np = pytest.importorskip("numpy")

# Each family runs this many drawn cases, fixed (derandomized) so the suite is reproducible.
CASES = settings(max_examples=45, deadline=None, derandomize=True, database=None,
                 suppress_health_check=list(HealthCheck))

Shape = tuple[int, ...]
DTYPES = ("float32", "int32", "bool")


@dataclass(frozen=True)
class Input:
    """One input of a case: `name = jnp.zeros(shape, dtype)`, or for a mask an alternating pattern."""

    name: str
    shape: Shape
    dtype: str = "float32"
    pattern: bool = False  # a boolean array of alternating values (a mask that selects some)

    def source(self) -> str:
        if self.pattern:
            size = int(np.prod(self.shape, dtype=int))
            return f"{self.name} = jnp.arange({size}).reshape({self.shape!r}) % 2 == 0"
        return f"{self.name} = jnp.zeros({self.shape!r}, jnp.{self.dtype})"

    def value(self) -> Any:
        if self.pattern:
            # The values `source` computes, as a NumPy array: JAX reads a concrete mask the same
            # way, without compiling a count and a gather for each shape (a second each).
            return np.arange(int(np.prod(self.shape, dtype=int))).reshape(self.shape) % 2 == 0
        return jnp.zeros(self.shape, self.dtype)


@dataclass(frozen=True)
class Case:
    inputs: tuple[Input, ...]
    call: str  # the expression, over the inputs' names
    pieces: bool = False  # the call returns a list or tuple of arrays
    concrete: bool = False  # JAX needs the values, not only shapes
    open_dims: int = 0  # how many dims JAX computes from values (a mask's count): unknown to the checker
    exempt: Callable[[BaseException], bool] = field(default=lambda error: False)

    def program(self) -> str:
        lines = ["import jax", "import jax.numpy as jnp", "from jax import lax"]
        lines += [i.source() for i in self.inputs]
        lines.append(f"r = {self.call}")
        return "\n".join(lines) + "\n"


def run_jax(case: Case) -> list[Any] | Any | BaseException:
    """What JAX gives: the result's shape and dtype structs, or the exception it raises."""
    names = [i.name for i in case.inputs]
    try:
        if case.concrete:
            space: dict[str, Any] = {"jax": jax, "jnp": jnp, "lax": jax.lax}
            space.update({i.name: i.value() for i in case.inputs})
            result = eval(case.call, space)  # the case's own generated expression
        else:
            fun = eval(f"lambda {', '.join(names)}: {case.call}",
                       {"jax": jax, "jnp": jnp, "lax": jax.lax})
            structs = [jax.ShapeDtypeStruct(i.shape, i.dtype) for i in case.inputs]
            result = jax.eval_shape(fun, *structs)
    except Exception as error:  # any refusal is a refusal
        return error
    if case.pieces:
        return [jax.ShapeDtypeStruct(r.shape, r.dtype) for r in result]
    return jax.ShapeDtypeStruct(result.shape, result.dtype)


def checked(case: Case, count: int | None) -> tuple[list[tuple[int, str]], list[ArrayType | None]]:
    """The checker's diagnostics on the call's line, and its type of each result (of `count` pieces)."""
    program = case.program()
    call_line = program.count("\n")
    results: list[str] = []
    if case.pieces and count is not None:
        if count:
            program += "".join(f"r_{i}, " for i in range(count)) + "= r\n"
            results = [f"r_{i}" for i in range(count)]
    elif count is not None:
        results = ["r"]
    program += "".join(f"s_{name} = {name}\n" for name in results)
    analysed = analyze_source("case.py", program, keep_types=True)
    assert analysed.error is None, analysed.error
    diagnostics = [(d.span.line, str(d.code)) for d in analysed.diagnostics]
    assert all(line == call_line for line, _ in diagnostics), (program, diagnostics)
    lines = program.splitlines()
    types: list[ArrayType | None] = []
    for name in results:
        number = lines.index(f"s_{name} = {name}") + 1
        found = [t.type for t in analysed.types if t.span.line == number and t.span.column == len(f"s_{name} = ")]
        types.append(found[0] if found else None)
    return diagnostics, types


def agree(case: Case) -> None:
    """The checker and JAX agree on `case` (the module docstring says how)."""
    outcome = run_jax(case)
    if isinstance(outcome, BaseException):
        diagnostics, _ = checked(case, None)
        if case.exempt(outcome):
            return
        assert diagnostics, f"JAX raises {type(outcome).__name__}: {outcome}\nbut the checker reports nothing on\n" \
            f"{case.program()}"
        return
    expected = outcome if isinstance(outcome, list) else [outcome]
    diagnostics, types = checked(case, len(expected))
    assert diagnostics == [], f"JAX accepts\n{case.program()}but the checker reports {diagnostics}"
    for number, (want, got) in enumerate(zip(expected, types, strict=True)):
        where = f"result {number} of\n{case.program()}"
        assert got is not None, f"no type inferred for {where}(JAX: {want})"
        assert got.ellipsis is None and len(got.dims) == len(want.shape), f"{got} for {where}(JAX: {want.shape})"
        unknown = [i for i, d in enumerate(got.dims) if d is None]
        dims = tuple(None if i in unknown else d for i, d in enumerate(want.shape))
        assert got.dims == dims and len(unknown) <= case.open_dims, f"{got} for {where}(JAX: {want.shape})"
        assert got.dtype is not None and narrowed(got.dtype) == NUMPY_NAMES[want.dtype.name], \
            f"{got} for {where}(JAX: {want.dtype})"


# -- strategies

SIZES = st.integers(0, 4)


def shapes(sizes: st.SearchStrategy[int] = SIZES, ranks: Sequence[int] = (2, 1, 3, 2, 1, 0)) -> st.SearchStrategy[Shape]:
    """Shapes mostly of rank 1 to 3 (0-d ones too, but not as often as a plain list would draw them)."""
    return st.sampled_from(ranks).flatmap(lambda rank: st.tuples(*[sizes] * rank))


small_shapes = shapes()


def shape_near(shape: Shape) -> st.SearchStrategy[Shape]:
    """A shape equal to `shape` but for some dims changed (or one dropped), for a second operand."""
    changed = st.tuples(*(st.sampled_from([d, d, d, 1, 2, 3]) for d in shape)).map(tuple)
    return changed | st.just(shape) | st.just(shape[1:])


def axes_of(rank: int) -> st.SearchStrategy[int]:
    """An axis of a value of `rank`: mostly a valid one, sometimes one beyond."""
    valid = st.integers(-rank, rank - 1) if rank else st.just(0)
    return st.sampled_from([0, 1, 2]).flatmap(lambda pick: st.integers(-rank - 2, rank + 1) if pick == 2 else valid)


def index_list(items: Sequence[object]) -> str:
    return "[" + ", ".join(str(i) for i in items) + "]"


# -- splitting

@CASES
@given(st.data())
def test_split(data: st.DataObject) -> None:
    shape = data.draw(shapes(st.integers(0, 7)))
    dtype = data.draw(st.sampled_from(DTYPES))
    name = data.draw(st.sampled_from(["split", "split", "array_split", "hsplit", "vsplit", "dsplit"]))
    axis = data.draw(axes_of(len(shape)))
    size = shape[axis] if -len(shape) <= axis < len(shape) else 3
    cuts = st.lists(st.integers(0, size), max_size=3)
    sections = data.draw(st.sampled_from([1, 2, 3]) | st.integers(-1, 7) | cuts.map(sorted) | cuts
                         | st.lists(st.integers(-2, 9), max_size=3))
    spelled = index_list(sections) if isinstance(sections, list) else str(sections)
    if data.draw(st.booleans()) and isinstance(sections, list):
        spelled = "(" + ", ".join(map(str, sections)) + ("," if len(sections) == 1 else "") + ")"
    axis_arg = f", axis={axis}" if name in ("split", "array_split") and (axis or data.draw(st.booleans())) else ""
    agree(Case((Input("x", shape, dtype),), f"jnp.{name}(x, {spelled}{axis_arg})", pieces=True))


@CASES
@given(shapes(), st.integers(-4, 3), st.sampled_from(DTYPES))
def test_unstack(shape: Shape, axis: int, dtype: str) -> None:
    agree(Case((Input("x", shape, dtype),), f"jnp.unstack(x, axis={axis})", pieces=True))


# -- joining

@CASES
@given(st.data())
def test_stack_and_concatenate(data: st.DataObject) -> None:
    first = data.draw(small_shapes)
    drawn = [first, *data.draw(st.lists(shape_near(first), max_size=2))]
    inputs = tuple(Input(f"x{i}", s, data.draw(st.sampled_from(["float32", "int32"]))) for i, s in enumerate(drawn))
    name = data.draw(st.sampled_from(["stack", "concatenate", "hstack", "vstack", "dstack", "column_stack"]))
    listed = index_list(i.name for i in inputs)
    if data.draw(st.booleans()):
        listed = "(" + ", ".join(i.name for i in inputs) + ",)"
    if name in ("stack", "concatenate"):
        axes = st.integers(-len(first) - 2, len(first) + 1)
        axis = data.draw(axes | st.none()) if name == "concatenate" else data.draw(axes)
        agree(Case(inputs, f"jnp.{name}({listed}, axis={axis})"))
    else:
        agree(Case(inputs, f"jnp.{name}({listed})"))


@CASES
@given(shapes(ranks=(2, 3, 1, 4, 0)), st.integers(-3, 3), st.sampled_from(["tril", "triu"]),
       st.sampled_from(DTYPES))
def test_tril_triu(shape: Shape, k: int, name: str, dtype: str) -> None:
    agree(Case((Input("m", shape, dtype),), f"jnp.{name}(m, k={k})"))


# -- repeating and cumulative sums

@CASES
@given(st.data())
def test_repeat_and_tile(data: st.DataObject) -> None:
    shape = data.draw(shapes())
    dtype = data.draw(st.sampled_from(DTYPES))
    if data.draw(st.booleans()):
        counts = data.draw(st.integers(0, 3) | st.lists(st.integers(0, 3), max_size=4).map(tuple))
        agree(Case((Input("x", shape, dtype),), f"jnp.tile(x, {counts!r})"))
        return
    repeats = data.draw(st.integers(-1, 3))
    axis = data.draw(st.none() | axes_of(len(shape)))
    spelled = f"x.repeat({repeats}, axis={axis})" if data.draw(st.booleans()) else f"jnp.repeat(x, {repeats}, axis={axis})"
    agree(Case((Input("x", shape, dtype),), spelled))


@CASES
@given(st.data())
def test_sort_flip_roll(data: st.DataObject) -> None:
    shape = data.draw(shapes())
    dtype = data.draw(st.sampled_from(DTYPES))
    name = data.draw(st.sampled_from(["sort", "argsort", "flip", "roll", ".sort", ".argsort"]))
    axis: object = data.draw(st.none() | axes_of(len(shape)))
    if name in ("flip", "roll") and data.draw(st.booleans()):
        axis = tuple(data.draw(st.lists(axes_of(len(shape)), min_size=1, max_size=2, unique=True)))
    shift = "" if name != "roll" else (f"{len(axis) * (1,)!r}, " if isinstance(axis, tuple) else "2, ")
    call = f"x{name}(axis={axis})" if name.startswith(".") else f"jnp.{name}(x, {shift}axis={axis})"
    agree(Case((Input("x", shape, dtype),), call))


@CASES
@given(shapes(), st.none() | st.integers(-4, 3), st.sampled_from(["cumsum", "cumprod"]), st.sampled_from(DTYPES))
def test_cumulative(shape: Shape, axis: int | None, name: str, dtype: str) -> None:
    agree(Case((Input("x", shape, dtype),), f"jnp.{name}(x, axis={axis})"))


# -- where

@CASES
@given(st.data())
def test_where_three_arguments(data: st.DataObject) -> None:
    first = data.draw(shapes(st.integers(1, 4), ranks=(1, 2, 3)))
    drawn = [first, data.draw(shape_near(first)), data.draw(shape_near(first))]
    dtypes = [data.draw(st.sampled_from(DTYPES)) for _ in drawn]
    inputs = tuple(Input(n, s, d) for n, s, d in zip(("c", "x", "y"), drawn, dtypes, strict=True))
    # Python numbers in place of an operand: weak scalars.
    x = data.draw(st.sampled_from(["x", "x", "x", "0", "1.5"]))
    y = data.draw(st.sampled_from(["y", "y", "y", "0", "-1.0"]))
    agree(Case(inputs, f"jnp.where(c, {x}, {y})"))


@CASES
@given(shapes(ranks=(1, 2, 3)), st.integers(0, 6))
def test_where_one_argument_with_size(shape: Shape, size: int) -> None:
    agree(Case((Input("c", shape, "bool", pattern=True),), f"jnp.where(c, size={size})", pieces=True))


@pytest.mark.parametrize("shape", [(2, 3), (0,)])
def test_where_one_argument_counts_at_run_time(shape: Shape) -> None:
    # Without `size`, JAX counts the true elements (eagerly: it compiles a kernel per shape, a
    # second each, so two shapes stand for the rest): one index array per dim, of unknown length.
    mask = Input("c", shape, "bool", pattern=True)
    agree(Case((mask,), "jnp.where(c)", pieces=True, concrete=True, open_dims=1))


# -- pad

pad_numbers = st.integers(-1, 3)
pad_widths = st.one_of(
    pad_numbers,
    st.tuples(pad_numbers),
    st.tuples(pad_numbers, pad_numbers),
    st.lists(st.tuples(pad_numbers, pad_numbers), min_size=1, max_size=4).map(tuple),
    st.lists(st.lists(pad_numbers, min_size=1, max_size=3).map(tuple), min_size=1, max_size=3).map(tuple),
)


@CASES
@given(shapes(), pad_widths,
       st.sampled_from(["constant", "edge", "wrap", "reflect", "symmetric", "empty", "mean"]), st.sampled_from(DTYPES))
def test_pad(shape: Shape, width: object, mode: str, dtype: str) -> None:
    if mode == "mean" and dtype == "bool":
        mode = "constant"  # the mean of booleans is JAX's TypeError, not a shape question
    agree(Case((Input("x", shape, dtype),), f"jnp.pad(x, {width!r}, mode={mode!r})"))


# -- take and take_along_axis

# Mostly int32; JAX refuses floats wherever it gathers (SC301), takes unsigned ints as any.
INDEX_DTYPES = st.sampled_from(["int32", "int32", "int32", "uint8", "float32"])

@CASES
@given(st.data())
def test_take(data: st.DataObject) -> None:
    a = data.draw(shapes())
    indices = data.draw(shapes(st.integers(0, 3), ranks=(1, 2, 0)))
    axis = data.draw(axes_of(len(a)) | st.none())
    python_int = data.draw(st.booleans()) and not indices
    index = "2" if python_int else "i"
    inputs = (Input("a", a, data.draw(st.sampled_from(DTYPES))), Input("i", indices, data.draw(INDEX_DTYPES)))
    spelled = f"jnp.take(a, {index}, axis={axis})" if data.draw(st.booleans()) else f"a.take({index}, axis={axis})"
    agree(Case(inputs, spelled))


@CASES
@given(st.data())
def test_take_along_axis(data: st.DataObject) -> None:
    arr = data.draw(shapes())
    axis = data.draw(st.sampled_from([0, 0, 0, 1]).flatmap(lambda pick: st.none() if pick else axes_of(len(arr))))
    # Indices of arr's shape with the taken dim changed and others maybe 1, or any shape at all.
    near = list(arr)
    if near and axis is not None and -len(arr) <= axis < len(arr):
        near[axis] = data.draw(st.integers(0, 4))
    near = [data.draw(st.sampled_from([d, d, 1])) for d in near]
    if axis is None:
        near = near[:1]
    indices = data.draw(st.sampled_from([0, 0, 1]).flatmap(lambda pick: shapes() if pick else st.just(tuple(near))))
    inputs = (Input("a", arr, data.draw(st.sampled_from(DTYPES))), Input("i", indices, data.draw(INDEX_DTYPES)))
    agree(Case(inputs, f"jnp.take_along_axis(a, i, axis={axis})"))


# -- indexing

@CASES
@given(st.data())
def test_indexing(data: st.DataObject) -> None:
    shape = data.draw(shapes(st.integers(1, 4), ranks=(1, 2, 3)))
    arrays = data.draw(st.booleans())
    items: list[str] = []
    inputs = [Input("x", shape, data.draw(st.sampled_from(DTYPES)))]
    concrete = False
    for number in range(data.draw(st.integers(0, 4))):
        kind = data.draw(st.sampled_from(["int", "slice", "none", "ellipsis"]
                                         + (["array", "array", "mask"] if arrays else [])))
        if kind == "int":
            items.append(str(data.draw(st.integers(-6, 5))))  # JAX clamps into a non-empty axis
        elif kind == "slice":
            bounds = [data.draw(st.none() | st.integers(-5, 5)) for _ in range(2)]
            step = data.draw(st.none() | st.sampled_from([-2, -1, 1, 2]))
            items.append(":".join("" if b is None else str(b) for b in bounds)
                         + ("" if step is None else f":{step}"))
        elif kind == "none":
            items.append("None")
        elif kind == "ellipsis":
            items.append("...")
        elif kind == "array":
            name = f"k{number}"
            inputs.append(Input(name, data.draw(shapes(st.sampled_from([2, 3, 1]), ranks=(1, 2, 0))),
                                data.draw(INDEX_DTYPES)))
            items.append(name)
        else:
            name = f"m{number}"
            covered = data.draw(shapes(st.integers(1, 4), ranks=(1, 2)))
            inputs.append(Input(name, covered, "bool", pattern=True))
            items.append(name)
            concrete = True
    call = f"x[{', '.join(items)}]" if items else "x[()]"
    # How many elements a mask selects is a count of its values: one dim of the result.
    agree(Case(tuple(inputs), call, concrete=concrete, open_dims=1 if concrete else 0))


# -- top_k and segment reductions

@CASES
@given(shapes(st.integers(0, 5)), st.integers(-1, 6), st.none() | st.integers(-4, 3), st.sampled_from(["float32", "int32"]))
def test_top_k(shape: Shape, k: int, axis: int | None, dtype: str) -> None:
    call = f"lax.top_k(x, {k})" if axis is None else f"lax.top_k(x, {k}, axis={axis})"
    agree(Case((Input("x", shape, dtype),), call, pieces=True))


@CASES
@given(st.data())
def test_segment_reductions(data: st.DataObject) -> None:
    data_shape = data.draw(shapes())
    ids_shape = data.draw(st.sampled_from([data_shape[:1], data_shape[:1], (), (3,), (1,), data_shape[:2]]))
    name = data.draw(st.sampled_from(["segment_sum", "segment_max", "segment_min", "segment_prod"]))
    dtype = data.draw(st.sampled_from(["float32", "int32"]))
    num = data.draw(st.integers(-1, 4))
    inputs = (Input("d", data_shape, dtype), Input("ids", ids_shape, data.draw(INDEX_DTYPES)))
    agree(Case(inputs, f"jax.ops.{name}(d, ids, num_segments={num})"))


# -- window functions

WINDOWS = ("hanning", "hamming", "blackman", "bartlett", "kaiser")


@CASES
@given(st.data())
def test_windows(data: st.DataObject) -> None:
    # M of 0 and 1 (ones), negative (refused), a float (truncated) or a bool; kaiser's beta a
    # number or an array that broadcasts with the M samples, or not, or is complex.
    name = data.draw(st.sampled_from(WINDOWS))
    size = data.draw(st.sampled_from(["0", "1", "2", "5", "-1", "-3", "2.5", "4.0", "True", "x.shape[0]"]))
    inputs: tuple[Input, ...] = (Input("x", (data.draw(st.integers(0, 4)),)),)
    if name != "kaiser":
        agree(Case(inputs, f"jnp.{name}({size})"))
        return
    beta = data.draw(st.sampled_from(["2.0", "3", "b", "1j"]))
    if beta == "b":
        shape = data.draw(shapes(st.integers(1, 5), ranks=(0, 1, 2)))
        inputs += (Input("b", shape, data.draw(st.sampled_from(["float32", "int32", "bool", "complex64"]))),)
    agree(Case(inputs, f"jnp.kaiser({size}, {beta})"))


def test_a_traced_window_size_is_reported() -> None:
    # M must be concrete: a jit argument is refused (JAX's ConcretizationTypeError).
    program = "import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef f(n):\n    return jnp.hanning(n)\n\n\nw = f(3)\n"
    assert [str(d.code) for d in analyze_source("m.py", program).diagnostics] == ["SC107"]


# -- a few fixed cases, the trivially valid ones among them

FIXED = [
    Case((Input("x", (6, 4)),), "jnp.split(x, 1)", pieces=True),
    Case((Input("x", (0, 4)),), "jnp.split(x, 3)", pieces=True),
    Case((Input("x", (6, 4)),), "jnp.split(x, [])", pieces=True),
    Case((Input("x", (6, 4)),), "jnp.split(x, [0, 0, 6])", pieces=True),
    Case((Input("x", (0, 4)),), "jnp.split(x, -1)", pieces=True),
    Case((Input("x", (6, 4)),), "jnp.array_split(x, 8)", pieces=True),
    Case((Input("x", (1, 3)),), "jnp.unstack(x)", pieces=True),
    Case((Input("x", (0, 3)),), "jnp.unstack(x)", pieces=True),
    Case((Input("x", (6, 4)),), "lax.top_k(x, 4)", pieces=True),
    Case((Input("x", (6, 4)),), "lax.top_k(x, 0)", pieces=True),
    Case((Input("x", (6, 1)),), "jnp.tril(x)"),
    # Per-element counts: the length they add up to, where total_repeat_length gives it.
    Case((Input("x", (2, 3)),), "jnp.repeat(x, jnp.array([1, 2, 4]), axis=1, total_repeat_length=7)"),
    Case((Input("x", (2, 3)),), "jnp.repeat(x, jnp.array([1, 2]), axis=1, total_repeat_length=7)"),
    Case((Input("x", (2, 3)),), "jnp.repeat(x, jnp.ones(6, jnp.int32), total_repeat_length=9)"),
    Case((Input("x", (2, 3)),), "jnp.repeat(x, jnp.array([3]), axis=0, total_repeat_length=6)"),
    Case((Input("x", (2, 3)),), "jnp.repeat(x, 2, axis=1, total_repeat_length=4)"),
    Case((Input("x", (2, 3)),), "jnp.repeat(x, jnp.array([1, 2]), axis=2, total_repeat_length=7)"),
    Case((Input("x", ()),), "jnp.pad(x, -1)"),
    Case((Input("x", (2, 3)),), "jnp.pad(x, ((1, 2),))"),
    Case((Input("x", (2, 3)),), "jnp.pad(x, 0, mode='wrap')"),
    Case((Input("t", (5, 3)), Input("i", (1,), "int32")), "t[i]"),
    Case((Input("t", (5, 3)), Input("i", (), "int32")), "t[i, i]"),
    Case((Input("t", (5, 3)),), "t[7]"),
    Case((Input("d", (1,)), Input("ids", (1,), "int32")), "jax.ops.segment_sum(d, ids, num_segments=1)"),
    Case((Input("d", (6, 2)), Input("ids", (6,), "int32")), "jax.ops.segment_max(d, ids, num_segments=0)"),
    Case((Input("a", (1, 4)), Input("i", (3, 2), "int32")), "jnp.take_along_axis(a, i, axis=1)"),
    Case((Input("c", (3,), "bool"), Input("x", (1,))), "jnp.where(c, x, 2)"),
    Case((Input("x", (3,)),), "jnp.stack([x])"),
    Case((Input("x", (3,)),), "jnp.concatenate([x], axis=None)"),
    # A list of arrays (traced scalars, rows) is stacked; one of other shapes or a float index fails.
    Case((Input("x", (3,)),), "jnp.array([x[0], x[1] + 1.0])"),
    Case((Input("x", (2, 3), "int32"),), "jnp.asarray([[x, x], [x, x]])"),
    Case((Input("x", (3,), "int32"),), "jnp.array([x, x]) + jnp.zeros((3,))"),
    Case((Input("x", (3,)),), "jnp.array([x[0], 2]) + jnp.zeros((3,))"),
    Case((Input("x", (3,)),), "jnp.array([x, x[:2]])"),
    Case((Input("t", (5, 3)), Input("i", (2,), "int32")), "t[i / 2]"),
    Case((Input("t", (5, 3)),), "t[1.0]"),
    # A shape holds integers: `/` gives a float, which every API taking a shape refuses.
    Case((Input("x", (3,)),), "jnp.zeros(x.shape[0] / 2)"),
    Case((Input("x", (3,)),), "jnp.zeros((x.shape[0] // 1, 2.0))"),
    Case((Input("x", (2, 3)),), "x.reshape(1.0, 6)"),
    Case((Input("x", (2, 3)),), "jnp.reshape(x, (2, x.size / 2))"),
    Case((Input("x", (2,)),), "jnp.broadcast_to(x, (2.0,))"),
    Case((Input("x", (2,)),), "jax.random.normal(jax.random.PRNGKey(0), (2.5,)) + x"),
    Case((Input("x", (2,)),), "jnp.full((x.shape[0] // 1,), 1.5)"),
    # jnp.gradient: one array per axis (a list), one alone for one axis; an axis beyond the rank fails.
    Case((Input("x", (5, 4)),), "jnp.gradient(x, axis=0)"),
    Case((Input("x", (5, 4), "int32"),), "jnp.gradient(x, axis=-1)"),
    Case((Input("x", (5,)),), "jnp.gradient(x, 0.5)"),
    Case((Input("x", (5, 4)),), "jnp.gradient(x, axis=2)"),
    Case((Input("x", (5, 4)),), "jnp.gradient(x)", pieces=True),
    Case((Input("x", (5, 4, 3)),), "jnp.gradient(x, axis=(0, 2))", pieces=True),
    # A Python number in a contraction is a 0-d operand: matmul refuses it, dot multiplies.
    Case((Input("x", (3,)),), "x @ 2.0"),
    Case((Input("x", (3,), "int32"),), "jnp.matmul(2, x)"),
    Case((Input("x", (3,), "int32"),), "jnp.dot(x, 2.0)"),
    Case((Input("x", (2, 3)),), "jnp.dot(2, x)"),
    # Windows: M of 1 and 0 are ones (kaiser's beta then unread); a negative M is refused.
    *(Case((), f"jnp.{name}({size})") for name in WINDOWS[:-1] for size in (1, 0, -1)),
    Case((Input("b", (3,)),), "jnp.kaiser(1, b)"),
    Case((Input("b", (3,)),), "jnp.kaiser(0, b)"),
    Case((Input("b", (3,)),), "jnp.kaiser(2, b)"),
    Case((Input("b", (2, 1)),), "jnp.kaiser(5, b)"),
]


@pytest.mark.parametrize("case", FIXED, ids=[c.call for c in FIXED])
def test_fixed_cases(case: Case) -> None:
    agree(case)


def test_the_harness_sees_a_wrong_rule() -> None:
    # The comparison itself is tested: a call JAX refuses and the checker cannot see is caught.
    case = Case((Input("x", (6,)),), "jnp.split(x, jnp.array([4, 2]))", pieces=True)
    with pytest.raises(AssertionError, match="reports nothing"):
        agree(case)



@CASES
@given(st.data())
def test_an_index_of_unknown_dtype_is_read_as_integers_only_where_jax_refuses_it_as_a_mask(
        data: st.DataObject) -> None:
    # NumPy's integer constructors leave the dtype unknown to the checker. Where the indexing
    # algebra reads such an array as integers, whatever runs must have the checker's shape:
    # integers give it, and a boolean array of that shape is refused by JAX, or (an empty one,
    # which JAX and NumPy take as an empty integer index) gives it too.
    from shapecheck.algebra.indexing import Slice, UntypedArray, index

    base = data.draw(shapes(st.sampled_from([1, 2, 3, 5]), ranks=(1, 2, 3)))
    leading = data.draw(st.integers(0, len(base) - 1))
    idx = data.draw(shapes(st.sampled_from([0, 1, 2, 3, 5]), ranks=(1, 2)))
    x = jnp.zeros(base)
    items = (slice(None),) * leading
    read = index(ArrayType("f32", base), [Slice()] * leading + [UntypedArray(ArrayType(None, idx))]).type
    if not read.dims and read.rank is None:
        return  # left unknown: a mask of this shape may be what runs
    try:
        masked: tuple[int, ...] | None = tuple(x[(*items, np.ones(idx, dtype=bool))].shape)
    except (IndexError, TypeError, ValueError):
        masked = None
    assert masked is None or masked == read.dims
    assert tuple(x[(*items, np.zeros(idx, dtype=np.int32))].shape) == read.dims
