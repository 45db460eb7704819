"""What surrounds the code being analysed: bound axis names, resources, the mesh."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, fields, replace
from operator import attrgetter

from shapecheck.analyzer.values import Mesh
from shapecheck.dims import Dim


class Undecided(Exception):
    """Raised where an analysis needs to know whether its function runs under no map before
    that is worked out: most functions never ask, and the answer costs a walk of the module."""


@dataclass(frozen=True, slots=True)
class Context:
    """The analysis context of one function body or module.

    `bound` is None when it is unknown which maps enclose the code (a function analysed on
    its own may be called inside any map), and then SC202 cannot be certain. A map entered
    there binds its own names, and `outer_unknown` says that maps outside it may bind more;
    unless `unmapped`: the function is one nothing in view calls under a map
    (`walk.unmapped_functions`), so a map or jit built and called there binds only its own.
    """

    bound: frozenset[str] | None = None
    outer_unknown: bool = False
    any_name: bool = False  # an enclosing map binds a name the checker cannot read: any name
    unmapped: bool | None = False  # code that nothing in view runs under a map (see above)
    """None: not yet worked out (a walk of the module); `runs_unmapped` raises Undecided."""
    binders: tuple[tuple[str, ast.AST], ...] = field(default=(), compare=False, hash=False)
    """A note for each enclosing map: what it binds and where, for SC202's notes."""
    sizes: tuple[tuple[str, Dim], ...] = ()
    resources: tuple[tuple[str, tuple[str, ...]], ...] = ()
    resource_notes: tuple[tuple[str, ast.AST], ...] = field(default=(), compare=False, hash=False)
    mesh: Mesh | None = None
    meshless: bool = False
    """No mesh is set here by the code the interpreter followed (module-level code and what it
    calls, outside any `with`): a bare PartitionSpec has no mesh to be read against. Reports
    that rest on it also ask `Interpreter.sets_mesh_unseen`."""
    hidden: frozenset[str] = frozenset()  # vmap axes: invisible to annotations
    depth: int = field(default=0, metadata={"key": False})  # a summary holds at any depth
    manual: frozenset[str] = frozenset()  # a shard_map body's manual mesh axes (among `hidden`)
    checked: tuple[str, ...] = ()
    """The manual mesh axes whose varying JAX checks here (shard_map's `check_vma=True`), in the
    mesh's order: a loop carry or a branch must keep them (SC210)."""
    traced: bool = False
    """Code JAX traces (a jit, map or shard_map body): its arrays are tracers, which no jit's
    in_shardings refuse as committed elsewhere. False where unknown."""

    @property
    def resource_map(self) -> dict[str, tuple[str, ...]]:
        return dict(self.resources)

    def size_of(self, axis: str) -> Dim:
        return dict(self.sizes).get(axis)

    def with_mesh(self, mesh: Mesh | None) -> Context:
        return replace(self, mesh=mesh, meshless=False)

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
        return replace(
            self, bound=bound, outer_unknown=(self.bound is None and not self.runs_unmapped()) or self.outer_unknown,
            binders=self.binders + ((binder,) if binder is not None else ()),
            sizes=tuple(sorted(sizes.items())), resources=tuple(sorted(merged.items())),
            resource_notes=self.resource_notes + notes, hidden=self.hidden | hidden, depth=self.depth + 1,
            manual=self.manual | manual, traced=True,
        )

    def enter_jit(self, binder: tuple[str, ast.AST]) -> Context:
        """A jitted function's body: jit binds no name, so where nothing maps the code around
        it, none is bound inside."""
        if self.bound is None and self.runs_unmapped():
            return replace(self, bound=frozenset(), binders=(*self.binders, binder), traced=True)
        return self if self.traced else replace(self, traced=True)

    def runs_unmapped(self) -> bool:
        """`unmapped`, raising Undecided while it is not worked out."""
        if self.unmapped is None:
            raise Undecided
        return self.unmapped

    def deeper(self) -> Context:
        # `replace` checks every field by name; this runs once per call analysed.
        values = list(_all_of(self))
        values[_DEPTH] += 1
        return Context(*values)

    def key(self) -> tuple[object, ...]:
        """What a function's summary depends on: every field but the notes for messages (not
        compared) and those marked `key: False`. A new field is part of the key unless it says
        otherwise."""
        return _key_of(self)


_KEY_FIELDS = tuple(f.name for f in fields(Context) if f.compare and f.metadata.get("key", True))
_key_of = attrgetter(*_KEY_FIELDS)  # a tuple of them, read in C: once per call analysed
_all_of = attrgetter(*(f.name for f in fields(Context)))
_DEPTH = [f.name for f in fields(Context)].index("depth")
