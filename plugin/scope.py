"""Which names the plugin's hooks watch: the array libraries, shapecheck, and the project.

Hooks are looked up for every call and member in the program, so the answer is cached per
name; a name outside the watch list gets no hook, which also leaves it to other plugins
(mypy asks plugins in order and uses the first hook it gets).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from mypy.nodes import MypyFile

from shapecheck.plugin.freshness import INSTALLED

LIBRARY_ROOTS: Final = frozenset({"jax", "jaxlib", "numpy", "shapecheck"})


class Watch:
    """Decides, once per full name, whether a hook on it could be in a file shapecheck checks."""

    def __init__(self) -> None:
        self.modules: Mapping[str, MypyFile] = {}
        self.cache: dict[str, bool] = {}

    def __call__(self, fullname: str) -> bool:
        found = self.cache.get(fullname)
        if found is None:
            found = self.cache[fullname] = self._watched(fullname)
        return found

    def _watched(self, fullname: str) -> bool:
        if fullname.split(".", 1)[0] in LIBRARY_ROOTS:
            return True
        module = fullname
        while "." in module:
            module = module.rpartition(".")[0]
            tree = self.modules.get(module)
            if tree is not None:
                return bool(tree.path) and not tree.is_stub and not any(
                    part in tree.path for part in INSTALLED)
        return False
