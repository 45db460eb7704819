"""Every runtime test fails on a DeprecationWarning the runtime itself causes.

A warning is attributed to the module that made the deprecated call (JAX's `stacklevel`), so
this catches the runtime's own use of a deprecated JAX API, while the deprecated calls that
test programs make on purpose (the legacy `with Mesh(...)`) stay theirs to filter.
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.filterwarnings(r"error::DeprecationWarning:shapecheck\."))
