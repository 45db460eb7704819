"""jax.tree.map over trees of drawn structures against JAX: the first tree, and others of its
structure, of another one (keys, lengths, kinds, a leaf for a node) or with more below its
leaves (the first tree a prefix of theirs). Where JAX accepts, the checker reports nothing and
infers the shape of the stacked leaves; where it raises, the checker reports it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.differential import agree, cases

pytest.importorskip("jax")

CASES = cases(150)

PROGRAM = """\
import jax
import jax.numpy as jnp

mapped = jax.tree.map(lambda a, *rest: a + 1, {first}, {others})
out = jnp.stack([jnp.zeros(2), *jax.tree.leaves(mapped)])
"""

LEAF = "jnp.zeros(2)"


@st.composite
def trees(draw: st.DrawFn, depth: int = 0) -> Any:
    """A tree as nested Python: a leaf (str), a tuple, a list, a dict, or None."""
    kind = draw(st.integers(0, 4)) if depth < 2 else 0
    if kind == 0:
        return LEAF
    if kind == 4:
        return None
    items = draw(st.lists(trees(depth + 1), max_size=3))
    if kind == 1:
        return tuple(items)
    if kind == 2:
        return list(items)
    return {key: item for key, item in zip("abc", items, strict=False)}


@st.composite
def changed(draw: st.DrawFn, tree: Any) -> Any:
    """`tree` with one change somewhere, or none, or a subtree below one of its leaves."""
    kind = draw(st.integers(0, 6))
    if tree == LEAF:
        return draw(trees()) if kind == 0 else LEAF  # more below the leaf: allowed
    if kind == 1:
        return LEAF  # a leaf for a node
    if kind == 2:
        return draw(trees())
    if isinstance(tree, tuple | list):
        items = [draw(changed(item)) for item in tree]
        if kind == 3:
            items = items[:-1] if items else [LEAF]
        return list(items) if isinstance(tree, list) != (kind == 4) else tuple(items)
    if isinstance(tree, dict):
        found = {key: draw(changed(item)) for key, item in tree.items()}
        if kind == 3:
            found = {("z" if index == 0 else key): item for index, (key, item) in enumerate(found.items())} \
                if found else {"z": LEAF}
        return found
    return tree  # None


def _text(tree: Any) -> str:
    if tree is None:
        return "None"
    if isinstance(tree, str):
        return tree
    if isinstance(tree, dict):
        return "{" + ", ".join(f"{key!r}: {_text(item)}" for key, item in tree.items()) + "}"
    inner = ", ".join(_text(item) for item in tree)
    return f"[{inner}]" if isinstance(tree, list) else f"({inner}{',' if len(tree) == 1 else ''})"


@st.composite
def programs(draw: st.DrawFn) -> str:
    first = draw(trees())
    others = [draw(changed(first)) if draw(st.integers(0, 2)) else first for _ in range(draw(st.integers(1, 2)))]
    return PROGRAM.format(first=_text(first), others=", ".join(_text(other) for other in others))


@given(programs())
@CASES
def test_tree_map_structures_agree_with_jax(program: str) -> None:
    agree(program, frozenset({"SC103"}))
