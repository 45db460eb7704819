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
# The programs with what migrate leaves as written (and says so).
WITH_MESSAGES = {"m10_unknown_constructs", "m12_old_mesh_api_left"}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


def test_there_are_ten_programs() -> None:
    assert len(PROGRAMS) >= 10


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_migrates_as_recorded(program: Path) -> None:
    rewrite = migrate_text(str(program), program.read_text())
    assert_snapshot("migrate", program, rewrite.text)
    if program.stem not in WITH_MESSAGES:
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
    # `maps` is left unused: its import goes.
    assert _migrated("from jax.experimental import maps\nm = maps.Mesh(d, ('x',))\n") == (
        "from jax.sharding import Mesh\n\nm = Mesh(d, ('x',))\n")


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


def test_the_old_mesh_function_enters_through_set_mesh() -> None:
    """`jax.experimental.maps.mesh(devices, names)` was a function (a context manager yielding
    nothing): it becomes `jax.set_mesh(Mesh(devices, names))`, never a call of a module."""
    dotted = "import jax\nwith jax.experimental.maps.mesh(devices, ('dp', 'mp')):\n    f()\n"
    assert _migrated(dotted) == ("import jax\nfrom jax.sharding import Mesh\n\n"
                                 "with jax.set_mesh(Mesh(devices, ('dp', 'mp'))):\n    f()\n")
    imported = "from jax.experimental.maps import mesh as mk, xmap\nwith mk(d, n) as m, open(p):\n    xmap(g)\n"
    assert _migrated(imported) == ("from shapecheck.runtime import xmap\nimport jax\nfrom jax.sharding import Mesh\n\n"
                                   "with jax.set_mesh(Mesh(d, n)) as m, open(p):\n    xmap(g)\n")


def test_thread_resources_reads_and_sets_through_today_s_mesh_api() -> None:
    source = ("from jax.experimental import maps\nm = maps.thread_resources.env.physical_mesh\n"
              "maps.thread_resources.env = maps.ResourceEnv(physical_mesh=m, loops=())\n"
              "maps.thread_resources.env = maps.ResourceEnv(m, ())\n")
    assert _migrated(source) == "import jax\n\nm = jax.sharding.get_mesh()\njax.set_mesh(m)\njax.set_mesh(m)\n"


def test_pjit_becomes_jit_with_today_s_keywords() -> None:
    source = ("import functools\nfrom jax.experimental.pjit import pjit, PartitionSpec\n"
              "f = pjit(g, (PartitionSpec('x'),), None, (1,))\n"
              "h = functools.partial(pjit, in_axis_resources=None, out_axis_resources=None)\n")
    assert _migrated(source) == (
        "import functools\nfrom jax import jit as pjit\nfrom jax.sharding import PartitionSpec\n"
        "f = pjit(g, in_shardings=(PartitionSpec('x'),), out_shardings=None, static_argnums=(1,))\n"
        "h = functools.partial(pjit, in_shardings=None, out_shardings=None)\n")
    dotted = ("import jax\nfrom jax.experimental import PartitionSpec as P, pjit\n"
              "f = pjit.pjit(g, in_axis_resources=P('x'))\ny = pjit.with_sharding_constraint(x, axis_resources=P())\n"
              "z = jax.experimental.PartitionSpec('x')\n")
    assert _migrated(dotted) == (
        "import jax\nfrom jax.sharding import PartitionSpec, PartitionSpec as P\n"
        "f = jax.jit(g, in_shardings=P('x'))\ny = jax.lax.with_sharding_constraint(x, shardings=P())\n"
        "z = PartitionSpec('x')\n")


def test_what_the_old_mesh_api_leaves_is_named_with_today_s_form() -> None:
    rewrite = migrate_text("t.py", "from jax.experimental import maps\nctx = maps.mesh(d, n)\n"
                                   "maps.thread_resources.env = maps.ResourceEnv(m, (loop,))\n")
    assert rewrite.incomplete
    assert rewrite.text.startswith("from shapecheck import runtime as maps\n")  # the stand-ins keep it running
    joined = "\n".join(rewrite.messages)
    assert "line 2: `maps.mesh`" in joined and "jax.set_mesh(Mesh(devices, axis_names))" in joined
    assert "line 3: `maps.thread_resources`" in joined and "line 3: `maps.ResourceEnv`" in joined
