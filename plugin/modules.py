"""The project's modules as mypy knows them, in the form the engine asks for (`ModuleSource`).

mypy has already resolved every import of the build to a file (its module graph honours
mypy_path, namespace packages and the files named on the command line), so cross-module
checking sees exactly the modules mypy sees.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from mypy.nodes import MypyFile


class MypyModules:
    """`find(module) -> (path, text)` over mypy's modules dict (`api.modules`)."""

    def __init__(self, modules: Mapping[str, MypyFile]) -> None:
        self.modules = modules
        self.texts: dict[str, str | None] = {}

    def find(self, module: str) -> tuple[str, str] | None:
        tree = self.modules.get(module)
        if tree is None or not tree.path or tree.is_stub:
            return None
        text = self.read(tree.path)
        return (tree.path, text) if text is not None else None

    def read(self, path: str) -> str | None:
        if path not in self.texts:
            try:
                self.texts[path] = Path(path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                self.texts[path] = None
        return self.texts[path]
