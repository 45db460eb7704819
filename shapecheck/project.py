"""Modules of the checked project: where `from models import attention` finds its source.

The CLI builds a `ProjectIndex` from the files of one run; the mypy plugin gives mypy's own
module graph. Either way the analyzer only asks `find(module) -> (path, text)`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol


class ModuleSource(Protocol):
    def find(self, module: str) -> tuple[str, str] | None:
        """The path and text of `module` (a dotted name), or None when it is not in the project."""


def module_names(path: Path) -> list[str]:
    """Names a file is importable as: package-qualified (walking up `__init__.py` folders) and,
    for scripts beside each other, its bare stem."""
    path = path.resolve()
    parts = [] if path.stem == "__init__" else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    names = [".".join(parts)] if parts else []
    if path.stem != "__init__" and path.stem not in names:
        names.append(path.stem)
    return names


@dataclass(slots=True)
class ProjectIndex:
    """The files of one run, by module name."""

    paths: dict[str, str] = field(default_factory=dict)

    @staticmethod
    def of(files: Iterable[str | Path]) -> ProjectIndex:
        index = ProjectIndex()
        for file in files:
            for name in module_names(Path(file)):
                index.paths.setdefault(name, str(file))
        return index

    def find(self, module: str) -> tuple[str, str] | None:
        path = self.paths.get(module)
        if path is None:
            return None
        try:
            return path, Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
