"""What a library module registers: its handlers, by qualified name and by method or attribute."""

from __future__ import annotations

from collections.abc import Callable

from shapecheck.analyzer.calls import Handler


class Registry:
    """The handlers one library module defines, filled by its `@REGISTRY.handles(...)` lines.

    Each module owns one and the library collects them (`library.handlers()`): nothing is
    registered into a global by importing a module.
    """

    __slots__ = ("functions", "methods")

    def __init__(self) -> None:
        self.functions: dict[str, Handler] = {}
        self.methods: dict[str, Handler] = {}

    def handles(self, *names: str) -> Callable[[Handler], Handler]:
        """Register a handler for qualified names (`jax.numpy.sum`) or keys like `method:sum`."""

        def register(handler: Handler) -> Handler:
            for name in names:
                table = self.methods if name.startswith(("method:", "attr:")) else self.functions
                table[name] = handler
            return handler

        return register


def each(module: str, *names: str) -> tuple[str, ...]:
    return tuple(f"{module}.{name}" for name in names)
