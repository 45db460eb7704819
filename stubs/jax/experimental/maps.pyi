# The module JAX removed (0.4.31), as `shapecheck run` provides it: `xmap` is shapecheck's
# runtime xmap (same signature and meaning), `Mesh` is jax.sharding's, and the old mesh API
# (`mesh`, `thread_resources`, `ResourceEnv`) is the runtime's, on today's jax.set_mesh.
# Shipped as part of the partial stub package `jax-stubs`, so mypy (and other type checkers)
# resolve `from jax.experimental.maps import xmap` and look up every other jax module in jax itself.
#
# Each name is declared with its runtime's signature (shapecheck.runtime.xmap and .legacy; a
# test compares them), not imported from there: the runtime's package imports the whole
# runtime, which mypy would then analyse (some 70 of shapecheck's modules) in every project
# that imports this module.
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from jax.sharding import Mesh as Mesh

def xmap(
    fun: Callable[..., Any],
    in_axes: Any,
    out_axes: Any,
    *,
    axis_sizes: Mapping[Any, int] | None = None,
    axis_resources: Mapping[Any, Any] | None = None,
    donate_argnums: int | Sequence[int] = (),
    backend: str | None = None,
) -> Callable[..., Any]: ...
@contextmanager
def mesh(devices: Any, axis_names: Sequence[str]) -> Iterator[None]: ...
def ResourceEnv(physical_mesh: Mesh, loops: Sequence[object] = ()) -> Any: ...

class _ThreadResources:
    @property
    def env(self) -> Any: ...
    @env.setter
    def env(self, value: Any) -> None: ...
    def restore(self) -> None: ...

thread_resources: _ThreadResources
