"""Code that is meant to fail: `pytest.raises` and unittest's `assertRaises` in their forms."""

from __future__ import annotations

import ast

_RAISES = frozenset({"raises", "assertRaises", "assertRaisesRegex", "assertRaisesWithLiteralMatch",
                     "assert_raises", "assert_raises_regex"})


def expects_error_call(node: ast.Call) -> bool:
    """`pytest.raises(E, fn, *args)` and `assert_raises(E, fn)`: the callable form."""
    # Keywords count: `raises(E, match='...')` read as this form only mutes its own arguments.
    return len(node.args) + len(node.keywords) >= 2 and expects_error(node)


def expects_error(item: ast.expr) -> bool:
    """`pytest.raises(...)`, `self.assertRaises(...)`, `assertRaisesRegex(...)`."""
    if not isinstance(item, ast.Call):
        return False
    func = item.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in _RAISES
