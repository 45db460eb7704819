"""Which annotation names a module may use, and in which style it writes annotations.

A written `f32[...]` must mean shapecheck's `f32` where it stands: imported from shapecheck,
defined in the xmap tutorial's style (`f32 = ArrayType()`), or not bound at all (then the import
is added). A name the module binds to something else (`f32 = jnp.float32`, a parameter `f32`)
is not used, and what would need it is left unannotated. Files that write their annotations with
jaxtyping get jaxtyping's forms, so one file keeps one style.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

import libcst as cst
from libcst.metadata import (
    Assignment,
    GlobalScope,
    ParentNodeProvider,
    PositionProvider,
    ScopeProvider,
)

from shapecheck.codemods.annotations import (
    JAXTYPING_MODULE,
    SHAPECHECK_MODULE,
    SPEC_NAMES,
    Annotation,
    is_partition_spec,
)
from shapecheck.dtypes import DTYPE_NAMES

_TUTORIAL_CLASS = "ArrayType"  # `f32 = ArrayType()`, the tutorial's local annotation names


class Style(Enum):
    SHAPECHECK = "shapecheck"  # f32[(5, 7), {'batch': 20}]
    JAXTYPING = "jaxtyping"  # Float32[Array, "5 7"]


class Binding(Enum):
    FREE = "free"  # not bound in the module: usable once imported
    OURS = "ours"  # already means the annotation name (imported, or the tutorial's local)
    OTHER = "other"  # means something else: unusable


@dataclass(frozen=True, slots=True)
class ModuleNames:
    """What each name means at module level (only names that matter), and the module's style."""

    bindings: Mapping[str, Binding]
    style: Style
    bound_at: Mapping[str, int]  # the line where a name of ours is first bound
    spec: tuple[str, int] | None = None
    """The module-level name of jax's PartitionSpec (`P`), and the line that binds it: what a
    written sharding calls. None when the module binds none (no import is added for one)."""

    def spec_name(self, line: int) -> str | None:
        """The PartitionSpec name usable at `line`, if any."""
        return self.spec[0] if self.spec is not None and self.spec[1] < line else None

    def binding(self, name: str) -> Binding:
        return self.bindings.get(name, Binding.FREE)

    def usable(self, annotation: Annotation, line: int) -> bool:
        """The name means ours at `line` (module-level and signature annotations are evaluated
        as the module runs: a name bound further down does not exist yet there)."""
        binding = self.binding(annotation.name)
        return binding is Binding.FREE or (binding is Binding.OURS and self.bound_at[annotation.name] < line)

    def needs_import(self, annotation: Annotation) -> bool:
        return self.binding(annotation.name) is Binding.FREE


def module_names(wrapper: cst.MetadataWrapper) -> ModuleNames:
    """Read the module's bindings (scopes, parents and positions of `wrapper`)."""
    scopes = wrapper.resolve(ScopeProvider)
    parents = wrapper.resolve(ParentNodeProvider)
    positions = wrapper.resolve(PositionProvider)
    bindings: dict[str, Binding] = {}
    bound_at: dict[str, int] = {}
    jaxtyping_imported = shapecheck_imported = False
    specs: dict[str, list[int | None]] = {}  # a name of PartitionSpec's -> the lines binding it
    for scope in {s for s in scopes.values() if s is not None}:
        for assignment in scope.assignments:
            name = assignment.name
            meaning = _meaning(assignment.node, name, parents) if isinstance(assignment, Assignment) else None
            if name in SPEC_NAMES:
                # Any binding but one module-level import of PartitionSpec makes the name unusable.
                node = assignment.node if isinstance(assignment, Assignment) else None
                ours = node is not None and isinstance(scope, GlobalScope) and is_partition_spec(meaning, name)
                line = positions[node].start.line if ours and node is not None and node in positions else None
                specs.setdefault(name, []).append(line)
            if meaning == JAXTYPING_MODULE:
                jaxtyping_imported = True
            if meaning == SHAPECHECK_MODULE:
                shapecheck_imported = True
            if name not in _RELEVANT:
                continue
            binding = Binding.OURS if meaning in (_expected(name), "tutorial") else Binding.OTHER
            if bindings.get(name) is Binding.OTHER or not isinstance(scope, GlobalScope):
                binding = Binding.OTHER  # shadowed somewhere, or bound twice to different things
            elif name in bindings and bindings[name] is not binding:
                binding = Binding.OTHER
            bindings[name] = binding
            if isinstance(assignment, Assignment) and assignment.node in positions:
                line = positions[assignment.node].start.line
                bound_at[name] = min(line, bound_at.get(name, line))
    jaxtyping = jaxtyping_imported and not shapecheck_imported and not _tutorial(bindings)
    usable = sorted((lines[0], name) for name, lines in specs.items() if len(lines) == 1 and lines[0] is not None)
    spec = (usable[0][1], usable[0][0]) if usable else None
    return ModuleNames(bindings, Style.JAXTYPING if jaxtyping else Style.SHAPECHECK, bound_at, spec)


_JAXTYPING_NAMES = frozenset(("Array", "Bool", "Float16", "BFloat16", "Float32", "Float64", "Int8",
                              "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64",
                              "Complex64", "Complex128"))
_RELEVANT = frozenset(DTYPE_NAMES) | _JAXTYPING_NAMES


def _expected(name: str) -> str:
    return SHAPECHECK_MODULE if name in DTYPE_NAMES else JAXTYPING_MODULE


def _tutorial(bindings: Mapping[str, Binding]) -> bool:
    return any(bindings.get(name) is Binding.OURS for name in DTYPE_NAMES)


def _meaning(node: cst.CSTNode, name: str, parents: Mapping[cst.CSTNode, cst.CSTNode]) -> str | None:
    """Where a binding's value comes from: a module for imports, "tutorial" for `ArrayType()`."""
    if isinstance(node, cst.ImportFrom):
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return None
        module = cst.helpers.get_full_name_for_node(node.module)
        for alias in node.names:
            bound = alias.asname.name if alias.asname is not None else alias.name
            if isinstance(bound, cst.Name) and bound.value == name:
                original = cst.helpers.get_full_name_for_node(alias.name)
                if module == "jax" and original == "Array" and name == "Array":
                    return JAXTYPING_MODULE  # jax.Array is what jaxtyping annotations subscript
                if original != name and not (module == JAXTYPING_MODULE and original == name):
                    return f"{module}.{original}"
                return module
        return None
    if isinstance(node, cst.Name):
        parent = parents.get(node)
        target = parents.get(parent) if isinstance(parent, cst.AssignTarget) else None
        if isinstance(target, cst.Assign) and isinstance(target.value, cst.Call):
            callee = cst.helpers.get_full_name_for_node(target.value.func) or ""
            if callee.rsplit(".", 1)[-1] == _TUTORIAL_CLASS:
                return "tutorial"
    return None
