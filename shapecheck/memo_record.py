"""What a `check` run's memo (memo.py) depends on, recorded as the run goes.

Every path is stated before the run reads what the signature stands for:

- before the configuration is read: the pyproject.toml files looked for from the working
  folder up to the first found (or `--config`'s file), and shapecheck's own source files and
  folders (its output is what its code makes of the input);
- as the files to check are found (files.py's `discover` is told to state them): each path
  named on the command line, each folder before it is listed (a file added, removed or
  renamed in it changes the folder's signature), each `.gitignore` before it is read and each
  `.git` before it is looked for, found or not;
- before any file is checked: the files to check and the `__init__.py` files that make their
  folders packages (module names, and the folders imports are searched from);
- after the run, each module a result depended on or looked for in vain is looked up again,
  by the same `ProjectIndex` code as the run's own, with every folder it lists and every file it
  tries stated first. The memo is written only when every lookup ends as it did in the run: a
  dependency at the same path with a text that hashes the same, a missing module still missing.

A run over folders is recorded as one over named files is: a later run states every folder
the walk listed and every file it found, which is the walk's answer without its matching (no
.gitignore or exclude pattern is read, nothing is imported). A run is recorded only when its
output is final: every result as the result cache would keep it (no internal error, no
analysis bound hit), and the run's status 0 or 1.

The memo's table keeps the files the walk found, the index built from them and each file's
result. A run whose memo no longer holds because some files it checked or read were edited
(`Record.reuse`) takes the files and the index from it, and the result of each file whose
signature and those of its dependencies are unchanged: none of what they were computed from
has changed, since every other input (each folder, `.gitignore` and setting) is as it was.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from shapecheck import memo
from shapecheck.cache import ResultCache, cacheable, decode_result, encode_result, source_tree
from shapecheck.config import Config
from shapecheck.project import ProjectIndex, content_hash
from shapecheck.results import FileResult, Report


class Record:
    """The inputs of one run, each with the signature it had when first looked at."""

    def __init__(self, argv: Sequence[str], cwd: str, folder: str) -> None:
        self.key = memo.key(argv, cwd)
        self.cwd = cwd
        self.folder = folder
        self.inputs: dict[str, memo.Signature | None] = {}
        self.consistent = True  # no path looked different the second time it was looked at
        self.index: ProjectIndex | None = None  # the run's imports are looked up again in it
        self.settings: frozenset[str] = frozenset()  # the inputs stated before the configuration is read
        self.chosen: list[str] = []  # the files to check
        # They, the index's modules and its roots, as `files` built it (or the last run did).
        self.built: Built | None = None
        self.reused: dict[str, FileResult] = {}  # results the last memo vouched for (`reuse`)

    @staticmethod
    def start(argv: Sequence[str], config_file: Path | None) -> Record | None:
        """Begin, before the configuration is read; None when this command line keeps no memo."""
        cwd = os.getcwd()
        folder = memo.folder(argv, cwd)
        if folder is None:
            return None
        record = Record(argv, cwd, folder)
        if config_file is not None:
            record.stat(os.path.join(cwd, config_file))
        else:
            for candidate in memo.pyprojects(cwd):
                found = record.stat(candidate)
                if found is not None and found[0] == memo.REGULAR:
                    break
        # Every source file, output formats included: they make the text a memo keeps. The
        # folders too, for a file added to one.
        for folder_name, files in source_tree():
            record.stat(folder_name)
            for file in files:
                record.stat(file)
        record.settings = frozenset(record.inputs)
        return record

    def stat(self, path: str) -> memo.Signature | None:
        full = os.path.join(self.cwd, path)
        found = memo.signature(full)
        if full in self.inputs:
            if self.inputs[full] != found:
                self.consistent = False
        elif found is not None or not self._vouched_absent(full):
            self.inputs[full] = found
        return found

    def _vouched_absent(self, full: str) -> bool:
        """Whether the absence of `full` is implied by what is already recorded: its folder was
        stated earlier as a folder, or is absent itself and so vouched for. Nothing can appear
        in a folder without changing its signature, so a replay need not state the path: most
        paths a walk of a tree asks about (each folder's `.gitignore` and `.git`, `name/` beside
        each `name.py`) are not there, and this halves what a replay states."""
        parent = os.path.dirname(full)
        if parent == full:
            return False
        if parent in self.inputs:
            recorded = self.inputs[parent]
            return recorded is not None and recorded[0] == memo.FOLDER_TYPE
        # Stated after its own parent, as if the lookup had gone through it.
        return memo.signature(parent) is None and self._vouched_absent(parent)

    def prepare(self, cache: ResultCache) -> None:
        """Create the cache's folders before the walk: the first run over the project's root
        would otherwise list the root before its cache folder appears in it, and the memo it
        keeps would never hold."""
        try:
            cache.prepare()
            os.makedirs(self.folder, exist_ok=True)
        except OSError:
            pass  # a read-only or full disk: `finish` finds out again

    def files(self, paths: Iterable[str], config: Config) -> ProjectIndex:
        """State the files to check, and the package folders that name them; build the index
        their imports are looked up in again by `finish`, as the run's own is built.

        Returns a copy of that index that states nothing, for the run itself: its lookups must
        not fill the tables that `finish` looks up again, and one build serves both.
        """
        chosen = self.chosen = list(paths)
        if self.built is not None and chosen == self.built[0]:
            # What the last run built (`reuse`): nothing it was built from has changed.
            self.index = ProjectIndex(paths=dict(self.built[1]), roots=self.built[2], probe=self.stat)
        else:
            for path in chosen:
                self.stat(path)
            self.index = ProjectIndex.of(chosen, [config.root], probe=self.stat)
            self.built = (chosen, dict(self.index.paths), self.index.roots)
        return ProjectIndex(paths=dict(self.index.paths), roots=self.index.roots)

    def finish(self, report: Report, cache: ResultCache, stdout: str, stderr: str, status: int) -> None:
        """Write the memo, if the run's output is final and every lookup ends as in the run."""
        index = self.index
        if index is None or self.built is None or status not in (0, 1) or not all(cacheable(result) for result in report.results):
            return
        # Written only where a later run of this command line looks (see memo.folder).
        if os.path.realpath(self.folder) != os.path.realpath(cache.folder / memo.FOLDER):
            return
        # Each module looked up once: a tree's files share most of their imports, and a lookup
        # reads the module's text.
        found: dict[str, tuple[str, str] | None] = {}
        for result in report.results:
            if self.reused.get(result.path) is result:
                continue  # its signatures, and those of what it read, are the last memo's
            for dependency in result.dependencies:
                now = found[dependency.module] if dependency.module in found else _look_up(index, dependency.module)
                found[dependency.module] = now
                if now != (os.path.abspath(dependency.path), dependency.hash):
                    return
            for module in result.missing:
                if module not in found:
                    found[module] = _look_up(index, module)
                if found[module] is not None:
                    return
        if not self.consistent:
            return
        try:
            cache.prepare()
        except OSError:
            return  # a read-only or full disk: the next run is only slower
        memo.write(self.folder, self.key, self.inputs, stdout, stderr, status, _table(self.built, report))

    def reuse(self, config: Config) -> list[str] | None:
        """The files to check, as the last run of this command line found them, where only
        files it checked or modules they read have changed since (`memo.replay` answered
        no); None where anything else changed, or there is no such run.

        Then the walk need not run again: every folder it listed, every `.gitignore` it read and
        every setting is as it was. The results of the files whose signature, and those of
        the modules they read, are unchanged are put in `self.reused`; every path the last
        memo stated is stated again here, before anything is read, and kept for the next.
        """
        try:
            last = memo.previous(self.folder, self.key)
        except (OSError, ValueError):
            return None
        if last is None:
            return None
        inputs, table, written = last
        if not self.settings <= {name for name, _ in inputs}:
            return None
        now = {name: self.inputs[name] if name in self.settings else memo.signature(name) for name, _ in inputs}
        recorded = dict(inputs)
        changed = {name for name, text in inputs if memo.signature_text(now[name]) != text or _racy(now[name], written)}
        try:
            built, rows = _decode_table(table)
            files = built[0]
            results = {path: decode_result(rows[path], path, config) for path in files}
        except (KeyError, TypeError, ValueError, RecursionError):
            return None
        where = {path: os.path.join(self.cwd, path) for path in files}
        modules = {d.path: os.path.join(self.cwd, d.path) for result in results.values() for d in result.dependencies}
        sources = {*where.values(), *modules.values()}
        if not all(self._edited(name, recorded[name], now[name], sources) for name in changed):
            return None
        self.inputs.update(now)
        self.built = built
        self.reused = {path: result for path, result in results.items()
                       if where[path] not in changed
                       and not any(modules[d.path] in changed for d in result.dependencies)}
        return files

    def _edited(self, name: str, recorded: str, now: memo.Signature | None, sources: set[str]) -> bool:
        """Whether the change of `name` is an edit of a file checked or read, and nothing else:
        a regular file then and now (not a link), a Python source, not a setting."""
        return (name in sources and name not in self.settings and name.endswith((".py", ".pyi"))
                and recorded.startswith(f"{memo.REGULAR},") and now is not None and now[0] == memo.REGULAR
                and not os.path.islink(name))


def _racy(now: memo.Signature | None, written: int) -> bool:
    return now is not None and memo.racy(now, written)


Built = tuple[list[str], dict[str, str], tuple[str, ...]]
"""The files of a run, and the modules and roots of the index built from them (`Record.files`)."""


def _table(built: Built, report: Report) -> bytes:
    """The run's files and index, and each file's result, for the next run after an edit
    (`Record.reuse`)."""
    files, paths, roots = built
    rows = {result.path: encode_result(result) for result in report.results}
    table = {"files": files, "paths": paths, "roots": roots, "results": rows}
    return json.dumps(table, separators=(",", ":")).encode("utf-8", "surrogatepass")


def _decode_table(table: bytes) -> tuple[Built, dict[str, object]]:
    """What `_table` wrote; ValueError (or KeyError, TypeError) for anything else."""
    found = json.loads(table.decode("utf-8", "surrogatepass"))
    if not (isinstance(found, dict) and found.keys() == {"files", "paths", "roots", "results"}
            and isinstance(found["results"], dict) and isinstance(found["paths"], dict)):
        raise ValueError("not a table")
    files, paths, roots = found["files"], found["paths"], found["roots"]
    if not (_strings(files) and _strings(roots) and _strings(list(paths.values()))):
        raise ValueError("not a table")
    return (files, paths, tuple(roots)), found["results"]


def _strings(values: object) -> bool:
    return isinstance(values, list) and all(isinstance(value, str) for value in values)


def _look_up(index: ProjectIndex, module: str) -> tuple[str, str] | None:
    """Where `module` is found now, by its absolute path, and its text's hash."""
    now = index.find(module)
    return None if now is None else (os.path.abspath(now[0]), content_hash(now[1]))
