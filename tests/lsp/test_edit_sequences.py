"""Random edit sequences: whatever the editor sent, the diagnostics finally published for the
last version are those the CLI reports for the final text."""

from __future__ import annotations

import itertools
import json
import os
import pickle
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from lsprotocol import types

from shapecheck.config import load_config
from shapecheck.diagnostic import Diagnostic
from shapecheck.engine import Engine

from .support import Client, apply_edits, expected

BASE = textwrap.dedent("""\
    import jax.numpy as jnp
    from shapecheck import f32


    def layer(x: f32[(4,), {'b': 8}]):
        h = x + jnp.ones((4,), dtype=jnp.float32)
        return jnp.sum(h, axis='b')


    a = jnp.ones((3, 4), dtype=jnp.float32)
    b = a + jnp.ones((5,))
    """)

# Lines that add findings, fix them, or break the syntax; and characters that do the same.
SNIPPETS = [
    "c = a + jnp.ones((4,))\n",
    "c = a + jnp.ones((7,))\n",
    "d = jnp.sum(a, axis=5)\n",
    "def broken(:\n",
    "e: f32[(2, 2)] = a\n",
    "    \n",
    "b = a  # shapecheck: ignore[SC101]\n",
]
CHARACTERS = st.text(alphabet="()[]{}:,.+*= 0123457abcdxy'\n", max_size=4)


@st.composite
def edits(draw: st.DrawFn) -> list[tuple[str, int, int, str]]:
    """(kind, at, length, text): insert a line, delete characters, or type characters."""
    count = draw(st.integers(1, 6))
    return [draw(st.one_of(
        st.tuples(st.just("line"), st.integers(0, 40), st.just(0), st.sampled_from(SNIPPETS)),
        st.tuples(st.just("delete"), st.integers(0, 10_000), st.integers(1, 12), st.just("")),
        st.tuples(st.just("type"), st.integers(0, 10_000), st.just(0), CHARACTERS),
    )) for _ in range(count)]


def position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset)
    return line, offset - (text.rfind("\n", 0, offset) + 1)


_names = itertools.count()


@pytest.mark.asyncio(loop_scope="package")
@settings(max_examples=int(os.environ.get("SHAPECHECK_LSP_EXAMPLES", 12)), deadline=None,
          derandomize="SHAPECHECK_LSP_EXAMPLES" not in os.environ,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(sequence=edits())
@example(sequence=[("type", 230, 0, ".")])  # SC004 ending past its line's end
@example(sequence=[("line", 10, 0, "c = a + jnp.ones((7,))\n")])  # two lines to suppress
async def test_published_diagnostics_equal_a_fresh_cli_run(client: Client, tmp_path: Path,
                                                           sequence: list[tuple[str, int, int, str]]) -> None:
    path = tmp_path / f"model_{next(_names)}.py"
    text = BASE
    uri = client.open(path, text)
    for kind, at, length, new in sequence:
        if kind == "line":
            lines = text.splitlines(keepends=True)
            start = sum(len(line) for line in lines[:min(at, len(lines))])
        else:
            start = min(at, len(text))
        end = min(start + length, len(text))
        after = text[:start] + new + text[end:]
        # The range is in the text before the edit; positions past a line's end are clamped by
        # the server as LSP says, so stay within the text here.
        client.edit(uri, position(text, start), position(text, end), new, after)
        text = after
    published = await client.diagnostics(uri)
    path.write_text(text)
    report = Engine(load_config(start=tmp_path)).check_files([str(path)], jobs=1)
    assert [expected(d) for d in published] == [expected(d) for d in report.diagnostics]
    # Results for versions the editor had moved past are dropped, never published late.
    versions = [version or 0 for published_uri, version in client.published.history if published_uri == uri]
    assert versions == sorted(versions) and versions[-1] == client.versions[uri]
    await _requests_on(client, uri, text, report.diagnostics)
    client.close(uri)


async def _requests_on(client: Client, uri: str, text: str, found: list[Diagnostic]) -> None:
    """Hover and inlay hints anywhere answer (the fixture fails a test whose requests raised in
    the server); every code action offered does what it says on the text."""
    document = types.TextDocumentIdentifier(uri=uri)
    for offset in range(0, len(text) + 1, 5):
        await client.lsp.text_document_hover_async(
            types.HoverParams(text_document=document, position=types.Position(*position(text, offset))))
    whole = types.Range(start=types.Position(0, 0), end=types.Position(text.count("\n") + 1, 0))
    await client.lsp.text_document_inlay_hint_async(types.InlayHintParams(text_document=document, range=whole))
    answer = await client.lsp.text_document_code_action_async(types.CodeActionParams(
        text_document=document, range=whole, context=types.CodeActionContext(diagnostics=[])))
    engine = Engine(load_config(start=Path(uri.removeprefix("file://")).parent))
    for action in answer or ():
        assert isinstance(action, types.CodeAction)
        fixed = engine.analyze("edited.py", apply_edits(text, action)).diagnostics
        if action.title.startswith("Suppress"):
            code = action.title.split()[1]
            assert action.edit is not None and action.edit.document_changes
            change = action.edit.document_changes[0]
            assert isinstance(change, types.TextDocumentEdit)
            line = change.edits[0].range.start.line + 1  # the line the comment goes on
            assert [d for d in found if d.code == code and line in (d.span.line, d.span.end_line)]
            assert not [d for d in fixed if d.code == code and line in (d.span.line, d.span.end_line)]
        elif not action.title.startswith("Annotate"):
            # A rule's own fix (`shapecheck.fixes`): what it fixes is gone, and nothing is added.
            assert len(fixed) < len(found), action.title
            assert not {d.code for d in fixed} - {d.code for d in found}, action.title
        else:  # the annotation says what was inferred: the engine reads it back without a word
            assert action.edit is not None and action.edit.document_changes
            change = action.edit.document_changes[0]
            assert isinstance(change, types.TextDocumentEdit)
            edits = [e for e in change.edits if isinstance(e, types.TextEdit)]
            annotated = next(e for e in edits if e.new_text.startswith(": "))
            line = annotated.range.start.line + 1 + sum(e.new_text.count("\n") for e in edits)
            assert not [d for d in fixed if d.span.line == line and d.code in ("SC001", "SC103", "SC301")]
            assert len(fixed) == len(found), action.title


# A module as people write them, with findings planted in functions and at the top level, a
# suppression, calls split over lines, and comments inside and between statements.
MODEL = textwrap.dedent('''\
    """A toy network with named axes, and a few mistakes."""
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.experimental.maps import xmap
    from jax.nn import gelu, one_hot, relu
    from jax.scipy.special import logsumexp
    from shapecheck import f32

    # The network.


    def named_predict(w1, w2, image):
        hidden = relu(lax.pdot(image, w1, 'inputs'))  # the hidden layer
        logits = lax.pdot(hidden, w2, 'hidden')
        return logits - logsumexp(logits, 'classes')


    def named_loss(w1, w2, images, labels):
        predictions = named_predict(w1, w2, images)
        num_classes = lax.psum(1, 'classes')
        targets = one_hot(labels, num_classes, axis='classes')
        losses = lax.psum(targets * predictions, 'classes')
        return -lax.pmean(losses, 'batch')


    @jax.jit
    def dense(x, w, b):
        # a 64-wide bias on 128-wide activations
        return gelu(jnp.dot(x, w) + b)


    def layer(x: f32[(4,), {'b': 8}]):
        h = x + jnp.ones((4,),
                         dtype=jnp.float32)
        return jnp.sum(h, axis='b') + jnp.sum(x, axis=3)


    w1 = jnp.zeros((784, 512))
    w2 = jnp.zeros((512, 10))
    images = jnp.zeros((128, 784))
    labels = jnp.zeros(128, dtype=jnp.int32)
    in_axes = [['inputs', 'hidden', ...],
               ['hidden', 'classes', ...],
               ['batch', 'inputs', ...],
               ['batch', ...]]
    loss = xmap(named_loss, in_axes=in_axes, out_axes=[...])
    print(loss(w1, w2, images, labels))
    h = dense(jnp.ones((32, 256)),
              jnp.ones((256, 128)), jnp.zeros((64,)))
    e: f32[(2, 2)] = jnp.ones((3, 4))
    a = jnp.ones((3, 4), dtype=jnp.float32)
    b = a + jnp.ones((5,))
    c = a + jnp.ones((7,))  # shapecheck: ignore[SC101]
    ''')


@st.composite
def layout_and_code_edits(draw: st.DrawFn) -> list[tuple[str, int, str]]:
    """(kind, at, text): edits that keep the tokens (blank lines, comments, spaces and line
    breaks inside brackets) mixed with some that change the code or break the syntax."""
    count = draw(st.integers(1, 8))
    return [draw(st.one_of(
        st.tuples(st.just("line"), st.integers(0, 60), st.sampled_from(["\n", "# a comment\n", "    \n"])),
        st.tuples(st.just("bracket"), st.integers(0, 10_000), st.sampled_from([" ", "\n        ", "  # c\n    "])),
        st.tuples(st.just("comment"), st.integers(0, 10_000), st.sampled_from(["x", " psum", "!"])),
        st.tuples(st.just("blank"), st.integers(0, 10_000), st.sampled_from(["# c", "  ", "x", "(", "\"\"\"", "  y = 1"])),
        st.tuples(st.just("line"), st.integers(0, 60), st.sampled_from(SNIPPETS)),
        st.tuples(st.just("type"), st.integers(0, 10_000), st.text(alphabet="()[]{}:,.+= #01ax'\"\\\n\0",
                                                                    max_size=3)),
        st.tuples(st.just("delete"), st.integers(0, 10_000), st.sampled_from(["", "x"])),
    )) for _ in range(count)]


def apply(text: str, kind: str, at: int, new: str) -> str:
    if kind == "line":
        lines = text.splitlines(keepends=True)
        start = sum(len(line) for line in lines[:min(at, len(lines))])
        return text[:start] + new + text[start:]
    if kind in ("bracket", "comment", "blank"):
        # Just after an opening bracket or comma, inside a comment, or on an empty line: the
        # tokens stay (mostly).
        marks = ([i + 1 for i, char in enumerate(text) if char in ("(,[" if kind == "bracket" else "#")]
                 if kind != "blank" else [i for i in range(1, len(text)) if text[i - 1:i + 1] == "\n\n"])
        if not marks:
            return text
        start = marks[at % len(marks)]
        return text[:start] + new + text[start:]
    start = min(at, len(text))
    if kind == "delete":
        return text[:start] + text[start + 1 + len(new):]
    return text[:start] + new + text[start:]


@settings(max_examples=int(os.environ.get("SHAPECHECK_LSP_EXAMPLES", 40)), deadline=None,
          derandomize="SHAPECHECK_LSP_EXAMPLES" not in os.environ,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(sequence=layout_and_code_edits())
@example(sequence=[("line", 0, "\n"), ("line", 30, "# a comment\n"), ("bracket", 3, "\n        ")])
@example(sequence=[("comment", 1, "x"), ("comment", 4, " psum"), ("line", 50, "    \n")])
@example(sequence=[("line", 52, "b = a  # shapecheck: ignore[SC101]\n"), ("comment", 2, "x")])
@example(sequence=[("blank", 0, "# c"), ("blank", 1, "x"), ("blank", 2, "  "), ("blank", 3, "  y = 1")])
@example(sequence=[("comment", 0, "x"), ("comment", 0, "\0"), ("comment", 2, "\\"), ("comment", 3, "\"\"\"")])
@example(sequence=[("comment", 8, "]"), ("comment", 6, "\n"), ("type", 900, "#"), ("line", 9, "  x\n")])
def test_each_analysis_equals_a_full_check_of_its_text(tmp_path: Path, sequence: list[tuple[str, int, str]]) -> None:
    """What the checker's process sends after each edit is what a fresh engine finds in the
    text (diagnostics, types, and the syntax the editor features read), however much of the
    last analysis it reused."""
    from shapecheck.lsp.analysis import Analysis
    from shapecheck.lsp.buffers import Buffer
    from shapecheck.lsp.checker import _Sent
    from shapecheck.lsp.projects import Projects

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    path = tmp_path / "model.py"
    projects = Projects()
    config = load_config(start=tmp_path)
    sent: Analysis | None = None
    received: Analysis | None = None
    text = MODEL
    for version, edit in enumerate([("type", 0, ""), *sequence], start=1):
        text = apply(text, *edit)
        buffer = Buffer(path.as_uri(), str(path), text, version)
        analysis = projects.analyze(buffer, [buffer])
        fresh = Engine(config).analyze(str(path), text, keep_types=True)
        assert analysis.result.diagnostics == fresh.diagnostics, (edit, text)
        assert analysis.result.types == fresh.types, (edit, text)
        assert analysis.result.error == fresh.error
        features = Analysis.of(buffer, fresh, analysis.config)  # read from a tree of its own
        assert (analysis.syntax, analysis.parses) == (features.syntax, features.parses), (edit, text)
        # The server rebuilds the analysis from the change since the last one it received.
        travelled = pickle.loads(pickle.dumps(_Sent.of(analysis, sent)))
        received = travelled.analysis(received)
        sent = analysis
        assert received == analysis


@pytest.mark.asyncio(loop_scope="package")
@settings(max_examples=int(os.environ.get("SHAPECHECK_LSP_EXAMPLES", 6)), deadline=None,
          derandomize="SHAPECHECK_LSP_EXAMPLES" not in os.environ,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(sequence=layout_and_code_edits())
@example(sequence=[("comment", 0, "x"), ("line", 0, "\n"), ("bracket", 3, "\n        "), ("type", 1200, "1")])
async def test_each_publication_is_a_full_check_byte_for_byte(client: Client, tmp_path: Path,
                                                              sequence: list[tuple[str, int, str]]) -> None:
    """Waiting for each version's diagnostics: each publication, as the client reads it, is
    what the CLI's engine finds in that version's text, converted as the server converts."""
    from lsprotocol import converters

    from shapecheck.lsp.diagnostics import to_lsp
    from shapecheck.lsp.positions import Lines

    path = tmp_path / f"model_{next(_names)}.py"
    text = MODEL
    uri = client.open(path, text)
    config = load_config(start=tmp_path)
    converter = converters.get_converter()
    for kind, at, new in [("type", 0, ""), *sequence]:
        after = apply(text, kind, at, new)
        if after != text:
            client.change(uri, after)
            text = after
        published = await client.diagnostics(uri)
        lines = Lines(text)
        fresh = [to_lsp(d, lines, lambda p: Path(p).as_uri(), lambda p, own=lines: own)
                 for d in Engine(config).analyze(str(path), text).diagnostics]
        assert (json.dumps(converter.unstructure(published, list[types.Diagnostic]), sort_keys=True)
                == json.dumps(converter.unstructure(fresh, list[types.Diagnostic]), sort_keys=True)), (kind, text)
    client.close(uri)
