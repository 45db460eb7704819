# A leading comment stays where it is.
"""Comments, spacing, semicolons and continuation lines are kept as written; the new dtype name
joins the existing `from shapecheck import` line in order."""
import jax.numpy as jnp
from shapecheck import i32  # the integer annotations

a   =   jnp.ones((4,), dtype=jnp.float32)   # odd spacing, kept
b = (a +
     1.0)  # a continuation line
c = jnp.zeros((2,), dtype=jnp.int32); d = c + 1  # two statements on one line
e: i32[(2,)] = c  # already annotated: left as it is
