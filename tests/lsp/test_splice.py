"""The language server parses only the statement an edit is in (`reuse.spliced`): the tree it
builds is CPython's tree of the whole new text, node for node and place for place."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from shapecheck.codes import Code
from shapecheck.config import Config
from shapecheck.engine import Engine
from shapecheck.lsp import assignments as assignments_module
from shapecheck.lsp.analysis import Analysis
from shapecheck.lsp.assignments import assignments
from shapecheck.lsp.buffers import Buffer, BufferSource
from shapecheck.lsp.checker import _Sent
from shapecheck.lsp.reuse import Reuse, layout, spliced
from shapecheck.positions import split_lines

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
# Typed text that parses with a warning (an invalid escape in a string) is still a text to compare.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::SyntaxWarning")
TEXTS = [(FIXTURES / name).read_text() for name in
         ("wide_program_ok.py", "toy_network_ok.py", "control_scan_ok.py", "explicit_tensor_parallel_ok.py")]
TEXTS.append('''\
from __future__ import annotations

import jax.numpy as jnp


@decorated(
    3)
def f(x):
    """A docstring
    over lines."""
    return (x +
            1)


class C:
    a: int = 1

    def m(self):
        return self.a
y = f(jnp.ones((3, 4))) \\
    + 2
''')

# What a keystroke types: code, brackets and quotes that may open what the next lines do not
# close, a colon, a backslash, a line break (which moves every statement below: not spliced).
TYPED = st.text(alphabet="()[]{}:,.+*=#'\"\\\n 0a_", min_size=0, max_size=3)


def dump(tree: ast.AST) -> str:
    return ast.dump(tree, include_attributes=True)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, len(TEXTS) - 1), at=st.integers(0, 100_000), typed=TYPED,
       deleted=st.integers(0, 3))
@example(which=len(TEXTS) - 1, at=0, typed="", deleted=0)
def test_a_spliced_tree_is_the_tree_of_the_whole_text(which: int, at: int, typed: str, deleted: int) -> None:
    before = TEXTS[which]
    tree = ast.parse(before)
    old = layout(tree, split_lines(before))
    assert old is not None
    assignments(tree, before)  # what the editor features read of the last tree, kept by statement
    at %= len(before) + 1
    text = before[:at] + typed + before[at + deleted:]
    found = spliced(tree, old, before, text)
    if found is None:
        return
    whole = ast.parse(text)
    assert dump(found) == dump(whole)
    # The statements the edit left alone are the last tree's own nodes.
    kept = sum(any(node is other for other in tree.body) for node in found.body)
    assert kept == len(found.body) - 1
    read = assignments(found, text)
    assignments_module._FOUND.clear()  # what a first reading of the whole text finds
    assert read == assignments(whole, text)


def test_a_keystroke_inside_a_function_is_spliced() -> None:
    before = TEXTS[0]
    tree = ast.parse(before)
    old = layout(tree, split_lines(before))
    assert old is not None
    at = before.index("\n", before.index("def ")) - 1  # the end of the first def's first line
    text = before[:at] + " " + before[at:]
    found = spliced(tree, old, before, text)
    assert found is not None
    assert dump(found) == dump(ast.parse(text))


def test_what_only_the_whole_text_can_refuse_is_parsed_whole() -> None:
    before = "x = 1\nfrom __future__ import annotations\n"
    tree = ast.parse(before)
    old = layout(tree, split_lines(before))
    assert old is not None
    # Refused by the compiler for its place, not by the parser; left to a whole parse all the same.
    assert spliced(tree, old, before, before.replace("annotations", "division")) is None
    # A line break typed: every statement below moves.
    assert spliced(tree, old, before, "x = \n1\nfrom __future__ import annotations\n") is None
    # An edit that opens a bracket the statement's lines do not close.
    assert spliced(tree, old, before, "x = (1\nfrom __future__ import annotations\n") is None


def test_new_settings_parse_the_whole_text(tmp_path: Path) -> None:
    # The last tree was parsed for the last settings' target version: under an older one, the
    # `match` the edit leaves alone is a syntax error, which only a parse of the whole text sees.
    path = str(tmp_path / "model.py")
    text = "match x:\n    case 1:\n        pass\ny = 1\n"
    edited = text.replace("y = 1", "y = 12")
    reuse = Reuse()
    reuse.analyze(Engine(Config(root=tmp_path)), BufferSource([], path, tmp_path), path, text)
    older = Engine(Config(root=tmp_path, target_version=(3, 9)))
    found = reuse.analyze(older, BufferSource([], path, tmp_path), path, edited).result.diagnostics
    assert [d.code for d in found] == [Code.SYNTAX_ERROR]
    assert found == older.analyze(path, edited, keep_types=True).diagnostics


def test_the_tree_of_a_large_buffer_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A kept tree costs about 70 bytes per character while the buffer is open: past the bound,
    # each edit parses the whole text again, and finds what a full check finds.
    path = str(tmp_path / "model.py")
    text = TEXTS[0]
    engine = Engine(Config(root=tmp_path))
    for bound, kept in ((len(text), True), (len(text) - 1, False)):
        monkeypatch.setattr("shapecheck.lsp.reuse.TREE_KEPT_CHARACTERS", bound)
        reuse = Reuse()
        reuse.analyze(engine, BufferSource([], path, tmp_path), path, text)
        assert (reuse._last[path].tree is not None) == kept
        edited = text.replace("def ", "def  ", 1)
        found = reuse.analyze(engine, BufferSource([], path, tmp_path), path, edited).result
        assert found.diagnostics == engine.analyze(path, edited, keep_types=True).diagnostics


def test_a_statement_left_alone_shows_the_types_the_edit_gave_it(tmp_path: Path) -> None:
    # `y = make() + 1` keeps its nodes, but its type follows the edited `make`: the span kept
    # for each node is reused only where the node's type is the same.
    path = str(tmp_path / "model.py")
    text = "import jax.numpy as jnp\n\ndef make():\n    return jnp.zeros((3, 4))\n\ny = make() + 1\n"
    edited = text.replace("(3, 4)", "(5, 4)")
    engine, source = Engine(Config(root=tmp_path)), BufferSource([], path, tmp_path)
    reuse = Reuse()
    first = reuse.analyze(engine, source, path, text).tree
    outcome = reuse.analyze(engine, source, path, edited)
    assert first is not None and outcome.tree is not None
    assert outcome.tree.body[-1] is first.body[-1]  # spliced: the last statement's nodes kept
    shown = {str(t.type) for t in outcome.result.types}
    assert "f32[(5, 4)]" in shown and "f32[(3, 4)]" not in shown, shown
    assert outcome.result.types == Engine(Config(root=tmp_path)).analyze(path, edited, keep_types=True).types


def test_a_statement_left_alone_shows_the_sharding_the_edit_gave_it(tmp_path: Path) -> None:
    # A type's sharding is not part of its equality, but hover shows it: `y` moves from X to Y.
    path = str(tmp_path / "model.py")
    text = '''\
import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit, AxisType.Explicit))


def make():
    return jax.device_put(jnp.zeros((8, 16)), NamedSharding(mesh, P("X", None)))


y = make() + 1
'''
    edited = text.replace('P("X", None)', 'P("Y", None)')
    engine, source = Engine(Config(root=tmp_path)), BufferSource([], path, tmp_path)
    reuse = Reuse()
    reuse_first = reuse.analyze(engine, source, path, text)
    first = reuse_first.tree
    outcome = reuse.analyze(engine, source, path, edited)
    assert first is not None and outcome.tree is not None and outcome.tree.body[-1] is first.body[-1]
    fresh = Engine(Config(root=tmp_path)).analyze(path, edited, keep_types=True).types
    assert [(t.span, t.type.sharding) for t in outcome.result.types] == [(t.span, t.type.sharding) for t in fresh]
    assert {t.type.sharding.dims for t in outcome.result.types if t.span.line == 12} == {(("Y",), ())}
    # The server rebuilds each analysis from the change since the last: a span equal to the last
    # one's is kept, and one that moved to another mesh axis is not equal.
    buffers = [Buffer(Path(path).as_uri(), path, source_text, version)
               for version, source_text in enumerate((text, edited), start=1)]
    analyses = [Analysis(buffer, result, Config(root=tmp_path))
                for buffer, result in zip(buffers, (reuse_first.result, outcome.result), strict=True)]
    received = _Sent.of(analyses[1], analyses[0]).analysis(analyses[0])
    assert {t.type.sharding.dims for t in received.result.types if t.span.line == 12} == {(("Y",), ())}
