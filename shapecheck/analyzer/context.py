"""What surrounds the code being analysed: bound axis names, resources, the mesh."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace

from shapecheck.analyzer.values import Mesh
from shapecheck.dims import Dim


@dataclass(frozen=True, slots=True)
class Context:
    """The analysis context of one function body or module.

    `bound` is None when it is unknown which maps enclose the code (a function analysed on
    its own may be called inside any map), and then SC202 cannot be certain. A map entered
    there binds its own names, and `outer_unknown` says that maps outside it may bind more.
    """

    bound: frozenset[str] | None = None
    outer_unknown: bool = False
    any_name: bool = False  # an enclosing map binds a name the checker cannot read: any name
    binders: tuple[tuple[str, ast.AST], ...] = field(default=(), compare=False, hash=False)
    """A note for each enclosing map: what it binds and where, for SC202's notes."""
    sizes: tuple[tuple[str, Dim], ...] = ()
    resources: tuple[tuple[str, tuple[str, ...]], ...] = ()
    resource_notes: tuple[tuple[str, ast.AST], ...] = field(default=(), compare=False, hash=False)
    mesh: Mesh | None = None
    hidden: frozenset[str] = frozenset()  # vmap axes: invisible to annotations
    depth: int = 0
    manual: frozenset[str] = frozenset()  # a shard_map body's manual mesh axes (among `hidden`)

    @property
    def resource_map(self) -> dict[str, tuple[str, ...]]:
        return dict(self.resources)

    def size_of(self, axis: str) -> Dim:
        return dict(self.sizes).get(axis)

    def with_mesh(self, mesh: Mesh | None) -> Context:
        return replace(self, mesh=mesh)

    def enter_map(
        self, names: dict[str, Dim], resources: dict[str, tuple[str, ...]] | None = None,
        notes: tuple[tuple[str, ast.AST], ...] = (), hidden: frozenset[str] = frozenset(),
        binder: tuple[str, ast.AST] | None = None, manual: frozenset[str] = frozenset(),
    ) -> Context:
        # Inside a map its names are certainly bound, whatever encloses the code around it.
        bound = frozenset(names) if self.bound is None else self.bound | frozenset(names)
        sizes = dict(self.sizes)
        sizes.update(names)
        merged = dict(self.resources)
        merged.update(resources or {})
        return Context(
            bound, self.bound is None or self.outer_unknown, self.any_name,
            self.binders + ((binder,) if binder is not None else ()),
            tuple(sorted(sizes.items())), tuple(sorted(merged.items())),
            self.resource_notes + notes, self.mesh, self.hidden | hidden, self.depth + 1,
            self.manual | manual,
        )

    def deeper(self) -> Context:
        return replace(self, depth=self.depth + 1)

    def key(self) -> tuple[object, ...]:
        return (self.bound, self.outer_unknown, self.any_name, self.sizes, self.resources, self.mesh, self.hidden,
                self.manual)
