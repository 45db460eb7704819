# jax.experimental.pjit as `shapecheck run` provides it: `pjit` with its old keywords
# (`in_axis_resources`/`out_axis_resources`, the old names of jax.jit's in_shardings and
# out_shardings) and the names the module once re-exported.
from jax.sharding import PartitionSpec as PartitionSpec
from shapecheck.runtime.legacy import pjit as pjit
from shapecheck.runtime.legacy import with_sharding_constraint as with_sharding_constraint
