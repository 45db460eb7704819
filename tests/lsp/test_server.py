"""`shapecheck lsp` end to end: a real client over stdio opens, edits and asks about files."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
from lsprotocol import types

from shapecheck.config import load_config
from shapecheck.engine import Engine
from shapecheck.formats.sarif import rule_page

from .support import FIXTURES, Client, apply_edits, expected, position_of

pytestmark = pytest.mark.asyncio(loop_scope="package")

# A fixture whose diagnostic has a note, one that does not parse, and one that is clean.
FIXTURE_NAMES = ["cascade_xmap_argument_size.py", "syntax_error_missing_colon.py",
                 "xmap_sizes_across_arguments.py", "toy_network_ok.py"]


def _ident(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def test_open_fixtures_publishes_the_cli_diagnostics(client: Client, tmp_path: Path) -> None:
    for name in FIXTURE_NAMES:
        shutil.copy(FIXTURES / name, tmp_path / name)
    uris = [client.open(tmp_path / name) for name in FIXTURE_NAMES]
    report = Engine(load_config(start=tmp_path)).check_files([str(tmp_path / n) for n in FIXTURE_NAMES], jobs=1)
    assert report.diagnostics, "the fixtures must give something to compare"
    for name, uri in zip(FIXTURE_NAMES, uris, strict=True):
        published = await client.diagnostics(uri)
        cli = [d for d in report.diagnostics if Path(d.path).name == name]
        assert [expected(d) for d in cli] == [expected(d) for d in published], name
        for diagnostic in published:
            assert diagnostic.source == "shapecheck"
            assert diagnostic.severity == types.DiagnosticSeverity.Error
            assert diagnostic.code_description is not None
            href = diagnostic.code_description.href
            if href.startswith("file:"):  # no docs site declared: the rule's page, as explain writes it
                docs = Path(href.removeprefix("file://"))
                assert docs.name == f"{str(diagnostic.code).lower()}.md"
                assert "## What it does" in docs.read_text() and "## Use instead" in docs.read_text()
            else:  # the page SARIF's helpUri names
                assert href.endswith(rule_page(str(diagnostic.code)))
    notes = [d for uri in uris for d in client.published.diagnostics[uri] if d.related_information]
    assert notes, "the fixtures' notes arrive as related information"
    assert all(info.location.uri in uris for d in notes for info in d.related_information or ())


PROGRAM = textwrap.dedent("""\
    import jax.numpy as jnp
    from shapecheck import f32


    def layer(x: f32[(4,), {'b': 8}], y: f32[(4,), {'b': 8}]):
        h = x + y
        s = jnp.sum(h, axis='b')
        return s


    a = jnp.ones((3, 4), dtype=jnp.float32)
    b = a + jnp.ones((5,), dtype=jnp.float32)
    """)


async def test_hover_and_inlay_hints(client: Client, tmp_path: Path) -> None:
    uri = client.open(tmp_path / "model.py", PROGRAM)
    await client.diagnostics(uri)

    async def hover(line: int, character: int) -> str | None:
        answer = await client.lsp.text_document_hover_async(
            types.HoverParams(text_document=_ident(uri), position=types.Position(line, character)))
        if answer is None:
            return None
        assert isinstance(answer.contents, types.MarkupContent)
        return answer.contents.value.removeprefix("```python\n").removesuffix("\n```")

    assert await hover(*position_of(PROGRAM, "x + y")) == "f32[(4,), {'b': 8}]"  # the name x
    assert await hover(*position_of(PROGRAM, "+ y")) == "f32[(4,), {'b': 8}]"  # the whole sum
    assert await hover(*position_of(PROGRAM, "sum(h")) == "f32[(4,)]"
    assert await hover(*position_of(PROGRAM, "s = ")) == "f32[(4,)]"  # an assigned name
    assert await hover(*position_of(PROGRAM, "a = ")) == "f32[(3, 4)]"
    assert await hover(*position_of(PROGRAM, "import")) is None

    hints = await client.lsp.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=_ident(uri), range=types.Range(start=types.Position(0, 0), end=types.Position(20, 0))))
    shown = [(h.position.line, h.position.character, h.label) for h in hints or ()]
    assert shown == [(5, 5, ": f32[(4,), {'b': 8}]"), (6, 5, ": f32[(4,)]"), (10, 1, ": f32[(3, 4)]"),
                     (11, 1, ": f32[(3, None)]")]  # a size in conflict is unknown
    visible = await client.lsp.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=_ident(uri), range=types.Range(start=types.Position(9, 0), end=types.Position(11, 0))))
    assert [h.position.line for h in visible or ()] == [10]


MAPPED = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp
    from jax.experimental.maps import xmap
    from jax.sharding import PartitionSpec as P
    from shapecheck import f32


    def step(x: f32[(4,), {'batch': 8}]):
        return x * 2


    run = xmap(step, in_axes=({0: 'batch'},), out_axes={0: 'batch'}, axis_resources={'batch': ('x', 'y')})
    out = run(jnp.ones((8, 4)))
    mesh = jax.make_mesh((4, 2), ('data', 'model'))


    def body(v):
        return v * 3


    f = jax.shard_map(body, mesh=mesh, in_specs=P('data'), out_specs=P('data'))
    y = f(jax.device_put(jnp.ones((8, 4)), jax.NamedSharding(mesh, P('data'))))  # placed: the mesh is Explicit
    a = jnp.ones((3,)) * 2
    """)


async def test_hover_inside_a_map_shows_the_mesh_axes(client: Client, tmp_path: Path) -> None:
    uri = client.open(tmp_path / "mapped.py", MAPPED)
    await client.diagnostics(uri)

    async def hover(text: str) -> str:
        answer = await client.lsp.text_document_hover_async(types.HoverParams(
            text_document=_ident(uri), position=types.Position(*position_of(MAPPED, text))))
        assert answer is not None and isinstance(answer.contents, types.MarkupContent)
        return answer.contents.value

    assert await hover("x * 2") == ("```python\nf32[(4,), {'batch': 8}]\n```\n\n"
                                     "`batch` is split over mesh axes `x`, `y` (`axis_resources`)")
    # In a shard_map body: the per-device block, and the mesh axes it differs along.
    assert await hover("v * 3") == ("```python\nf32[(2, 4)]\n```\n\n"
                                     "`jax.typeof`: `float32[2,4]{V:data}`: varies over mesh axis `data` (differs between their devices)")
    assert await hover("ones((3,)) * 2") == "```python\nf32[(3,)]\n```"  # outside any map


PARAMETERS = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P
    from shapecheck import f32


    def scale(x: f32[(4,), {'b': 8}], factor):
        return x


    def body(v):
        w = v
        return w * 3


    mesh = jax.make_mesh((4, 2), ('data', 'model'))
    y = jax.shard_map(body, mesh=mesh, in_specs=P('data'), out_specs=P('data'))(
        jax.device_put(jnp.ones((8, 4)), jax.NamedSharding(mesh, P('data'))))
    """)


async def test_hover_on_parameters_and_bare_names_in_a_shard_map_body(client: Client, tmp_path: Path) -> None:
    uri = client.open(tmp_path / "params.py", PARAMETERS)
    await client.diagnostics(uri)

    async def hover(text: str, shift: int = 0) -> str | None:
        line, character = position_of(PARAMETERS, text)
        answer = await client.lsp.text_document_hover_async(types.HoverParams(
            text_document=_ident(uri), position=types.Position(line, character + shift)))
        if answer is None:
            return None
        assert isinstance(answer.contents, types.MarkupContent)
        return answer.contents.value

    declared = "```python\nf32[(4,), {'b': 8}]\n```"
    assert await hover("x: f32") == declared  # in the signature, never called: the declared type
    assert await hover("x\n\n") == declared  # a use in the body
    assert await hover("factor") is None  # nothing known of it
    block = ("```python\nf32[(2, 4)]\n```\n\n"
             "`jax.typeof`: `float32[2,4]{V:data}`: varies over mesh axis `data` (differs between their devices)")
    assert await hover("v):") == block  # the parameter of the shard_map body
    assert await hover("w = v") == block  # a bare name an assignment binds
    assert await hover("v\n") == block  # a bare name read
    assert await hover("w * 3") == block


async def _actions(client: Client, uri: str, line: int) -> list[types.CodeAction]:
    published = await client.diagnostics(uri)
    answer = await client.lsp.text_document_code_action_async(types.CodeActionParams(
        text_document=_ident(uri), range=types.Range(start=types.Position(line, 0), end=types.Position(line, 0)),
        context=types.CodeActionContext(diagnostics=published)))
    return [a for a in answer or () if isinstance(a, types.CodeAction)]


async def test_suppress_on_this_line(client: Client, tmp_path: Path) -> None:
    text = PROGRAM.replace("return s", "return s + jnp.ones((3,))  # shapecheck: ignore[SC102]")
    uri = client.open(tmp_path / "model.py", text)
    # The comment's SC102 silences nothing: SC006 says so, and the SC101 is merged in beside it.
    found = [(d.range.start.line, d.code) for d in await client.diagnostics(uri)]
    assert found == [(7, "SC101"), (7, "SC006"), (11, "SC101")]
    for line, comment in ((11, "b = a + jnp.ones((5,), dtype=jnp.float32)  # shapecheck: ignore[SC101]"),
                          (7, "return s + jnp.ones((3,))  # shapecheck: ignore[SC101, SC102]")):
        actions = await _actions(client, uri, line)
        suppress = [a for a in actions if a.title == "Suppress SC101 on this line"]
        assert len(suppress) == 1
        text = apply_edits(text, suppress[0])
        assert text.splitlines()[line].strip() == comment
        client.change(uri, text)
    assert [(d.range.start.line, d.code) for d in await client.diagnostics(uri)] == [(7, "SC006")]


async def test_the_rule_fix_casts_an_initial_carry(client: Client, tmp_path: Path) -> None:
    from shapecheck.rules import get_rule

    rule = get_rule("SC210")
    assert rule is not None
    text = rule.wrong.source
    uri = client.open(tmp_path / "ring.py", text)
    (line, _), = rule.wrong.expected
    cast = [a for a in await _actions(client, uri, line - 1) if a.title.startswith("Cast to vary over")]
    assert [a.title for a in cast] == ["Cast to vary over 'X', 'Y'"]
    text = apply_edits(text, cast[0])
    assert "lax.scan(step, lax.pcast(jnp.zeros((4,)), ('X', 'Y'), to='varying'), x)" in text
    client.change(uri, text)
    assert await client.diagnostics(uri) == []


async def test_insert_the_inferred_annotation(client: Client, tmp_path: Path) -> None:
    text = PROGRAM.replace("from shapecheck import f32\n", "").replace("f32[(4,), {'b': 8}]", "Any")
    text = "from typing import Any\n" + text.replace("def layer(x: Any, y: Any):", "def layer(x, y):")
    uri = client.open(tmp_path / "model.py", text)
    line = text.splitlines().index("a = jnp.ones((3, 4), dtype=jnp.float32)")
    annotate = [a for a in await _actions(client, uri, line) if a.title.startswith("Annotate")]
    assert [a.title for a in annotate] == ["Annotate a with f32[(3, 4)]"]
    text = apply_edits(text, annotate[0])
    assert "from shapecheck import f32\n" in text and "a: f32[(3, 4)] = jnp.ones((3, 4), dtype=jnp.float32)" in text
    client.change(uri, text)
    assert [(d.range.start.line, d.code) for d in await client.diagnostics(uri)] == [(line + 2, "SC101")]
    # Now f32 is imported; annotating b adds no second import, and the annotation is checked:
    # the engine reads it back as the type it inferred (no SC103).
    line = text.splitlines().index("b = a + jnp.ones((5,), dtype=jnp.float32)")
    assert not [a for a in await _actions(client, uri, line) if a.title.startswith("Annotate")], \
        "b's value has no type: nothing to insert"
    fixed = text.replace("jnp.ones((5,)", "jnp.ones((4,)")
    client.change(uri, fixed)
    assert await client.diagnostics(uri) == []
    annotate = [a for a in await _actions(client, uri, line) if a.title.startswith("Annotate")]
    assert [a.title for a in annotate] == ["Annotate b with f32[(3, 4)]"]
    fixed = apply_edits(fixed, annotate[0])
    assert fixed.count("from shapecheck import f32") == 1
    client.change(uri, fixed)
    assert await client.diagnostics(uri) == []


async def test_syntax_error_and_back(client: Client, tmp_path: Path) -> None:
    uri = client.open(tmp_path / "model.py", PROGRAM)
    before = [expected(d) for d in await client.diagnostics(uri)]
    assert [d[4] for d in before] == ["SC101"]
    line, character = position_of(PROGRAM, "):\n    h")
    broken = PROGRAM.replace("]):\n    h", "])\n    h")
    client.edit(uri, (line, character + 1), (line, character + 2), "", broken)
    published = await client.diagnostics(uri)
    assert [(d.code, d.range.start.line) for d in published] == [("SC004", line)]
    # Hover keeps the last good analysis while the buffer does not parse.
    answer = await client.lsp.text_document_hover_async(
        types.HoverParams(text_document=_ident(uri), position=types.Position(*position_of(PROGRAM, "a = "))))
    assert answer is not None and "f32[(3, 4)]" in str(answer.contents)
    client.edit(uri, (line, character + 1), (line, character + 1), ":", PROGRAM)
    assert [expected(d) for d in await client.diagnostics(uri)] == before


LAYERS = "from shapecheck import f32\n\n\ndef dense(x: f32[(4, 3)]) -> f32[(4, 3)]:\n    return x\n"
MAIN = "import jax.numpy as jnp\nfrom layers import dense\n\ny = dense(jnp.ones((4, 5)))\n"


async def test_an_edit_of_one_module_rechecks_its_importers(client: Client, tmp_path: Path) -> None:
    (tmp_path / "layers.py").write_text(LAYERS)
    (tmp_path / "main.py").write_text(MAIN)
    layers = client.open(tmp_path / "layers.py")
    main = client.open(tmp_path / "main.py")
    assert [d.code for d in await client.diagnostics(main)] == ["SC103"]
    assert await client.diagnostics(layers) == []
    seen = client.published.count
    client.change(layers, LAYERS.replace("(4, 3)", "(4, 5)"))  # unsaved: only the buffer says so
    assert await client.next_publication(main, seen, lambda found: found == []) == []
    seen = client.published.count
    client.change(layers, LAYERS)
    found = await client.next_publication(main, seen, lambda found: found != [])
    assert [d.code for d in found] == ["SC103"]
    # Closing an edited buffer discards its text: its importers read the file on disk again.
    seen = client.published.count
    client.change(layers, LAYERS.replace("(4, 3)", "(4, 5)"))
    assert await client.next_publication(main, seen, lambda found: found == []) == []
    seen = client.published.count
    client.close(layers)
    found = await client.next_publication(main, seen, lambda found: found != [])
    assert [d.code for d in found] == ["SC103"]


async def test_a_module_changed_on_disk_rechecks_its_open_importers(client: Client, tmp_path: Path) -> None:
    (tmp_path / "layers.py").write_text(LAYERS)
    (tmp_path / "main.py").write_text(MAIN)
    main = client.open(tmp_path / "main.py")
    assert [d.code for d in await client.diagnostics(main)] == ["SC103"]
    (tmp_path / "layers.py").write_text(LAYERS.replace("(4, 3)", "(4, 5)"))  # a git checkout
    seen = client.published.count
    client.lsp.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=(tmp_path / "layers.py").as_uri(), type=types.FileChangeType.Changed)]))
    assert await client.next_publication(main, seen, lambda found: found == []) == []
    (tmp_path / "pyproject.toml").write_text("[tool.shapecheck]\nignore = ['SC103']\n")
    (tmp_path / "layers.py").write_text(LAYERS)
    seen = client.published.count
    client.lsp.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=(tmp_path / "pyproject.toml").as_uri(), type=types.FileChangeType.Changed)]))
    assert await client.next_publication(main, seen, lambda found: True) == []  # SC103 now ignored


async def test_a_module_written_in_an_unsaved_buffer_is_found(client: Client, tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text(MAIN)
    main = client.open(tmp_path / "main.py")
    assert await client.diagnostics(main) == []  # `layers` is nowhere: its values are unknown
    seen = client.published.count
    client.open(tmp_path / "layers.py", LAYERS)  # a new file, not saved yet
    found = await client.next_publication(main, seen, lambda found: found != [])
    assert [d.code for d in found] == ["SC103"]


async def test_bad_requests_are_answered_empty(client: Client, tmp_path: Path) -> None:
    unknown = (tmp_path / "never_opened.py").as_uri()
    far = types.Position(10_000, 10_000)
    assert await client.lsp.text_document_hover_async(
        types.HoverParams(text_document=_ident(unknown), position=far)) is None
    uri = client.open(tmp_path / "model.py", PROGRAM)
    await client.diagnostics(uri)
    assert await client.lsp.text_document_hover_async(
        types.HoverParams(text_document=_ident(uri), position=far)) is None
    assert not await client.lsp.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=_ident(unknown), range=types.Range(start=far, end=far)))
    assert not await client.lsp.text_document_code_action_async(types.CodeActionParams(
        text_document=_ident(uri), range=types.Range(start=far, end=types.Position(0, 0)),
        context=types.CodeActionContext(diagnostics=[])))
    # Text no decoder or parser likes: still diagnostics, and the server still answers.
    client.change(uri, "\x00\ud800 = (((\n" * 3)
    assert [d.code for d in await client.diagnostics(uri)] == ["SC004"]
    client.change(uri, PROGRAM)
    assert [d.code for d in await client.diagnostics(uri)] == ["SC101"]


async def test_settings_come_from_the_files_pyproject(client: Client, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "generated").mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        "[tool.shapecheck]\nignore = ['SC101']\nexclude = ['generated/']\n")
    text = PROGRAM.replace("return s", "return jnp.sum(s, axis=3)")
    uri = client.open(project / "model.py", text)
    assert [d.code for d in await client.diagnostics(uri)] == ["SC106"]  # SC101 ignored
    excluded = client.open(project / "generated" / "model.py", text)
    assert await client.diagnostics(excluded) == []
    # A setting that cannot be used: the defaults apply, and the user is told why.
    (project / "pyproject.toml").write_text("[tool.shapecheck]\nignore = ['SC999']\n")
    seen = client.published.count
    client.lsp.text_document_did_save(types.DidSaveTextDocumentParams(text_document=_ident(uri)))
    found = await client.next_publication(uri, seen, lambda found: len(found) == 2)
    assert sorted(str(d.code) for d in found) == ["SC101", "SC106"]
    warnings = [m.message for m in client.lsp.messages if m.type == types.MessageType.Warning]
    assert any("SC999" in message and "default settings" in message for message in warnings)


SHARDED = """\
import jax
import jax.numpy as jnp
{imports}
mesh = jax.make_mesh((2, 4), ('X', 'Y'))
a = jax.device_put(jnp.ones((8, 16)), jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec('X', 'Y')))
"""


@pytest.mark.parametrize(("imports", "title"), [
    ("from jax.sharding import PartitionSpec as P", "Annotate a with f32[(8, 16), P('X', 'Y')]"),
    ("from jax.sharding import PartitionSpec", "Annotate a with f32[(8, 16), PartitionSpec('X', 'Y')]"),
    # Nothing binds jax's PartitionSpec: a module-level annotation naming P would raise.
    ("", "Annotate a with f32[(8, 16)]"),
    ("P = 3", "Annotate a with f32[(8, 16)]"),
])
async def test_the_inserted_annotation_spells_a_known_split(client: Client, tmp_path: Path, imports: str,
                                                            title: str) -> None:
    text = SHARDED.format(imports=imports)
    uri = client.open(tmp_path / "sharded.py", text)
    line = text.splitlines().index(next(row for row in text.splitlines() if row.startswith("a = ")))
    annotate = [a for a in await _actions(client, uri, line) if a.title.startswith("Annotate")]
    assert [a.title for a in annotate] == [title]
    text = apply_edits(text, annotate[0])
    client.change(uri, text)
    assert await client.diagnostics(uri) == []
