"""Which of jax's modules a program uses with named axes, so `migrate` moves only those.

`shapecheck run` stands the runtime's `numpy`, `lax`, `nn` and `scipy.special` in for jax's
whole; a migrated program imports a runtime module only where it needs what jax lacks: a
reduction over an axis name, einsum braces, `pdot` and the collectives the runtime extends, a
named `one_hot`, `logsumexp` or `softmax`. An axis argument that is not plainly positional (an
int, None, or a tuple of ints) counts as named, and so does a reference that is not a call:
moving a module that was not needed is harmless, missing one breaks the program.
"""

from __future__ import annotations

from typing import Final

import libcst as cst
from libcst.metadata import QualifiedNameProvider

# The module names are qualnames' (one home); `migrate` reads them from here.
from shapecheck.analyzer.qualnames import JNP as JNP
from shapecheck.analyzer.qualnames import LAX as LAX
from shapecheck.analyzer.qualnames import NN as NN
from shapecheck.analyzer.qualnames import SPECIAL as SPECIAL

# The names each runtime module defines itself (the rest is jax's, passed through).
_REDUCTIONS: Final = frozenset(("sum", "prod", "max", "min", "amax", "amin", "mean", "var", "std", "any",
                                "all", "nansum", "nanmax", "nanmin", "nanmean", "argmax", "argmin"))
_LAX_OWN: Final = frozenset(("pdot", "psum", "pmean", "pmax", "pmin"))
_NN_AXIS: Final = frozenset(("logsumexp", "softmax", "log_softmax"))

RUNTIME_OWN: Final = {JNP: _REDUCTIONS | {"einsum"}, LAX: _LAX_OWN, NN: _NN_AXIS | {"one_hot"},
                      SPECIAL: frozenset(("logsumexp",))}
"""Per jax module, the names whose runtime form differs from jax's (checked against the runtime's
modules by a test)."""


def needed_modules(wrapper: cst.MetadataWrapper) -> set[str]:
    """The jax modules (JNP, LAX, NN, SPECIAL) the program uses in a way only the runtime's can run."""
    finder = _Finder()
    wrapper.visit(finder)
    return finder.needed


class _Finder(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (QualifiedNameProvider,)

    def __init__(self) -> None:
        super().__init__()
        self.needed: set[str] = set()
        self.calls: set[cst.CSTNode] = set()  # callee nodes already judged as calls

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> None:
        for module, name in self._members(node.func):
            self.calls.add(node.func)
            if _named_call(module, name, node):
                self.needed.add(module)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._reference(node)

    def visit_Name(self, node: cst.Name) -> None:
        self._reference(node)

    def _reference(self, node: cst.BaseExpression) -> None:
        if node in self.calls:
            return
        for module, _ in self._members(node):
            # `f = jnp.sum` or `map(lax.psum, ...)`: the arguments are out of view.
            self.needed.add(module)

    def _members(self, node: cst.CSTNode) -> list[tuple[str, str]]:
        found = []
        for qualified in self.get_metadata(QualifiedNameProvider, node, set()):
            module, _, name = qualified.name.rpartition(".")
            if name in RUNTIME_OWN.get(module, ()):
                found.append((module, name))
        return found


def _named_call(module: str, name: str, call: cst.Call) -> bool:
    if module == LAX:
        return True  # collectives name axes by nature; pdot exists only in the runtime
    if module == JNP and name == "einsum":
        spec = _argument(call, 0, "subscripts")
        return not (isinstance(spec, cst.SimpleString) and "{" not in spec.value)
    axis = _argument(call, 1, "axis") if name != "one_hot" else _argument(call, None, "axis")
    return axis is not None and not _positional(axis)


def _argument(call: cst.Call, index: int | None, keyword: str) -> cst.BaseExpression | None:
    if any(arg.star for arg in call.args):
        return cst.Name("unknown")  # anything may be passed
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [arg.value for arg in call.args if arg.keyword is None]
    return positional[index] if index is not None and index < len(positional) else None


def _positional(node: cst.BaseExpression) -> bool:
    """An int, a negative int, None, or a tuple of ints: certainly not an axis name."""
    if isinstance(node, cst.Integer):
        return True
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return isinstance(node.expression, cst.Integer)
    if isinstance(node, cst.Name):
        return node.value == "None"
    if isinstance(node, cst.Tuple | cst.List):
        return all(isinstance(e, cst.Element) and _positional(e.value) and not isinstance(e.value, cst.Name)
                   for e in node.elements)
    return False
