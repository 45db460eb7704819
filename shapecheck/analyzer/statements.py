"""The statement walker: runs a module's or a function's statements in order, binding names.

Conditions the checker can decide leave the other branch dead; loops forget what they rebind;
branches that both fall through join what they bound. Declared types are checked where a
value meets them (annotated assignments, returns).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from shapecheck.algebra.conformance import conform, substitute, unknown_where
from shapecheck.analyzer import raises
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.declared import prefer, source_of, visible
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.state import InterpreterState
from shapecheck.analyzer.values import (
    Class,
    Const,
    Dict,
    Function,
    Mesh,
    MeshContext,
    Partial,
    Qual,
    Seq,
    Value,
    join,
)
from shapecheck.analyzer.walk import assigned_names, target_names
from shapecheck.types import ArrayType


class Statements(InterpreterState):
    """Runs statements: the part of `Interpreter` that walks blocks."""

    def exec_block(self, body: Sequence[cst.CSTNode], scope: Scope, ctx: Context) -> bool:
        """Run statements in order. False when control certainly leaves the block (return,
        raise, break, continue): what follows is dead on this path and must not be checked."""
        return all(self.exec_statement(statement, scope, ctx) for statement in body)

    def exec_statement(self, node: cst.CSTNode, scope: Scope, ctx: Context) -> bool:
        if isinstance(node, cst.SimpleStatementLine):
            return all(self.exec_small(small, scope, ctx) for small in node.body)
        if isinstance(node, cst.FunctionDef):
            self.define_function(node, scope, ctx)
        elif isinstance(node, cst.If):
            return self.exec_if(node, scope, ctx)
        elif isinstance(node, cst.For | cst.While):
            self.exec_loop(node, scope, ctx)
        elif isinstance(node, cst.With):
            return self.exec_with(node, scope, ctx)
        elif isinstance(node, cst.Try | cst.TryStar):
            self.exec_try(node, scope, ctx)
        elif isinstance(node, cst.ClassDef):
            self.exec_class(node, scope, ctx)
        elif isinstance(node, cst.IndentedBlock):
            return self.exec_block(node.body, scope, ctx)
        # match statements and anything else: names they bind read as unknown
        elif isinstance(node, cst.Match):
            for name in assigned_names(node):
                scope.bind(name, None)
        return True

    def exec_small(self, node: cst.BaseSmallStatement, scope: Scope, ctx: Context) -> bool:
        """Run one small statement; False when it certainly leaves the block."""
        if isinstance(node, cst.Return):
            self.exec_return(node, scope, ctx)
            return False
        if isinstance(node, cst.Raise):
            if node.exc is not None:
                self.eval(node.exc, scope, ctx)
            return False
        if isinstance(node, cst.Break | cst.Continue):
            return False
        self._exec_simple(node, scope, ctx)
        return True

    def _exec_simple(self, node: cst.BaseSmallStatement, scope: Scope, ctx: Context) -> None:
        if isinstance(node, cst.Assign):
            value = self.eval(node.value, scope, ctx)
            for target in node.targets:
                self.assign(target.target, value, scope, node.value)
        elif isinstance(node, cst.AnnAssign):
            self.exec_annassign(node, scope, ctx)
        elif isinstance(node, cst.AugAssign):
            self.exec_augassign(node, scope, ctx)
        elif isinstance(node, cst.Expr):
            self.eval(node.value, scope, ctx)
        elif isinstance(node, cst.Assert):
            self.eval(node.test, scope, ctx)
        elif isinstance(node, cst.Import):
            self.imports.bind(node, scope)
        elif isinstance(node, cst.ImportFrom):
            self.imports.bind_from(node, scope)
        elif isinstance(node, cst.Global | cst.Nonlocal):
            for item in node.names:
                scope.bind(item.name.value, None)
        elif isinstance(node, cst.Del):
            for name in target_names(node.target):
                scope.bind(name, None)

    def exec_annassign(self, node: cst.AnnAssign, scope: Scope, ctx: Context) -> None:
        declared = self.annotation(node.annotation.annotation, scope)
        if node.value is None:
            if isinstance(node.target, cst.Name):
                scope.bind(node.target.value, declared)
            return
        value = self.eval(node.value, scope, ctx)
        if isinstance(declared, ArrayType):
            # Inside a function its signature's symbols mean what they mean there (rigid when
            # it is checked on its own); a copy, so a symbol new here binds for this line only.
            frame = self.frames[-1]
            bindings = dict(frame.bindings) if frame.function is not None else {}
            if isinstance(value, ArrayType):
                what = f"`{_code(node.target)}`"
                problems = conform(declared, visible(value, ctx), bindings, what,
                                   source=source_of(node.value), x64=self.x64)
                self.reporter.problems(problems, node.value)
                value = unknown_where(prefer(substitute(declared, bindings), value), problems)
            else:
                value = substitute(declared, bindings)
        self.assign(node.target, value, scope, node.value)

    def exec_augassign(self, node: cst.AugAssign, scope: Scope, ctx: Context) -> None:
        left = self.eval(node.target, scope, ctx)
        right = self.eval(node.value, scope, ctx)
        operator = _AUG.get(type(node.operator))
        value = self.binary(node, operator, left, right, node.target, node.value, ctx) if operator else None
        self.assign(node.target, value, scope, node.value)

    def exec_return(self, node: cst.Return, scope: Scope, ctx: Context) -> None:
        value = self.eval(node.value, scope, ctx) if node.value is not None else Const(None)
        frame = self.frames[-1]
        if frame.declared_return is not None and isinstance(value, ArrayType) and node.value is not None:
            name = frame.function.name if frame.function else "the function"
            self.reporter.problems(
                conform(frame.declared_return, visible(value, ctx), frame.bindings,
                        f"the value {name} returns", source=source_of(node.value), x64=self.x64),
                node.value)
        frame.returns.append(value)

    def exec_if(self, node: cst.If, scope: Scope, ctx: Context) -> bool:
        # A condition the checker can decide (`x.ndim == 4` for a known rank, `axis is None`)
        # leaves the other branch dead: code there is never checked against these values.
        test = self.test(node.test, scope, ctx)
        if test is True:
            return self.exec_block(node.body.body, scope, ctx)
        if test is False:
            return self._exec_else(node.orelse, scope, ctx)
        before = scope.snapshot()
        body_falls = self.exec_block(node.body.body, scope, ctx)
        after_body = scope.snapshot()
        scope.restore(dict(before))
        else_falls = self._exec_else(node.orelse, scope, ctx)
        after_else = scope.snapshot()
        if body_falls and else_falls:
            scope.restore(_merge(after_body, after_else))
        elif body_falls:
            scope.restore(after_body)
        return body_falls or else_falls

    def _exec_else(self, orelse: cst.If | cst.Else | None, scope: Scope, ctx: Context) -> bool:
        if isinstance(orelse, cst.If):
            return self.exec_if(orelse, scope, ctx)
        if isinstance(orelse, cst.Else):
            return self.exec_block(orelse.body.body, scope, ctx)
        return True

    def exec_loop(self, node: cst.For | cst.While, scope: Scope, ctx: Context) -> None:
        # A loop body may run many times: what it rebinds is unknown on entry and after.
        for name in assigned_names(node.body):
            scope.bind(name, None)
        if isinstance(node, cst.For):
            iterated = self.eval(node.iter, scope, ctx)
            item: Value = None
            if isinstance(iterated, Seq) and iterated.items:
                item = iterated.items[0]
                for other in iterated.items[1:]:
                    item = join(item, other)
            self.assign(node.target, item, scope, node.iter)
        elif self.test(node.test, scope, ctx) is False:
            return
        self.exec_block(node.body.body, scope, ctx)
        for name in assigned_names(node.body):
            scope.bind(name, None)
        if isinstance(node, cst.For):
            for name in target_names(node.target):
                scope.bind(name, None)
        if node.orelse is not None:
            self.exec_block(node.orelse.body.body, scope, ctx)

    def exec_with(self, node: cst.With, scope: Scope, ctx: Context) -> bool:
        inner = ctx
        expects_error = False
        for item in node.items:
            expects_error = expects_error or raises.expects_error(item.item)
            value = self.eval(item.item, scope, ctx)
            if isinstance(value, MeshContext):
                inner = inner.with_mesh(value.mesh)
                value = value.mesh
            elif isinstance(value, Mesh):
                inner = inner.with_mesh(value)
            if item.asname is not None:
                self.assign(item.asname.name, value, scope, item.item)
        if expects_error:
            # `with pytest.raises(ValueError):` — the code inside is meant to fail.
            self.reporter.muted += 1
        try:
            return self.exec_block(node.body.body, scope, inner)
        finally:
            if expects_error:
                self.reporter.muted -= 1

    def exec_try(self, node: cst.Try | cst.TryStar, scope: Scope, ctx: Context) -> None:
        before = scope.snapshot()
        self.exec_block(node.body.body, scope, ctx)
        merged = _merge(before, scope.snapshot())
        for handler in node.handlers:
            scope.restore(dict(merged))
            if handler.name is not None:
                self.assign(handler.name.name, None, scope, handler)
            self.exec_block(handler.body.body, scope, ctx)
            merged = _merge(merged, scope.snapshot())
        scope.restore(merged)
        if node.orelse is not None:
            self.exec_block(node.orelse.body.body, scope, ctx)
        if node.finalbody is not None:
            self.exec_block(node.finalbody.body.body, scope, ctx)

    def exec_class(self, node: cst.ClassDef, scope: Scope, ctx: Context) -> None:
        body_scope = scope.child()
        self.exec_block(node.body.body, body_scope, ctx)
        scope.bind(node.name.value, Class(node.name.value))

    def define_function(self, node: cst.FunctionDef, scope: Scope, ctx: Context) -> None:
        function = Function(node, scope, self.module_name, node.name.value)
        self.functions.append(function)
        self.check_signature_annotations(node, scope)
        value: Value = function
        for decorator in reversed(node.decorators):
            decorator_value = self.eval(decorator.decorator, scope, ctx)
            value = self.apply_decorator(decorator_value, value, decorator, ctx, scope)
        scope.bind(node.name.value, value)

    def apply_decorator(self, decorator: Value, value: Value, node: cst.Decorator, ctx: Context,
                        scope: Scope) -> Value:
        if isinstance(decorator, Qual | Partial):
            call = CallArgs(node, [value], [node.decorator])
            return self.call(decorator, call, ctx, scope)
        return None

    def check_signature_annotations(self, node: cst.FunctionDef, scope: Scope) -> None:
        params = node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            if param.annotation is not None:
                self.annotation(param.annotation.annotation, scope)
        if node.returns is not None:
            self.annotation(node.returns.annotation, scope)

    def assign(self, target: cst.BaseExpression, value: Value, scope: Scope, source: cst.CSTNode) -> None:
        if isinstance(target, cst.Name):
            scope.bind(target.value, value)
            if scope.parent is None and isinstance(source, cst.BaseExpression):
                self._module_sources[target.value] = source
        elif isinstance(target, cst.Tuple | cst.List):
            elements = target.elements
            items: list[Value]
            if isinstance(value, Seq) and len(value.items) == len(elements) and not any(
                isinstance(e, cst.StarredElement) for e in elements
            ):
                items = list(value.items)
            else:
                items = [None] * len(elements)
            for element, item in zip(elements, items, strict=True):
                inner = element.value
                self.assign(inner, item, scope, source)
        elif isinstance(target, cst.StarredElement):
            self.assign(target.value, None, scope, source)
        elif (isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name)
              and isinstance(scope.lookup(target.value.value), Seq | Dict)):
            # `items[i] = v` changes a list or dict the interpreter may have tracked.
            scope.bind(target.value.value, None)
        # attributes: the interpreter does not track object state


def _merge(a: dict[str, Value], b: dict[str, Value]) -> dict[str, Value]:
    merged: dict[str, Value] = {}
    for name in a.keys() | b.keys():
        if name in a and name in b:
            merged[name] = join(a[name], b[name])
        else:
            merged[name] = None
    return merged



_MODULE = cst.Module(body=[])


def _code(node: cst.CSTNode) -> str:
    return " ".join(_MODULE.code_for_node(node).split())



_AUG: dict[type, type] = {
    cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide, cst.FloorDivideAssign: cst.FloorDivide,
    cst.ModuloAssign: cst.Modulo, cst.PowerAssign: cst.Power, cst.MatrixMultiplyAssign: cst.MatrixMultiply,
    cst.BitAndAssign: cst.BitAnd, cst.BitOrAssign: cst.BitOr, cst.BitXorAssign: cst.BitXor,
    cst.LeftShiftAssign: cst.LeftShift, cst.RightShiftAssign: cst.RightShift,
}
