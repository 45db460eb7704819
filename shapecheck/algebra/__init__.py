"""The shape algebra: pure functions over ArrayType that return types and problems as values.

Nothing here knows about syntax trees, mypy or jax. Every function takes `labels`, the
front end's words for its operands (`x`, "argument 2 of xmap (in_axes[1])"), so messages
name the places the user wrote.
"""

from shapecheck.algebra.outcome import Outcome, Problem

__all__ = ["Outcome", "Problem"]
