"""The plugin class: it routes mypy's hooks to the topic modules and holds nothing else."""

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
from shapecheck.plugin.annotations import is_annotation
from shapecheck.plugin.dependencies import additional_deps
from shapecheck.plugin.named_axes import takes_axis_names, widen_function, widen_method
from shapecheck.plugin.options import config_data, load_config
from shapecheck.plugin.reporting import FileReporter
from shapecheck.plugin.restored import restore_names
from shapecheck.plugin.scope import Watch


class ShapecheckPlugin(Plugin):
    def __init__(self, options: Options) -> None:
        super().__init__(options)
        self.config = load_config(options)
        self.reporter = FileReporter(self.config)
        self.watch = Watch()

    def set_modules(self, modules: dict[str, MypyFile]) -> None:
        super().set_modules(modules)
        self.watch.modules = modules
        self.reporter.use_modules(modules)

    def report_config_data(self, ctx: ReportConfigContext) -> dict[str, object]:
        return config_data(self.config)

    def get_additional_deps(self, file: MypyFile) -> list[tuple[int, str, int]]:
        self.reporter.note_source(file)
        return additional_deps(file) + restore_names(file)

    def get_type_analyze_hook(self, fullname: str) -> Callable[[AnalyzeTypeContext], Type] | None:
        if is_annotation(fullname, self.config.annotation_names, self.lookup_fully_qualified):
            return hooks.annotation_hook(self.reporter, self.lookup_fully_qualified)
        return None

    def get_dynamic_class_hook(self, fullname: str) -> Callable[[DynamicClassDefContext], None] | None:
        return hooks.assignment_hook(self.reporter) if self.watch(fullname) else None

    def get_function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        return hooks.call_hook(self.reporter) if self.watch(fullname) else None

    def get_function_signature_hook(
            self, fullname: str) -> Callable[[FunctionSigContext], FunctionLike] | None:
        return widen_function if takes_axis_names(fullname, method=False) else None

    def get_method_signature_hook(
            self, fullname: str) -> Callable[[MethodSigContext], FunctionLike] | None:
        return widen_method if takes_axis_names(fullname, method=True) else None

    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        return hooks.call_hook(self.reporter) if self.watch(fullname) else None

    def get_attribute_hook(self, fullname: str) -> Callable[[AttributeContext], Type] | None:
        return hooks.attribute_hook(self.reporter) if self.watch(fullname) else None
