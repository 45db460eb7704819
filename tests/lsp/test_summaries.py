"""Function analyses and top-level statements replayed from a buffer's last analysis
(`analyzer.summaries`): an analysis that replays them finds what an analysis of the whole text
finds, finding for finding and type for type, whatever the edits; and it does replay them."""

from __future__ import annotations

import os
import re
import tempfile
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shapecheck.config import Config
from shapecheck.engine import Engine
from shapecheck.lsp.buffers import BufferSource
from shapecheck.lsp.reuse import Reuse
from shapecheck.results import FileResult

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
NAMES = sorted(str(path.relative_to(FIXTURES)) for path in FIXTURES.rglob("*.py"))  # the models too
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::SyntaxWarning")

# Two models in one module, as the editor benchmark builds its file: the second redefines the
# first's functions, so each top-level call reaches its own copy.
TOY = (FIXTURES / "toy_network_ok.py").read_text()
TWICE = TOY + "\n" + TOY.split('"""', 2)[2]

# Calls that share summaries: the same function from several statements, under maps that bind
# different names, reporting at one place for different arguments, and calling each other.
SHARED = """\
import jax
import jax.numpy as jnp
from jax import lax


def inner(x):
    return x + jnp.ones((4,))


def outer(x):
    y = inner(x)
    return lax.psum(y, 'i')


def twice(x):
    return inner(x) * inner(x + 1)


def single(x):
    return x * 2


def double(x):
    return single(x) + single(x)


def stray(x):
    return lax.psum(x, 'z')


def stray_k(x):
    return lax.psum(x, 'k')


def mapped_later(x):
    return jax.vmap(stray_k, axis_name='i')(x)


a = 1.0 * jax.vmap(outer, axis_name='i')(jnp.ones((3, 4)))
b = jax.vmap(outer, axis_name='i')(jnp.ones((3, 4)))
f = single(jnp.ones((4,)))
c = twice(jnp.ones((4,)))
n = double(jnp.ones((4,)))
d = twice(jnp.ones((5,)))
e = jax.vmap(outer, axis_name='j')(jnp.ones((3, 5)))
g = 1.0 * jax.vmap(stray, axis_name='i')(jnp.ones((3, 4)))
h = jax.vmap(stray, axis_name='i')(jnp.ones((3, 4)))
m = jax.vmap(mapped_later, axis_name='q')
"""
TEXTS = {"<twice>": TWICE, "<shared>": SHARED}


def same(found: FileResult, whole: FileResult) -> None:
    """What the editor shows of the two results is the same (and so is what they read)."""
    assert found.error is None and whole.error is None, found.error or whole.error
    assert found.diagnostics == whole.diagnostics
    assert found.types == whole.types
    assert found.dependencies == whole.dependencies and found.missing == whole.missing


@st.composite
def edits(draw: st.DrawFn, text: str) -> list[tuple[int, int, str]]:
    """Keystrokes: a digit changed (a size, an axis index), a name's letter changed (an axis
    name, a function called), or a few characters typed or deleted anywhere."""
    digits = [m.start() for m in re.finditer(r"\d", text)]
    letters = [m.start() for m in re.finditer(r"(?<=['\"])\w|\b[a-z]\w*", text)]
    found: list[tuple[int, int, str]] = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["digit", "letter", "type"] if digits and letters else ["type"]))
        if kind == "digit":
            found.append((draw(st.sampled_from(digits)), 1, draw(st.sampled_from("0123456789"))))
        elif kind == "letter":
            found.append((draw(st.sampled_from(letters)), 1, draw(st.sampled_from("abxyz_"))))
        else:
            found.append((draw(st.integers(0, len(text))), draw(st.integers(0, 2)),
                          draw(st.text(alphabet="()[],.+*= 0127abxy'\n", max_size=3))))
    return found


def replay_edits(text: str, sequence: list[tuple[int, int, str]]) -> int:
    """Analyse `text` and each edit of it through the language server's reuse, comparing each
    with an analysis of the whole text; the number of summaries replayed."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        path = str(root / "model.py")
        engine = Engine(Config(root=root))
        reuse = Reuse()
        replayed = 0
        for at, length, typed in [(0, 0, ""), *sequence]:
            at = min(at, len(text))
            text = text[:at] + typed + text[at + length:]
            found = reuse.analyze(engine, BufferSource([], path, root), path, text).result
            summaries = reuse._summaries.get(path)
            replayed += summaries.replayed if summaries is not None else 0
            same(found, Engine(Config(root=root)).analyze(path, text, keep_types=True))
        assert reuse.fallbacks == 0  # no replay raised (the server would have analysed again)
        return replayed


@settings(max_examples=int(os.environ.get("SHAPECHECK_SUMMARY_EXAMPLES", 150)), deadline=None,
          derandomize="SHAPECHECK_SUMMARY_EXAMPLES" not in os.environ,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), name=st.sampled_from([*NAMES, *TEXTS, *TEXTS]))
def test_an_analysis_that_replays_summaries_finds_what_a_whole_one_does(data: st.DataObject, name: str) -> None:
    text = TEXTS[name] if name in TEXTS else (FIXTURES / name).read_text()
    replay_edits(text, data.draw(edits(text)))


def test_a_keystroke_in_one_function_replays_the_other_calls() -> None:
    # The edit in the first copy's `named_predict` changes what the first `loss(...)` gives;
    # the second copy's `named_loss` reads only its own functions, and is replayed.
    at = TWICE.index("relu(lax.pdot")
    assert replay_edits(TWICE, [(at, 0, "1 * ")]) >= 1
    assert replay_edits(TWICE, [(TWICE.index("(784, 512)") + 1, 1, "6")]) >= 1


@pytest.mark.parametrize("edit", [
    ("'hidden')", "'hiddem')"),  # an axis name in the first copy's `named_predict`
    ("(128, 784)", "(128, 785)"),  # a module-level size the first call reads
    ("-lax.pmean(losses, 'batch')", "-lax.pmean(losses, 'batch') * 2"),  # the first `named_loss`
])
def test_an_edit_that_changes_what_a_call_reads_is_analysed_again(edit: tuple[str, str]) -> None:
    before, after = edit
    at = TWICE.index(before)
    replay_edits(TWICE, [(at, len(before), after)])


@pytest.mark.parametrize(("before", "after"), [
    # `n`'s `double` found `single`'s summary for (4,) made by `f`'s call; after the edit
    # nothing made it before, and `double` must analyse `single` for (4,) itself.
    ("f = single(jnp.ones((4,)))", "f = jnp.ones((4,))"),
    # `mapped_later`, analysed on its own under a map of unknown surroundings, asked which
    # names the module's maps bind (for `stray_k`'s 'k'): now 'k' too.
    ("axis_name='j'", "axis_name='k'"),
    # `a`'s call now reports first at `inner`'s broadcast, where `d`'s `twice` reported: a
    # handler types its result by whether its report was new, so `twice` runs again.
    ("jnp.ones((3, 4)))\nb =", "jnp.ones((3, 0)))\nb ="),
    # `g`'s map moves one column: the summary of `stray` under it says where that map binds
    # 'i' (SC202's note), though its key (the names bound, not where) is the same.
    ("g = 1.0 *", "g = 10.0 *"),
])
def test_a_summary_is_replayed_only_where_what_it_read_is_as_it_was(before: str, after: str) -> None:
    at = SHARED.index(before)
    replay_edits(SHARED, [(at, len(before), after)])


def test_a_replay_that_fails_costs_a_full_analysis(monkeypatch: pytest.MonkeyPatch) -> None:
    # A fault of the replay itself must not cost the buffer its diagnostics.
    from shapecheck.analyzer import summaries

    def broken(*args: object) -> None:
        raise RuntimeError("a fault in the replay")

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        path = str(root / "model.py")
        engine, reuse = Engine(Config(root=root)), Reuse()
        reuse.analyze(engine, BufferSource([], path, root), path, SHARED)
        monkeypatch.setattr(summaries.Recorder, "_apply", broken)
        edited = SHARED.replace("axis_name='j'", "axis_name='k'")
        found = reuse.analyze(engine, BufferSource([], path, root), path, edited).result
        assert reuse.fallbacks == 1
        same(found, Engine(Config(root=root)).analyze(path, edited, keep_types=True))


@pytest.mark.parametrize("setting", ["bound", "environment"])
def test_a_buffer_whose_tree_is_not_kept_records_nothing(monkeypatch: pytest.MonkeyPatch, setting: str) -> None:
    # Past the bound on kept trees each edit parses the whole text: no node is met again, so
    # recording what each analysis read would only cost time and memory. SHAPECHECK_LSP_REPLAY=0
    # turns the replay off for every buffer.
    if setting == "bound":
        monkeypatch.setattr("shapecheck.lsp.reuse.TREE_KEPT_CHARACTERS", len(SHARED) - 1)
    else:
        monkeypatch.setenv("SHAPECHECK_LSP_REPLAY", "0")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        path = str(root / "model.py")
        engine, reuse = Engine(Config(root=root)), Reuse()
        for text in (SHARED, SHARED.replace("axis_name='j'", "axis_name='k'")):
            found = reuse.analyze(engine, BufferSource([], path, root), path, text).result
            assert path not in reuse._summaries
            same(found, Engine(Config(root=root)).analyze(path, text, keep_types=True))


def test_a_closure_is_replayed_only_with_what_made_it() -> None:
    # The lambda reads `n` from the call that made it, which no fingerprint covers: its own
    # analysis (a key without arguments) must not be replayed for another call's `n`.
    text = textwrap.dedent("""\
        import jax.numpy as jnp


        def outer(n):
            f = lambda: jnp.zeros((n,)) + 1
            return f()


        a = outer(3)
        """)
    replay_edits(text, [(text.index("outer(3)"), len("outer(3)"), "outer(5)")])


@pytest.mark.parametrize(("branch", "before", "after"), [
    # The branch joins what `x` holds on both paths (a new value: unknown length) and binds it
    # again at once; a replay of the `if` binds it so too, and `y` reads it.
    ("x = jnp.concatenate([x, x])", "(4,)", "(5,)"),
    # The branch binds `x` without reading it, but the join reads what it held before: `x`
    # is (6,) on both paths until the edit makes it (7,) before the `if`.
    ("x = jnp.ones((6,))", "x = jnp.ones((6,))\nif", "x = jnp.ones((7,))\nif"),
])
def test_a_top_level_branch_replays_the_names_it_binds(branch: str, before: str, after: str) -> None:
    text = textwrap.dedent("""\
        import os

        import jax.numpy as jnp

        x = jnp.ones((6,))
        if os.environ.get("WIDE"):
            BRANCH
        y = x * 2
        z = jnp.ones((4,))
        """).replace("BRANCH", branch)
    assert replay_edits(text, [(text.index(before), len(before), after)]) >= 2
