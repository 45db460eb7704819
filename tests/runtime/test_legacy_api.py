"""The old mesh and partitioning API under `shapecheck run`: each name keeps its old meaning on
JAX 0.10.2 (the old mesh function, thread_resources, ResourceEnv, jax.experimental.PartitionSpec,
pjit's in_axis_resources), or is refused with the replacement named."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from jax.sharding import Mesh, NamedSharding, PartitionSpec  # noqa: E402

from shapecheck.runtime import RemovedAPIError, legacy  # noqa: E402
from shapecheck.runtime.install import stand_ins  # noqa: E402


@pytest.fixture
def installed() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # none of the old names may reach a deprecated JAX API
        with stand_ins():
            yield


def _devices() -> np.ndarray:
    return np.array(jax.devices()[:8]).reshape((2, 4))


def _double() -> object:
    from jax.experimental.maps import xmap

    return xmap(lambda v: v * 2, in_axes=["rows", ...], out_axes=["rows", ...], axis_resources={"rows": "dp"})


def test_the_old_mesh_function_enters_the_mesh_and_yields_nothing(installed: None) -> None:
    import jax.experimental.maps
    from jax.experimental import maps

    x = jax.numpy.arange(16.0).reshape((8, 2))
    with jax.experimental.maps.mesh(_devices(), ("dp", "mp")) as bound:
        assert bound is None  # as the removed function (it yielded nothing)
        assert dict(jax.sharding.get_mesh().shape) == {"dp": 2, "mp": 4}
        y = _double()(x)  # type: ignore[operator]
    assert y.sharding.spec == PartitionSpec("dp")  # really split over the mesh axis
    np.testing.assert_array_equal(y, 2 * x)
    assert jax.sharding.get_mesh().empty
    with maps.mesh(jax.devices()[:2], ["dp"]):  # a list of devices, as the old function took
        assert jax.sharding.get_abstract_mesh().axis_types == (jax.sharding.AxisType.Auto,)


def test_thread_resources_reads_and_sets_the_mesh(installed: None) -> None:
    from jax.experimental.maps import Mesh as MapsMesh
    from jax.experimental.maps import ResourceEnv, thread_resources

    assert thread_resources.env.physical_mesh.empty
    with MapsMesh(_devices(), ("dp", "mp")):  # the legacy `with Mesh(...)` form
        assert thread_resources.env.physical_mesh.shape == {"dp": 2, "mp": 4}
        assert jax.jit(lambda: thread_resources.env.physical_mesh.size)() == 8  # read under jit too
    thread_resources.env = ResourceEnv(MapsMesh(_devices(), ("dp", "mp")), ())
    assert dict(jax.sharding.get_mesh().shape) == {"dp": 2, "mp": 4}
    assert _double()(jax.numpy.ones((4, 2))).sharding.spec == PartitionSpec("dp")  # type: ignore[operator]
    with pytest.raises(TypeError, match=r"jax\.set_mesh"):
        thread_resources.env = "mesh"


def test_a_mesh_set_through_thread_resources_is_unset_after_the_run() -> None:
    with stand_ins():
        from jax.experimental.maps import ResourceEnv, thread_resources

        thread_resources.env = ResourceEnv(Mesh(_devices(), ("dp", "mp")))
    assert jax.sharding.get_mesh().empty


def test_serial_loops_are_refused_with_the_replacement(installed: None) -> None:
    from jax.experimental import maps

    with pytest.raises(RemovedAPIError, match=r"jax\.lax\.map"):
        from jax.experimental.maps import SerialLoop  # noqa: F401
    with pytest.raises(RemovedAPIError, match=r"serial loops.*jax\.lax\.map"):
        maps.ResourceEnv(Mesh(_devices(), ("dp", "mp")), (("loop", 2),))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        maps.nothing  # noqa: B018


def test_pjit_takes_its_old_keywords(installed: None) -> None:
    from jax.experimental import PartitionSpec as P
    from jax.experimental.pjit import pjit, with_sharding_constraint

    assert P is PartitionSpec
    init = pjit(lambda k: jax.random.normal(k, (8, 4)), in_axis_resources=None, out_axis_resources=P("dp", "mp"))
    positional = pjit(lambda a: with_sharding_constraint(a * 2, P("dp")), (P("dp", "mp"),), P(None, "mp"))
    with jax.experimental.maps.mesh(_devices(), ("dp", "mp")):
        a = init(jax.random.PRNGKey(0))
        b = positional(a)
    assert a.sharding.spec == P("dp", "mp") and b.sharding.spec == P(None, "mp")
    np.testing.assert_allclose(b, 2 * np.asarray(a))
    with pytest.raises(TypeError, match="old name of in_shardings"):
        pjit(abs, in_axis_resources=None, in_shardings=None)


def test_with_sharding_constraint_takes_its_old_keyword() -> None:
    mesh = Mesh(_devices(), ("dp", "mp"))
    constrained = jax.jit(lambda a: legacy.with_sharding_constraint(a, axis_resources=NamedSharding(mesh, PartitionSpec("mp"))))
    assert constrained(jax.numpy.ones(8)).sharding.spec == PartitionSpec("mp")


def test_jax_is_itself_again_afterwards() -> None:
    import jax.experimental

    with stand_ins():
        pass
    assert not hasattr(jax.experimental, "PartitionSpec")
    assert "jax.experimental.maps" not in sys.modules
    pjit_module = sys.modules.get("jax.experimental.pjit")
    assert pjit_module is None or "shapecheck" not in (pjit_module.__doc__ or "")


def test_the_runtime_package_keeps_the_old_mesh_api_for_migrated_programs() -> None:
    """`from jax.experimental import maps` migrates to `from shapecheck import runtime as maps`:
    what migrate leaves of the old mesh API still runs there (never `shapecheck.runtime.mesh`,
    a module, called)."""
    import shapecheck.runtime as maps

    assert maps.mesh is legacy.mesh and callable(maps.mesh)
    with maps.mesh(_devices(), ("dp", "mp")):
        assert maps.thread_resources.env.physical_mesh.shape == {"dp": 2, "mp": 4}
