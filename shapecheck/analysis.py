"""One file's analysis: parse, interpret, position and filter what was found.

The engine (`shapecheck.engine`) calls `analyze_text` with its module loader; nothing else
does, so every front end gets the same pipeline.
"""

from __future__ import annotations

import ast
import re
import traceback
import warnings
import weakref
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from shapecheck.algebra.promotion import as_shown
from shapecheck.analyzer.modules import ModuleLoader
from shapecheck.analyzer.state import Typed
from shapecheck.analyzer.summaries import Summaries
from shapecheck.bounds import RECURSION_LIMIT, TIME_LIMIT_S, AnalysisTimeout, run_bounded
from shapecheck.codes import Code
from shapecheck.config import Config
from shapecheck.diagnostic import Diagnostic, Note, Span
from shapecheck.parsing import MAX_DEPTH, cpython_syntax, parse_module
from shapecheck.positions import Positions
from shapecheck.results import FileResult, Placement, TypedSpan
from shapecheck.rules import severity_of
from shapecheck.suppression import is_suppressed, suppressions, unused
from shapecheck.types import ArrayType

# Text that must appear in a file for the analyzer to have anything to say about it beyond
# syntax: files that never mention an array API or an annotation name are only parsed.
_MARKERS = ("jax", "numpy", "shapecheck", "jaxtyping")

# A collective, an axis name or a named reduction written in the source: only there can an
# unbound axis name be reported (SC202), so only there is the module's call graph worth a walk.
_NAMES_AXES = re.compile(r"psum|pmean|pmax|pmin|all_gather|all_to_all|ppermute|pshuffle|axis_index|pdot|"
                         r"pswapaxes|pcast|pvary|axis_size|axis_name|axis\s*=\s*[\"'(\[]|xmap")


def analyze_text(path: str, text: str, config: Config, loader: ModuleLoader, *, keep_types: bool = False,
                 time_limit: float = TIME_LIMIT_S, syntax: ast.Module | Diagnostic | None = None,
                 unfiltered: list[Diagnostic] | None = None, summaries: Summaries | None = None) -> FileResult:
    """Analyse one file's text. Never raises: an internal error is returned in `FileResult.error`.

    `loader` finds and loads the project's other modules (calls and specs across files).
    Parsing and analysis run within the bounds of `shapecheck.bounds`; a file that reaches one
    gets SC005 beside what was found. The language server, which reuses findings while only
    a buffer's comments and layout change (`shapecheck.lsp.reuse`), passes the `cpython_syntax`
    of `text` it already read, and takes in `unfiltered` what the file's interpretation found
    before the settings and the suppression comments filter it, and the function summaries of
    its last analysis of the buffer, which this one replays where they hold and replaces.
    """
    size = source_size(text)
    if size > config.max_file_size:
        return too_large(path, size, config)
    lines = text.count("\n") + 1
    try:
        return run_bounded(lambda: _analyze(path, text, config, keep_types, loader, lines,
                                            time_limit, syntax, unfiltered, summaries), time_limit)
    except AnalysisTimeout:
        limit = _limit(path, f"analysis stopped after {time_limit:g} s, the time limit per file, "
                             "and did not finish; the file is unchecked")
        return FileResult(path, _filter([limit], text, config), (), None, lines)
    except RecursionError:
        limit = _limit(path, f"the file nests deeper than the {RECURSION_LIMIT:,} Python frames "
                             "the checker may use; the file is unchecked")
        return FileResult(path, _filter([limit], text, config), (), None, lines)
    except MemoryError:
        limit = _limit(path, f"ran out of memory while checking the file ({size:,} bytes); the file is "
                             "unchecked")
        return FileResult(path, _filter([limit], text, config), (), None, lines)
    except Exception:
        return FileResult(path, (), (), "internal error:\n" + traceback.format_exc(), lines)


def source_size(text: str) -> int:
    """The size of a source text in bytes, as UTF-8 (the encoding of a file that declares none)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def too_large(path: str, size: int, config: Config) -> FileResult:
    """The result of a file over `config.max_file_size`: SC005, and nothing read or parsed.

    Its memory and time grow with its size (about 200 bytes of memory per byte of source), so
    the bound is checked before the file is read; a suppression comment inside it cannot be
    seen, `--ignore SC005` can.
    """
    limit = _limit(path, f"file not checked: it is {size:,} bytes, over the bound of "
                         f"{config.max_file_size:,} bytes per file (raise `max-file-size` in "
                         "[tool.shapecheck] to check it)")
    if not config.enabled(limit.code):
        return FileResult(path)
    return FileResult(path, (replace(limit, severity=severity_of(limit.code)),))


def _analyze(path: str, text: str, config: Config, keep_types: bool, loader: ModuleLoader,
             lines: int, time_limit: float, syntax: ast.Module | Diagnostic | None = None,
             unfiltered: list[Diagnostic] | None = None, summaries: Summaries | None = None) -> FileResult:
    with warnings.catch_warnings():
        # CPython's parser warns about the checked code ('\d' in a plain string): that is
        # Python's message to the code's author, not output of the checker.
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return _analyze_quietly(path, text, config, keep_types, loader, lines, time_limit, syntax, unfiltered,
                                summaries)


def _analyze_quietly(path: str, text: str, config: Config, keep_types: bool, loader: ModuleLoader,
                     lines: int, time_limit: float, syntax: ast.Module | Diagnostic | None = None,
                     unfiltered: list[Diagnostic] | None = None, summaries: Summaries | None = None) -> FileResult:
    tree = syntax if syntax is not None else cpython_syntax(path, text, config.target_version)
    if isinstance(tree, Diagnostic):
        return FileResult(path, _filter([tree], text, config), (), None, lines)
    if not keep_types and not _relevant(text, config):
        return FileResult(path, (), (), None, lines)
    try:
        parsed = parse_module(text, tree)
    except (RecursionError, AnalysisTimeout):
        limit = _limit(path, "the file nests too deeply to be analysed; the file is unchecked")
        return FileResult(path, _filter([limit], text, config), (), None, lines)
    diagnostics, types = _interpret(path, text, parsed.module, config, keep_types, loader, time_limit, summaries)
    diagnostics.extend(
        _limit(path, f"expression nests more than {MAX_DEPTH:,} levels deep; from here on it is "
                     "not analysed (its value is unknown)", span)
        for span in parsed.elided
    )
    if unfiltered is not None:
        unfiltered.extend(diagnostics)
    return FileResult(path, _filter(diagnostics, text, config, path), types, None, lines)


_FILE_START = Span(1, 0, 1, 1)


def _limit(path: str, message: str, span: Span = _FILE_START) -> Diagnostic:
    return Diagnostic(path, span, Code.ANALYSIS_LIMIT, message)


def names_axes(text: str) -> bool:
    """Whether the text (comments too) may name an axis: the one thing an interpretation reads
    of the text rather than of its tree (the language server's reuse of findings keys on it)."""
    return _NAMES_AXES.search(text) is not None


def filtered(diagnostics: Iterable[Diagnostic], text: str, config: Config, analysed: str) -> tuple[Diagnostic, ...]:
    """What `analyze_text` reports of the `unfiltered` findings of a file analysed to its end."""
    return _filter(diagnostics, text, config, analysed)


def _relevant(text: str, config: Config) -> bool:
    if any(marker in text for marker in _MARKERS):
        return True
    return any(f"{name}[" in text for name in config.annotation_names)


def _interpret(path: str, text: str, module: ast.Module, config: Config, keep_types: bool, loader: ModuleLoader,
               time_limit: float, summaries: Summaries | None = None) -> tuple[list[Diagnostic], tuple[TypedSpan, ...]]:
    from shapecheck.analyzer.interpreter import Interpreter
    from shapecheck.analyzer.report import Reporter

    reporter = Reporter()
    types: dict[int, Typed] | None = {} if keep_types else None
    names = loader.packages.module_names(path)
    interpreter = Interpreter(module, names[0] if names else Path(path).stem, reporter, loader.handlers,
                              loader.methods, config.annotation_names, types, loader, config.x64,
                              names_axes=names_axes(text), summaries=summaries)
    stopped: Diagnostic | None = None
    ran = False
    if summaries is not None:
        summaries.begin()
    try:
        interpreter.run()
        ran = True
    except RecursionError:
        stopped = _limit(path, f"analysis stopped: the code nests deeper than the {RECURSION_LIMIT:,} "
                               "Python frames the analyser may use; what was found before is "
                               "reported, the rest of the file is unchecked")
    except AnalysisTimeout:
        stopped = _limit(path, f"analysis stopped after {time_limit:g} s, the time limit per file; "
                               "what was found before is reported, the rest of the file is unchecked")
    except MemoryError:
        stopped = _limit(path, "analysis stopped: it ran out of memory; what was found before is "
                               "reported, the rest of the file is unchecked")
    finally:
        if interpreter.recorder is not None:
            interpreter.recorder.finish(complete=ran)
        interpreter.release()  # findings and types hold their nodes; nothing else is read
    if not reporter.findings and not types:
        return ([stopped] if stopped else []), ()
    # Which nodes are this file's (rather than another module's: a function analysed for a call,
    # a spec imported from there) costs a walk of the tree: done only where the analysis read
    # another project module or ran another module's function.
    foreign = interpreter.ran_foreign or bool(loader.dependencies())
    here_ids = _node_ids(module) if foreign else None
    positions = Positions(text)

    def span(node: ast.AST) -> Span:
        return positions.span(node) or Span(1, 0, 1, 0)

    def here(node: ast.AST | None) -> bool:
        return node is not None and (here_ids is None or id(node) in here_ids)

    # A finding or note at a node of another module (a spec imported from there) goes to the
    # finding's place in this file, or is left out: this file's path with that module's
    # position would point at the wrong text.
    diagnostics = [
        Diagnostic(path, span(f.fallback if f.fallback is not None and not here(f.node) and here(f.fallback)
                              else f.node), f.code, f.message,
                   notes=tuple(Note(message, path, span(node)) for message, node in f.notes if here(node)))
        for f in list(reporter.findings)
    ]
    if stopped is not None:
        diagnostics.append(stopped)
    # Types are inferred with 64-bit dtypes kept; shown as the program's x64 mode makes them.
    typed = tuple(_typed_span(node, value, placement, span, config.x64)
                  for node, value, placement in (types or {}).values() if here(node))
    return diagnostics, typed


# The typed span last made for each node. The language server analyses a kept tree again at
# every keystroke (`lsp.reuse.spliced` keeps the statements an edit leaves alone, node for node
# and place for place), where most nodes keep their types: the span made then is reused, and the
# server's comparison with the last analysis meets the same object.
_SHOWN: weakref.WeakKeyDictionary[ast.AST, tuple[ArrayType, Placement | None, bool | None, TypedSpan]] = (
    weakref.WeakKeyDictionary())


def _typed_span(node: ast.AST, value: ArrayType, placement: Placement | None, span: Callable[[ast.AST], Span],
                x64: bool | None) -> TypedSpan:
    kept = _SHOWN.get(node)
    if kept is not None and kept[0].identical(value) and kept[1] == placement and kept[2] is x64:
        return kept[3]
    typed = TypedSpan(span(node), as_shown(value, x64), placement)
    _SHOWN[node] = (value, placement, x64, typed)
    return typed


def _node_ids(tree: ast.AST) -> set[int]:
    """The ids of every node of `tree` (as `ast.walk`, a few times faster: no generators)."""
    ids: set[int] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        ids.add(id(node))
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                stack.extend([item for item in value if isinstance(item, ast.AST)])
            elif isinstance(value, ast.AST):
                stack.append(value)
    return ids


def _filter(diagnostics: Iterable[Diagnostic], text: str, config: Config,
            analysed: str | None = None) -> tuple[Diagnostic, ...]:
    """The diagnostics `config` selects and no comment suppresses; with `analysed` (the path of
    a file analysed to its end), SC006 for the suppressions that silence nothing."""
    table = suppressions(text)
    diagnostics = list(diagnostics)
    enabled = [d for d in diagnostics if config.enabled(d.code)]
    if (analysed is not None and table and config.enabled(Code.UNUSED_SUPPRESSION)
            and not any(d.code == Code.ANALYSIS_LIMIT for d in diagnostics)):
        enabled.extend(unused(analysed, text, enabled, config.enabled))
    # Every diagnostic of a checked file passes here, so its rule's severity is applied here
    # once (parsing.py, which builds SC004, cannot import the rules: the SC005 rule imports it).
    kept = [
        replace(d, severity=severity_of(d.code)) for d in enabled
        if not is_suppressed(table, d.span.line, d.code)
        and not is_suppressed(table, d.span.end_line, d.code)
    ]
    return tuple(sorted(kept, key=Diagnostic.sort_key))
