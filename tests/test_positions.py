"""Our position pass gives every node the span libcst's PositionProvider gives it."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from shapecheck.parsing import parse_module
from shapecheck.positions import positions, span_of

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


def _expected(module: cst.Module) -> dict[int, tuple[int, int, int, int]]:
    resolved = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return {id(node): (r.start.line, r.start.column, r.end.line, r.end.column) for node, r in resolved.items()}


def _assert_same(module: cst.Module) -> None:
    found = positions(module)
    expected = _expected(module)
    assert found.keys() == expected.keys()
    different = [(key, found[key], expected[key]) for key in expected if found[key] != expected[key]]
    assert not different, different[:5]


@pytest.mark.parametrize("text", SNIPPETS)
def test_snippets(text: str) -> None:
    _assert_same(cst.parse_module(text))


def _parses(path: Path) -> bool:
    try:
        ast.parse(path.read_text(encoding="utf-8"))
    except SyntaxError:
        return False  # a fixture of SC004: no tree to position
    return True


@pytest.mark.parametrize("path", [p for p in sorted(FIXTURES.glob("*.py")) if _parses(p)] + _jax_files(),
                         ids=lambda p: p.name)
def test_source_files(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    # The tree the analysis positions: parsed in pieces where the file nests deeply.
    _assert_same(parse_module(text, ast.parse(text)).module)


def test_span_of_a_node_not_in_the_module() -> None:
    module = cst.parse_module("x = 1\n")
    found = positions(module)
    assert span_of(found, cst.Name("y")) is None
    statement = module.body[0]
    span = span_of(found, statement)
    assert span is not None and (span.line, span.column, span.end_line, span.end_column) == (1, 0, 1, 5)
