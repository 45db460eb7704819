"""Places where an annotation would change the program's meaning or cannot be written: class
bodies (a dataclass field), names bound twice, a `global` name, tuple and chained targets,
generators, async functions, functions that may fall off their end, methods."""
import dataclasses

import jax.numpy as jnp
from shapecheck import f32

total = jnp.zeros((3,), dtype=jnp.float32)


@dataclasses.dataclass
class Params:
    w = jnp.ones((3,), dtype=jnp.float32)

    def doubled(self, x: f32[(3,)]):
        return x * 2


def accumulate(x: f32[(3,)]):
    global total
    total = total + x
    return total


def steps(x: f32[(3,)]):
    yield x * 2


async def later(x: f32[(3,)]):
    return x * 2


def maybe(x: f32[(3,)], flag: bool):
    if flag:
        return x * 2


twice = jnp.ones((2,), dtype=jnp.float32)
twice = jnp.ones((4,), dtype=jnp.float32)
p, q = jnp.ones((2,), dtype=jnp.float32), jnp.ones((2,), dtype=jnp.float32)
r = s = jnp.ones((2,), dtype=jnp.float32)
