"""What jax.nn's initializers (flax.linen.initializers) require of the shape they fill: the
variance-scaling family computes fan-in and fan-out from a weight of at least 2 dims (with the
default in_axis), orthogonal needs at least 2 dims, delta_orthogonal 3 to 5. A bias or a scale
given such an initializer is refused when the model is initialised (JAX's ValueError)."""

from __future__ import annotations

from typing import Final

from shapecheck.algebra.outcome import Problem
from shapecheck.analyzer.qualnames import canonical
from shapecheck.analyzer.values import Layer, Value
from shapecheck.codes import Code
from shapecheck.dims import Dim, format_shape

INITIALIZERS: Final = "jax.nn.initializers"  # flax.linen.initializers is an alias (qualnames)

_FANS: Final = frozenset({"variance_scaling", "glorot_normal", "glorot_uniform", "xavier_normal", "xavier_uniform",
                          "lecun_normal", "lecun_uniform", "he_normal", "he_uniform", "kaiming_normal",
                          "kaiming_uniform"})


def rank_problem(init: Value, dims: tuple[Dim, ...], what: str) -> Problem | None:
    """SC106 where the initializer `init` cannot fill an array of `dims` (`what` names it)."""
    if not isinstance(init, Layer) or not canonical(init.name).startswith(f"{INITIALIZERS}."):
        return None
    name = canonical(init.name).rpartition(".")[2]
    rank = len(dims)
    if name in _FANS and rank <= 1 and not init.given("in_axis"):
        needs = "at least 2 dims (it computes fan-in and fan-out from them)"
    elif name == "orthogonal" and rank < 2:
        needs = "at least 2 dims"
    elif name == "delta_orthogonal" and not 3 <= rank <= 5:
        needs = "3, 4 or 5 dims"
    else:
        return None
    return Problem(Code.AXIS_OUT_OF_RANGE,
                   f"{what} is initialised by jax.nn.initializers.{name}, which needs a shape of {needs}, but it has "
                   f"shape {format_shape(dims)} (JAX's ValueError when the model is initialised); use an "
                   f"initializer for any shape, such as initializers.zeros or normal(0.01)")
