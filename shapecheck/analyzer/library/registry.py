"""The handler tables that library modules register into."""

from __future__ import annotations

from collections.abc import Callable

from shapecheck.analyzer.calls import Handler

HANDLERS: dict[str, Handler] = {}
METHODS: dict[str, Handler] = {}


def handles(*names: str) -> Callable[[Handler], Handler]:
    """Register a handler for qualified names (`jax.numpy.sum`) or keys like `method:sum`."""

    def register(handler: Handler) -> Handler:
        for name in names:
            table = METHODS if name.startswith(("method:", "attr:")) else HANDLERS
            table[name] = handler
        return handler

    return register


def each(module: str, *names: str) -> tuple[str, ...]:
    return tuple(f"{module}.{name}" for name in names)
