"""Which files a run checks: directories recurse over *.py, honouring .gitignore and excludes.

A path named on the command line is checked even when it lies in an ignored folder (that is
what the user asked for); what is inside it follows the usual filters. User `exclude`
patterns apply to named files too, because pre-commit passes file names explicitly.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Final

from shapecheck.config import Config

if TYPE_CHECKING:
    # Imported where patterns are matched: a run over named files without excludes (an
    # editor's, a pre-commit hook's) never needs it, and reading a file (formats) never does.
    import pathspec

# Folder names never worth descending into (matched on the entry's own name), and the suffix of
# the one pattern among them: plain comparisons, so a walk with no .gitignore or exclude to
# match never imports pathspec.
_SKIPPED: Final = frozenset({
    ".git", ".hg", ".svn", ".venv", "venv", "__pycache__", ".mypy_cache", ".ruff_cache",
    ".pytest_cache", ".tox", ".nox", "node_modules", "build", "dist", ".eggs",
})
_SKIPPED_SUFFIX: Final = ".egg-info"

Probe = Callable[[str], object]
"""Told each path a walk is about to look at (a folder before it is listed, a `.gitignore`
before it is read, a `.git` before it is looked for): the run memo's record (memo_record.py)."""


class _Matcher:
    def __init__(self, config: Config, probe: Probe | None = None) -> None:
        self.probe = probe
        self.root = config.root.resolve()
        patterns = [*config.exclude, *config.extend_exclude]
        self.user_excludes: pathspec.GitIgnoreSpec | None = None
        if patterns:
            import pathspec

            self.user_excludes = pathspec.GitIgnoreSpec.from_lines(patterns)
        self.respect_gitignore = config.respect_gitignore
        self.gitignores: dict[Path, pathspec.GitIgnoreSpec | None] = {}
        self.resolved: dict[Path, Path] = {}
        self.specs_above: dict[tuple[Path, Path | None], list[tuple[str, pathspec.GitIgnoreSpec]]] = {}

    def excluded_by_user(self, path: Path, is_dir: bool) -> bool:
        if self.user_excludes is None:
            return False
        try:
            relative = path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            relative = path.as_posix()
        return self.user_excludes.match_file(relative + ("/" if is_dir else ""))

    def _gitignore(self, folder: Path) -> pathspec.GitIgnoreSpec | None:
        if folder not in self.gitignores:
            spec = None
            file = folder / ".gitignore"
            if self.probe is not None:
                self.probe(str(file))
            if _quietly(file.is_file):
                import pathspec

                try:
                    spec = pathspec.GitIgnoreSpec.from_lines(file.read_text().splitlines())
                except (OSError, UnicodeDecodeError):
                    spec = None
            self.gitignores[folder] = spec
        return self.gitignores[folder]

    def git_ignored(self, path: Path, is_dir: bool, floor: Path | None, link: bool | None = None) -> bool:
        """Ignored by a .gitignore in the path's folders (only those at or below `floor`, if set).

        `link`: whether `path` is a symbolic link, where the caller knows (a walk's entry says
        so without a system call); looked up where None.
        """
        if not self.respect_gitignore:
            return False
        if path.is_symlink() if link is None else link:
            resolved = path.resolve()
            parent = resolved.parent
        else:
            parent = self._resolved(path.parent)
            resolved = parent / path.name
        specs = self._specs_above(parent, floor)
        if not specs:  # most folders of most trees: nothing to match, no string to build
            return False
        text = str(resolved)
        for folder, spec in specs:
            inner = Path(text[len(folder):].lstrip("/")).as_posix() + ("/" if is_dir else "")
            if spec.match_file(inner):
                return True
        return False

    def _resolved(self, folder: Path) -> Path:
        found = self.resolved.get(folder)
        if found is None:
            found = self.resolved[folder] = folder.resolve()
        return found

    def _specs_above(self, folder: Path, floor: Path | None) -> list[tuple[str, pathspec.GitIgnoreSpec]]:
        """The .gitignore files that apply in `folder` (resolved): its own and its ancestors', up
        to the repository's root (or `floor`); the same for every entry of the folder. Built on
        its parent's, so each folder's `.gitignore` and `.git` are looked for once per walk."""
        key = (folder, floor)
        specs = self.specs_above.get(key)
        if specs is None:
            specs = []
            if floor is None or folder.is_relative_to(floor):
                spec = self._gitignore(folder)
                if spec is not None:
                    specs.append((str(folder), spec))
                if self.probe is not None:
                    self.probe(str(folder / ".git"))
                parent = folder.parent
                if parent != folder and not _quietly((folder / ".git").exists):
                    specs += self._specs_above(parent, floor)
            self.specs_above[key] = specs
        return specs

    def skip_entry(self, entry: Path, is_dir: bool, floor: Path | None, link: bool | None = None) -> bool:
        if is_dir and (entry.name in _SKIPPED or entry.name.endswith(_SKIPPED_SUFFIX)):
            return True
        return self.excluded_by_user(entry, is_dir) or self.git_ignored(entry, is_dir, floor, link)


def discover(paths: Sequence[str | Path], config: Config, probe: Probe | None = None) -> list[Path]:
    """Python files to check, sorted and without duplicates.

    What cannot be examined (a folder that cannot be listed, a `*.py` that is a FIFO, a device
    or a broken link) is returned as well, as a file named on the command line is: checking it
    reports why it was not checked (SC000), and the rest of the walk goes on. `probe` is told
    every path the walk looks at before it looks (see `Probe`).
    """
    matcher = _Matcher(config, probe)
    found: set[Path] = set()
    for raw in paths or ["."]:
        path = Path(raw)
        if probe is not None:
            probe(str(path))
        if _quietly(path.is_dir):
            if matcher.excluded_by_user(path, True):
                continue
            # Inside a folder the user named, its ancestors' .gitignore files do not apply when
            # they would hide the folder itself.
            floor = path.resolve() if matcher.git_ignored(path, True, None) else None
            found.update(_walk(path, matcher, floor))
        elif not matcher.excluded_by_user(path, False):
            found.add(path)
    return sorted(found)


_SOURCES = (".py", ".pyi")


def excluded(path: str | Path, config: Config) -> bool:
    """Whether the configured excludes leave `path` out (what `check PATH` would skip)."""
    return not discover([Path(path)], config)


def _walk(folder: Path, matcher: _Matcher, floor: Path | None) -> Iterator[Path]:
    # Stated before listed: a name added, removed or renamed in it changes its signature.
    if matcher.probe is not None:
        matcher.probe(str(folder))
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    except OSError:
        yield folder  # cannot be listed: checking it says why, and the rest goes on
        return
    for entry in entries:
        path = folder / entry.name
        is_folder = False
        try:
            # Links to folders are not followed (a link may lead out of the project, or round).
            is_folder = entry.is_dir(follow_symlinks=False)
            if is_folder:
                wanted = not matcher.skip_entry(path, True, floor, link=False)
            elif path.suffix in _SOURCES:
                link = entry.is_symlink()
                if link and matcher.probe is not None:
                    matcher.probe(str(path))  # a link whose target turns from a folder into a file
                wanted = not _quietly(entry.is_dir) and not matcher.skip_entry(path, False, floor, link)
            else:
                wanted = False
        except OSError:
            wanted = is_folder or path.suffix in _SOURCES  # checking it says what went wrong
            is_folder = False
        if wanted and is_folder:
            yield from _walk(path, matcher, floor)
        elif wanted:
            # Whatever it is (a FIFO, a device, a broken link): named, it would be checked too.
            yield path


def _quietly(test: Callable[[], bool]) -> bool:
    """`test()`, False where the file system refuses to answer (the answer is then found out,
    and reported, when the path is read)."""
    try:
        return test()
    except OSError:
        return False


class FileTooLarge(OSError):
    """A file over the size bound of `read_regular`: refused before a byte of it is read."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(errno.EFBIG, f"{size:,} bytes, over the bound of {limit:,}")
        self.size = size


def read_regular(path: str | Path, limit: int | None = None) -> bytes:
    """The bytes of a regular file of at most `limit` bytes (FileTooLarge past it). A FIFO,
    socket, device or folder raises OSError, never blocks: it is opened without waiting for a
    writer and refused on what fstat says it is."""
    with open_regular(path, limit) as file:
        if limit is None:
            return file.read()
        data = file.read(limit + 1)  # a file that grew since fstat is refused all the same
    if len(data) > limit:
        raise FileTooLarge(len(data), limit)
    return data


def open_regular(path: str | Path, limit: int | None = None) -> BinaryIO:
    """A regular file of at most `limit` bytes, open for reading; what `read_regular` refuses
    raises the same OSError here, before anything is read."""
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        status = os.fstat(descriptor)
        if stat.S_ISDIR(status.st_mode):  # one a walk could not list (it lists the others)
            raise OSError(errno.EISDIR, f"a folder that cannot be listed ({_listing_error(path)}); "
                                        "nothing in it was checked")
        if not stat.S_ISREG(status.st_mode):
            raise OSError(errno.EINVAL, f"not a regular file ({_kind(status.st_mode)}); skipped")
        if limit is not None and status.st_size > limit:
            raise FileTooLarge(status.st_size, limit)
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def _listing_error(path: str | Path) -> str:
    try:
        os.listdir(path)
    except OSError as error:
        return error.strerror or str(error)
    return "it could not be listed when the files were collected"


def _kind(mode: int) -> str:
    kinds = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))
    return next((name for test, name in kinds if test(mode)), "not a file")
