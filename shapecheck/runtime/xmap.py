"""`xmap` on current JAX: one `jax.vmap` per named axis, partitioned by sharding constraints.

How a call runs:
1. the arguments are matched against in_axes by the checker's algebra (sizes, ranks, SC102);
2. the body is traced once to a jaxpr on the per-example shapes, with the named axes bound;
3. the jaxpr is replayed inside nested vmaps (one level per named axis, outermost first), where
   every intermediate shows its named shape: the co-occurrence rule is checked there, and with
   axis_resources every intermediate is constrained so that its named axes are split over
   their mesh axes (the vmap level's `spmd_axis_name` turns a per-example constraint into one
   on the whole array);
4. results come out at the positions out_axes gives, checked against out_axes and `fun`'s
   annotations before vmap places them.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jax
from jax.sharding import AbstractMesh, PartitionSpec

from shapecheck.algebra.axis_mapping import (
    AxisMapping,
    apply_in_axes,
    apply_out_axes,
)
from shapecheck.algebra.conformance import conform
from shapecheck.algebra.outcome import Problem
from shapecheck.algebra.resources import cooccurrence
from shapecheck.codes import Code
from shapecheck.dims import Dim
from shapecheck.runtime import mesh_scope as meshes
from shapecheck.runtime import specs
from shapecheck.runtime.annotations import signature_types
from shapecheck.runtime.boundary import boundary
from shapecheck.runtime.errors import NamedAxisError, raise_problems
from shapecheck.runtime.interpreter import evaluate, location
from shapecheck.runtime.named_shape import named_shape
from shapecheck.types import ArrayType

# jax's constructors and sharding API are untyped; these aliases keep mypy strict elsewhere.
_spec: Callable[..., PartitionSpec] = PartitionSpec
_shape_dtype: Callable[..., Any] = jax.ShapeDtypeStruct
_with_sharding: Callable[..., Any] = jax.lax.with_sharding_constraint


@dataclass(frozen=True, slots=True)
class _Leaf:
    """One flattened argument or result and the mapping that names its dims."""

    mapping: AxisMapping
    where: str


@boundary
def xmap(
    fun: Callable[..., Any],
    in_axes: Any,
    out_axes: Any,
    *,
    axis_sizes: Mapping[Any, int] | None = None,
    axis_resources: Mapping[Any, Any] | None = None,
    donate_argnums: int | Sequence[int] = (),
    backend: str | None = None,
) -> Callable[..., Any]:
    """Assign a positional signature to `fun`, which uses named axes (the removed JAX API)."""
    return _XMapped(fun, in_axes, out_axes, axis_sizes, axis_resources, donate_argnums, backend)


class _XMapped:
    """The function xmap returns; jitted per mesh, like the removed implementation."""

    def __init__(self, fun: Callable[..., Any], in_axes: Any, out_axes: Any,
                 axis_sizes: Mapping[Any, int] | None, axis_resources: Mapping[Any, Any] | None,
                 donate_argnums: int | Sequence[int], backend: str | None) -> None:
        self.fun = fun
        # Every spec is checked here, before anything is traced, by the checker's own rules.
        options = specs.Options.read(_tupled(in_axes), out_axes, axis_sizes, axis_resources)
        self.in_spec, self.out_spec = options.in_spec, options.out_spec
        self.axis_sizes, self.resources = options.axis_sizes, options.resources
        self.defined = options.defined
        self.donate_argnums = (donate_argnums,) if isinstance(donate_argnums, int) else tuple(donate_argnums)
        self.backend = backend
        self._jitted: dict[Any, Callable[..., Any]] = {}
        _take_name(self, fun)

    @boundary
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise TypeError("xmap does not support keyword arguments; pass them positionally")
        mesh = meshes.current_mesh() if self.resources else None
        meshes.check_known(self.resources, mesh)
        jitted = self._jitted.get(mesh)
        if jitted is None:
            jitted = jax.jit(functools.partial(self._run, mesh), donate_argnums=self.donate_argnums)
            self._jitted[mesh] = jitted
        device = (jax.default_device(jax.devices(self.backend)[0]) if self.backend
                  else contextlib.nullcontext())
        with device:
            return jitted(*args)

    def _run(self, mesh: meshes.Scope | None, *args: Any) -> Any:
        """The traced computation (runs once per argument shape under jit)."""
        sizes = self._sizes(args)
        if mesh is not None:
            meshes.check_divisible(sizes, self.resources, mesh)
        leaves, in_tree = jax.tree_util.tree_flatten(args)
        in_leaves = [_Leaf(m, w) for m, w in specs.leaf_mappings(self.in_spec, args, "in_axes")]
        for leaf in in_leaves:
            raise_problems(cooccurrence(leaf.mapping.names, self.resources),
                           f"{leaf.where} = {leaf.mapping.text}")
        self._check_parameters(args, sizes)

        order = list(self.defined)
        use_mesh = mesh is not None and bool(self.resources)
        with _auto_mode(mesh.mesh if mesh is not None and use_mesh else None):
            closed, out_tree = _trace_body(self.fun, in_tree, leaves, in_leaves, sizes, order)
        # The results' structure against out_axes, with the checker's messages (any shape fits here).
        shapes = jax.tree_util.tree_unflatten(out_tree, [ArrayType.anything()] * out_tree.num_leaves)
        raise_problems(apply_out_axes(self.out_spec, specs.value_tree(shapes), {})[1])
        dummy = jax.tree_util.tree_unflatten(out_tree, [0] * out_tree.num_leaves)
        out_leaves = [_Leaf(m, w) for m, w in specs.leaf_mappings(self.out_spec, dummy, "out_axes")]

        body = self._replay(closed, out_leaves, sizes, mesh if use_mesh else None)
        for depth in reversed(range(len(order))):
            name, outer = order[depth], order[:depth]
            body = jax.vmap(
                body,
                in_axes=tuple(specs.level_in_axis(leaf.mapping, name, outer) for leaf in in_leaves),
                out_axes=tuple(specs.level_out_axis(leaf.mapping, name, outer) for leaf in out_leaves),
                axis_name=name,
                axis_size=sizes[name],
                spmd_axis_name=self.resources.get(name) if use_mesh else None,
            )
        if use_mesh:
            assert mesh is not None
            ranks = [len(aval.shape) + len(leaf.mapping.entries)
                     for aval, leaf in zip(closed.out_avals, out_leaves, strict=True)]
            body = _partitioned(body, mesh, self.resources, in_leaves, out_leaves, ranks)
        outs = list(body(*leaves))
        return jax.tree_util.tree_unflatten(out_tree, outs)

    def _sizes(self, args: tuple[Any, ...]) -> dict[str, int]:
        """Every defined axis's size, from the arguments and axis_sizes (SC002/SC102/SC106)."""
        _, found = apply_in_axes(self.in_spec, [specs.value_tree(a) for a in args], self.axis_sizes)
        raise_problems(found.problems)
        sizes: dict[str, int] = {}
        for name in self.defined:
            size = found.sizes.get(name)
            if not isinstance(size, int):
                raise NamedAxisError(Code.INVALID_AXIS_SPEC, f"xmap cannot tell the size of named axis {name!r}; "
                                     "give it in axis_sizes")
            sizes[name] = size
        return sizes

    def _check_parameters(self, args: tuple[Any, ...], sizes: Mapping[str, int]) -> None:
        """`fun`'s parameter annotations against what the body will see (SC103)."""
        params, _ = signature_types(self.fun)
        named_args, _ = apply_in_axes(self.in_spec, [specs.value_tree(a) for a in args], sizes)
        bindings: dict[str, Dim] = {}
        problems: list[Problem] = []
        for index, ((name, declared), actual) in enumerate(zip(params, named_args, strict=False)):
            if declared is not None and isinstance(actual, ArrayType):
                what = f"argument {index + 1} ({name}) of {_name(self.fun)}"
                problems += conform(declared, actual, bindings, what, x64=_x64())
        raise_problems(problems)

    def _replay(self, closed: Any, out_leaves: list[_Leaf], sizes: Mapping[str, int],
                scope: meshes.Scope | None) -> Callable[..., tuple[Any, ...]]:
        names = tuple(self.defined)
        resources = self.resources
        shared = _shares_mesh_axis(resources)
        _, returns = signature_types(self.fun)

        def observe(value: Any, eqn: Any) -> Any:
            if not _is_array(value):
                return value
            if shared:
                found = cooccurrence(named_shape(value, names), resources)
                raise_problems(found, location=location(eqn))
            if scope is not None:
                value = _constrain(value, _spec(*([None] * value.ndim)), scope)
            return value

        def body(*per_example: Any) -> tuple[Any, ...]:
            outs = evaluate(closed.jaxpr, closed.consts, per_example, observe)
            problems: list[Problem] = []
            for value, leaf in zip(outs, out_leaves, strict=True):
                actual = specs.array_type(value, named_shape(value, names))
                _, placed = apply_out_axes(leaf.mapping, actual, sizes, leaf.where)
                problems += placed
                if shared:
                    problems += cooccurrence(actual.named_dict, resources)
                if returns is not None and len(out_leaves) == 1:
                    problems += conform(returns, actual, {}, f"the result of {_name(self.fun)}", x64=_x64())
            raise_problems(problems)
            return tuple(outs)

        return body


def _take_name(wrapper: object, fun: Callable[..., Any]) -> None:
    """Give `wrapper` the name and docs of `fun`, and nothing else of it.

    Not `functools.update_wrapper`: it copies `fun.__dict__` over the wrapper's own, so an
    xmap of an xmapped function took the inner one's specs and computed the inner map alone;
    and its `__wrapped__` makes `inspect.signature` report `fun`'s per-example annotations as
    the signature of the positional function xmap returns.
    """
    for attribute in ("__module__", "__name__", "__qualname__", "__doc__"):
        with contextlib.suppress(AttributeError):
            setattr(wrapper, attribute, getattr(fun, attribute))


def _tupled(in_axes: Any) -> Any:
    """The removed xmap read a top-level list of mappings as the argument tuple; so do we."""
    if isinstance(in_axes, list) and in_axes and not all(
            isinstance(item, str) or item is None or item is Ellipsis for item in in_axes):
        return tuple(in_axes)
    return in_axes


def _trace_body(fun: Callable[..., Any], in_tree: Any, leaves: Sequence[Any], in_leaves: Sequence[_Leaf],
                sizes: Mapping[str, int], order: Sequence[str]) -> tuple[Any, Any]:
    """The body as a jaxpr over per-example values, with every named axis bound to its size."""
    avals = []
    for value, leaf in zip(leaves, in_leaves, strict=True):
        dropped = {position for position, _ in leaf.mapping.entries}
        shape = tuple(d for i, d in enumerate(jax.numpy.shape(value)) if i not in dropped)
        aval = jax.typeof(value)
        avals.append(_shape_dtype(shape, aval.dtype, weak_type=aval.weak_type))
    box: list[Any] = []

    def flat_body(*flat: Any) -> list[Any]:
        result = fun(*jax.tree_util.tree_unflatten(in_tree, flat))
        outs, tree = jax.tree_util.tree_flatten(result)
        box.append(tree)
        return outs

    closed = jax.make_jaxpr(flat_body, axis_env=[(name, sizes[name]) for name in order])(*avals)
    return closed, box[-1]


def _partitioned(body: Callable[..., Any], scope: meshes.Scope, resources: Mapping[str, tuple[str, ...]],
                 in_leaves: Sequence[_Leaf], out_leaves: Sequence[_Leaf], ranks: Sequence[int],
                 ) -> Callable[..., Any]:
    """`body` with inputs and outputs split over the mesh as their named dims say.

    Sharding constraints are assertions on Explicit mesh axes, so with such axes the body runs
    in Auto mode (`auto_axes`) and its results come back with the explicit shardings named.
    """
    out_specs = tuple(_placed_spec(leaf.mapping, rank, resources)
                      for leaf, rank in zip(out_leaves, ranks, strict=True))

    def constrained(*leaves: Any) -> tuple[Any, ...]:
        leaves = tuple(_constrain(v, _placed_spec(leaf.mapping, v.ndim, resources), scope)
                       for v, leaf in zip(leaves, in_leaves, strict=True))
        outs = body(*leaves)
        return tuple(_constrain(v, spec, scope) for v, spec in zip(outs, out_specs, strict=True))

    explicit = _explicit_axes(scope.mesh)
    if not explicit:
        return constrained
    auto: Callable[..., Any] = jax.sharding.auto_axes(constrained, axes=explicit, out_sharding=out_specs)
    return auto


def _explicit_axes(mesh: AbstractMesh) -> tuple[str, ...]:
    return tuple(name for name, kind in zip(mesh.axis_names, mesh.axis_types, strict=True)
                 if kind == jax.sharding.AxisType.Explicit)


def _auto_mode(mesh: AbstractMesh | None) -> contextlib.AbstractContextManager[Any]:
    """Trace the body as `auto_axes` will replay it: the jaxpr's equations remember the mode."""
    explicit = () if mesh is None else _explicit_axes(mesh)
    if mesh is None or not explicit:
        return contextlib.nullcontext()
    auto = mesh.update_axis_types({name: jax.sharding.AxisType.Auto for name in explicit})
    return jax.sharding.use_abstract_mesh(auto)


def _placed_spec(mapping: AxisMapping, rank: int, resources: Mapping[str, tuple[str, ...]]) -> PartitionSpec:
    """The partitioning of a positional array: mapped dims over their mesh axes, the rest whole."""
    parts: list[Any] = [None] * rank
    for position, name in mapping.entries:
        axes = resources.get(name)
        if axes and position < rank:
            parts[position] = axes if len(axes) > 1 else axes[0]
    return _spec(*parts)


def _constrain(value: Any, spec: PartitionSpec, scope: meshes.Scope) -> Any:
    """Pin `value`'s sharding over the mesh in scope."""
    if not _is_array(value):
        return value
    return _with_sharding(value, scope.sharding(spec))


def _is_array(value: Any) -> bool:
    dtype = getattr(value, "dtype", None)
    return dtype is not None and hasattr(value, "ndim") and not jax.numpy.issubdtype(
        dtype, jax.dtypes.extended)


def _shares_mesh_axis(resources: Mapping[str, tuple[str, ...]]) -> bool:
    """Co-occurrence can only happen when two named axes share a mesh axis."""
    seen: set[str] = set()
    for axes in resources.values():
        if seen & set(axes):
            return True
        seen |= set(axes)
    return False


def _name(fun: Callable[..., Any]) -> str:
    return getattr(fun, "__name__", None) or type(fun).__name__


def _x64() -> bool:
    """The mode the values' dtypes were made in: they are exact, never a mode away (SC301)."""
    return bool(getattr(jax.config, "jax_enable_x64", False))
