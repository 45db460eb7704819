"""jax.numpy with named axes: reductions take `axis='name'` and einsum takes `{names}`.

Everything else is jax.numpy itself (module `__getattr__`), so this module can stand in for
`jax.numpy` in a program written for the removed xmap.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as _jnp

# Private names: a public `split` or `gather` here would shadow jax.numpy's own
# (`numpy.split(x, 2)` is jnp.split, reached through `__getattr__`).
from shapecheck.runtime.axes import gather as _gather
from shapecheck.runtime.axes import split as _split
from shapecheck.runtime.einsum import einsum

__all__ = ["einsum"]


def __getattr__(name: str) -> Any:
    return getattr(_jnp, name)


def _named_reduction(positional: Callable[..., Any]) -> Callable[..., Any]:
    """A jnp reduction that also reduces named axes: gather them, reduce them with the rest."""

    def reduce(a: Any, axis: Any = None, *args: Any, keepdims: bool = False, **kwargs: Any) -> Any:
        positions, names = _split(axis)
        if not names:
            return positional(a, axis, *args, keepdims=keepdims, **kwargs)
        a = _jnp.asarray(a)
        ndim = a.ndim
        gathered = _gather(a, names)
        count = len(names)
        axes = tuple(range(count)) + tuple((p % ndim) + count for p in positions or ())
        out = positional(gathered, axes, *args, keepdims=keepdims, **kwargs)
        # keepdims keeps positional dims only: named axes are gone from the named shape.
        return _jnp.squeeze(out, axis=tuple(range(count))) if keepdims else out

    reduce.__name__ = positional.__name__
    reduce.__doc__ = f"`jax.numpy.{positional.__name__}`, with named axes accepted in `axis`."
    return reduce


def _named_arg_reduction(positional: Callable[..., Any]) -> Callable[..., Any]:
    """argmax/argmin over one axis, which may be a name."""

    def reduce(a: Any, axis: Any = None, *args: Any, **kwargs: Any) -> Any:
        positions, names = _split(axis)
        if not names:
            return positional(a, axis, *args, **kwargs)
        if positions or len(names) > 1:
            raise ValueError(f"{positional.__name__} reduces one axis; got {axis!r}")
        return positional(_gather(a, names), 0, *args, **kwargs)

    reduce.__name__ = positional.__name__
    return reduce


# These shadow builtins on purpose: the module stands in for jax.numpy, which names them so.
sum = _named_reduction(_jnp.sum)
prod = _named_reduction(_jnp.prod)
max = _named_reduction(_jnp.max)
min = _named_reduction(_jnp.min)
amax = _named_reduction(_jnp.amax)
amin = _named_reduction(_jnp.amin)
mean = _named_reduction(_jnp.mean)
var = _named_reduction(_jnp.var)
std = _named_reduction(_jnp.std)
any = _named_reduction(_jnp.any)
all = _named_reduction(_jnp.all)
nansum = _named_reduction(_jnp.nansum)
nanmax = _named_reduction(_jnp.nanmax)
nanmin = _named_reduction(_jnp.nanmin)
nanmean = _named_reduction(_jnp.nanmean)
argmax = _named_arg_reduction(_jnp.argmax)
argmin = _named_arg_reduction(_jnp.argmin)
