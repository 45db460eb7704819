"""The plugin class: it routes mypy's hooks to the topic modules and holds nothing else.

mypy asks every plugin for a hook on each name it meets (about 180,000 type names and 100,000
calls and members on a large package, most of them builtins and typing), so each lookup is a
dictionary or set probe on the name, and the hook returned is made once per plugin.
"""

from __future__ import annotations

from collections.abc import Callable

from mypy.nodes import MypyFile
from mypy.options import Options
from mypy.plugin import (
    AnalyzeTypeContext,
    AttributeContext,
    DynamicClassDefContext,
    FunctionContext,
    FunctionSigContext,
    MethodContext,
    MethodSigContext,
    Plugin,
    ReportConfigContext,
)
from mypy.types import FunctionLike, Type

from shapecheck.plugin import hooks
from shapecheck.plugin.annotations import may_be_annotation, refers_to_variable
from shapecheck.plugin.dependencies import additional_deps
from shapecheck.plugin.named_axes import AxisNames, widen_function, widen_method
from shapecheck.plugin.options import INSTALLED_DATA, InstalledPackages, config_data, load_config
from shapecheck.plugin.reporting import FileReporter
from shapecheck.plugin.restored import restore_names
from shapecheck.plugin.scope import Watch


class ShapecheckPlugin(Plugin):
    def __init__(self, options: Options) -> None:
        super().__init__(options)
        self.config = load_config(options)
        self.installed = InstalledPackages(options)
        self.reporter = FileReporter(self.config)
        self.watch = Watch()
        self.axis_names = AxisNames()
        # Type names that cannot be an annotation of the language, whatever they refer to.
        self.not_annotations: set[str] = set()
        self.annotation = hooks.annotation_hook(self.reporter, self.lookup_fully_qualified)
        self.assignment = hooks.assignment_hook(self.reporter)
        self.call = hooks.call_hook(self.reporter)
        self.attribute = hooks.attribute_hook(self.reporter)

    def set_modules(self, modules: dict[str, MypyFile]) -> None:
        super().set_modules(modules)
        self.watch.modules = modules
        self.reporter.use_modules(modules)

    def report_config_data(self, ctx: ReportConfigContext) -> dict[str, object]:
        return INSTALLED_DATA if ctx.path in self.installed else config_data(self.config)

    def get_additional_deps(self, file: MypyFile) -> list[tuple[int, str, int]]:
        self.reporter.note_source(file)
        return additional_deps(file) + restore_names(file)

    def get_type_analyze_hook(self, fullname: str) -> Callable[[AnalyzeTypeContext], Type] | None:
        if fullname in self.not_annotations:
            return None
        if not may_be_annotation(fullname, self.config.annotation_names):
            self.not_annotations.add(fullname)
            return None
        return self.annotation if refers_to_variable(fullname, self.lookup_fully_qualified) else None

    def get_dynamic_class_hook(self, fullname: str) -> Callable[[DynamicClassDefContext], None] | None:
        return self.assignment if self.watch(fullname) else None

    def get_function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        return self.call if self.watch(fullname) else None

    def get_function_signature_hook(
            self, fullname: str) -> Callable[[FunctionSigContext], FunctionLike] | None:
        return widen_function if self.axis_names.takes(fullname, method=False) else None

    def get_method_signature_hook(
            self, fullname: str) -> Callable[[MethodSigContext], FunctionLike] | None:
        return widen_method if self.axis_names.takes(fullname, method=True) else None

    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        return self.call if self.watch(fullname) else None

    def get_attribute_hook(self, fullname: str) -> Callable[[AttributeContext], Type] | None:
        return self.attribute if self.watch(fullname) else None
