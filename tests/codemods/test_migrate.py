"""`shapecheck migrate` on its input programs (the reference tutorial's and API page's examples
among them) and on examples/: the expected output, a second run changing nothing, the migrated
program checking exactly as the original did, and messages for what it cannot migrate."""

from __future__ import annotations

from pathlib import Path

import pytest

from shapecheck.codemods.migrate import migrate_text
from shapecheck.codemods.named_usage import RUNTIME_OWN
from shapecheck.engine import Engine

from .snapshots import EXAMPLES, assert_snapshot, found, programs

PROGRAMS = programs("migrate")
ALL = PROGRAMS + sorted(EXAMPLES.glob("*.py"))


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


def test_there_are_ten_programs() -> None:
    assert len(PROGRAMS) >= 10


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_migrates_as_recorded(program: Path) -> None:
    rewrite = migrate_text(str(program), program.read_text())
    assert_snapshot("migrate", program, rewrite.text)
    if program.stem != "m10_unknown_constructs":  # the one with what cannot be migrated
        assert not rewrite.messages and not rewrite.incomplete


@pytest.mark.parametrize("program", ALL, ids=lambda p: p.stem)
def test_round_trip_checks_the_same_and_is_idempotent(program: Path, engine: Engine) -> None:
    text = program.read_text()
    migrated = migrate_text(str(program), text).text
    assert "jax.experimental.maps import xmap" not in migrated
    assert found(engine.analyze(str(program), migrated).diagnostics) == found(
        engine.analyze(str(program), text).diagnostics)
    assert migrate_text(str(program), migrated).text == migrated


def _migrated(source: str) -> str:
    return migrate_text("t.py", source).text


def test_every_import_form_of_the_removed_module() -> None:
    assert _migrated("from jax.experimental.maps import xmap\n") == "from shapecheck.runtime import xmap\n"
    assert _migrated("from jax.experimental.maps import xmap as xm\n") == "from shapecheck.runtime import xmap as xm\n"
    assert _migrated("from jax.experimental import maps\nmaps.xmap\n") == (
        "from shapecheck import runtime as maps\nmaps.xmap\n")
    assert _migrated("import jax.experimental.maps as maps\n") == "import shapecheck.runtime as maps\n"
    assert _migrated("from jax.experimental import maps, mesh_utils\n") == (
        "from jax.experimental import mesh_utils\nfrom shapecheck import runtime as maps\n")
    assert _migrated("from jax.experimental import maps\nm = maps.Mesh(d, ('x',))\n") == (
        "from shapecheck import runtime as maps\nfrom jax.sharding import Mesh\n\nm = Mesh(d, ('x',))\n")


def test_named_axis_modules_move_only_when_used_with_names() -> None:
    positional = "import jax.numpy as jnp\ny = jnp.sum(x, axis=(0, -1))\nz = jnp.einsum('ij,jk->ik', x, x)\n"
    assert _migrated(positional) == positional
    named = "import jax.numpy as jnp\ny = jnp.sum(x, axis=(0, 'batch'))\n"
    assert _migrated(named).startswith("import shapecheck.runtime.numpy as jnp\n")
    braces = "from jax.numpy import einsum\ny = einsum('{a},{a}->{}', x, x)\n"
    assert _migrated(braces).startswith("from shapecheck.runtime.numpy import einsum\n")
    assert _migrated("from jax import nn\nnn.one_hot(x, 3)\n") == "from jax import nn\nnn.one_hot(x, 3)\n"
    assert _migrated("from jax import nn\nnn.one_hot(x, 3, axis='k')\n").startswith(
        "from shapecheck.runtime import nn\n")
    # An axis the codemod cannot read, or a reduction passed as a value, may be a name.
    assert _migrated("import jax.numpy as jnp\ny = jnp.mean(x, AXIS)\n").startswith("import shapecheck")
    assert _migrated("import jax.numpy as jnp\nf = jnp.max\n").startswith("import shapecheck")


def test_legacy_mesh_contexts_enter_through_set_mesh() -> None:
    source = "import jax\nfrom jax.sharding import Mesh\nwith Mesh(d, ('x',)) as mesh:  # note\n    f(mesh)\n"
    assert _migrated(source) == (
        "import jax\nfrom jax.sharding import Mesh\nmesh = Mesh(d, ('x',))\n"
        "with jax.set_mesh(mesh):  # note\n    f(mesh)\n")
    enclosing = "import jax\nfrom jax.sharding import Mesh\nmesh = Mesh(d, ('x',))\ndef run():\n    with mesh:\n        f()\n"
    assert "    with jax.set_mesh(mesh):\n" in _migrated(enclosing)
    unrelated = "import jax\nwith open(p) as f:\n    pass\n"
    assert _migrated(unrelated) == unrelated


def test_what_cannot_be_migrated_is_left_with_messages() -> None:
    program = PROGRAMS[0].parent / "m10_unknown_constructs.py"
    rewrite = migrate_text(str(program), program.read_text())
    assert rewrite.incomplete
    assert "from jax.experimental.maps import SerialLoop\n" in rewrite.text
    assert "print(maps.serial_loop)" in rewrite.text
    assert "with loop_mesh:" in rewrite.text
    joined = "\n".join(rewrite.messages)
    assert "SerialLoop" in joined and "maps.serial_loop" in joined and "loop_mesh" in joined


@pytest.mark.parametrize("module", sorted(RUNTIME_OWN))
def test_the_names_that_move_a_module_are_those_the_runtime_redefines(module: str) -> None:
    pytest.importorskip("jax")
    import importlib

    runtime = importlib.import_module("shapecheck.runtime." + module.rpartition(".")[2])
    own = {name for name, value in vars(runtime).items()
           if callable(value) and getattr(value, "__module__", None) == runtime.__name__ and not name.startswith("_")}
    assert own | set(runtime.__all__) == RUNTIME_OWN[module]


def test_an_import_among_other_statements_on_a_line() -> None:
    assert _migrated("from jax.experimental import maps; x = 1\n") == "from shapecheck import runtime as maps; x = 1\n"
    rewrite = migrate_text("t.py", "from jax.experimental.maps import xmap, Mesh; x = 1\n")
    assert rewrite.text == "from jax.experimental.maps import xmap, Mesh; x = 1\n"  # two homes: two lines
    assert rewrite.incomplete and "line 1: an import among other statements" in rewrite.messages[0]
