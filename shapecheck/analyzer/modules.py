"""Loading the other modules of the project that a checked file imports.

A loaded module is interpreted once, silently, for its top-level bindings (functions, in_axes
constants, meshes); its own diagnostics belong to its own check. Imports stay lazy until a
value is needed, so a file importing half a package does not parse the whole package.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from shapecheck.analyzer.qualnames import ARRAY_ROOTS
from shapecheck.analyzer.scope import Scope
from shapecheck.literal import Lit
from shapecheck.project import ModuleSource

if TYPE_CHECKING:
    from shapecheck.analyzer.calls import Handler
    from shapecheck.analyzer.interpreter import Interpreter


class ModuleLoader:
    """Interprets imported project modules on demand; one per batch of files, never global."""

    def __init__(self, source: ModuleSource | None, handlers: dict[str, Handler],
                 methods: dict[str, Handler], annotation_names: frozenset[str]) -> None:
        self.source = source
        self.handlers = handlers
        self.methods = methods
        self.annotation_names = annotation_names
        self.loaded: dict[str, Scope | None] = {}
        self.interpreters: dict[str, Interpreter] = {}
        self.texts: dict[str, str | None] = {}

    def knows(self, module: str) -> bool:
        """Whether `module` is a project module (library roots such as jax never are)."""
        if self.source is None or module.split(".")[0] in ARRAY_ROOTS:
            return False
        return self._text(module) is not None

    def _text(self, module: str) -> str | None:
        if module not in self.texts:
            found = self.source.find(module) if self.source is not None else None
            self.texts[module] = found[1] if found else None
        return self.texts[module]

    def mentions_annotations(self, module: str) -> bool:
        text = self._text(module) or ""
        return any(f"{name}[" in text for name in self.annotation_names)

    def load(self, module: str) -> Scope | None:
        if module in self.loaded:
            return self.loaded[module]
        self.loaded[module] = None  # import cycles read as unknown
        text = self._text(module)
        if text is None or self.source is None:
            return None
        # Parsed as the checked files are: CPython decides validity, and deep expressions are
        # parsed in pieces (libcst alone takes minutes on a 3,000-long chain).
        from shapecheck.parsing import cpython_syntax, parse_module

        syntax = cpython_syntax(module, text)
        if not isinstance(syntax, ast.Module):
            return None
        try:
            tree = parse_module(text, syntax).module
        except Exception:
            return None
        from shapecheck.analyzer.interpreter import Interpreter
        from shapecheck.analyzer.report import Reporter

        silent = Reporter()
        silent.muted = 1
        interpreter = Interpreter(tree, module, silent, self.handlers, self.methods, self.annotation_names,
                                  loader=self)
        interpreter.run(analyse_functions=False)
        self.loaded[module] = interpreter.scope
        self.interpreters[module] = interpreter
        return interpreter.scope

    def literal(self, module: str, name: str) -> Lit | None:
        """The literal a module-level name of `module` was assigned (an in_axes spec)."""
        if self.load(module) is None:
            return None
        return self.interpreters[module].literal_lookup(name)
