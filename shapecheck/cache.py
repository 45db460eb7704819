"""The result cache: a file's result reused while nothing it was computed from has changed.

DESIGN.md section 7. One JSON entry per checked file under `.shapecheck_cache/` at the project
root (its own `.gitignore` keeps it out of version control). An entry is reused only when

- the file's text hashes the same (`FileResult.text_hash`),
- every project module the result depended on is still found at the same path with a text
  that hashes the same, and every module it looked for and did not find is still not found,
- the file is still importable under the same module name (relative imports resolve from it),
- and the environment is the same: the settings that change a result, shapecheck's version
  and its own source files (a development checkout edits the checker itself), and Python's
  version (CPython's parser decides SC004).

Anything else in an entry (corrupt, truncated, written by another version, another path's
entry) is ignored and the file is checked again. Writes go to a temporary file that is
renamed over the entry, so a reader sees an old entry or a new one, never half of one, and
two runs writing the same entry at once both leave a whole entry behind.

Light by design: it does not import the analyzer, so a run whose files are all cached never
pays for it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import fields
from pathlib import Path
from typing import Final

from shapecheck.bounds import TIME_LIMIT_S
from shapecheck.codes import Code
from shapecheck.config import Config
from shapecheck.diagnostic import Diagnostic, Note, Severity, Span
from shapecheck.project import ModuleSource, Packages, content_hash
from shapecheck.results import Dependency, FileResult

DEFAULT_FOLDER: Final = ".shapecheck_cache"

_FORMAT: Final = 1  # the layout of an entry; bumped when it changes
_GITIGNORE: Final = "# Created by shapecheck: nothing in this folder belongs in version control.\n*\n"


class ResultCache:
    """Entries of one folder, for runs under one configuration."""

    def __init__(self, folder: Path, config: Config, time_limit: float = TIME_LIMIT_S) -> None:
        self.folder = folder
        self.entries = folder / "results"
        self.environment = _environment(config, time_limit)
        # What the modules of this run look like, found once per run: module -> (path, hash).
        self._modules: dict[str, tuple[str, str] | None] = {}
        self._packages = Packages()  # one run's folders: a module name per file, cheaply
        self._prepared = False

    @staticmethod
    def default_folder(config: Config) -> Path:
        return config.root / DEFAULT_FOLDER

    def lookup(self, path: str, source: ModuleSource | None) -> FileResult | None:
        """The cached result of the file at `path` if it is still valid, else None."""
        try:
            with open(self._entry(path), encoding="utf-8") as file:
                entry = json.load(file)
            text_hash = _file_hash(path)
        except (OSError, ValueError, UnicodeDecodeError):
            return None
        if text_hash is None:
            return None
        try:
            result = _decode(entry, path, self.environment, text_hash)
        except (KeyError, TypeError, ValueError, AttributeError):
            return None  # corrupt or foreign: checked again and overwritten
        if result is None or entry["module"] != self._module_name(path):
            return None
        if not self._unchanged(result.dependencies, result.missing, source):
            return None
        return result

    def store(self, result: FileResult) -> None:
        """Keep `result` for the next run; a result that must be computed again is not kept."""
        if not cacheable(result):
            return
        entry = _encode(result, self.environment, self._module_name(result.path))
        try:
            self.prepare()
            _write_atomically(self._entry(result.path), json.dumps(entry, separators=(",", ":")))
        except OSError:
            pass  # a read-only or full disk: the run still has its results, only slower next time

    def _module_name(self, path: str) -> str:
        names = self._packages.module_names(Path(path))
        return names[0] if names else Path(path).stem

    def _entry(self, path: str) -> Path:
        key = hashlib.sha256(os.path.abspath(path).encode("utf-8", "surrogatepass")).hexdigest()[:32]
        return self.entries / f"{key}.json"

    def prepare(self) -> None:
        """Create the folder, with the `.gitignore` that keeps it out of version control."""
        if self._prepared:
            return
        self.entries.mkdir(parents=True, exist_ok=True)
        ignore = self.folder / ".gitignore"
        if not ignore.exists():
            _write_atomically(ignore, _GITIGNORE)
        self._prepared = True

    def _unchanged(self, dependencies: Iterable[Dependency], missing: Iterable[str],
                   source: ModuleSource | None) -> bool:
        for dependency in dependencies:
            now = self._module(dependency.module, source)
            if now is None or now != (os.path.abspath(dependency.path), dependency.hash):
                return False
        return all(self._module(module, source) is None for module in missing)

    def _module(self, module: str, source: ModuleSource | None) -> tuple[str, str] | None:
        if module not in self._modules:
            found = source.find(module) if source is not None else None
            self._modules[module] = (os.path.abspath(found[0]), content_hash(found[1])) if found else None
        return self._modules[module]


def cacheable(result: FileResult) -> bool:
    # An internal error or an analysis bound (the time limit depends on the machine's load)
    # may not happen again: such files are always checked afresh. Types are for editors only.
    return (result.error is None and bool(result.text_hash) and not result.types
            and all(d.code is not Code.ANALYSIS_LIMIT for d in result.diagnostics))


def _file_hash(path: str) -> str | None:
    from shapecheck.files import read_regular
    from shapecheck.parsing import SourceDecodeError, decode

    try:
        return content_hash(decode(read_regular(path)))
    except SourceDecodeError:
        return None


def _write_atomically(target: Path, text: str) -> None:
    # Imported here: only a run that writes an entry needs it (a warm run writes none).
    from shapecheck.atomic import write_atomically

    write_atomically(target, text.encode("utf-8"), suffix=".json")


_FILE_SELECTION = frozenset({"exclude", "extend_exclude", "respect_gitignore", "jobs"})


def _environment(config: Config, time_limit: float) -> str:
    """One hash of everything outside the file and its dependencies that a result depends on."""
    from shapecheck import __version__

    # Every setting counts unless it only decides which files are checked: a new setting that
    # changes results (x64 did) invalidates entries without an edit here.
    chosen = {f.name: getattr(config, f.name) for f in fields(config) if f.name not in _FILE_SELECTION}
    settings = [
        _FORMAT, __version__, sys.version, sys.implementation.cache_tag,
        sorted((name, sorted(value) if isinstance(value, frozenset) else value) for name, value in chosen.items()),
        time_limit, _own_sources(),
    ]
    return hashlib.sha256(json.dumps(settings, default=str).encode()).hexdigest()[:32]


# Front ends and the runtime: they never change what the engine finds.
_NOT_THE_CHECKER: Final = frozenset({"__pycache__", "codemods", "formats", "lsp", "plugin", "runtime"})


def source_roots() -> list[Path]:
    """The folders shapecheck's own code lives in (its rules install from a folder of their own)."""
    import importlib.util

    import shapecheck

    roots = {Path(shapecheck.__file__).parent}
    rules = importlib.util.find_spec("shapecheck.rules")
    if rules is not None and rules.submodule_search_locations:
        roots.update(Path(location) for location in rules.submodule_search_locations)
    return sorted(roots)


def source_tree(skipped: frozenset[str] = frozenset({"__pycache__"})) -> Iterator[tuple[str, list[str]]]:
    """Each folder of shapecheck's own code (below no `skipped` folder name) with the `.py`
    files in it, in a stable order."""
    for root in source_roots():
        for folder, subfolders, files in os.walk(root):
            subfolders[:] = sorted(name for name in subfolders if name not in skipped)
            yield folder, [os.path.join(folder, name) for name in sorted(files) if name.endswith(".py")]


def _own_sources() -> list[tuple[str, int, int]]:
    """Size and modification time of the checker's own source files: an edited checker (a
    development checkout) must not reuse what its previous code found."""
    stamps: list[tuple[str, int, int]] = []
    for _, files in source_tree(_NOT_THE_CHECKER):
        for file in files:
            try:
                stat = os.stat(file)
            except OSError:
                continue
            stamps.append((file, stat.st_size, stat.st_mtime_ns))
    return stamps


def _encode(result: FileResult, environment: str, module: str) -> dict[str, object]:
    return {
        "format": _FORMAT,
        "environment": environment,
        "path": os.path.abspath(result.path),
        "module": module,
        "text_hash": result.text_hash,
        "lines": result.lines,
        "dependencies": [[d.module, os.path.abspath(d.path), d.hash] for d in result.dependencies],
        "missing": list(result.missing),
        "diagnostics": [_encode_diagnostic(d, result.path) for d in result.diagnostics],
    }


def _encode_diagnostic(diagnostic: Diagnostic, path: str) -> list[object]:
    # Paths of the file itself are left out: a later run may name the file differently
    # (relative or absolute), and reports it under the name it was given.
    notes = [[n.message, None if n.path == path else n.path, *_span(n.span)] for n in diagnostic.notes]
    return [None if diagnostic.path == path else diagnostic.path, *_span(diagnostic.span),
            str(diagnostic.code), diagnostic.message, diagnostic.severity.value, notes]


def _span(span: Span) -> list[int]:
    return [span.line, span.column, span.end_line, span.end_column]


def _decode(entry: dict[str, object], path: str, environment: str, text_hash: str) -> FileResult | None:
    """The entry's result for `path`, None when it is for something else; raises when malformed."""
    if (entry["format"] != _FORMAT or entry["environment"] != environment
            or entry["path"] != os.path.abspath(path) or entry["text_hash"] != text_hash):
        return None
    missing = tuple(_str(module) for module in _list(entry["missing"]))
    dependencies = tuple(Dependency(*(_str(part) for part in _items(item, 3)))
                         for item in _list(entry["dependencies"]))
    diagnostics = tuple(_decode_diagnostic(item, path) for item in _list(entry["diagnostics"]))
    return FileResult(path, diagnostics, (), None, _int(entry["lines"]), dependencies, missing, text_hash)


def _decode_diagnostic(item: object, path: str) -> Diagnostic:
    own, line, column, end_line, end_column, code, message, severity, notes = _items(item, 9)
    decoded_notes = []
    for note in _list(notes):
        note_message, note_path, *span = _items(note, 6)
        decoded_notes.append(Note(_str(note_message), path if note_path is None else _str(note_path),
                                  _decode_span(span)))
    return Diagnostic(path if own is None else _str(own),
                      _decode_span([line, column, end_line, end_column]), Code(_str(code)),
                      _str(message), Severity(_str(severity)), tuple(decoded_notes))


def _decode_span(values: list[object]) -> Span:
    line, column, end_line, end_column = (_int(value) for value in values)
    return Span(line, column, end_line, end_column)


def _list(value: object) -> list[object]:
    if not isinstance(value, list):
        raise ValueError("expected a list")
    return value


def _items(value: object, count: int) -> list[object]:
    items = _list(value)
    if len(items) != count:
        raise ValueError(f"expected {count} items")
    return items


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError("expected a string")
    return value


def _int(value: object) -> int:
    if type(value) is not int:
        raise ValueError("expected an integer")
    return value
