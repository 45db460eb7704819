# jax.experimental.pjit as `shapecheck run` provides it: `pjit` with its old keywords
# (`in_axis_resources`/`out_axis_resources`, the old names of jax.jit's in_shardings and
# out_shardings) and the names the module once re-exported.
#
# Each function is declared with its runtime's signature (shapecheck.runtime.legacy; a test
# compares them), not imported from there: mypy would then analyse the whole runtime in every
# project that imports this module.
from collections.abc import Callable, Sequence
from typing import Any

from jax.sharding import PartitionSpec as PartitionSpec

def pjit(fun: Callable[..., Any], in_axis_resources: Any = ..., out_axis_resources: Any = ...,
         static_argnums: int | Sequence[int] | None = None, donate_argnums: int | Sequence[int] | None = None,
         **options: Any) -> Any: ...
def with_sharding_constraint(x: Any, axis_resources: Any = ..., **options: Any) -> Any: ...
