"""The xmap tutorial's local annotation names (`f32 = ArrayType()`): annotations use them, and no
import of shapecheck's names is added."""
from typing import Any

import jax.numpy as jnp
import numpy as np


class ArrayType:
    def __getitem__(self, idx):
        return Any


f32 = ArrayType()
i32 = ArrayType()

x: f32[(2, 3)] = np.ones((2, 3), dtype=np.float32)
y = jnp.ones((3, 5), dtype=jnp.float32)
z = x.dot(y)
w = jnp.ones((7, 1, 5), dtype=jnp.float32)
q = z + w
