"""Qualified names of the APIs the analyzer understands, and the aliases that mean the same.

Matching is on qualified names, never on text as written: `jnp.einsum`, `np.einsum` after
`import jax.numpy as np`, and `from jax.numpy import einsum` all arrive here as
`jax.numpy.einsum`.
"""

from __future__ import annotations

from typing import Final

JNP: Final = "jax.numpy"
LAX: Final = "jax.lax"
NN: Final = "jax.nn"
SPECIAL: Final = "jax.scipy.special"
OPS: Final = "jax.ops"
XMAP: Final = "jax.experimental.maps.xmap"
VMAP: Final = "jax.vmap"
PMAP: Final = "jax.pmap"
MESH: Final = "jax.sharding.Mesh"
MAKE_MESH: Final = "jax.make_mesh"
ABSTRACT_MESH: Final = "jax.sharding.AbstractMesh"
SET_MESH: Final = "jax.set_mesh"
USE_MESH: Final = "jax.sharding.use_mesh"
DEVICES: Final = "jax.devices"
LOCAL_DEVICES: Final = "jax.local_devices"
PARTIAL: Final = "functools.partial"
NP_ARRAY: Final = "jax.numpy.array"
SHARD_MAP: Final = "jax.shard_map"
EXPERIMENTAL_SHARD_MAP: Final = "jax.experimental.shard_map.shard_map"
PARTITION_SPEC: Final = "jax.sharding.PartitionSpec"
NAMED_SHARDING: Final = "jax.sharding.NamedSharding"
DEVICE_PUT: Final = "jax.device_put"
WITH_SHARDING_CONSTRAINT: Final = "jax.lax.with_sharding_constraint"
RESHARD: Final = "jax.sharding.reshard"
JIT: Final = "jax.jit"
PJIT: Final = "jax.experimental.pjit.pjit"
MAKE_ARRAY_FROM_CALLBACK: Final = "jax.make_array_from_callback"
SHAPE_DTYPE_STRUCT: Final = "jax.ShapeDtypeStruct"
NP_RANDOM: Final = "numpy.random"
DATACLASSES_REPLACE: Final = "dataclasses.replace"
TREE_MAP: Final = "jax.tree.map"

# Longest prefix first: a name is rewritten by the first alias whose key prefixes it.
_ALIASES: Final = (
    ("shapecheck.runtime.numpy", JNP),
    ("shapecheck.runtime.lax", LAX),
    ("shapecheck.runtime.nn", NN),
    # The runtime's special module is jax.scipy.special with a named-axis logsumexp (jax.nn's).
    ("shapecheck.runtime.special.logsumexp", "jax.nn.logsumexp"),
    ("shapecheck.runtime.special", "jax.scipy.special"),
    ("shapecheck.runtime.xmap", XMAP),
    ("shapecheck.runtime.maps.xmap", XMAP),
    ("jax.experimental.maps.Mesh", MESH),
    ("jax.experimental.mesh_utils", "jax.experimental.mesh_utils"),
    ("jax._src.numpy.lax_numpy", JNP),
    ("optax.losses", "optax"),  # optax's losses, re-exported at its top level
    ("jax.scipy.special.logsumexp", "jax.nn.logsumexp"),
    ("jax.scipy.special.softmax", "jax.nn.softmax"),
    ("jax.scipy.special", "jax.scipy.special"),
    ("jax.api.vmap", VMAP),
    ("jax.lax.axis_index", "jax.lax.axis_index"),
    ("jax.interpreters.pxla.Mesh", MESH),
    ("jax.sharding.use_mesh", USE_MESH),
    # Shardings under their current names (older JAX exported them from jax.experimental).
    ("jax.P", PARTITION_SPEC),
    ("jax.experimental.PartitionSpec", PARTITION_SPEC),
    ("jax.experimental.pjit.PartitionSpec", PARTITION_SPEC),
    ("jax.interpreters.pxla.PartitionSpec", PARTITION_SPEC),
    ("jax.NamedSharding", NAMED_SHARDING),
    ("jax.experimental.pjit.with_sharding_constraint", WITH_SHARDING_CONSTRAINT),
    # Pytree functions under the names JAX 0.4 exported them by (removed since).
    ("jax.tree_map", TREE_MAP),
    ("jax.tree_util.tree_multimap", TREE_MAP),
    ("jax.tree_leaves", "jax.tree.leaves"),
    ("jax.reshard", RESHARD),
    ("jax.experimental.shard.reshard", RESHARD),
    # flax.linen re-exports jax.nn's activations and initializers under its own names.
    ("flax.linen.initializers", "jax.nn.initializers"),
    ("flax.linen.activation", NN),
    *((f"flax.linen.{name}", f"{NN}.{name}") for name in (
        "relu", "relu6", "sigmoid", "softplus", "soft_sign", "silu", "swish", "log_sigmoid", "leaky_relu",
        "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "elu", "celu", "selu", "gelu", "glu", "tanh",
        "softmax", "log_softmax", "logsumexp", "one_hot", "standardize", "normalize")),
    # flax.nnx re-exports them too (its initializers are a module of its own, the same functions),
    # and linen's pooling.
    ("flax.nnx.initializers", "jax.nn.initializers"),
    *((f"flax.nnx.{name}", f"flax.linen.{name}") for name in ("avg_pool", "max_pool", "min_pool")),
    *((f"flax.nnx.{name}", f"{NN}.{name}") for name in (
        "relu", "relu6", "sigmoid", "softplus", "soft_sign", "silu", "swish", "log_sigmoid", "leaky_relu",
        "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "elu", "celu", "selu", "gelu", "glu", "tanh",
        "softmax", "log_softmax", "logsumexp", "one_hot", "standardize", "identity")),
    # NumPy's random module has no twin in jax.numpy: its generators keep their own names.
    ("numpy.random", NP_RANDOM),
    ("numpy", JNP),
)

# Every JAX-ish root the analyzer interprets; other qualified names are opaque.
ARRAY_ROOTS: Final = ("jax", "numpy", "shapecheck", "jaxtyping", "functools")


CONSTANTS: Final[dict[str, float | None]] = {
    f"{module}.{name}": value
    for module in (JNP, "numpy", "math")
    for name, value in (("inf", float("inf")), ("nan", float("nan")), ("pi", 3.141592653589793),
                        ("e", 2.718281828459045), ("newaxis", None))
    if not (module == "math" and name == "newaxis")
}
"""Module constants programs compute with (`-jnp.inf` as a mask value, `x[:, jnp.newaxis]`)."""


def canonical(name: str) -> str:
    """The one name an API goes by, whichever module the program imported it from."""
    found = _canonical.get(name)
    if found is None:
        found = name
        for alias, target in _ALIASES:
            if name == alias or name.startswith(alias + "."):
                found = target + name[len(alias):]
                break
        # Asked for every call and attribute of every analysis: the scan of the aliases once
        # per name (the names a program writes are few).
        _canonical[name] = found
    return found


_canonical: dict[str, str] = {}


def spellings(name: str) -> frozenset[str]:
    """Every qualified name `canonical` makes `name`: itself and its aliases (`jax.P` for
    `jax.sharding.PartitionSpec`)."""
    found = {name}
    for alias, target in _ALIASES:
        if name == target or name.startswith(target + "."):
            found.add(alias + name[len(target):])
    return frozenset(spelled for spelled in found if canonical(spelled) == name)


def member(name: str, module: str) -> str | None:
    """`name`'s last part when it is a direct member of `module` (after canonicalisation)."""
    name = canonical(name)
    prefix = module + "."
    if name.startswith(prefix) and "." not in name[len(prefix):]:
        return name[len(prefix):]
    return None
