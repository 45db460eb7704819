"""jax.nn with named axes: one_hot along a named axis, logsumexp/softmax over names.

All of it differentiates: the named forms are built from all_gather and positional jax.nn,
never from `lax.pmax` (which has no derivative rule; the removed xmap failed there).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import jax.nn as _nn
import jax.numpy as _jnp
from jax import lax as _lax

from shapecheck.algebra.one_hot import named_classes
from shapecheck.runtime.axes import gather, split
from shapecheck.runtime.boundary import boundary
from shapecheck.runtime.errors import raise_problems

__all__ = ["log_softmax", "logsumexp", "one_hot", "softmax"]

_psum: Callable[..., Any] = _lax.psum  # jax.lax.psum is untyped


def __getattr__(name: str) -> Any:
    return getattr(_nn, name)


@boundary
def one_hot(x: Any, num_classes: int, *, dtype: Any = None, axis: Any = -1) -> Any:
    """`jax.nn.one_hot`; with `axis='name'` the classes run along that named axis (SC102)."""
    if not isinstance(axis, str):
        return _nn.one_hot(x, num_classes, dtype=dtype, axis=axis)
    size = _psum(1, axis)
    count = int(num_classes) if isinstance(num_classes, numbers.Integral) else None
    raise_problems(named_classes(count, axis, size if isinstance(size, int) else None)[1])
    hot = _jnp.asarray(x) == _lax.axis_index(axis)
    return hot.astype(dtype if dtype is not None else _jnp.float32)


def logsumexp(a: Any, axis: Any = None, b: Any = None, keepdims: bool = False,
              return_sign: bool = False, where: Any = None) -> Any:
    """`jax.nn.logsumexp`, with named axes accepted in `axis` (removed from the named shape)."""
    positions, names = split(axis)
    if not names:
        return _nn.logsumexp(a, axis, b, keepdims, return_sign, where)
    a = _jnp.asarray(a)
    count = len(names)
    axes = tuple(range(count)) + tuple((p % a.ndim) + count for p in positions or ())
    gathered_b = None if b is None else gather(_jnp.broadcast_to(b, a.shape), names)
    gathered_w = None if where is None else gather(_jnp.broadcast_to(where, a.shape), names)
    out: Any = _nn.logsumexp(gather(a, names), axes, gathered_b, keepdims, return_sign, gathered_w)
    if not keepdims:
        return out
    squeeze = tuple(range(count))
    if return_sign:
        return _jnp.squeeze(out[0], squeeze), _jnp.squeeze(out[1], squeeze)
    return _jnp.squeeze(out, squeeze)


def log_softmax(x: Any, axis: Any = -1, where: Any = None) -> Any:
    """`jax.nn.log_softmax`; a named axis stays in the result's named shape."""
    if not split(axis)[1]:
        return _nn.log_softmax(x, axis=axis, where=where)
    return x - logsumexp(x, axis, keepdims=True, where=where)


def softmax(x: Any, axis: Any = -1, where: Any = None) -> Any:
    """`jax.nn.softmax`; a named axis stays in the result's named shape."""
    if not split(axis)[1]:
        return _nn.softmax(x, axis=axis, where=where)
    return _jnp.exp(log_softmax(x, axis, where))
