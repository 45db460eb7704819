"""jax.scipy.special with named axes in `logsumexp` (the xmap tutorial imports it from there)."""

from __future__ import annotations

from typing import Any

import jax.scipy.special as _special

from shapecheck.runtime.nn import logsumexp

__all__ = ["logsumexp"]


def __getattr__(name: str) -> Any:
    return getattr(_special, name)
