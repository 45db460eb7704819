"""The analysis context: what a function's summary is keyed by."""

from __future__ import annotations

import ast
from dataclasses import fields

from shapecheck.analyzer.context import Context
from shapecheck.analyzer.values import Mesh


def test_every_field_that_changes_a_summary_is_in_its_key() -> None:
    # Derived from the fields: a field added later is part of the key unless it says otherwise.
    base = Context()
    changed = {"bound": frozenset({"i"}), "outer_unknown": True, "any_name": True, "sizes": (("i", 2),),
               "resources": (("i", ("x",)),), "hidden": frozenset({"i"}), "manual": frozenset({"x"}), "mesh": Mesh((("x", 2),)),
               "unmapped": True, "checked": ("x",), "traced": True, "meshless": True}
    assert {f.name for f in fields(Context) if f.compare} - {"depth"} == set(changed)
    for name, value in changed.items():
        assert Context(**{name: value}).key() != base.key(), name


def test_depth_and_notes_for_messages_are_not_in_the_key() -> None:
    node = ast.Pass()
    assert Context(depth=3).key() == Context().key()
    assert Context(binders=(("a map", node),), resource_notes=(("a note", node),)).key() == Context().key()


def test_entering_a_map_binds_its_names_and_keeps_the_rest() -> None:
    node = ast.Pass()
    outer = Context(bound=frozenset({"i"}), sizes=(("i", 2),), depth=1)
    inner = outer.enter_map({"j": 3}, {"j": ("x",)}, hidden=frozenset({"j"}), binder=("binds 'j'", node),
                            manual=frozenset({"x"}))
    assert inner.bound == frozenset({"i", "j"}) and inner.sizes == (("i", 2), ("j", 3))
    assert inner.resources == (("j", ("x",)),) and inner.hidden == frozenset({"j"})
    assert inner.manual == frozenset({"x"}) and inner.depth == 2 and not inner.outer_unknown
    assert inner.binders == (("binds 'j'", node),)
    assert Context().enter_map({"k": 4}).outer_unknown
    assert inner.traced and not outer.traced  # its arrays are tracers


def test_a_jitted_body_is_traced() -> None:
    node = ast.Pass()
    assert Context(bound=frozenset()).enter_jit(("jit", node)).traced
    assert Context(unmapped=True).enter_jit(("jit", node)).traced
