"""Spans count characters: every node's span cuts from the text what CPython says the node is."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

from shapecheck.positions import Positions

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

# Syntax the fixtures may lack: line ends of every kind, tabs, wide characters, no final
# newline, decorators, compound statements on one line, match, async, walrus, f-strings.
SNIPPETS = [
    "",
    "\n",
    "x = 1",
    "# only a comment",
    "a = 1\r\nb = (2,\r\n     3)\r\n",
    "a = 1\rb = 2\r",
    "if x:\n\ty = 'é𝑥' + z  # ü\n\tw = y\n",
    "@dec(1)\n@other\nclass C(B, metaclass=M):\n    '''doc'''\n    def f(self, *a, k=1, **kw) -> int: return a\n",
    "for i in range(3): pass\nelse: x = 1\nwhile y: break\n",
    "try:\n    pass\nexcept (A, B) as e:\n    raise\nelse:\n    pass\nfinally:\n    del x\n",
    "match p:\n    case [1, *rest] if rest:\n        pass\n    case {'k': v, **kw}:\n        pass\n    case C(a=1) | None:\n        pass\n",
    "async def f():\n    async with a as b, c:\n        await d\n    async for e in g:\n        yield e\n",
    "if (n := len(a)) > 10:\n    print(f'{n!r:>{w}} items', x[1:2, ::3], lambda q, /, r: q)\n",
    "x = [i for i in y if i]; z = {k: v for k, v in w}; t = (yield)\n",
    "global g\nwith open(p) as f, (q) as r:\n    s: int = 1\n    s += 2\n",
    "x = \\\n    1\ny = '''a\nb''' + \"c\"\n\n\n# trailing comment\n",
]


def _jax_files() -> list[Path]:
    spec = importlib.util.find_spec("jax")
    if spec is None or spec.origin is None:
        return []
    folder = Path(spec.origin).parent / "_src"
    names = ["numpy/einsum.py", "nn/functions.py", "numpy/reductions.py", "lax/control_flow/loops.py"]
    return [folder / name for name in names if (folder / name).is_file()]


def _cut(lines: list[str], line: int, column: int, end_line: int, end_column: int) -> str:
    if line == end_line:
        return lines[line - 1][column:end_column]
    return "\n".join([lines[line - 1][column:], *lines[line:end_line - 1], lines[end_line - 1][:end_column]])


def _assert_spans_cut_the_node(text: str) -> None:
    tree = ast.parse(text)
    positions = Positions(text)
    lines = re.split(r"\r\n|\r|\n", text)
    encoded = [line.encode("utf-8") for line in lines]
    checked = 0
    for node in ast.walk(tree):
        span = positions.span(node)
        if "lineno" not in node._attributes:
            assert span is None
            continue
        assert span is not None
        # What CPython says the node is: its UTF-8 byte range (as ast.get_source_segment cuts it).
        start, end = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
        first, last = node.lineno - 1, node.end_lineno - 1  # type: ignore[attr-defined]
        if first == last:
            expected = encoded[first][start:end].decode()
        else:
            expected = "\n".join([encoded[first][start:].decode(), *lines[first + 1:last],
                                   encoded[last][:end].decode()])
        assert _cut(lines, span.line, span.column, span.end_line, span.end_column) == expected, ast.dump(node)
        checked += 1
    assert checked or not tree.body


@pytest.mark.parametrize("text", SNIPPETS)
def test_snippets(text: str) -> None:
    _assert_spans_cut_the_node(text)


def test_columns_count_characters_not_bytes() -> None:
    text = "s = 'é𝑥'; y = z\n"
    found = {ast.unparse(n): Positions(text).span(n) for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}
    assert found["y"] is not None and found["y"].column == text.index("y")  # 13 bytes in, 10 characters


def _parses(path: Path) -> bool:
    try:
        ast.parse(path.read_text(encoding="utf-8"))
    except SyntaxError:
        return False  # a fixture of SC004: no tree to position
    return True


@pytest.mark.parametrize("path", [p for p in sorted(FIXTURES.glob("*.py")) if _parses(p)] + _jax_files(),
                         ids=lambda p: p.name)
def test_source_files(path: Path) -> None:
    _assert_spans_cut_the_node(path.read_text(encoding="utf-8"))
