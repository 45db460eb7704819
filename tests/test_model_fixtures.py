"""Every program in fixtures/models runs on JAX as its comments promise: the planted bugs raise,
the clean code runs.

The convention (fixtures/README.md, "Model programs"): the module's top-level statements run one
by one, in order, in one namespace. A statement whose first line ends with `# raises: NAME`
must raise that builtin exception (or a subclass); every other statement must run. A planted bug
is a line with an `# expect:` marker inside a function, and while the statements run, each
marked line must run in exactly one raising statement, that statement must run no other marked
line, and the clean statements must run none. So every bug is exercised, each `# raises` has
one bug to blame, and no clean path goes through a bug.

JAX must raise at the marked line itself (the innermost frame of the program in the traceback),
except for a loop carry marked at the body's `return`: JAX raises that at the `scan`/`fori_loop`/
`while_loop` call, after the body has returned.

The programs run with `jax.threefry_partitionable(False)`: JAX 0.10.2's default (partitionable)
threefry takes seconds to compile on CPU for every `jax.random` draw of rank 3 or more, 17 s for
one (3, 3, 8, 16) conv kernel on a loaded machine, and the draws' shapes are all the same.
"""

from __future__ import annotations

import ast
import builtins
import re
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

jax = pytest.importorskip("jax")

# About 45 s on one core, mostly XLA compiling the clean code of 25 programs (with the quick
# compilation of tests/xla_settings.py; 70 s without it).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = sorted((ROOT / "fixtures" / "models").glob("*.py"))
MARKER = re.compile(r"#\s*expect:\s*(?:SC\d{3}[\s,]*)+$")
RAISES = re.compile(r"#\s*raises:\s*(?P<name>[A-Za-z_]\w*)\s*$")


@dataclass(frozen=True)
class Statement:
    """One top-level statement, compiled with its original line numbers."""

    line: int
    code: types.CodeType
    raises: type[BaseException] | None


def marked_lines(text: str) -> set[int]:
    return {number for number, line in enumerate(text.splitlines(), start=1) if MARKER.search(line)}


def statements(path: Path, text: str) -> list[Statement]:
    lines = text.splitlines()
    found = []
    for node in ast.parse(text, filename=str(path)).body:
        match = RAISES.search(lines[node.lineno - 1])
        raises = None
        if match:
            raises = getattr(builtins, match.group("name"), None)
            assert isinstance(raises, type) and issubclass(raises, BaseException), \
                f"{path.name}:{node.lineno}: `# raises: {match.group('name')}` is not a builtin exception"
        code = compile(ast.Module(body=[node], type_ignores=[]), str(path), "exec")
        found.append(Statement(node.lineno, code, raises))
    return found


def returns(text: str) -> set[int]:
    """The lines of `return` statements (a loop body's carry is marked there)."""
    return {node.lineno for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Return)}


@contextmanager
def lines_run(filename: str, watched: set[int]) -> Iterator[set[int]]:
    """Collect which of the `watched` lines of `filename` run inside the block."""
    seen: set[int] = set()

    def local(frame: types.FrameType, event: str, arg: Any) -> Any:
        if event == "line" and frame.f_lineno in watched:
            seen.add(frame.f_lineno)
        return local

    def global_(frame: types.FrameType, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename != filename:
            return None  # JAX's own frames run untraced
        if frame.f_lineno in watched:  # a lambda's body is its first line
            seen.add(frame.f_lineno)
        return local

    previous = sys.gettrace()
    sys.settrace(global_)
    try:
        yield seen
    finally:
        sys.settrace(previous)


def innermost_line(error: BaseException, filename: str) -> int | None:
    """The line of the program's innermost frame in the traceback."""
    line = None
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def test_there_are_enough_model_programs() -> None:
    assert len(PROGRAMS) >= 20
    for path in PROGRAMS:
        assert not (ROOT / "fixtures" / path.name).exists(), \
            f"{path.name} shadows a top-level fixture (tests/test_fixtures.py keys reports by file name)"


@contextmanager
def program_module(path: Path) -> Iterator[types.ModuleType]:
    """A fresh module for the program, registered while it runs (dataclasses look it up by name)."""
    name = f"model_fixture_{path.stem}"
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module
    try:
        with jax.threefry_partitionable(False):
            yield module
    finally:
        del sys.modules[name]


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_model_program(path: Path) -> None:
    text = path.read_text()
    filename = str(path)
    bugs = marked_lines(text)
    assert bugs, f"{path.name} plants no bug"
    carries = returns(text)
    blamed: dict[int, int] = {}
    with program_module(path) as module:
        for statement in statements(path, text):
            error: BaseException | None = None
            with lines_run(filename, bugs) as seen:
                try:
                    exec(statement.code, module.__dict__)
                except Exception as raised:  # which exception is the contract's business, checked below
                    error = raised
            where = f"{path.name}:{statement.line}"
            if statement.raises is None:
                assert error is None, f"{where} must run but raised {error!r}"
                assert not seen, f"{where} is clean but ran the planted bug at line(s) {sorted(seen)}"
                continue
            assert error is not None, f"{where} must raise {statement.raises.__name__} but ran"
            assert isinstance(error, statement.raises), \
                f"{where} must raise {statement.raises.__name__} but raised {error!r}"
            assert len(seen) == 1, f"{where} must run exactly one planted bug, ran lines {sorted(seen)}"
            [bug] = seen
            assert bug not in blamed, f"line {bug} is blamed by both line {blamed[bug]} and line {statement.line}"
            blamed[bug] = statement.line
            raised_at = innermost_line(error, filename)
            assert raised_at == bug or bug in carries, \
                f"{where} raised at line {raised_at}, not at the planted bug on line {bug}: {error!r}"
    unexercised = sorted(bugs - blamed.keys())
    assert not unexercised, f"no `# raises` statement runs the planted bug(s) at line(s) {unexercised}"
