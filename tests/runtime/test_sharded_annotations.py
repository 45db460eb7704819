"""Sharded annotations at run time: `@checked` holds `f32[(8, 16), P('X', 'Y')]` against
`jax.typeof` on 8 CPU devices, with the checker's own message (the static check's twin)."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from shapecheck import f32
from shapecheck.codes import Code
from shapecheck.engine import Engine
from shapecheck.runtime import NamedAxisError, checked


@pytest.fixture
def explicit() -> Any:
    return jax.make_mesh((2, 4), ("X", "Y"))


@checked
def scale(a: f32[(8, 16), P("X", "Y")]) -> f32[(8, 16), P("X", "Y")]:
    return a * 2


@checked
def regroup(a: f32[(8, 16), P("X", "Y")]) -> f32[(128,), P(("X", "Y"))]:
    return a.reshape(128)


@checked
def moved(a: f32[(8, 16), P("X", "Y")]) -> f32[(8, 16), P("X", "Y")]:
    return jax.sharding.reshard(a, P(None, "X"))


def test_a_value_split_as_declared_passes_eagerly_and_under_jit(explicit: Any) -> None:
    with jax.set_mesh(explicit):
        a = jax.device_put(jnp.ones((8, 16)), P("X", "Y"))
        assert str(jax.typeof(scale(a))) == "float32[8@X,16@Y]"
        assert str(jax.typeof(jax.jit(scale)(a))) == "float32[8@X,16@Y]"
        # A merged dim, written as jax.typeof prints `128@(X,Y)`.
        assert str(jax.typeof(regroup(a))) == "float32[128@(X,Y)]"


def test_an_argument_split_otherwise_is_refused_with_both_types(explicit: Any) -> None:
    with jax.set_mesh(explicit):
        b = jax.device_put(jnp.ones((8, 16)), P("Y", "X"))
        with pytest.raises(NamedAxisError) as raised:
            scale(b)
        assert raised.value.code is Code.ANNOTATION_MISMATCH
        assert "float32[8@Y,16@X]" in raised.value.message and "float32[8@X,16@Y]" in raised.value.message
        # Under jit the tracers carry the same types: refused while tracing.
        with pytest.raises(NamedAxisError):
            jax.jit(scale)(b)
        # Unsplit is a sharding too: float32[8,16] is not float32[8@X,16@Y].
        with pytest.raises(NamedAxisError):
            scale(jnp.ones((8, 16)))


def test_a_result_split_otherwise_is_refused(explicit: Any) -> None:
    with jax.set_mesh(explicit):
        a = jax.device_put(jnp.ones((8, 16)), P("X", "Y"))
        with pytest.raises(NamedAxisError) as raised:
            moved(a)
        assert "returns is float32[8,16@X]" in raised.value.message


def test_the_runtime_message_is_the_checkers() -> None:
    # The same program, checked statically and run: one rule, one message.
    source = (
        "import jax\nimport jax.numpy as jnp\nfrom jax.sharding import PartitionSpec as P\n"
        "from shapecheck import f32\n\n\n"
        "def scale(a: f32[(8, 16), P('X', 'Y')]) -> f32[(8, 16), P('X', 'Y')]:\n    return a * 2\n\n\n"
        "mesh = jax.make_mesh((2, 4), ('X', 'Y'))\nwith jax.set_mesh(mesh):\n"
        "    b = jax.device_put(jnp.ones((8, 16)), P('Y', 'X'))\n    scale(b)\n"
    )
    [static] = Engine().analyze("model.py", source).diagnostics
    with jax.set_mesh(jax.make_mesh((2, 4), ("X", "Y"))):
        b = jax.device_put(jnp.ones((8, 16)), P("Y", "X"))
        with pytest.raises(NamedAxisError) as raised:
            scale(b)
    # The static message names the argument's source (`b`); the runtime's says `x`.
    assert static.message.replace("reshard(b,", "reshard(x,") == raised.value.message


def test_auto_axes_split_no_type() -> None:
    # On an Auto mesh jax.typeof shows no split: a declared Auto axis asks for nothing, as in
    # the checker (DESIGN 3b: nothing new is reported on Auto axes).
    auto = Mesh(np.array(jax.devices()).reshape(2, 4), ("X", "Y"))
    a = jax.device_put(jnp.ones((8, 16)), NamedSharding(auto, P("X", "Y")))
    assert str(jax.typeof(a)) == "float32[8,16]"
    assert scale(a).shape == (8, 16)
    mixed = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit, AxisType.Auto))
    with jax.set_mesh(mixed):
        m = jax.device_put(jnp.ones((8, 16)), P("X", "Y"))
        assert str(jax.typeof(m)) == "float32[8@X,16]"
        scale(m)  # Y is Auto: only X is in the type, as declared
        with pytest.raises(NamedAxisError):
            scale(jax.sharding.reshard(m, P(None, None)))


def test_shapes_and_dtypes_are_checked_at_the_boundary_too(explicit: Any) -> None:
    with jax.set_mesh(explicit):
        with pytest.raises(NamedAxisError) as raised:
            scale(jax.device_put(jnp.ones((8, 8)), P("X", "Y")))
        assert raised.value.code is Code.ANNOTATION_MISMATCH


def test_string_annotations_read_the_sharding(explicit: Any) -> None:
    namespace: dict[str, Any] = {}
    exec(  # a module under `from __future__ import annotations`: the annotations are strings
        "from __future__ import annotations\n"
        "from jax.sharding import PartitionSpec as P\nfrom shapecheck import f32\n"
        "def double(a: f32[(8, 16), P('X', None)]):\n    return a * 2\n", namespace)
    double = checked(namespace["double"])
    with jax.set_mesh(explicit):
        double(jax.device_put(jnp.ones((8, 16)), P("X", None)))
        with pytest.raises(NamedAxisError):
            double(jax.device_put(jnp.ones((8, 16)), P("X", "Y")))


def test_the_runtime_annotation_carries_the_sharding() -> None:
    # `f32[...]` evaluated with a real PartitionSpec reads it as the source form does.
    declared = f32[(8, 16), {"batch": 4}, P(("X", "Y"), None)]
    assert declared.sharding is not None and declared.sharding.dims == (("X", "Y"), ())
    assert str(declared) == "f32[(8, 16), {'batch': 4}, P(('X', 'Y'))]"
