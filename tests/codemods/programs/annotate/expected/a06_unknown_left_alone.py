"""Where a part is unknown nothing is written: an unknown dtype, a size from data, symbolic sizes
(the generic body), a parameter without a declared type, `Array` of any dtype. Only the
module-level result of the call whose argument is fully known gets its type."""
import sys

import jax.numpy as jnp
from shapecheck import Array, f32

DTYPE = getattr(jnp, sys.argv[-1])


def load(n):
    return jnp.zeros((n, 3), dtype=jnp.float32)


def generic(x: f32[('n', 3)]):
    doubled = x * 2
    return doubled


def anything(x: Array[(2, 3)]):
    copy = x + 1
    return copy


data = load(int(open(__file__).read(1) == '"'))
unknown_dtype = jnp.ones((2, 3), dtype=DTYPE)
generic_out: f32[(4, 3)] = generic(jnp.ones((4, 3), dtype=jnp.float32))
any_out = anything(jnp.ones((2, 3), dtype=DTYPE))
