"""Modules of the checked project: where `from models import attention` finds its source.

The CLI builds a `ProjectIndex` from the files of one run; the mypy plugin gives mypy's own
module graph. Either way the analyzer only asks `find(module) -> (path, text)`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol


class ModuleSource(Protocol):
    def find(self, module: str) -> tuple[str, str] | None:
        """The path and text of `module` (a dotted name), or None when it is not in the project."""


def content_hash(text: str) -> str:
    """The hash a module's text is known by (summaries, dependencies, the result cache)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def module_names(path: str | Path) -> list[str]:
    """Names a file is importable as: package-qualified (walking up `__init__.py` folders) and,
    for scripts beside each other, its bare stem."""
    return Packages().module_names(path)


class Packages:
    """The package each folder is, found once per folder: for the many files of one run, whose
    folders do not change meanwhile (`module_names` asks a fresh one each time). Paths are
    plain strings inside: a run asks about every file several times (its module names, its
    import root, its folder), and pathlib's objects cost more than the lookups themselves."""

    def __init__(self, probe: Callable[[str], object] | None = None) -> None:
        self._real: dict[str, str] = {}
        self._folders: dict[str, str] = {}
        self._parts: dict[str, tuple[str, ...]] = {}
        self._probe = probe

    def real(self, path: str | Path) -> str:
        """`path.resolve()`, found once per path and once per folder for the files in it; as far
        as the file system lets it (a link it refuses to read, as /proc/1/cwd, stays as it is)."""
        key = os.fspath(path)
        found = self._real.get(key)
        if found is None:
            found = self._real[key] = self._resolve(Path(key))
        return found

    def _resolve(self, path: Path) -> str:
        try:
            if path.is_symlink():
                return str(path.resolve())
            parent = str(path.parent)
            folder = self._folders.get(parent)
            if folder is None:
                folder = self._folders[parent] = str(path.parent.resolve())
        except OSError:
            return os.path.abspath(path)
        return os.path.join(folder, path.name)

    def package(self, folder: str) -> tuple[str, ...]:
        """The dotted parts of the package a resolved folder is (empty: not a package)."""
        found = self._parts.get(folder)
        if found is None:
            marker = os.path.join(folder, "__init__.py")
            if self._probe is not None:
                self._probe(marker)
            parent, name = os.path.split(folder)
            is_package = _is_file(marker) and parent != folder
            found = (*self.package(parent), name) if is_package else ()
            self._parts[folder] = found
        return found

    def module_names(self, path: str | Path) -> list[str]:
        folder, name = os.path.split(self.real(path))
        stem = _stem(name)
        parts = [*self.package(folder)]
        if stem != "__init__":
            parts.append(stem)
        names = [".".join(parts)] if parts else []
        if stem != "__init__" and stem not in names:
            names.append(stem)
        return names

    def import_root(self, path: str | Path) -> str:
        """The folder a file's top-level package sits in (where `import pkg` would find it)."""
        folder = os.path.dirname(self.real(path))
        for _ in self.package(folder):
            folder = os.path.dirname(folder)
        return folder


def _stem(name: str) -> str:
    """`PurePath(name).stem`: the name without its last suffix (none for `.bashrc` or `a.`)."""
    dot = name.rfind(".")
    return name[:dot] if 0 < dot < len(name) - 1 else name


@dataclass(slots=True)
class ProjectIndex:
    """The files of one run by module name, and the folders imports are searched from.

    pre-commit passes only the changed files: a module they import is still found on disk,
    beside them or under the import roots, as Python itself would find it.
    """

    paths: dict[str, str] = field(default_factory=dict)
    roots: tuple[str, ...] = ()
    # Modules searched for on disk and not found (`import os` is looked for under every root),
    # and each root's entries: an index lives for one run, during which the files do not change.
    absent: set[str] = field(default_factory=set)
    listings: dict[str, frozenset[str]] = field(default_factory=dict)
    # Told every path the index is about to look at, before it looks (the run memo's record).
    probe: Callable[[str], object] | None = None

    @staticmethod
    def of(files: Iterable[str | Path], extra_roots: Iterable[str | Path] = (),
           probe: Callable[[str], object] | None = None) -> ProjectIndex:
        index = ProjectIndex(probe=probe)
        roots: dict[str, None] = {}
        packages = Packages(probe)
        for file in files:
            path = str(file)
            real = packages.real(path)
            if not index._beside_its_package(real):
                for name in packages.module_names(path):
                    index.paths.setdefault(name, path)
            roots[packages.import_root(path)] = None
            roots[os.path.dirname(real)] = None
        for root in extra_roots:
            roots[str(Path(root).resolve())] = None
        index.roots = tuple(roots)
        return index

    def find(self, module: str) -> tuple[str, str] | None:
        path = self.paths.get(module) or self._on_disk(module)
        if path is None:
            return None
        # Read as the checked files are: regular files only (a FIFO would block), within the
        # size bound (a module is parsed and interpreted for each file that imports it), in
        # their declared encoding.
        from shapecheck.config import DEFAULT_MAX_FILE_SIZE
        from shapecheck.files import read_regular
        from shapecheck.parsing import SourceDecodeError, decode

        try:
            return path, decode(read_regular(path, DEFAULT_MAX_FILE_SIZE))
        except (OSError, SourceDecodeError):
            return None

    def _beside_its_package(self, path: str) -> bool:
        """Whether `path` (resolved) is a module `name.py` beside a package `name/` (with
        `__init__.py`): Python imports the package, never the module."""
        # One stat, not a listing of the folder: the run memo would take any file added beside
        # (the cache's own folder) for a change of the project.
        folder, name = os.path.split(path)
        stem = _stem(name)
        if name != f"{stem}.py" or stem == "__init__":
            return False
        return self._is_file(os.path.join(folder, stem, "__init__.py"))

    def _on_disk(self, module: str) -> str | None:
        """The file of `module` as Python's import system finds it under `roots`: part by part,
        each in its parent package's folders (all the roots for the first)."""
        if module in self.absent:
            return None
        found: str | None = None
        folders: list[str] | None = list(self.roots)
        for part in module.split("."):
            if folders is None:  # the parent is a module, not a package: no submodules
                found = None
                break
            found, folders = self._find_in(part, folders)
            if found is None and folders is None:
                break
        if found is None:
            self.absent.add(module)
            return None
        self.paths[module] = found
        return found

    def _find_in(self, name: str, folders: list[str]) -> tuple[str | None, list[str] | None]:
        """`name` in `folders`, as importlib's FileFinder and PathFinder look: in each folder in
        turn, a package (`name/__init__.py`) before a module (`name.py`); a folder `name/`
        without `__init__.py` is a portion of a namespace package, which only counts when no
        folder has a package or module of that name. Returns the file (None for a namespace
        package or nothing) and the folders of its submodules (None for a module or nothing)."""
        portions: list[str] = []
        for folder in folders:
            entries = self._entries(folder)  # most folders have nothing of that name: no stat
            if name in entries:
                package = os.path.join(folder, name)
                init = os.path.join(package, "__init__.py")
                if self._is_file(init):
                    return init, [package]
            if f"{name}.py" in entries:
                candidate = os.path.join(folder, f"{name}.py")
                if self._is_file(candidate):
                    return candidate, None
            if name in entries and self._is_folder(os.path.join(folder, name)):
                portions.append(os.path.join(folder, name))
        return None, (portions or None)

    def _is_file(self, path: str) -> bool:
        if self.probe is not None:
            self.probe(path)
        return _is_file(path)

    def _is_folder(self, path: str) -> bool:
        if self.probe is not None:
            self.probe(path)
        try:
            return os.path.isdir(path)
        except OSError:
            return False

    def _entries(self, root: str) -> frozenset[str]:
        entries = self.listings.get(root)
        if entries is None:
            if self.probe is not None:
                self.probe(root)
            try:
                entries = frozenset(os.listdir(root))
            except OSError:
                entries = frozenset()
            self.listings[root] = entries
        return entries


def _is_file(path: str) -> bool:
    # False where not answered too (a folder that cannot be searched): not there, for imports.
    return os.path.isfile(path)
