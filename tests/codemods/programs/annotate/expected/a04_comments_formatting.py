# A leading comment stays where it is.
"""Comments, spacing, semicolons and continuation lines are kept as written; the new dtype name
joins the existing `from shapecheck import` line in order."""
import jax.numpy as jnp
from shapecheck import f32, i32  # the integer annotations

a: f32[(4,)]   =   jnp.ones((4,), dtype=jnp.float32)   # odd spacing, kept
b: f32[(4,)] = (a +
     1.0)  # a continuation line
c: i32[(2,)] = jnp.zeros((2,), dtype=jnp.int32); d: i32[(2,)] = c + 1  # two statements on one line
e: i32[(2,)] = c  # already annotated: left as it is
