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

An entry is read as untrusted: anything that is not an entry this code wrote for this file
is ignored, the file is checked again and its entry written anew; never a hang, a crash or a
result that no check of the file gives. In turn:

- only a regular file of at most `LIMIT` bytes is read (safe_read.py: no FIFO, device or
  link is opened for reading);
- its SHA-256 checksum must match (`_frame`): a damaged entry (a flipped bit, a truncated
  write) goes no further;
- the JSON must parse (nesting too deep for the parser is a miss too) into exactly the
  layout `_encode` writes, with the types it writes;
- and it must fit the file it describes, read now: the text hashes the same, the line count
  is the text's, every diagnostic and note lies in the text (see `_Lines`), and every code is
  one this configuration reports (known, selected, not ignored, and neither SC000 nor SC005,
  which are never kept).

What passes all that is trusted: the folder is the user's own, and an entry forged there that
fits the file and carries a valid checksum is reported as a result, as the memo beside it is
(memo.py). Writes go to a temporary file that is renamed over the entry, so a reader sees an
old entry or a new one, never half of one, and two runs writing the same entry at once both
leave a whole entry behind.

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
from shapecheck.safe_read import read_bounded

DEFAULT_FOLDER: Final = ".shapecheck_cache"

_FORMAT: Final = 2  # the layout of an entry; bumped when it changes
LIMIT: Final = 16 << 20
"""Bytes an entry may hold. One diagnostic takes a few hundred bytes, so this is tens of
thousands of diagnostics in one file; a result whose entry would be larger is not kept (that
file is checked on every run)."""
_GITIGNORE: Final = "# Created by shapecheck: nothing in this folder belongs in version control.\n*\n"


class ResultCache:
    """Entries of one folder, for runs under one configuration."""

    def __init__(self, folder: Path, config: Config, time_limit: float = TIME_LIMIT_S) -> None:
        self.folder = folder
        self.entries = folder / "results"
        self.config = config
        self.environment = _environment(config, time_limit)
        # What the modules of this run look like, found once per run: module -> (path, hash).
        self._modules: dict[str, tuple[str, str] | None] = {}
        self._packages = Packages()  # one run's folders: a module name per file, cheaply
        self._prepared = False
        # Results the run memo vouches for (memo_record.py): answered without reading anything.
        self.known: dict[str, FileResult] = {}

    @staticmethod
    def default_folder(config: Config) -> Path:
        return config.root / DEFAULT_FOLDER

    def lookup(self, path: str, source: ModuleSource | None) -> FileResult | None:
        """The cached result of the file at `path` if it is still valid, else None."""
        known = self.known.get(path)
        if known is not None:
            return known
        found = read_bounded(self._entry(path), LIMIT)
        body = _unframe(found[0]) if found is not None else None
        if body is None:
            return None
        try:
            text = _file_text(path)
            entry = json.loads(body.decode("utf-8"))
        except (OSError, ValueError, RecursionError):
            return None
        if text is None:
            return None
        try:
            result = _decode(entry, path, self.environment, text, self.config)
        except (KeyError, TypeError, ValueError):
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
        data = _frame(json.dumps(entry, separators=(",", ":")).encode("utf-8"))
        if len(data) > LIMIT:
            return  # it would never be read back
        try:
            self.prepare()
            _write_atomically(self._entry(result.path), data)
        except OSError:
            pass  # a read-only or full disk: the run still has its results, only slower next time

    def _module_name(self, path: str) -> str:
        names = self._packages.module_names(path)
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
            _write_atomically(ignore, _GITIGNORE.encode("utf-8"))
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
    # A diagnostic or note in another file is not kept either (the analyzer reports none): an
    # entry holds places in its own file only, checked against its text when read.
    return (result.error is None and bool(result.text_hash) and not result.types
            and all(d.code is not Code.ANALYSIS_LIMIT and d.path == result.path
                    and all(note.path == result.path for note in d.notes) for d in result.diagnostics))


def _file_text(path: str) -> str | None:
    """The text of the file at `path`, as the analysis reads it; None if it is not text."""
    from shapecheck.files import read_regular
    from shapecheck.parsing import SourceDecodeError, decode

    try:
        return decode(read_regular(path))
    except SourceDecodeError:
        return None


def _write_atomically(target: Path, data: bytes) -> None:
    # Imported here: only a run that writes an entry needs it (a warm run writes none).
    from shapecheck.atomic import write_atomically

    write_atomically(target, data, suffix=".json")


_HEAD: Final = b'{"sha256":"'
_BODY: Final = b'","entry":'
_BODY_AT: Final = len(_HEAD) + 64 + len(_BODY)


def _frame(body: bytes) -> bytes:
    """An entry's file: a JSON object holding the SHA-256 of the body's bytes, then the body."""
    return _HEAD + hashlib.sha256(body).hexdigest().encode("ascii") + _BODY + body + b"}"


def _unframe(data: bytes) -> bytes | None:
    """The body `_frame` framed, if its checksum matches; None for anything else. Compared
    byte for byte, before anything is parsed: a reformatted entry is a foreign one."""
    if not (data.startswith(_HEAD) and data[_BODY_AT - len(_BODY):_BODY_AT] == _BODY and data.endswith(b"}")):
        return None
    body = data[_BODY_AT:-1]
    return body if hashlib.sha256(body).hexdigest().encode("ascii") == data[len(_HEAD):_BODY_AT - len(_BODY)] else None


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
        "diagnostics": [_encode_diagnostic(d) for d in result.diagnostics],
    }


def encode_result(result: FileResult) -> list[object]:
    """What a run memo's table keeps of a cacheable result (memo_record.py); `decode_result`
    reads it back."""
    return [[[d.module, d.path, d.hash] for d in result.dependencies], list(result.missing),
            [_encode_diagnostic(d) for d in result.diagnostics], result.lines, result.text_hash]


def decode_result(row: object, path: str, config: Config) -> FileResult:
    """The result `encode_result` kept for the file at `path`; ValueError for anything else.

    Its places are not measured against the file's text, which is not read: the memo that
    holds it vouches for that text (its signature is unchanged), as it vouches for its output.
    """
    dependencies, missing, diagnostics, lines, text_hash = _items(row, 5)
    return FileResult(
        path, tuple(_decode_diagnostic(item, path, _ANY_LINES, config) for item in _list(diagnostics)), (), None,
        _int(lines), tuple(Dependency(*(_str(part) for part in _items(item, 3))) for item in _list(dependencies)),
        tuple(_str(module) for module in _list(missing)), _str(text_hash))


def _encode_diagnostic(diagnostic: Diagnostic) -> list[object]:
    # No paths: every place is in the file itself (see `cacheable`), which a later run may name
    # differently (relative or absolute) and reports under the name it was given.
    notes = [[n.message, *_span(n.span)] for n in diagnostic.notes]
    return [*_span(diagnostic.span), str(diagnostic.code), diagnostic.message, diagnostic.severity.value, notes]


def _span(span: Span) -> list[int]:
    return [span.line, span.column, span.end_line, span.end_column]


_KEYS: Final = frozenset({"format", "environment", "path", "module", "text_hash", "lines", "dependencies",
                          "missing", "diagnostics"})
_NEVER_KEPT: Final = frozenset({Code.NOT_CHECKED, Code.ANALYSIS_LIMIT})


def _decode(entry: object, path: str, environment: str, text: str, config: Config) -> FileResult | None:
    """The entry's result for `path`, whose text is `text`, None when it is for something
    else; raises ValueError when it is malformed or does not fit the text."""
    if not (isinstance(entry, dict) and entry.keys() == _KEYS):
        raise ValueError("not an entry")
    text_hash = content_hash(text)
    if (entry["format"] != _FORMAT or entry["environment"] != environment
            or entry["path"] != os.path.abspath(path) or entry["text_hash"] != text_hash):
        return None
    _str(entry["module"])
    if _int(entry["lines"]) != text.count("\n") + 1:  # as the analysis counts them
        raise ValueError("another line count")
    missing = tuple(_str(module) for module in _list(entry["missing"]))
    dependencies = tuple(Dependency(*(_str(part) for part in _items(item, 3)))
                         for item in _list(entry["dependencies"]))
    found = _list(entry["diagnostics"])
    diagnostics: tuple[Diagnostic, ...] = ()
    if found:  # most files have none: their text is not split
        lines = _Lines(text)
        diagnostics = tuple(_decode_diagnostic(item, path, lines, config) for item in found)
    return FileResult(path, diagnostics, (), None, entry["lines"], dependencies, missing, text_hash)


def _decode_diagnostic(item: object, path: str, lines: _Lines, config: Config) -> Diagnostic:
    line, column, end_line, end_column, code, message, severity, notes = _items(item, 8)
    decoded_notes = []
    for note in _list(notes):
        note_message, *span = _items(note, 5)
        decoded_notes.append(Note(_str(note_message), path, lines.span(span)))
    known = Code(_str(code))  # ValueError for a code that is not one
    if known in _NEVER_KEPT or not config.enabled(known):
        raise ValueError(f"{known} is never kept under this configuration")
    return Diagnostic(path, lines.span([line, column, end_line, end_column]), known,
                      _str(message), Severity(_str(severity)), tuple(decoded_notes))


class _Lines:
    """The lines of a file's text, as CPython numbers them, for the spans of its entry.

    A span lies in the text when it starts no later than it ends, both its lines are lines of
    the text, and each column is at most one past the end of its line (CPython reports a syntax
    error at a line's end one column past it). A line continued from the one before by a
    backslash is measured from the start of the first such line: CPython's tokenizer counts
    the columns of its errors there from the start of the logical line.
    """

    def __init__(self, text: str) -> None:
        from shapecheck.positions import split_lines

        self.widths: list[int] = []
        carried = 0
        for line in split_lines(text):
            self.widths.append(carried + len(line) + 1)
            carried = self.widths[-1] if line.endswith("\\") else 0

    def span(self, values: list[object]) -> Span:
        line, column, end_line, end_column = (_int(value) for value in values)
        if not (1 <= line <= end_line <= len(self.widths) and (line, column) <= (end_line, end_column)
                and 0 <= column <= self.widths[line - 1] and 0 <= end_column <= self.widths[end_line - 1]):
            raise ValueError("a place outside the text")
        return Span(line, column, end_line, end_column)


class _AnyLines(_Lines):
    """Places in a text that is not at hand: well-formed (1-based lines, in order), no more."""

    def __init__(self) -> None:
        self.widths = []

    def span(self, values: list[object]) -> Span:
        line, column, end_line, end_column = (_int(value) for value in values)
        if not (1 <= line <= end_line and min(column, end_column) >= 0 and (line, column) <= (end_line, end_column)):
            raise ValueError("not a place")
        return Span(line, column, end_line, end_column)


_ANY_LINES: Final = _AnyLines()


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
