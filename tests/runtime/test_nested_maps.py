"""Random nestings of xmap and vmap against the same program written positionally in NumPy.

A program is a tower of maps over one argument: each xmap binds one or two positional dims to
fresh names (dict or list in_axes), each vmap binds one dim (named or not, negative axes too),
and the innermost body reduces over names of any enclosing map (and maybe a positional dim).
Each level places its own names in the result (out_axes in any order, names the body reduced
broadcast back), and a level's function is the inner map itself or a lambda that calls it.

The reference runs the same program on NumPy arrays whose leading dims are the named axes in
scope (`Labelled`): binding moves dims into that block, a named reduction reduces there,
placing moves them back out. It shares no code with the runtime.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import shapecheck.runtime.numpy as snp
from shapecheck import f32
from shapecheck.runtime import lax, xmap

MAX_MAPS = 3
PER_EXAMPLE = f32[(4,), {"j": 3}]  # outside the signature: ruff reads 'j' there as a name


@dataclass(frozen=True)
class Labelled:
    """A reference value: the first `len(names)` dims are named axes, the rest positional."""

    names: tuple[str, ...]
    array: np.ndarray[Any, Any]

    def bind(self, positions: Sequence[int], names: Sequence[str]) -> Labelled:
        """Positional dims `positions` become the named axes `names` (appended to the block)."""
        start = len(self.names)
        moved = np.moveaxis(self.array, [start + p for p in positions],
                            list(range(start, start + len(positions))))
        return Labelled(self.names + tuple(names), moved)

    def place(self, name: str, position: int, size: int) -> Labelled:
        """Named axis `name` becomes positional dim `position`; an absent name broadcasts."""
        if name not in self.names:
            start = len(self.names)
            widened = np.repeat(np.expand_dims(self.array, start + position), size, axis=start + position)
            return Labelled(self.names, widened)
        index = self.names.index(name)
        last = len(self.names) - 1
        array = np.moveaxis(self.array, index, last)  # the end of the named block...
        array = np.moveaxis(array, last, last + position)  # ...then out among the positional dims
        return Labelled(self.names[:index] + self.names[index + 1:], array)

    def reduce(self, names: Sequence[str], positions: Sequence[int], how: str,
               sizes: dict[str, int]) -> Labelled:
        """A reduction; over a name the value lacks, every member holds the same value."""
        start = len(self.names)
        held = [n for n in names if n in self.names]
        axes = tuple(self.names.index(n) for n in held) + tuple(start + p for p in positions)
        if how == "max":
            reduced = np.max(self.array, axis=axes)
        else:
            reduced = np.sum(self.array, axis=axes) * np.prod([sizes[n] for n in names if n not in held])
        return Labelled(tuple(n for n in self.names if n not in names), reduced)


@dataclass(frozen=True)
class Program:
    """One function of one array, its NumPy reference, and what it returns."""

    runtime: Callable[..., Any] = field(repr=False)
    reference: Callable[..., Labelled] = field(repr=False)
    text: str
    shape: tuple[int, ...]  # the positional shape of the result
    kept: frozenset[str]  # the enclosing maps' names the result still holds


@dataclass(frozen=True)
class Scope:
    """The maps around a body: every bound label with its size; `visible` may be named by code,
    `held` are the names the argument carries (an axis_sizes-only name is bound, not held)."""

    sizes: dict[str, int]
    visible: tuple[str, ...]
    held: frozenset[str]
    fresh: itertools.count[int]

    def extended(self, labels: Sequence[str], sizes: Sequence[int], visible: bool,
                 held: Sequence[str]) -> Scope:
        return Scope({**self.sizes, **dict(zip(labels, sizes, strict=True))},
                     self.visible + (tuple(labels) if visible else ()), self.held | set(held), self.fresh)

    def new_name(self) -> str:
        return f"n{next(self.fresh)}"


def spec_text(spec: Any) -> str:
    return repr(spec).replace("Ellipsis", "...")


def as_list_spec(placed: dict[int, str], rank: int | None) -> list[Any]:
    """`{1: 'a'}` as `[None, 'a', ...]`, or as the exact-rank `[None, 'a', None]`."""
    length = max(placed) + 1 if rank is None else rank
    items: list[Any] = [placed.get(position) for position in range(length)]
    return items if rank is not None else [*items, ...]


@st.composite
def axis_specs(draw: st.DrawFn, placed: dict[int, str], rank: int) -> Any:
    """The same mapping written as a dict or as a list (with `...`, or asserting the rank)."""
    form = draw(st.sampled_from(["dict", "prefix", "exact"] if placed else ["dict", "prefix"]))
    if form == "dict":
        return dict(placed)
    if not placed:
        return [...]
    return as_list_spec(placed, rank if form == "exact" else None)


@st.composite
def bodies(draw: st.DrawFn, shape: tuple[int, ...], scope: Scope) -> Program:
    """`v * 2 + 1`, then maybe a reduction over names in scope and one positional dim."""
    names = tuple(draw(st.lists(st.sampled_from(scope.visible), unique=True, max_size=2))
                  if scope.visible else ())
    positions: tuple[int, ...] = ()
    if shape and draw(st.booleans()):
        positions = (draw(st.integers(0, len(shape) - 1)),)
    how = draw(st.sampled_from(["snp.sum", "lax.psum", "snp.max"]))
    axes: tuple[Any, ...] = names + positions
    if not axes:
        return Program(lambda v: v * 2.0 + 1.0, lambda x: Labelled(x.names, x.array * 2.0 + 1.0),
                       "lambda v: v * 2.0 + 1.0", shape, scope.held)
    axis = axes[0] if len(axes) == 1 and draw(st.booleans()) else axes
    reduction: Callable[..., Any] = {"snp.sum": snp.sum, "lax.psum": lax.psum, "snp.max": snp.max}[how]

    def runtime(v: Any) -> Any:
        return reduction(v * 2.0 + 1.0, axis)

    def reference(x: Labelled) -> Labelled:
        return Labelled(x.names, x.array * 2.0 + 1.0).reduce(names, positions, how.split(".")[1],
                                                             scope.sizes)

    out_shape = tuple(d for i, d in enumerate(shape) if i not in positions)
    return Program(runtime, reference, f"lambda v: {how}(v * 2.0 + 1.0, {axis!r})", out_shape,
                   scope.held - set(names))


def called(inner: Program, through_lambda: bool) -> tuple[Callable[[Any], Any], str]:
    """The function a map receives: the inner program itself, or a lambda that calls it."""
    if through_lambda:
        fun = inner.runtime
        return (lambda v: fun(v)), f"lambda v: ({inner.text})(v)"
    return inner.runtime, inner.text


@st.composite
def xmaps(draw: st.DrawFn, shape: tuple[int, ...], scope: Scope, depth: int) -> Program:
    count = draw(st.integers(1, min(2, len(shape))))
    positions = draw(st.permutations(range(len(shape))))[:count]
    names = [scope.new_name() for _ in positions]
    sizes = [shape[p] for p in positions]
    in_axes = draw(axis_specs(dict(zip(positions, names, strict=True)), len(shape)))
    # Maybe an axis only axis_sizes defines: bound inside, held by no value until placed.
    axis_sizes = {scope.new_name(): draw(st.integers(2, 3))} if draw(st.integers(0, 3)) == 0 else {}
    inner_shape = tuple(d for i, d in enumerate(shape) if i not in positions)
    held = list(names)
    names += list(axis_sizes)
    sizes += list(axis_sizes.values())
    inner = draw(programs(inner_shape, scope.extended(names, sizes, visible=True, held=held), depth + 1))

    # Names the body kept must be placed; a name it reduced or never held may be (it broadcasts).
    placed = [n for n in names if n in inner.kept or draw(st.booleans())]
    out_rank = len(inner.shape) + len(placed)
    slots = draw(st.permutations(range(out_rank)))[:len(placed)]
    out_positions = dict(zip(slots, placed, strict=True))
    out_axes = draw(axis_specs(out_positions, out_rank))
    fun, text = called(inner, draw(st.booleans()))
    mapped = xmap(fun, in_axes=in_axes, out_axes=out_axes, axis_sizes=axis_sizes)

    def reference(x: Labelled) -> Labelled:
        result = inner.reference(x.bind(positions, held))
        for position in sorted(out_positions):  # ascending: each lands at its final position
            name = out_positions[position]
            result = result.place(name, position, sizes[names.index(name)])
        return result

    out_shape = list(inner.shape)
    for position in sorted(out_positions):
        out_shape.insert(position, sizes[names.index(out_positions[position])])
    return Program(mapped, reference,
                   f"xmap({text}, in_axes={spec_text(in_axes)}, out_axes={spec_text(out_axes)}, "
                   f"axis_sizes={axis_sizes})",
                   tuple(out_shape), inner.kept - set(names))


@st.composite
def vmaps(draw: st.DrawFn, shape: tuple[int, ...], scope: Scope, depth: int) -> Program:
    position = draw(st.integers(0, len(shape) - 1))
    in_axis = position - len(shape) if draw(st.booleans()) else position
    named = draw(st.booleans())
    label = scope.new_name()
    size = shape[position]
    inner_shape = shape[:position] + shape[position + 1:]
    inner = draw(programs(inner_shape, scope.extended([label], [size], visible=named, held=[label]),
                          depth + 1))
    out_rank = len(inner.shape) + 1
    out_position = draw(st.integers(0, out_rank - 1))
    out_axis = out_position - out_rank if draw(st.booleans()) else out_position
    fun, text = called(inner, draw(st.booleans()))
    axis_name = label if named else None
    mapped = jax.vmap(fun, in_axes=in_axis, out_axes=out_axis, axis_name=axis_name)

    def reference(x: Labelled) -> Labelled:
        return inner.reference(x.bind([position], [label])).place(label, out_position, size)

    out_shape = (*inner.shape[:out_position], size, *inner.shape[out_position:])
    return Program(mapped, reference,
                   f"jax.vmap({text}, in_axes={in_axis}, out_axes={out_axis}, axis_name={axis_name!r})",
                   out_shape, inner.kept - {label})


@st.composite
def programs(draw: st.DrawFn, shape: tuple[int, ...], scope: Scope, depth: int = 0) -> Program:
    if not shape or depth >= MAX_MAPS or (depth > 0 and draw(st.integers(0, 3)) == 0):
        return draw(bodies(shape, scope))
    kind = draw(st.sampled_from([xmaps, vmaps]))
    return draw(kind(shape, scope, depth))


@st.composite
def cases(draw: st.DrawFn) -> tuple[Program, np.ndarray[Any, Any]]:
    shape = tuple(draw(st.lists(st.integers(2, 4), min_size=1, max_size=4)))
    program = draw(programs(shape, Scope({}, (), frozenset(), itertools.count())))
    if draw(st.booleans()):  # the whole tower under jit too: xmap composes with it
        program = Program(jax.jit(program.runtime), program.reference, f"jax.jit({program.text})",
                          program.shape, program.kept)
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) % 7.0
    return program, x


def multiply(a: Labelled, b: Labelled) -> Labelled:
    """`a * b`: named axes broadcast by name, positional dims right-aligned."""
    names = a.names + tuple(n for n in b.names if n not in a.names)
    rank = max(a.array.ndim - len(a.names), b.array.ndim - len(b.names))

    def aligned(x: Labelled) -> np.ndarray[Any, Any]:
        own = len(x.names)
        order = [x.names.index(n) for n in names if n in x.names]
        array = np.transpose(x.array, order + list(range(own, x.array.ndim)))
        for index, name in enumerate(names):
            if name not in x.names:
                array = np.expand_dims(array, index)
        for _ in range(rank - (x.array.ndim - own)):
            array = np.expand_dims(array, len(names))
        return array

    return Labelled(names, aligned(a) * aligned(b))


@st.composite
def argument(draw: st.DrawFn, per_example: tuple[int, ...], names: Sequence[str],
             sizes: dict[str, int]) -> tuple[Any, dict[int, str], tuple[int, ...]]:
    """An argument whose named dims sit at random positions: its in_axes, mapping and shape."""
    rank = len(per_example) + len(names)
    slots = draw(st.permutations(range(rank)))[:len(names)]
    placed = dict(zip(slots, names, strict=True))
    rest = iter(per_example)
    shape = tuple(sizes[placed[i]] if i in placed else next(rest) for i in range(rank))
    return draw(axis_specs(placed, rank)), placed, shape


@st.composite
def two_argument_cases(draw: st.DrawFn) -> tuple[Program, list[np.ndarray[Any, Any]]]:
    """`xmap(lambda v, w: tower(v * w), (x_spec, y_spec), out_axes)`: names broadcast by name."""
    fresh = itertools.count()
    names = [f"n{next(fresh)}" for _ in range(draw(st.integers(1, 3)))]
    sizes = {name: draw(st.integers(2, 4)) for name in names}
    x_names = draw(st.lists(st.sampled_from(names), unique=True, min_size=1))
    y_names = draw(st.lists(st.sampled_from(names), unique=True))
    per_example = tuple(draw(st.lists(st.integers(2, 4), max_size=2)))
    y_example = per_example[len(per_example) - draw(st.integers(0, len(per_example))):]
    x_spec, x_placed, x_shape = draw(argument(per_example, x_names, sizes))
    y_spec, y_placed, y_shape = draw(argument(y_example, y_names, sizes))
    bound = [n for n in names if n in x_names or n in y_names]
    scope = Scope({n: sizes[n] for n in bound}, tuple(bound), frozenset(bound), fresh)
    inner = draw(programs(per_example, scope, depth=1))
    placed = [n for n in bound if n in inner.kept or draw(st.booleans())]
    out_rank = len(inner.shape) + len(placed)
    out_positions = dict(zip(draw(st.permutations(range(out_rank)))[:len(placed)], placed, strict=True))
    out_axes = draw(axis_specs(out_positions, out_rank))
    in_axes = (x_spec, y_spec) if draw(st.booleans()) else [x_spec, y_spec]
    tower = inner.runtime
    mapped = xmap(lambda v, w: tower(v * w), in_axes=in_axes, out_axes=out_axes)

    def reference(x: Labelled, y: Labelled) -> Labelled:
        def bound_by(value: Labelled, mapping: dict[int, str]) -> Labelled:
            return value.bind(sorted(mapping), [mapping[p] for p in sorted(mapping)])

        result = inner.reference(multiply(bound_by(x, x_placed), bound_by(y, y_placed)))
        for position in sorted(out_positions):
            result = result.place(out_positions[position], position, sizes[out_positions[position]])
        return result

    text = (f"xmap(lambda v, w: ({inner.text})(v * w), in_axes={spec_text(in_axes)}, "
            f"out_axes={spec_text(out_axes)})")
    x = np.arange(int(np.prod(x_shape)), dtype=np.float32).reshape(x_shape) % 7.0
    y = np.arange(int(np.prod(y_shape)), dtype=np.float32).reshape(y_shape) % 5.0 + 1.0
    return Program(mapped, reference, text, (), frozenset()), [x, y]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_nested_maps_compute_the_positional_program(case: tuple[Program, np.ndarray[Any, Any]]) -> None:
    program, x = case
    want = program.reference(Labelled((), x))
    assert want.names == ()  # every map placed or reduced all of its names
    got = np.asarray(program.runtime(jnp.asarray(x)))
    assert got.shape == want.array.shape == program.shape, program.text
    np.testing.assert_allclose(got, want.array, rtol=1e-5, err_msg=program.text)


def test_xmap_of_an_xmapped_function_reduces_the_inner_axis() -> None:
    """The issue's program: the outer xmap once took over the inner one's specs and computed it alone."""
    x = jnp.arange(24.0).reshape((2, 3, 4))
    inner = xmap(lambda v: snp.sum(v, axis="j"), in_axes=["j", ...], out_axes=[...])
    outer = xmap(inner, in_axes=["i", ...], out_axes=["i", ...])
    np.testing.assert_allclose(outer(x), np.asarray(x).sum(axis=1))
    z = jnp.arange(120.0).reshape((2, 5, 3, 4))
    third = xmap(outer, in_axes={1: "k"}, out_axes={0: "k"})
    np.testing.assert_allclose(third(z), np.asarray(z).sum(axis=2).transpose(1, 0, 2))


def test_an_xmapped_function_does_not_take_its_body_s_annotations() -> None:
    """The body's parameters are per-example; the xmapped function takes the whole array."""
    def body(v: PER_EXAMPLE) -> f32[(4,)]:
        return snp.sum(v, axis="j")

    inner = xmap(body, in_axes=["j", ...], out_axes=[...])
    outer = xmap(inner, in_axes=["i", ...], out_axes=["i", ...])
    x = jnp.arange(24.0).reshape((2, 3, 4))
    np.testing.assert_allclose(outer(x), np.asarray(x).sum(axis=1))
    assert inner.__name__ == "body"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(two_argument_cases())
def test_two_argument_xmaps_broadcast_names_like_numpy(case: tuple[Program, list[np.ndarray[Any, Any]]]) -> None:
    program, (x, y) = case
    want = program.reference(Labelled((), x), Labelled((), y))
    assert want.names == ()
    got = np.asarray(program.runtime(jnp.asarray(x), jnp.asarray(y)))
    assert got.shape == want.array.shape, program.text
    np.testing.assert_allclose(got, want.array, rtol=1e-5, err_msg=program.text)
