"""jax.lax with the named-axis collectives of the removed xmap.

`psum pmean all_gather axis_index ppermute pshuffle` are jax.lax's own (they work over vmap
levels); `pmax`/`pmin` are rebuilt from all_gather so they can be differentiated (jax.lax's
have no derivative rule), `pdot` (removed from jax.lax) contracts named axes with one
dot_general, and every collective also accepts positional ints among its axes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as _jnp
from jax import lax as _lax

# Private names: a public `gather` here would shadow jax.lax.gather (reached through `__getattr__`).
from shapecheck.runtime.axes import gather as _gather
from shapecheck.runtime.axes import split as _split

__all__ = ["pdot", "pmax", "pmean", "pmin", "psum"]


def __getattr__(name: str) -> Any:
    return getattr(_lax, name)


def _collective(named: Callable[..., Any], positional: Callable[..., Any]) -> Callable[..., Any]:
    def reduce(x: Any, axis_name: Any, **kwargs: Any) -> Any:
        positions, names = _split(axis_name)
        if positions:
            x = jax.tree_util.tree_map(lambda leaf: positional(leaf, axis=positions), x)
        return named(x, names, **kwargs) if names else x

    reduce.__name__ = named.__name__
    reduce.__doc__ = f"`jax.lax.{named.__name__}` over named axes and positional ints."
    return reduce


def _gathered(reduction: Callable[..., Any]) -> Callable[..., Any]:
    """A named max/min that JAX can differentiate: gather the axes, reduce them positionally."""

    def reduce(x: Any, axis_name: Any, **_: Any) -> Any:
        names = tuple(axis_name) if isinstance(axis_name, tuple | list) else (axis_name,)
        count = len(names)
        return jax.tree_util.tree_map(
            lambda leaf: reduction(_gather(leaf, names), axis=tuple(range(count))), x)

    return reduce


psum = _collective(_lax.psum, _jnp.sum)
pmean = _collective(_lax.pmean, _jnp.mean)
pmax = _collective(_gathered(_jnp.max), _jnp.max)
pmin = _collective(_gathered(_jnp.min), _jnp.min)
pmax.__name__, pmin.__name__ = "pmax", "pmin"


def pdot(x: Any, y: Any, axis_name: Any, *, pos_contract: tuple[Any, Any] = ((), ()),
         pos_batch: tuple[Any, Any] = ((), ()), precision: Any = None) -> Any:
    """Contract named axes (and positional ones): result dims are batch, lhs free, rhs free."""
    names = tuple(axis_name) if isinstance(axis_name, tuple | list) else (axis_name,)
    x, y = _jnp.asarray(x), _jnp.asarray(y)
    count = len(names)

    def moved(axes: Any, ndim: int) -> tuple[int, ...]:
        return tuple((int(a) % ndim) + count for a in axes)

    contract = (tuple(range(count)) + moved(pos_contract[0], x.ndim),
                tuple(range(count)) + moved(pos_contract[1], y.ndim))
    batch = (moved(pos_batch[0], x.ndim), moved(pos_batch[1], y.ndim))
    return _lax.dot_general(_gather(x, names), _gather(y, names), (contract, batch), precision=precision)
