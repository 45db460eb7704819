"""Which files a run checks: directories recurse over *.py, honouring .gitignore and excludes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pathspec

from shapecheck.config import Config

_ALWAYS_SKIPPED = (".git/", ".hg/", ".venv/", "venv/", "__pycache__/", ".mypy_cache/", ".tox/",
                   ".nox/", "node_modules/", "build/", "dist/", ".eggs/", "*.egg-info/")


class _Matcher:
    def __init__(self, config: Config) -> None:
        self.root = config.root
        self.excludes = pathspec.PathSpec.from_lines(
            "gitwildmatch", [*_ALWAYS_SKIPPED, *config.exclude, *config.extend_exclude])
        self.user_excludes = pathspec.PathSpec.from_lines(
            "gitwildmatch", [*config.exclude, *config.extend_exclude])
        self.gitignores: dict[Path, pathspec.PathSpec | None] = {}
        self.respect_gitignore = config.respect_gitignore

    def _relative(self, path: Path) -> str | None:
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return None

    def _gitignore(self, folder: Path) -> pathspec.PathSpec | None:
        if folder not in self.gitignores:
            file = folder / ".gitignore"
            spec = None
            if file.is_file():
                try:
                    spec = pathspec.PathSpec.from_lines("gitwildmatch", file.read_text().splitlines())
                except OSError:
                    spec = None
            self.gitignores[folder] = spec
        return self.gitignores[folder]

    def ignored(self, path: Path, is_dir: bool, explicit: bool = False) -> bool:
        relative = self._relative(path)
        name = path.name + ("/" if is_dir else "")
        specs = self.user_excludes if explicit else self.excludes
        if relative is not None and specs.match_file(relative + ("/" if is_dir else "")):
            return True
        if not explicit and self.excludes.match_file(name):
            return True
        if not self.respect_gitignore:
            return False
        resolved = path.resolve()
        for folder in resolved.parents:
            spec = self._gitignore(folder)
            if spec is not None:
                inner = resolved.relative_to(folder).as_posix() + ("/" if is_dir else "")
                if spec.match_file(inner):
                    return True
            if (folder / ".git").exists():
                break
        return False


def discover(paths: Sequence[str | Path], config: Config) -> list[Path]:
    """Python files to check, sorted. Files named explicitly (pre-commit) still honour excludes."""
    matcher = _Matcher(config)
    found: set[Path] = set()
    for raw in paths or ["."]:
        path = Path(raw)
        if path.is_dir():
            found.update(_walk(path, matcher))
        elif path.exists() or path.suffix == ".py":
            if not matcher.ignored(path, False, explicit=True):
                found.add(path)
    return sorted(found)


def _walk(folder: Path, matcher: _Matcher) -> Iterator[Path]:
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return
    for entry in entries:
        if entry.is_dir() and not entry.is_symlink():
            if not matcher.ignored(entry, True):
                yield from _walk(entry, matcher)
        elif entry.suffix in (".py", ".pyi") and entry.is_file() and not matcher.ignored(entry, False):
            yield entry
