"""The hook callbacks: each reports the current file (once) and leaves mypy's types as they were.

Which mypy hooks run while mypy processes a file that has something for shapecheck to say:
- the type-analyze hook, for every annotation of the language (semantic analysis, in every
  function, typed or not);
- the dynamic-class hook, for every `name = jax_or_numpy_call(...)` statement (semantic
  analysis again, so also inside unannotated functions, whose bodies mypy does not check);
- the function, method and attribute hooks, for calls and members of jax, numpy, shapecheck
  and the project's own modules in checked code (`jnp.ones(3) + x` at module level runs
  `jax.Array.__add__`'s method hook).
"""

from __future__ import annotations

from collections.abc import Callable

from mypy.checker import TypeChecker
from mypy.plugin import (
    AnalyzeTypeContext,
    AttributeContext,
    DynamicClassDefContext,
    FunctionContext,
    MethodContext,
)
from mypy.semanal import SemanticAnalyzer
from mypy.typeanal import TypeAnalyser
from mypy.types import Type

from shapecheck.plugin.annotations import Lookup, array_type, string_dims
from shapecheck.plugin.reporting import FileReporter, withdraw_name_errors


def annotation_hook(reporter: FileReporter, lookup: Lookup) -> Callable[[AnalyzeTypeContext], Type]:
    def hook(ctx: AnalyzeTypeContext) -> Type:
        if isinstance(ctx.api, TypeAnalyser) and isinstance(ctx.api.api, SemanticAnalyzer):
            reporter.report_current(ctx.api.api.errors)
            withdraw_name_errors(ctx.api.api.errors, string_dims(ctx.type))
        return array_type(ctx, lookup)

    return hook


def assignment_hook(reporter: FileReporter) -> Callable[[DynamicClassDefContext], None]:
    def hook(ctx: DynamicClassDefContext) -> None:
        if isinstance(ctx.api, SemanticAnalyzer):
            reporter.report_current(ctx.api.errors)

    return hook


def call_hook(reporter: FileReporter) -> Callable[[FunctionContext | MethodContext], Type]:
    """For calls of functions and of methods alike: report the file, keep mypy's type."""

    def hook(ctx: FunctionContext | MethodContext) -> Type:
        if isinstance(ctx.api, TypeChecker):
            reporter.report_current(ctx.api.errors)
        return ctx.default_return_type

    return hook


def attribute_hook(reporter: FileReporter) -> Callable[[AttributeContext], Type]:
    def hook(ctx: AttributeContext) -> Type:
        if isinstance(ctx.api, TypeChecker):
            reporter.report_current(ctx.api.errors)
        return ctx.default_attr_type

    return hook
