"""Keeping mypy's caches honest about shapes: a module's shape results depend on the texts of
the project modules it imports, which mypy's own view of them (`jax.Array`) does not show.

A changed shape annotation in module `a` leaves `a`'s types as mypy sees them unchanged, so
without help mypy replays `b`'s cached diagnostics about calls into `a` (incremental mode), and
dmypy never re-checks `b` at all (fine-grained mode). Both decide from `a`'s symbol table, so
the plugin adds one private symbol to every project module while mypy parses it,
`__shapecheck_source__`, whose type carries a hash of the module's text:
- incremental mode: `a`'s interface hash changes with its text, so every module importing `a`
  is stale and re-checked;
- fine-grained mode: the symbol's snapshot changes, which fires its trigger; every target of a
  module importing `a` depends on that trigger (`plugin_deps`), so dmypy re-checks them.
The symbol is not public (`from a import *` does not bind it) and nothing refers to it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Final

from mypy.nodes import (
    GDEF,
    ClassDef,
    Decorator,
    FuncDef,
    Import,
    ImportAll,
    ImportBase,
    ImportFrom,
    MypyFile,
    OverloadedFuncDef,
    Statement,
    SymbolTableNode,
    Var,
)
from mypy.server.trigger import make_trigger
from mypy.types import UnboundType
from mypy.util import correct_relative_import

SOURCE_SYMBOL: Final = "__shapecheck_source__"

# Folders of installed packages and of mypy's bundled stubs: never the checked project.
INSTALLED: Final = ("site-packages", "dist-packages", "typeshed")


def is_project_file(file: MypyFile) -> bool:
    return bool(file.path) and file.path.endswith(".py") and not any(
        part in file.path for part in INSTALLED)


def source_hash(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
    except OSError:
        return None


def stamp(file: MypyFile, digest: str) -> None:
    """Put the text's hash into the module's symbol table (see the module docstring).

    The hash is the name of an unanalysed type: it needs no lookup while the module is only
    parsed, survives mypy's cache, and takes part in both the interface hash and the snapshot.
    """
    var = Var(SOURCE_SYMBOL, UnboundType(f"shapecheck_source_{digest}"))
    var._fullname = f"{file.fullname}.{SOURCE_SYMBOL}"
    var.is_ready = True
    file.names[SOURCE_SYMBOL] = SymbolTableNode(GDEF, var, module_public=False,
                                                plugin_generated=True)


def has_import_dependencies(file: MypyFile) -> bool:
    return any(trigger.endswith(f".{SOURCE_SYMBOL}>") for trigger in file.plugin_deps)


def depend_on_imports(file: MypyFile, project: set[str]) -> bool:
    """Make every fine-grained target of `file` depend on the source symbol of each project
    module it imports, so that dmypy re-checks them when such a module's text changes.

    False when `file` imports no project module (nothing to depend on)."""
    imported = {name for node in file.imports for name in _imported(file, node)} & project
    if not imported:
        return False
    targets = _targets(file)
    for module in imported:
        trigger = make_trigger(f"{module}.{SOURCE_SYMBOL}")
        file.plugin_deps.setdefault(trigger, set()).update(targets)
    return True


def _imported(file: MypyFile, node: ImportBase) -> list[str]:
    if isinstance(node, Import):
        return [name for name, _ in node.ids]
    if not isinstance(node, ImportFrom | ImportAll):
        return []
    module, _ = correct_relative_import(file.fullname, node.relative, node.id,
                                        file.is_package_init_file())
    if isinstance(node, ImportAll):
        return [module]
    # `from pkg import mod` imports a module too; names that are not modules drop out when
    # intersected with the project's modules.
    return [module, *(f"{module}.{name}" for name, _ in node.names)]


def _targets(file: MypyFile) -> set[str]:
    """The module's fine-grained targets: its top level, each function, class and method.

    Names are built from the definitions' own names: at the time this runs (the first plugin
    hook in the file) semantic analysis may not have given later definitions their full names.
    """
    targets = {file.fullname}
    pending: list[tuple[str, list[Statement]]] = [(file.fullname, file.defs)]
    while pending:
        prefix, body = pending.pop()
        for node in body:
            if isinstance(node, FuncDef | OverloadedFuncDef | Decorator):
                targets.add(f"{prefix}.{node.name}")
            elif isinstance(node, ClassDef):
                targets.add(f"{prefix}.{node.name}")
                pending.append((f"{prefix}.{node.name}", node.defs.body))
    return targets
