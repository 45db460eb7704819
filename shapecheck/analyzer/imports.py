"""Import statements: what they bind, and the project modules behind them, loaded lazily.

A name imported from a module the loader knows is bound to a `Lazy` placeholder, read only
when a call needs it; any other import binds the qualified name (`Qual`) the library handlers
are keyed by.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.qualnames import CONSTANTS, canonical
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Const, Lazy, Module, Qual, Value
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    # Only a type here: the loader builds interpreters for imported modules, so importing it
    # at run time would close a cycle.
    from shapecheck.analyzer.modules import ModuleLoader


class Imports:
    """Binds one module's imports and resolves them through the loader (when there is one)."""

    def __init__(self, module_name: str, loader: ModuleLoader | None) -> None:
        self.module_name = module_name
        self.loader = loader

    def bind(self, node: ast.Import, scope: Scope) -> None:
        for alias in node.names:
            if alias.asname is not None:
                scope.bind(alias.asname, self.imported(alias.name, None))
            else:
                root = alias.name.split(".")[0]
                scope.bind(root, self.imported(root, None))

    def bind_from(self, node: ast.ImportFrom, scope: Scope) -> None:
        module = node.module or ""
        if node.level:
            # `from .layers import dense` inside package `models`: `models.layers`.
            package = self.module_name.split(".")
            base = package[: max(len(package) - node.level, 0)]
            module = ".".join([*base, module] if module else base)
        star = node.names[0].name == "*"  # `*` is always the only name
        if star and module:
            scope.stars.append(module)  # read by annotation provenance
        if star or not module:
            return
        for alias in node.names:
            name = alias.name
            local = alias.asname if alias.asname is not None else name
            if self.loader is not None and self.loader.knows(f"{module}.{name}"):
                scope.bind(local, Lazy(f"{module}.{name}"))
            else:
                scope.bind(local, self.imported(module, name))

    def imported(self, module: str, name: str | None) -> Value:
        """What an import binds: a project module (lazily) or a library name."""
        if self.loader is not None and self.loader.knows(module):
            return Lazy(module, name)
        qualified = f"{module}.{name}" if name else module
        if canonical(qualified) in CONSTANTS:
            return Const(CONSTANTS[canonical(qualified)])  # `from math import pi`
        return Qual(qualified)

    def resolve(self, value: Value) -> Value:
        """The value behind a lazy import (None when it cannot be loaded)."""
        if not isinstance(value, Lazy) or self.loader is None:
            return value
        scope = self.loader.load(value.module)
        if scope is None:
            return None
        if value.attr is None:
            return Module(value.module, scope)
        if self.loader.knows(f"{value.module}.{value.attr}"):
            return self.resolve(Lazy(f"{value.module}.{value.attr}"))
        return scope.lookup(value.attr)

    def worth_loading(self, value: Value, call: CallArgs) -> bool:
        """Load an imported callee only where it can say something: known arrays go in, or its
        module uses the annotation language."""
        if not isinstance(value, Lazy) or self.loader is None:
            return False
        if any(isinstance(arg, ArrayType) for arg in (*call.args, *call.kwargs.values())):
            return True
        return self.loader.mentions_annotations(value.module)

