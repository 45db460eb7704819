"""Lexical scopes: what each name of the checked program is bound to."""

from __future__ import annotations

from shapecheck.analyzer.values import Qual, Value

_MISSING = object()

# Builtins the interpreter gives meaning to; every other builtin name reads as unknown.
_BUILTINS = {name: Qual(f"builtins.{name}") for name in (
    "len", "range", "tuple", "list", "int", "float", "dict", "zip", "enumerate", "print",
    "isinstance", "sum", "max", "min", "abs", "reversed", "sorted", "bool", "str", "property", "ord",
    "classmethod", "staticmethod",
)}


class Scope:
    """One function's or module's bindings, falling back to the enclosing scope."""

    __slots__ = ("__weakref__", "bindings", "module", "parent", "stars")

    def __init__(self, parent: Scope | None, module: str) -> None:
        self.bindings: dict[str, Value] = {}
        # Modules star-imported here (`from pkg.axis_names import *`): they may bind any name.
        self.stars: list[str] = []
        self.parent = parent
        self.module = module

    def lookup(self, name: str) -> Value:
        scope: Scope | None = self
        while scope is not None:
            found = scope.bindings.get(name, _MISSING)
            if found is not _MISSING:
                return found  # type: ignore[return-value]
            scope = scope.parent
        return _BUILTINS.get(name)

    def bind(self, name: str, value: Value) -> None:
        self.bindings[name] = value

    def child(self) -> Scope:
        return Scope(self, self.module)

    def snapshot(self) -> dict[str, Value]:
        return dict(self.bindings)

    def restore(self, bindings: dict[str, Value]) -> None:
        self.bindings = bindings
