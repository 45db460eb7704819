"""Fixes: what a rule offers to rewrite for one of its diagnostics, and applying them
(`shapecheck check --fix`, `--diff`, `--unsafe-fixes`; the language server's quick fixes).

A rule offers a fix by defining `fix(diagnostic, source) -> Fix | None` in its module under
`rules/` (beside its `RULE`), so that the fix lives with the rule and its docs; the rules that
offer one are found there, not listed here. A fix is a set of libcst node replacements in the
file's tree: libcst does every rewrite, keeping comments and formatting. As in ruff, a fix is
safe (it keeps the program's meaning: applied by `--fix`) or unsafe (it may change what the
program means or what its author declared: applied only with `--unsafe-fixes`).

Applying: a file's diagnostics are fixed in one pass, leaving out a fix whose nodes overlap
one already taken; the file is checked again and fixed again while that changes something
(at most `MAX_PASSES` times), as ruff iterates, so that fixes that touch one node all land.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import cache
from typing import TYPE_CHECKING, TypeAlias

from shapecheck.codes import Code
from shapecheck.diagnostic import Diagnostic

if TYPE_CHECKING:
    import libcst as cst
    from libcst.metadata import CodeRange

    from shapecheck.results import FileResult, Report

MAX_PASSES = 10


class Applicability(Enum):
    SAFE = "safe"
    UNSAFE = "unsafe"


Replacement: TypeAlias = "tuple[cst.CSTNode, cst.CSTNode | cst.RemovalSentinel]"


@dataclass(frozen=True, slots=True)
class Fix:
    """A rewrite for one diagnostic: its title (an instruction, as a quick fix shows it), whether
    it is safe, and the nodes of `Source.module` to replace (or remove)."""

    title: str
    applicability: Applicability
    replacements: tuple[Replacement, ...]


@dataclass(slots=True)
class Source:
    """What a fixer reads: the file's text, its libcst tree, and each node's place and parent."""

    path: str
    text: str
    module: cst.Module
    positions: Mapping[cst.CSTNode, CodeRange]
    parents: Mapping[cst.CSTNode, cst.CSTNode]

    @classmethod
    def parse(cls, path: str, text: str) -> Source | None:
        """The source of `text`, or None where libcst cannot parse it."""
        import libcst as cst
        from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

        try:
            wrapper = MetadataWrapper(cst.parse_module(text))
        except (cst.ParserSyntaxError, RecursionError):
            return None
        return cls(path, text, wrapper.module, wrapper.resolve(PositionProvider),
                   wrapper.resolve(ParentNodeProvider))

    def nodes_on_line(self, line: int, kind: type[cst.CSTNode]) -> list[cst.CSTNode]:
        """The nodes of type `kind` that start on `line`, in order."""
        found = [(place.start.column, node) for node, place in self.positions.items()
                 if isinstance(node, kind) and place.start.line == line]
        return [node for _, node in sorted(found, key=lambda item: item[0])]


Fixer: TypeAlias = "Callable[[Diagnostic, Source], Fix | None]"


@cache
def fixers() -> dict[Code, Fixer]:
    """Each code whose rule module offers a fix, with its fixer (found in rules/, not listed)."""
    from shapecheck import rules

    found: dict[Code, Fixer] = {}
    for info in pkgutil.iter_modules(rules.__path__):
        if info.name.startswith("sc"):
            module = importlib.import_module(f"{rules.__name__}.{info.name}")
            fixer = getattr(module, "fix", None)
            if callable(fixer):
                found[module.RULE.code] = fixer
    return found


def fixes(source: Source, diagnostics: Sequence[Diagnostic]) -> list[tuple[Diagnostic, Fix]]:
    """The fix each diagnostic's rule offers for it, where one does."""
    offered = fixers()
    out = []
    for d in diagnostics:
        fixer = offered.get(d.code)
        fix = fixer(d, source) if fixer is not None else None
        if fix is not None:
            out.append((d, fix))
    return out


@dataclass(slots=True)
class Applied:
    """One pass over one file: its new text, the fixes applied, and the unsafe ones left."""

    text: str
    fixed: int = 0
    unsafe_left: int = 0
    titles: list[str] = field(default_factory=list)


def apply(path: str, text: str, diagnostics: Sequence[Diagnostic], unsafe: bool) -> Applied:
    """`text` with the fixes of `diagnostics` applied (unsafe ones only when `unsafe`), those
    that touch the same nodes as one already taken left for the next pass."""
    source = Source.parse(path, text)
    if source is None:
        return Applied(text)
    taken: dict[cst.CSTNode, cst.CSTNode | cst.RemovalSentinel] = {}
    above_taken: set[cst.CSTNode] = set()  # the ancestors of the nodes taken
    applied = Applied(text)
    for _, fix in fixes(source, diagnostics):
        if fix.applicability is Applicability.UNSAFE and not unsafe:
            applied.unsafe_left += 1
            continue
        lines = [_with_ancestors(node, source.parents) for node, _ in fix.replacements]
        # A node taken already, inside one taken, or around one taken: the next pass does it.
        if any(line[0] in above_taken or any(node in taken for node in line) for line in lines):
            continue
        above_taken.update(node for line in lines for node in line[1:])
        taken.update(fix.replacements)
        applied.fixed += 1
        applied.titles.append(fix.title)
    if taken:
        applied.text = _replaced(source.module, taken).code
    return applied


def _with_ancestors(node: cst.CSTNode, parents: Mapping[cst.CSTNode, cst.CSTNode]) -> list[cst.CSTNode]:
    out = [node]
    while node in parents:
        node = parents[node]
        out.append(node)
    return out


def _replaced(module: cst.Module, taken: Mapping[cst.CSTNode, cst.CSTNode | cst.RemovalSentinel]) -> cst.Module:
    import libcst as cst

    class Replace(cst.CSTTransformer):
        def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode,  # type: ignore[override]
                     ) -> cst.CSTNode | cst.RemovalSentinel:
            return taken.get(original_node, updated_node)

    result = module.visit(Replace())
    assert isinstance(result, cst.Module)
    return result


@dataclass(slots=True)
class FixRun:
    """`check --fix` or `--diff` over a run: the files' new texts and what was fixed."""

    texts: dict[str, tuple[str, str, str]] = field(default_factory=dict)  # path: (old, new, encoding)
    fixed: int = 0
    unsafe_left: int = 0
    results: dict[str, FileResult] = field(default_factory=dict)  # the changed files, checked again


def fix_files(report: Report, analyze: Callable[[str, str], FileResult], unsafe: bool) -> FixRun:
    """Fix the diagnostics of `report` in memory, checking each changed file again with
    `analyze(path, text)` and fixing again while that changes something."""
    import io
    import tokenize

    from shapecheck.files import read_regular

    run = FixRun()
    pending: dict[str, Sequence[Diagnostic]] = {}
    offered = fixers()
    for d in report.diagnostics:
        if d.code in offered:
            pending[d.path] = [*pending.get(d.path, ()), d]
    for path, diagnostics in sorted(pending.items()):
        try:
            data = read_regular(path)
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            original = text = data.decode(encoding)
        except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
            continue
        unsafe_left = 0
        for _ in range(MAX_PASSES):
            applied = apply(path, text, diagnostics, unsafe)
            unsafe_left = applied.unsafe_left
            if applied.text == text:
                break
            run.fixed += applied.fixed
            text = applied.text
            result = analyze(path, text)
            run.results[path] = result
            diagnostics = result.diagnostics
        run.unsafe_left += unsafe_left
        if text != original:
            run.texts[path] = (original, text, encoding)
    return run


def diff(run: FixRun) -> str:
    """The unified diff of every file the run changed."""
    import difflib

    return "".join("".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                                path, path))
                   for path, (old, new, _) in sorted(run.texts.items()))


def write(run: FixRun) -> list[str]:
    """Write the changed files in their own encodings; the failures, as messages."""
    from pathlib import Path

    failed = []
    for path, (_, new, encoding) in sorted(run.texts.items()):
        try:
            Path(path).write_bytes(new.encode(encoding))
        except (OSError, UnicodeEncodeError) as error:
            failed.append(f"{path}: cannot write file: {error}")
    return failed
