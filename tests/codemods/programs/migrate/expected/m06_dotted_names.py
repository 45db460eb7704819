"""Everything through dotted names of `import jax`: the xmap module itself, lax's collectives
and jax.numpy's named reductions; the dotted forms move to shapecheck.runtime."""
import jax
import shapecheck.runtime
import shapecheck.runtime.lax
import shapecheck.runtime.numpy


def center(x):
    total = shapecheck.runtime.lax.psum(x, 'i')
    count = shapecheck.runtime.lax.psum(1, 'i')
    return x - total / count + shapecheck.runtime.numpy.max(x, axis='i') * 0


x = shapecheck.runtime.numpy.arange(24.0).reshape((8, 3))
centered = shapecheck.runtime.xmap(center, in_axes=['i', ...], out_axes=['i', ...])(x)
print(centered)
print(shapecheck.runtime.numpy.sum(centered, axis=0))
