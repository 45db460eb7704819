"""The project's modules as mypy knows them, in the form the engine asks for (`ModuleSource`).

mypy has already resolved every import of the build to a file (its module graph honours
mypy_path, namespace packages and the files named on the command line), so cross-module
checking sees exactly the modules mypy sees. The analysis worker (`worker`) gets the same
answers from a copy of the graph's module -> file mapping.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the worker process imports this module, and no mypy
    from mypy.nodes import MypyFile


class ModuleFiles:
    """`find(module) -> (path, text)` over a module -> file mapping; each text is read once."""

    def __init__(self, paths: Mapping[str, str]) -> None:
        self.paths = paths
        self.texts: dict[str, str | None] = {}

    def find(self, module: str) -> tuple[str, str] | None:
        path = self.paths.get(module)
        if path is None:
            return None
        text = self.read(path)
        return (path, text) if text is not None else None

    def read(self, path: str) -> str | None:
        if path not in self.texts:
            try:
                self.texts[path] = Path(path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                self.texts[path] = None
        return self.texts[path]


class GraphPaths(Mapping[str, str]):
    """module -> file for the modules of mypy's graph that have source (not stubs), looked up
    in the graph as it is when asked."""

    def __init__(self, modules: Mapping[str, MypyFile]) -> None:
        self.modules = modules

    def __getitem__(self, module: str) -> str:
        tree = self.modules[module]
        if not tree.path or tree.is_stub:
            raise KeyError(module)
        return tree.path

    def __iter__(self) -> Iterator[str]:
        return (name for name, tree in self.modules.items() if tree.path and not tree.is_stub)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class MypyModules(ModuleFiles):
    """`find(module) -> (path, text)` over mypy's modules dict (`api.modules`)."""

    def __init__(self, modules: Mapping[str, MypyFile]) -> None:
        super().__init__(GraphPaths(modules))
