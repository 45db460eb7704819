"""Which named axes a value carries inside xmap: read from the vmap tracers that hold it.

xmap runs its body under one `jax.vmap` per named axis, so a value has named axis `n` exactly
when the batching tracer of the level named `n` maps one of its dims. JAX has no public query
for that; this module is the one place that reads `BatchTracer` internals, so a JAX upgrade
that moves them breaks one small file.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from jax._src.interpreters import batching


def named_shape(value: Any, names: Collection[str]) -> dict[str, int]:
    """The named shape of `value` restricted to `names` (the axes of the enclosing xmap)."""
    found: dict[str, int] = {}
    seen: set[object] = set()
    tracer = value
    while isinstance(tracer, batching.BatchTracer):
        axis = tracer._trace.axis_data
        # The innermost level of a name wins: an inner vmap may reuse an outer level's name.
        if axis.name in names and axis.name not in seen and tracer.batch_dim is not None:
            found[axis.name] = int(axis.size)
        seen.add(axis.name)
        tracer = tracer.val
    return found
