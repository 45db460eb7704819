"""A bare PartitionSpec, or a NamedSharding of Explicit axes given to with_sharding_constraint,
where no mesh is set, against JAX itself (8 CPU devices).

Each case is a program JAX runs as written: its last statement is refused (SC206 for a bare
spec, SC209 for the constraint) or runs, and the checker reports exactly that, on that line.
A program that may set a mesh the checker does not follow (a `setup_mesh()` it cannot read)
is never reported.
"""

from __future__ import annotations

import textwrap

import pytest

from shapecheck.api import analyze_source

pytest.importorskip("jax")

HEADER = """\
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("X", "Y"))
x = jnp.ones((8, 8))
"""

# name -> (the statements after HEADER, the code the last one gets, or None where JAX runs it)
CASES: dict[str, tuple[str, str | None]] = {
    "device_put of a bare spec": ("y = jax.device_put(x, P('X'))", "SC206"),
    "device_put of P()": ("y = jax.device_put(x, P())", "SC206"),
    "device_put of a NamedSharding": ("y = jax.device_put(x, NamedSharding(mesh, P('X')))", None),
    "device_put of a tree of bare specs": ("y = jax.device_put({'w': x}, {'w': P('X')})", "SC206"),
    "reshard to a bare spec": ("y = jax.sharding.reshard(x, P('X'))", "SC206"),
    "a constructor's out_sharding": ("y = jnp.zeros((8,), out_sharding=P('X'))", "SC206"),
    "a contraction's out_sharding": ("y = jnp.dot(x, x, out_sharding=P('X'))", "SC206"),
    "a constructor's NamedSharding out_sharding": (
        "y = jnp.zeros((8,), out_sharding=NamedSharding(mesh, P('X')))", "other"),
    "with_sharding_constraint of a bare spec": ("y = jax.lax.with_sharding_constraint(x, P('X'))", "SC206"),
    "with_sharding_constraint of Explicit axes": (
        "y = jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P('X')))", "SC209"),
    "with_sharding_constraint of Explicit axes under jit": (
        "y = jax.jit(lambda v: jax.lax.with_sharding_constraint(v, NamedSharding(mesh, P(None, 'Y'))))(x)", "SC209"),
    "with_sharding_constraint naming no axis": (
        "y = jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P()))", None),
    "with_sharding_constraint of Auto axes": (
        "auto = jax.make_mesh((2, 4), ('X', 'Y'), axis_types=(jax.sharding.AxisType.Auto,) * 2)\n"
        "y = jax.lax.with_sharding_constraint(x, NamedSharding(auto, P('X')))", None),
    "jit in_shardings of a bare spec": ("y = jax.jit(lambda v: v * 2, in_shardings=P('X'))(x)", "SC206"),
    "jit out_shardings of a bare spec": ("y = jax.jit(lambda v: v * 2, out_shardings=P('X'))(x)", "SC206"),
    "device_put of a bare spec under jit": ("y = jax.jit(lambda v: jax.device_put(v, P('X')))(x)", "SC206"),
    "a function called with no mesh": (
        "def place(v):\n    return jax.device_put(v, P('X'))\n\n\ny = place(x)", "SC206"),
    # Under a mesh, or where one may be set unseen, nothing is reported.
    "under jax.set_mesh": ("with jax.set_mesh(mesh):\n    y = jax.device_put(x, P('X'))", None),
    "after jax.set_mesh as a statement": ("jax.set_mesh(mesh)\ny = jax.device_put(x, P('X'))", None),
    "a function called under jax.set_mesh": (
        "def place(v):\n    return jax.device_put(v, P('X'))\n\n\nwith jax.set_mesh(mesh):\n    y = place(x)", None),
    "a helper that sets the mesh": (
        "def setup_mesh():\n    jax.set_mesh(jax.make_mesh((2, 4), ('X', 'Y')))\n\n\n"
        "setup_mesh()\ny = jax.device_put(x, P('X'))", None),
}


def _source(body: str) -> str:
    return HEADER + textwrap.dedent(body) + "\n"


@pytest.mark.parametrize("name", list(CASES))
def test_checker(name: str) -> None:
    body, code = CASES[name]
    source = _source(body)
    last = len(source.splitlines())
    found = [(d.span.line, d.code) for d in analyze_source("t.py", source).diagnostics]
    if code is None or code == "other":
        assert found == [], found
    else:
        assert [c for _, c in found] == [code], found
        # Reported at the last statement, or inside the function it calls.
        inside = [n for n, line in enumerate(source.splitlines(), 1) if line.startswith("    return")]
        assert found[0][0] in (last, *inside), found


@pytest.mark.parametrize("name", list(CASES))
def test_jax_agrees(name: str) -> None:
    body, code = CASES[name]
    namespace: dict[str, object] = {"__name__": "t"}
    program = compile(_source(body), "t.py", "exec", dont_inherit=True)
    import jax

    try:
        if code is None:
            exec(program, namespace)
            return
        with pytest.raises((ValueError, RuntimeError)):
            exec(program, namespace)
    finally:
        jax.set_mesh(None)  # a program's `jax.set_mesh(mesh)` statement sets it for the process
