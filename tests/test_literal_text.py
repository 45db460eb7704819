"""A literal's text is what the checker quotes in messages: CPython's spelling of its node,
however the literal tree was built (nested specs are joined from their items' texts)."""

from __future__ import annotations

import ast

from hypothesis import given
from hypothesis import strategies as st

from shapecheck.analyzer.literals import to_lit
from shapecheck.analyzer.walk import code

_LEAVES = st.sampled_from(["'i'", '"j"', "'x\"y'", "3", "1_000", "-2", "None", "True", "...", "a", "mesh.axis",
                           "f(x)", "*rest", "1.5", "-x", "{'k': 1}", "(b := 2)", "lambda: 1"])


def _spec(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    items = st.lists(children, max_size=4)
    return st.one_of(items.map(lambda xs: "[" + ", ".join(xs) + "]"),
                     items.map(lambda xs: "(" + ", ".join(xs) + ("," if len(xs) == 1 else "") + ")"))


@given(st.recursive(_LEAVES, _spec, max_leaves=12))
def test_the_text_of_a_literal_is_its_source_as_cpython_spells_it(source: str) -> None:
    try:
        node = ast.parse(source, mode="eval").body
    except SyntaxError:  # `*rest` alone, say
        return
    assert to_lit(node).text == code(node)


def test_a_name_bound_to_a_literal_is_quoted_by_its_name() -> None:
    node = ast.parse("[AXES, None]", mode="eval").body
    bound = to_lit(ast.parse("('i', 'j')", mode="eval").body)
    read = to_lit(node, lambda name: bound if name == "AXES" else None)
    assert read.items[0] is bound
    assert read.text == "[AXES, None]"
