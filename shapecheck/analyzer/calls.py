"""What a library handler receives: a call's evaluated arguments, and the handler's type.

Its own module, apart from the interpreter, so that the library modules that implement the
handlers need the interpreter only as a type: the interpreter calls into the library (map
calls), and the library would otherwise import the interpreter back, closing a cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from shapecheck.analyzer.context import Context
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import Value

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter


@dataclass(slots=True)
class CallArgs:
    """A call's evaluated arguments with the nodes they came from."""

    node: cst.CSTNode
    args: list[Value] = field(default_factory=list)
    arg_nodes: list[cst.CSTNode] = field(default_factory=list)
    kwargs: dict[str, Value] = field(default_factory=dict)
    kwarg_nodes: dict[str, cst.CSTNode] = field(default_factory=dict)
    raw_args: list[cst.BaseExpression] = field(default_factory=list)
    raw_kwargs: dict[str, cst.BaseExpression] = field(default_factory=dict)
    opaque: bool = False  # *args or **kwargs the interpreter could not expand
    name: str = ""  # the canonical name of the API called (`jax.numpy.sum`, `method:sum`)
    written: str = ""  # the name as imported, before canonicalisation (`numpy.sum`)

    @property
    def plain_numpy(self) -> bool:
        """NumPy itself, not jax.numpy: it accepts a few things JAX refuses (axis 0 of a 0-d array)."""
        return self.written == "numpy" or self.written.startswith("numpy.")

    @property
    def short_name(self) -> str:
        return self.name.rpartition(":")[2].rpartition(".")[2]

    def get(self, index: int, name: str | None = None) -> Value:
        if index < len(self.args):
            return self.args[index]
        return self.kwargs.get(name) if name else None

    def has(self, index: int, name: str | None = None) -> bool:
        return index < len(self.args) or (name is not None and name in self.kwargs)

    def node_of(self, index: int, name: str | None = None) -> cst.CSTNode:
        if index < len(self.arg_nodes):
            return self.arg_nodes[index]
        if name and name in self.kwarg_nodes:
            return self.kwarg_nodes[name]
        return self.node

    def expr_of(self, index: int, name: str | None = None) -> cst.BaseExpression | None:
        if index < len(self.raw_args):
            return self.raw_args[index]
        if name:
            return self.raw_kwargs.get(name)
        return None


Handler = Callable[["Interpreter", CallArgs, Context, Scope], Value]
