"""The server's pure pieces, without a server: positions, suppression edits, annotations."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from lsprotocol import types

from shapecheck.codes import Code
from shapecheck.diagnostic import Diagnostic, Span
from shapecheck.dims import CONFLICT, Sym
from shapecheck.lsp.actions import annotation, suppression_edit
from shapecheck.lsp.assignments import assignments, import_line, parse, top_level_names
from shapecheck.lsp.positions import Lines
from shapecheck.types import ArrayType

NAMES = frozenset({"f32", "i32", "Array"})


def test_columns_in_each_position_encoding() -> None:
    # 'é' is one UTF-16 unit and two UTF-8 bytes; '𝑥' two UTF-16 units and four bytes.
    text = "a = 'é𝑥' + b\r\nc\rd\n"
    span = Span(1, 9, 1, 12)  # `+ b`... as code points: a, ,=, ,', é, 𝑥, ', space -> 9
    utf16 = Lines(text)
    assert utf16.range(span) == types.Range(start=types.Position(0, 10), end=types.Position(0, 13))
    assert utf16.column(types.Position(0, 10)) == (1, 9)
    utf8 = Lines(text, types.PositionEncodingKind.Utf8)
    assert utf8.position(1, 9) == types.Position(0, 13)
    assert utf8.column(types.Position(0, 13)) == (1, 9)
    utf32 = Lines(text, types.PositionEncodingKind.Utf32)
    assert utf32.position(1, 9) == types.Position(0, 9)
    # \r\n, \r and \n all end a line, as in Python and LSP; past the end is clamped.
    assert [utf16.line(i) for i in range(4)] == ["a = 'é𝑥' + b", "c", "d", ""]
    assert utf16.position(99, 5) == types.Position(3, 5)
    assert utf16.position(2, 2) == types.Position(1, 2)  # the line break after `c`
    assert utf16.column(types.Position(1, 50)) == (2, 1)


def _diagnostic(line: int, end_line: int | None = None, code: Code = Code.BROADCAST_MISMATCH) -> Diagnostic:
    return Diagnostic("m.py", Span(line, 0, end_line or line, 1), code, "message")


def _apply(text: str, edit: tuple[Span, str] | None) -> str:
    assert edit is not None
    span, new = edit
    lines = text.split("\n")
    line = lines[span.line - 1]
    assert span.line == span.end_line
    lines[span.line - 1] = line[:span.column] + new + line[span.end_column:]
    return "\n".join(lines)


@pytest.mark.parametrize(("source", "diagnostic", "result"), [
    ("x = a + b\n", _diagnostic(1), "x = a + b  # shapecheck: ignore[SC101]\n"),
    ("x = a + b   \n", _diagnostic(1), "x = a + b  # shapecheck: ignore[SC101]\n"),
    ("x = a + b  # noqa: E501\n", _diagnostic(1), "x = a + b  # noqa: E501  # shapecheck: ignore[SC101]\n"),
    ("x = a + b  # shapecheck: ignore[SC102]\n", _diagnostic(1),
     "x = a + b  # shapecheck: ignore[SC101, SC102]\n"),
    ("x = a + b  # why # shapecheck:ignore[SC205] more\n", _diagnostic(1),
     "x = a + b  # why # shapecheck: ignore[SC101, SC205] more\n"),
    # A first line that ends inside a string or with a backslash: the comment goes on the last.
    ('x = f("""\n""") + b\n', _diagnostic(1, 2), 'x = f("""\n""") + b  # shapecheck: ignore[SC101]\n'),
    ("x = a + \\\n    b\n", _diagnostic(1, 2), "x = a + \\\n    b  # shapecheck: ignore[SC101]\n"),
])
def test_suppression_edits(source: str, diagnostic: Diagnostic, result: str) -> None:
    assert _apply(source, suppression_edit(source, diagnostic)) == result


def test_no_suppression_edit_where_none_can_go() -> None:
    assert suppression_edit("x = a + b  # shapecheck: ignore\n", _diagnostic(1)) is None
    assert suppression_edit('x = """\n\n"""\n', _diagnostic(2)) is None  # inside a string
    assert suppression_edit("x = (\n", _diagnostic(1)) is None  # does not tokenize


def test_annotations_only_for_fully_known_types() -> None:
    assert annotation(ArrayType.of("f32", (3, 4), {"b": 2}), NAMES) == "f32[(3, 4), {'b': 2}]"
    assert annotation(ArrayType.of("f32", ()), NAMES) == "f32[()]"
    unknown = [
        ArrayType.of(None, (3,)),  # dtype unknown
        ArrayType.of("bf16", (3,)),  # a name the configuration does not read as an annotation
        ArrayType.of("f32", (3, None)),
        ArrayType.of("f32", (3, CONFLICT)),
        ArrayType.of("f32", (Sym("n"),)),
        ArrayType.of("f32", (3,), ellipsis=0),
        ArrayType.of("f32", (3,), {"b": None}),
        ArrayType.of("f32", (3,), named_open=True),
        ArrayType("f32", (), (), None, False, True),  # a Python scalar
    ]
    assert [annotation(t, NAMES) for t in unknown] == [None] * len(unknown)


def test_assignments_imports_and_where_an_import_goes() -> None:
    text = textwrap.dedent('''\
        #!/usr/bin/env python
        """Docs."""
        from __future__ import annotations
        import jax.numpy as np
        from shapecheck import f32 as F

        a = b = np.ones((2,))
        c: F[(2,)] = a
        'é' ; d = a
        e.f = a
        ''')
    tree = parse(text)
    assert tree is not None
    found = [(a.name, a.target.line, a.target.column, a.single) for a in assignments(tree, text)]
    assert found == [("a", 7, 0, False), ("b", 7, 4, False), ("d", 9, 6, True)]
    assert top_level_names(tree) >= {"annotations", "np", "F", "a", "b", "c", "d"}
    assert import_line(tree) == 6
    script = parse("#!/usr/bin/env python\n\nx = 1\n")
    assert script is not None and import_line(script) == 3  # after the shebang, before the code


def test_without_the_lsp_extra_the_command_says_what_to_install() -> None:
    child = ("import sys\nsys.modules['pygls'] = None\nfrom shapecheck.cli import main\n"
             "sys.exit(main(['lsp']))\n")
    result = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=False)
    assert result.returncode == 2
    assert "needs pygls" in result.stderr and "pip install 'shapecheck[lsp]'" in result.stderr


def test_hover_on_a_value_split_over_explicit_axes_shows_jax_typeof_too() -> None:
    from lsprotocol import types as lsp_types

    from shapecheck.api import analyze_source
    from shapecheck.lsp.hover import _hover
    from shapecheck.lsp.positions import Lines

    text = ("import jax\nimport jax.numpy as jnp\nfrom jax.sharding import PartitionSpec as P, NamedSharding\n"
            "mesh = jax.make_mesh((4, 2), ('X', 'Y'))\n"
            "x = jax.device_put(jnp.ones((8, 16)), NamedSharding(mesh, P('X', 'Y')))\n"
            "y = jnp.ones((8, 16))\n")
    result = analyze_source("t.py", text, keep_types=True)
    shown = {}
    for typed in result.types:
        answer = _hover(typed.type, Lines(text, "utf-16"), typed.span, typed.placement)
        assert isinstance(answer.contents, lsp_types.MarkupContent)
        shown[typed.span.line] = answer.contents.value
    assert "`jax.typeof`: `float32[8@X,16@Y]`" in shown[5]
    assert "jax.typeof" not in shown[6]  # unsplit: the annotation form says it all
