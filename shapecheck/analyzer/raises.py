"""Code that is meant to fail: `pytest.raises` and unittest's `assertRaises` in their forms."""

from __future__ import annotations

import libcst as cst

_RAISES = frozenset({"raises", "assertRaises", "assertRaisesRegex", "assertRaisesWithLiteralMatch",
                     "assert_raises", "assert_raises_regex"})


def expects_error_call(node: cst.Call) -> bool:
    """`pytest.raises(E, fn, *args)` and `assert_raises(E, fn)`: the callable form."""
    return len(node.args) >= 2 and expects_error(node)


def expects_error(item: cst.BaseExpression) -> bool:
    """`pytest.raises(...)`, `self.assertRaises(...)`, `assertRaisesRegex(...)`."""
    if not isinstance(item, cst.Call):
        return False
    func = item.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    return name in _RAISES

