"""Refusals name the user's line and column, show only the user's frames, and warn of nothing."""

from __future__ import annotations

import os
import subprocess
import sys
import traceback
import warnings
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import AxisType, Mesh

import shapecheck.runtime.numpy as snp
from shapecheck.runtime import NamedAxisError, nn, xmap
from shapecheck.runtime.errors import Location
from tests.xla_settings import xla_flags

HERE = os.path.abspath(__file__)


def refusal(call: Any) -> NamedAxisError:
    with pytest.raises(NamedAxisError) as caught:
        call()
    return caught.value


def test_a_refused_call_names_the_line_and_column_of_the_call() -> None:
    f = xmap(lambda x, y: x * y, in_axes=(["i", ...], ["i", ...]), out_axes=["i", ...])
    with pytest.raises(NamedAxisError) as caught:
        line = sys._getframe().f_lineno + 1
        f(jnp.arange(5.0), jnp.arange(7.0))
    assert caught.value.location == Location(HERE, line, 9)
    assert str(caught.value).startswith(f"{os.path.relpath(HERE)}:{line}:9: SC102 named axis 'i'")


def test_a_refused_definition_names_the_xmap_call() -> None:
    line = sys._getframe().f_lineno + 1
    error = refusal(lambda: xmap(lambda x: x, ["i", ...], ["i", ...], axis_sizes={"k": 2.7}))
    assert error.location == Location(HERE, line, 29)


def test_a_value_that_breaks_a_rule_names_the_line_that_built_it() -> None:
    def body(x: Any, y: Any) -> Any:
        line.append(sys._getframe().f_lineno + 1)
        both = x * y  # holds 'a' and 'b', both on mesh axis 'x'
        return snp.sum(both, axis=("a", "b"))

    line: list[int] = []
    f = xmap(body, in_axes=(["a", ...], ["b", ...]), out_axes=[...], axis_resources={"a": "x", "b": "x"})
    with jax.set_mesh(Mesh(np.array(jax.devices()[:4]), ("x",))):
        error = refusal(lambda: f(jnp.ones(4), jnp.ones(8)))
    assert error.code == "SC201"
    assert error.location == Location(HERE, line[0], 16)


def test_an_inner_xmap_refused_inside_an_outer_one_names_the_inner_call() -> None:
    inner = xmap(lambda v, w: v * w, in_axes=(["j", ...], ["j", ...]), out_axes=["j", ...])
    line: list[int] = []

    def outer_body(v: Any) -> Any:
        line.append(sys._getframe().f_lineno + 1)
        return inner(v, v[:2])

    outer = xmap(outer_body, in_axes=["i", ...], out_axes=["i", ...])
    error = refusal(lambda: outer(jnp.ones((2, 3))))
    assert error.location == Location(HERE, line[0], 16)


def test_a_named_op_refused_in_a_body_names_its_line() -> None:
    line: list[int] = []

    def body(labels: Any) -> Any:
        line.append(sys._getframe().f_lineno + 1)
        return nn.one_hot(labels, 3, axis="classes")

    f = xmap(body, in_axes=[...], out_axes=["classes", ...], axis_sizes={"classes": 4})
    error = refusal(lambda: f(jnp.zeros(2, dtype=jnp.int32)))
    assert error.code == "SC102"
    assert error.location == Location(HERE, line[0], 16)


def test_the_traceback_holds_no_frame_of_the_runtime() -> None:
    f = xmap(lambda x, y: x * y, in_axes=(["i", ...], ["i", ...]), out_axes=["i", ...])
    error = refusal(lambda: jax.jit(f)(jnp.arange(5.0), jnp.arange(7.0)))
    printed = "".join(traceback.format_exception(error))
    assert HERE in printed
    assert f"shapecheck{os.sep}runtime" not in printed
    assert f"jax{os.sep}_src" not in printed


PROGRAM = '''\
import jax
import jax.numpy as jnp
from jax.sharding import AxisType
import shapecheck.runtime.numpy as snp
from shapecheck.runtime import xmap

# Everything the runtime does around meshes, jit and grad, with warnings as errors.
loss = xmap(lambda w, x: snp.sum(jnp.tanh(w * x), axis=('b', 'h')),
            in_axes=(['h', ...], ['b', 'h', ...]), out_axes=[...], axis_resources={'b': 'x', 'h': 'y'})
w, x = jnp.ones(4), jnp.ones((8, 4))
for kind in (AxisType.Auto, AxisType.Explicit):
    with jax.set_mesh(jax.make_mesh((4, 2), ('x', 'y'), (kind, kind))):
        loss(w, x)
        jax.jit(jax.grad(loss))(w, x)
print('ran')
f = xmap(lambda a, b: a * b, in_axes=(['i', ...], ['i', ...]), out_axes=['i', ...])
out = f(jnp.arange(5.0), jnp.arange(7.0))
'''


def test_a_program_s_refusal_as_the_user_sees_it(tmp_path: Path) -> None:
    """Run as a user would, warnings as errors: no warning, one refusal, only the user's frames."""
    program = tmp_path / "prog.py"
    program.write_text(PROGRAM)
    env = {**os.environ, "XLA_FLAGS": xla_flags(8), "JAX_PLATFORMS": "cpu"}
    run = subprocess.run([sys.executable, "-W", "error", str(program)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, check=False, timeout=120)
    assert run.returncode == 1 and run.stdout == "ran\n", run.stderr
    assert "prog.py:17:7: SC102 named axis 'i' has size 7" in run.stderr
    frames = [line for line in run.stderr.splitlines() if line.lstrip().startswith("File ")]
    assert frames and all("prog.py" in frame for frame in frames), run.stderr
    assert "Warning" not in run.stderr


def test_the_legacy_mesh_context_warns_only_at_the_user_s_line() -> None:
    """`with Mesh(...)` is the user's deprecated call: JAX's warning is theirs, none is the runtime's."""
    f = xmap(lambda x: snp.sum(x, axis="i"), in_axes=["i", ...], out_axes=[...], axis_resources={"i": "x"})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with Mesh(np.array(jax.devices()), ("x",)):
            f(jnp.ones((8, 2)))
            jax.jit(jax.grad(lambda x: f(x).sum()))(jnp.ones((8, 2)))
        with jax.set_mesh(jax.make_mesh((8,), ("x",), (AxisType.Explicit,))):
            f(jnp.ones((8, 2)))
    places = {(w.category.__name__, os.path.abspath(w.filename)) for w in caught}
    assert places <= {("DeprecationWarning", HERE)}, places
