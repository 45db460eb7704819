"""Where an annotation's head name comes from, followed through imports and star imports.

A name reads as the annotation language only when it provably is ours: imported from
shapecheck or jaxtyping, or defined in the tutorial style (`f32 = ArrayType()`, a class of the
same module). Other libraries export the same names (a named-array library's own `f32`, a
project's own `Array`), and a star import from a module the analyzer cannot read may bind any
name: both read as not ours, so they are never SC001.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Protocol

from shapecheck.analyzer.values import Class, Lazy, Qual, Value
from shapecheck.annotation import JAXTYPING_DTYPES
from shapecheck.dtypes import DTYPE_NAMES

if TYPE_CHECKING:
    from shapecheck.analyzer.modules import ModuleLoader
    from shapecheck.analyzer.scope import Scope

# What `from shapecheck import *` and `from jaxtyping import *` bind that an annotation may use.
_SHAPECHECK_NAMES: Final = frozenset((*DTYPE_NAMES, "Array"))
_JAXTYPING_NAMES: Final = frozenset((*JAXTYPING_DTYPES, "Array", "ArrayLike", "PyTree", "PRNGKeyArray",
                                     "Scalar", "ScalarLike", "AbstractArray", "AbstractDtype"))
_MAX_DEPTH: Final = 16  # re-export chains longer than this read as unknown


@dataclass(frozen=True, slots=True)
class Binding:
    """What a name is bound to, and how sure the analyzer is of it."""

    value: Value = None
    bound: bool = True  # False: no statement binds it (a configured name used bare)
    unknown: bool = False  # may be bound by code the analyzer cannot read
    tutorial: bool = False  # `NAME = LocalClass()` at module level


class ModuleView(Protocol):
    """A module's top-level bindings and the expressions its top-level names were assigned."""

    @property
    def scope(self) -> Scope: ...

    def module_source(self, name: str) -> ast.expr | None: ...


class Provenance:
    """Resolves dotted annotation heads (`f32`, `jt.Float`) as seen from one scope."""

    __slots__ = ("loader", "module", "scope")

    def __init__(self, scope: Scope, module: ModuleView, loader: ModuleLoader | None) -> None:
        self.scope = scope
        self.module = module
        self.loader = loader

    def __call__(self, dotted: str) -> Binding:
        first, *attrs = dotted.split(".")
        found = _lookup(self.scope, self.module, first, self.loader, 0)
        for attr in attrs:
            if found.unknown:
                return found
            value = found.value
            if isinstance(value, Qual):
                found = Binding(Qual(f"{value.name}.{attr}"))
            elif isinstance(value, Lazy) and value.attr is None:
                found = _follow(Lazy(value.module, attr), self.loader, 1)
            else:
                return Binding(None)  # an attribute of a local object: not an annotation factory
        return found


def _lookup(scope: Scope, module: ModuleView, name: str, loader: ModuleLoader | None, depth: int) -> Binding:
    current: Scope | None = scope
    while current is not None:
        if name in current.bindings:
            value = current.bindings[name]
            if isinstance(value, Lazy):
                return _follow(value, loader, depth + 1)
            at_top = current.parent is None
            return Binding(value, tutorial=at_top and _is_tutorial(module, name))
        for star in reversed(current.stars):
            found = _star(star, name, loader, depth + 1)
            if found is not None:
                return found
        current = current.parent
    return Binding(scope.lookup(name), bound=False)


def _follow(value: Lazy, loader: ModuleLoader | None, depth: int) -> Binding:
    """The binding behind an import from a project module."""
    if value.attr is None:
        return Binding(value)
    if loader is None or depth > _MAX_DEPTH:
        return Binding(unknown=True)
    if loader.knows(f"{value.module}.{value.attr}"):
        return Binding(Lazy(f"{value.module}.{value.attr}"))  # a submodule
    view = _view(loader, value.module)
    if view is None:
        return Binding(unknown=True)
    found = _lookup(view.scope, view, value.attr, loader, depth)
    # A name the module does not bind cannot be imported: whatever it is, it is not provably ours.
    return found if found.bound else Binding(unknown=True)


def _star(module: str, name: str, loader: ModuleLoader | None, depth: int) -> Binding | None:
    """What `from module import *` binds `name` to; None when it does not bind it."""
    root = module.split(".")[0]
    if root == "shapecheck":
        return Binding(Qual(f"{module}.{name}")) if name in _SHAPECHECK_NAMES else None
    if root == "jaxtyping":
        return Binding(Qual(f"jaxtyping.{name}")) if name in _JAXTYPING_NAMES else None
    if loader is None or depth > _MAX_DEPTH or not loader.knows(module):
        return Binding(unknown=True)  # a module we cannot read may define any name
    view = _view(loader, module)
    if view is None:
        return Binding(unknown=True)
    exported = loader.literal(module, "__all__")
    if exported is not None:
        names = {str(item.value) for item in exported.items}
        if name not in names:
            return None
    elif name.startswith("_"):
        return None
    found = _lookup(view.scope, view, name, loader, depth)
    return found if found.bound or found.unknown else None


def _view(loader: ModuleLoader, module: str) -> ModuleView | None:
    if loader.load(module) is None:
        return None
    return loader.interpreters.get(module)


def _is_tutorial(module: ModuleView, name: str) -> bool:
    """`name = ArrayType()` where `ArrayType` is a class of the same module (the xmap tutorial).

    A class called with arguments is another library's factory (kauldron's
    `Array = ArrayAliasMeta("Array", jaxtyping.Shaped)` takes jaxtyping's dims strings).
    """
    source = module.module_source(name)
    if (not isinstance(source, ast.Call) or not isinstance(source.func, ast.Name)
            or source.args or source.keywords):
        return False
    return isinstance(module.scope.bindings.get(source.func.id), Class)
