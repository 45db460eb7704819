"""The abstract values the interpreter tracks: arrays, constants, containers, functions, maps."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

from shapecheck.algebra.axis_mapping import SpecTree
from shapecheck.algebra.partition_spec import PartitionSpec
from shapecheck.dims import Dim, Sym
from shapecheck.literal import Lit
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.algebra.indexing import IndexItem
    from shapecheck.analyzer.scope import Scope

# CPython's tree has a class per kind of `def`; the interpreter runs both alike.
DefNode: TypeAlias = ast.FunctionDef | ast.AsyncFunctionDef
FunctionNode: TypeAlias = DefNode | ast.Lambda


class PythonObject:
    """A value that is an ordinary Python object (a function, a map, a mesh): true in `if`,
    `and` and `or`, as objects without `__bool__` or `__len__` are. Each value kind says how it
    is tested for truth (`truth()`); the interpreter asks it rather than listing kinds."""

    __slots__ = ()

    def truth(self) -> bool | None:
        return True


@dataclass(frozen=True, slots=True)
class Const:
    """A Python constant the program computes with: sizes, axis names, flags."""

    value: int | float | complex | str | bool | None

    def truth(self) -> bool | None:
        return bool(self.value)

    @property
    def is_int(self) -> bool:
        return isinstance(self.value, int) and not isinstance(self.value, bool)


@dataclass(frozen=True, slots=True)
class TracedInt(Const):
    """A Python int passed to a jitted function as a non-static argument: JAX traces it (a 0-d
    int32 tracer). It computes as the int it holds (what it becomes is not the question), but
    JAX refuses it where it needs a concrete size: a shape, a slice bound, `range`."""


@dataclass(frozen=True, slots=True)
class Seq:
    """A tuple or list literal the program built; `lit` keeps its syntax for spec parsing."""

    items: tuple[Value, ...]
    is_list: bool = False
    node: ast.expr | None = field(default=None, compare=False, hash=False)
    # Reads names inside `node` in the module that wrote it (specs imported from elsewhere).
    lookup: Callable[[str], Lit | None] | None = field(default=None, compare=False, hash=False)

    def truth(self) -> bool | None:
        return bool(self.items)


@dataclass(frozen=True, slots=True)
class Dict:
    """A dict with string or int keys (axis_resources, axis_sizes, in_axes mappings)."""

    items: tuple[tuple[Value, Value], ...]
    node: ast.expr | None = field(default=None, compare=False, hash=False)
    lookup: Callable[[str], Lit | None] | None = field(default=None, compare=False, hash=False)

    def truth(self) -> bool | None:
        return bool(self.items)


@dataclass(frozen=True, slots=True)
class ContainerMethod(PythonObject):
    """`params.items` before it is called: a method of a dict or list the checker follows."""

    receiver: Seq | Dict
    name: str


@dataclass(frozen=True, slots=True)
class Qual:
    """A module or library object known by its qualified name (`jax.numpy.einsum`)."""

    name: str


@dataclass(frozen=True, slots=True)
class BoundMethod(PythonObject):
    """`x.sum` before it is called: an array method (`x.at[idx].set`: `indexed` is `x[idx]`)."""

    receiver: ArrayType
    name: str
    indexed: ArrayType | None = None
    index: tuple[IndexItem, ...] | None = None  # `idx` of `x.at[idx]`, read item by item


@dataclass(frozen=True, slots=True, eq=False)
class Function(PythonObject):
    """A `def` or `lambda` of the checked program, with the scope it closes over."""

    node: FunctionNode
    scope: Scope
    module: str
    name: str

    def __hash__(self) -> int:
        return id(self.node)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Function) and other.node is self.node


@dataclass(frozen=True, slots=True)
class Partial(PythonObject):
    """`functools.partial(func, *args, **kwargs)`."""

    func: Value
    args: tuple[Value, ...] = ()
    kwargs: tuple[tuple[str, Value], ...] = ()


@dataclass(frozen=True, slots=True, eq=False)
class Xmap(PythonObject):
    """The function `xmap(fun, in_axes, out_axes, ...)` returns, waiting to be called."""

    fun: Value
    in_axes: Lit | None
    out_axes: Lit | None
    in_tree: SpecTree | None  # in_axes and out_axes parsed once, when the xmap is built
    out_tree: SpecTree | None
    axis_sizes: dict[str, Any]
    axis_sizes_nodes: dict[str, ast.AST]
    resources: dict[str, tuple[str, ...]]
    resource_nodes: dict[str, ast.AST]
    node: ast.AST  # the xmap(...) call, or the decorator that applied it
    names_known: bool = True  # False when an axis_sizes key cannot be read: it may bind any name


@dataclass(frozen=True, slots=True, eq=False)
class Vmap(PythonObject):
    """`jax.vmap(fun, in_axes, out_axes, axis_name=...)` or `jax.pmap(...)`, waiting to be called."""

    fun: Value
    in_axes: Value
    out_axes: Value
    axis_name: str | None
    axis_size: int | None
    node: ast.AST
    kind: str = "vmap"
    name_unknown: bool = False  # an axis_name the checker cannot read: it may be any name
    axis_size_unread: bool = False  # axis_size given, but not as a known int
    static_argnums: tuple[int, ...] | None = ()  # pmap's static_broadcasted_argnums; None: unread


@dataclass(frozen=True, slots=True)
class Devices:
    """`jax.devices()` or a slice of it: a list of devices, its length when known."""

    count: int | None


@dataclass(frozen=True, slots=True)
class Mesh(PythonObject):
    """A device mesh: axis names in order and their sizes (None where unknown)."""

    axes: tuple[tuple[str, int | None], ...]
    types: tuple[str, ...] | None = None  # each axis's AxisType (Explicit, Auto, Manual); None: unknown

    @property
    def axis_types(self) -> dict[str, str | None]:
        """Each axis's type, None where unknown."""
        if self.types is None or len(self.types) != len(self.axes):
            return {name: None for name, _ in self.axes}
        return dict(zip(self.names, self.types, strict=True))

    @property
    def shape(self) -> dict[str, int]:
        return {name: size for name, size in self.axes if size is not None}

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.axes)


@dataclass(frozen=True, slots=True)
class DType:
    """`jnp.float32` and friends, as a dtype name of the annotation language."""

    name: str


@dataclass(frozen=True, slots=True)
class MeshContext:
    """A `with` target that installs a mesh (`with Mesh(...)`, `jax.set_mesh(mesh)`)."""

    mesh: Mesh


@dataclass(frozen=True, slots=True, eq=False)
class Class(PythonObject):
    """A class the checked program defines.

    `scope` holds its body's bindings (methods, class attributes, field defaults) once its
    statement has run; `record` says how its instances are built without an `__init__` of the
    program's: "dataclass" (dataclasses, flax.struct, chex, equinox modules: the annotated
    `fields` by position or keyword) or "namedtuple" (the same, and a tuple too).
    """

    name: str
    node: ast.ClassDef | None = None
    scope: Scope | None = None
    bases: tuple[Value, ...] = ()
    record: str | None = None
    fields: tuple[str, ...] = ()

    def __hash__(self) -> int:
        return hash((self.name, id(self.node)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Class) and other.name == self.name and other.node is self.node

    def attribute(self, name: str) -> Value:
        """What the class (or a base the program defines) binds to `name`; None: unknown."""
        for cls in self.lineage():
            if cls.scope is not None and name in cls.scope.bindings:
                return cls.scope.bindings[name]
        return None

    def lineage(self) -> list[Class]:
        """This class and the bases the program defines, nearest first (no multiple-inheritance
        order: the first base of each class)."""
        found: list[Class] = []
        cls: Class | None = self
        while cls is not None and cls not in found:
            found.append(cls)
            cls = next((b for b in cls.bases if isinstance(b, Class)), None)
        return found


@dataclass(frozen=True, slots=True)
class Instance(PythonObject):
    """An object of a class of the program, as far as its attributes are known.

    Immutable: `self.w = v` binds a new Instance to the name, so branches join attribute by
    attribute as they do for names. An attribute not in `fields` reads from the class, else as
    unknown.
    """

    cls: Class
    fields: tuple[tuple[str, Value], ...] = ()

    def get(self, name: str) -> Value:
        for field_name, value in self.fields:
            if field_name == name:
                return value
        return self.cls.attribute(name)

    def has(self, name: str) -> bool:
        return any(field_name == name for field_name, _ in self.fields)

    def with_field(self, name: str, value: Value) -> Instance:
        if self.has(name):
            return Instance(self.cls, tuple((n, value if n == name else v) for n, v in self.fields))
        return Instance(self.cls, (*self.fields, (name, value)))

    def items(self) -> tuple[Value, ...] | None:
        """A NamedTuple's items in order (None for other objects)."""
        if self.cls.record != "namedtuple":
            return None
        return tuple(self.get(name) for name in self.cls.fields)


@dataclass(frozen=True, slots=True)
class BoundFunction(PythonObject):
    """`obj.method` before it is called: a function of the program with its receiver."""

    receiver: Value
    function: Function


@dataclass(frozen=True, slots=True)
class ClassMethod(PythonObject):
    """`@classmethod` in a class body: read from the class or an instance, the class is its
    first argument (`Config.from_dict(d)`, `State.create(...)` building with `cls(...)`)."""

    function: Function


@dataclass(frozen=True, slots=True)
class StaticMethod(PythonObject):
    """`@staticmethod` in a class body: read from the class or an instance, the function alone."""

    function: Function


@dataclass(frozen=True, slots=True)
class Property(PythonObject):
    """`@property` (or `functools.cached_property`) in a class body: reading the attribute of an
    instance calls `getter` with it (`cfg.head_dim` of a config class)."""

    getter: Function


@dataclass(frozen=True, slots=True)
class AtIndexer:
    """`x.at` or `x.at[idx]`: functional updates that keep `x`'s type (`.set`, `.add`, ...)."""

    receiver: ArrayType
    indexed: bool = False
    target: ArrayType | None = None  # the type of `x[idx]`, which an update's values must fit
    index: tuple[IndexItem, ...] | None = None  # `idx`, read item by item


@dataclass(frozen=True, slots=True)
class Lazy:
    """An import from a project module, resolved only when its value matters."""

    module: str
    attr: str | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Module:
    """A loaded project module: its top-level bindings."""

    name: str
    scope: Scope


@dataclass(frozen=True, slots=True)
class AxisSize:
    """`lax.psum(1, 'k')`: the size of axis 'k', a constant once the axis size is known."""

    axis: str
    size: int | None


@dataclass(frozen=True, slots=True)
class SymSize:
    """`x.shape[0]` where that dim is a symbol: an int of unknown value, kept so that shapes
    built from it (`jnp.zeros((n, 4))`, `x.reshape(k, n)`) keep the symbol."""

    size: Sym


@dataclass(frozen=True, slots=True)
class Spec:
    """`PartitionSpec(...)` (`P(...)`): per positional dim, the mesh axes it is split over.

    `spec.origin` is the `P(...)` call; it is a place to report only in `module`, the module
    that wrote it (a spec imported from elsewhere is reported where it is used).
    """

    spec: PartitionSpec
    module: str


@dataclass(frozen=True, slots=True)
class Sharding:
    """`NamedSharding(mesh, spec)`; `mesh` is None where the checker cannot read it."""

    mesh: Mesh | None
    spec: Spec


@dataclass(frozen=True, slots=True, eq=False)
class Jitted:
    """`jax.jit(fun, in_shardings=..., out_shardings=...)`: `fun`, with shardings its
    arguments and result must fit (jit without shardings is `fun` itself)."""

    fun: Value
    in_shardings: Value  # None (unknown) where not given: nothing to check
    out_shardings: Value
    static: frozenset[int] | None  # positions of static arguments, outside in_shardings; None: unknown
    node: ast.AST


@dataclass(frozen=True, slots=True, eq=False)
class ShardMap:
    """`jax.shard_map(f, mesh=, in_specs=, out_specs=, axis_names=, check_vma=)`, waiting to be called."""

    fun: Value
    mesh: Mesh | None  # None: unknown, or (not mesh_given) the mesh in context where it is called
    mesh_given: bool
    in_specs: Value
    out_specs: Value
    manual: frozenset[str] | None  # axis_names: the manual mesh axes (empty: all of them); None: unread
    check_vma: bool | None  # None: unread
    node: ast.AST  # the shard_map(...) call, or the decorator that applied it
    in_node: ast.AST  # where in_specs and out_specs were written (the call when not apart)
    out_node: ast.AST


@dataclass(frozen=True, slots=True, eq=False)
class Layer(PythonObject):
    """A layer object of a neural-network library (`flax.linen.Dense(128)`, `eqx.nn.Linear(...)`),
    built and waiting to be called: the API that built it and the settings it was given, read
    by the library module that handles that API (`library.layers_api`, `library.layer_calls`)."""

    name: str  # the canonical qualified name of the layer's class
    settings: tuple[tuple[str, Value], ...]  # by parameter name, only those given
    node: ast.AST  # where it was built

    def setting(self, name: str) -> Value:
        return next((value for key, value in self.settings if key == name), None)

    def given(self, name: str) -> bool:
        return any(key == name for key, _ in self.settings)

    def passed(self, name: str) -> bool:
        """Given a value other than None (`dtype=None` is the library's default, as not given)."""
        return self.given(name) and self.setting(name) != Const(None)


@dataclass(frozen=True, slots=True)
class Stacked(PythonObject):
    """A module built under a map (an ensemble: `nnx.vmap` or `eqx.filter_vmap` of a function
    that builds a layer), or nnx's `Rngs` split for one: `member` with a dim of `size` inserted
    at `axis` of each of its arrays (the map's out_axes). A map along that axis gives its body
    `member` (`library.ensembles`); anything else sees an unknown value."""

    member: Value
    size: Dim  # None: unknown
    axis: int  # where each array has the stacked dim; never negative


ParamKey: TypeAlias = tuple[int, str, int]
"""A parameter by where a module creates it: the node id of the layer or `self.param` call, the
parameter's name, and how many with that node and name came before it in the same run."""


@dataclass(frozen=True, slots=True)
class Variables(PythonObject):
    """What a model's `init` returns (flax.linen's `model.init(key, x)`, haiku's `net.init(rng,
    x)`), as far as `apply` reads it back: the parameters the model created, in order, by where
    it created them, with their shapes. `apply` checks the ones its own inputs make against
    these (`library.model_params`)."""

    params: tuple[tuple[ParamKey, str, ArrayType | None], ...]  # key, what it is (for messages), shape
    node: ast.AST = field(compare=False, hash=False)  # the `init` call


Value: TypeAlias = (
    ArrayType | Const | Seq | Dict | ContainerMethod | Qual | BoundMethod | Function | Partial | Xmap | Vmap
    | Devices | Mesh | DType | MeshContext | AxisSize | AtIndexer | Class | Instance | BoundFunction | Lazy | Module | SymSize
    | Spec | Sharding | Jitted | ShardMap | Layer | Variables | Property | ClassMethod | StaticMethod | Stacked | None
)
"""None is the unknown value: nothing is certain about it, so nothing is reported."""


def as_int(value: Value) -> int | None:
    """The int a value certainly holds, if any."""
    if isinstance(value, Const) and value.is_int:
        assert isinstance(value.value, int)
        return value.value
    if isinstance(value, AxisSize):
        return value.size
    return None


def as_dim(value: Value) -> Dim:
    """A size a value holds: a known int, a symbol, or None."""
    if isinstance(value, SymSize):
        return value.size
    return as_int(value)


def dim_value(dim: Dim) -> Value:
    """A size as the program holds it (what `x.shape` gives): the inverse of `as_dim`."""
    if isinstance(dim, int):
        return Const(dim)
    return SymSize(dim) if isinstance(dim, Sym) else None


def as_str(value: Value) -> str | None:
    if isinstance(value, Const) and isinstance(value.value, str):
        return value.value
    return None


def join(a: Value, b: Value) -> Value:
    """What is certain of a value that is `a` on one path and `b` on another."""
    if a == b:
        return a
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        return _join_arrays(a, b)
    if isinstance(a, Seq) and isinstance(b, Seq) and len(a.items) == len(b.items) and a.is_list == b.is_list:
        return Seq(tuple(join(x, y) for x, y in zip(a.items, b.items, strict=True)), a.is_list)
    if isinstance(a, Dict) and isinstance(b, Dict) and [k for k, _ in a.items] == [k for k, _ in b.items]:
        return Dict(tuple((k, join(x, y)) for (k, x), (_, y) in zip(a.items, b.items, strict=True)))
    if isinstance(a, Instance) and isinstance(b, Instance) and a.cls == b.cls:
        # An attribute set on one path only may be missing on the other: unknown.
        names = dict.fromkeys(name for name, _ in (*a.fields, *b.fields))
        return Instance(a.cls, tuple((name, join(a.get(name), b.get(name)) if a.has(name) and b.has(name)
                                      else None) for name in names))
    return None


def _join_arrays(a: ArrayType, b: ArrayType) -> ArrayType:
    dtype = a.dtype if a.dtype == b.dtype else None
    if a.ellipsis is None and b.ellipsis is None and len(a.dims) == len(b.dims):
        dims = tuple(x if x == y else None for x, y in zip(a.dims, b.dims, strict=True))
        ellipsis = None
    else:
        dims, ellipsis = (), 0
    an, bn = a.named_dict, b.named_dict
    common = {name: an[name] if an[name] == bn[name] else None for name in an.keys() & bn.keys()}
    open_named = a.named_open or b.named_open or an.keys() != bn.keys()
    return ArrayType(dtype, dims, tuple(sorted(common.items())), ellipsis, open_named)
