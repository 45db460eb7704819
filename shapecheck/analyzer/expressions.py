"""The expression evaluator: the value of each expression, with hover types recorded.

Array operations go to the library handlers (`operator:Add`, `method:sum`, qualified names);
constants are folded where Python's meaning is certain (see `folding`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

import libcst as cst

from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.declared import visible
from shapecheck.analyzer.folding import compare, truth
from shapecheck.analyzer.library import takes_functions
from shapecheck.analyzer.literals import string_value
from shapecheck.analyzer.qualnames import canonical
from shapecheck.analyzer.raises import expects_error_call
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.state import InterpreterState
from shapecheck.analyzer.values import (
    AtIndexer,
    BoundMethod,
    Const,
    Dict,
    Function,
    Lazy,
    Module,
    Qual,
    Seq,
    Value,
    join,
)
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

_MUTATORS = frozenset({
    "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update",
    "setdefault", "popitem", "__setitem__", "__delitem__",
})

class Expressions(InterpreterState):
    """Evaluates expressions: the part of `Interpreter` that computes values."""

    def eval(self, node: cst.BaseExpression, scope: Scope, ctx: Context) -> Value:
        method = _EVAL.get(type(node))
        value = method(self, node, scope, ctx) if method is not None else None
        if self.types is not None and isinstance(value, ArrayType):
            # A node analysed several times (a function called with different arguments) shows
            # what holds in every analysis that gave it an array type, not the last one's type.
            # Hover shows what an annotation there would say: without vmap's and pmap's axes.
            shown = visible(value, ctx)
            before = self.types.get(id(node))
            typed = join(before[1], shown) if before is not None else shown
            if isinstance(typed, ArrayType):
                self.types[id(node)] = (node, typed)
        return value

    def eval_name(self, node: cst.Name, scope: Scope, ctx: Context) -> Value:
        if node.value == "None":
            return Const(None)
        if node.value in ("True", "False"):
            return Const(node.value == "True")
        return scope.lookup(node.value)

    def eval_int(self, node: cst.Integer, scope: Scope, ctx: Context) -> Value:
        return Const(int(node.value.replace("_", ""), 0))

    def eval_float(self, node: cst.Float, scope: Scope, ctx: Context) -> Value:
        return Const(float(node.value.replace("_", "")))

    def eval_string(self, node: cst.SimpleString | cst.ConcatenatedString, scope: Scope, ctx: Context) -> Value:
        value = string_value(node) if isinstance(node, cst.SimpleString) else node.evaluated_value
        return Const(value) if isinstance(value, str) else None

    def eval_seq(self, node: cst.Tuple | cst.List, scope: Scope, ctx: Context) -> Value:
        items: list[Value] = []
        for element in node.elements:
            if isinstance(element, cst.StarredElement):
                inner = self.eval(element.value, scope, ctx)
                if not isinstance(inner, Seq):
                    return None
                items.extend(inner.items)
            else:
                items.append(self.eval(element.value, scope, ctx))
        return Seq(tuple(items), isinstance(node, cst.List), node, self.literal_lookup)

    def eval_dict(self, node: cst.Dict, scope: Scope, ctx: Context) -> Value:
        items: list[tuple[Value, Value]] = []
        for element in node.elements:
            if not isinstance(element, cst.DictElement):
                return None
            items.append((self.eval(element.key, scope, ctx), self.eval(element.value, scope, ctx)))
        return Dict(tuple(items), node, self.literal_lookup)

    def eval_attribute(self, node: cst.Attribute, scope: Scope, ctx: Context) -> Value:
        base = self.eval(node.value, scope, ctx)
        attr = node.attr.value
        if isinstance(base, Qual):
            return Qual(f"{base.name}.{attr}")
        if isinstance(base, Lazy):
            if base.attr is None:
                return Lazy(base.module, attr)
            return Lazy(f"{base.module}.{base.attr}", attr)
        if isinstance(base, Module):
            return base.scope.bindings.get(attr)
        if isinstance(base, AtIndexer) and base.indexed:
            return BoundMethod(base.receiver, f"at.{attr}")
        if isinstance(base, ArrayType):
            handler = self.methods.get(f"attr:{attr}")
            if handler is not None:
                return handler(cast("Interpreter", self), CallArgs(node, [base], [node.value]), ctx, scope)
            if f"method:{attr}" in self.methods:
                return BoundMethod(base, attr)
        return None

    def eval_binary(self, node: cst.BinaryOperation, scope: Scope, ctx: Context) -> Value:
        left = self.eval(node.left, scope, ctx)
        right = self.eval(node.right, scope, ctx)
        return self.binary(node, type(node.operator), left, right, node.left, node.right, ctx)

    def binary(self, node: cst.CSTNode, operator: type, left: Value, right: Value,
               left_node: cst.CSTNode, right_node: cst.CSTNode, ctx: Context) -> Value:
        handler = self.handlers.get(f"operator:{operator.__name__}")
        if handler is None:
            return None
        call = CallArgs(node, [left, right], [left_node, right_node])
        result = handler(cast("Interpreter", self), call, ctx, self.scope)
        self.check_cooccurrence(result, (left, right), node, ctx)
        return result

    def eval_unary(self, node: cst.UnaryOperation, scope: Scope, ctx: Context) -> Value:
        value = self.eval(node.expression, scope, ctx)
        if isinstance(node.operator, cst.Not):
            known = truth(value)
            return None if known is None else Const(not known)
        if isinstance(value, ArrayType):
            return value
        if isinstance(value, Const) and isinstance(value.value, int | float) and not isinstance(value.value, bool):
            if isinstance(node.operator, cst.Minus):
                return Const(-value.value)
            if isinstance(node.operator, cst.Plus):
                return value
        return None

    def eval_comparison(self, node: cst.Comparison, scope: Scope, ctx: Context) -> Value:
        left = self.eval(node.left, scope, ctx)
        left_node: cst.CSTNode = node.left
        result: Value = None
        decided: list[bool | None] = []
        for target in node.comparisons:
            right = self.eval(target.comparator, scope, ctx)
            decided.append(compare(target.operator, left, right))
            if isinstance(target.operator, cst.Is | cst.IsNot | cst.In | cst.NotIn):
                result = None
            elif isinstance(left, ArrayType) or isinstance(right, ArrayType):
                handler = self.handlers["operator:Comparison"]
                call = CallArgs(node, [left, right], [left_node, target.comparator])
                result = handler(cast("Interpreter", self), call, ctx, scope)
            left, left_node = right, target.comparator
        if decided and all(d is not None for d in decided):
            return Const(all(decided))
        if any(d is False for d in decided):
            return Const(False)
        return result if len(node.comparisons) == 1 else None

    def eval_boolean(self, node: cst.BooleanOperation, scope: Scope, ctx: Context) -> Value:
        left = self.eval(node.left, scope, ctx)
        known = truth(left)
        is_and = isinstance(node.operator, cst.And)
        if known is not None and known is not is_and:
            return left  # short-circuited: the right side never runs
        right = self.eval(node.right, scope, ctx)
        return right if known is not None else None

    def test(self, node: cst.BaseExpression, scope: Scope, ctx: Context) -> bool | None:
        """Whether a condition is certainly true or false, None when it may be either.

        `a and b` is false when either side certainly is, whatever the other (klujax's
        `if Ax.ndim == 1 and x.ndim == 2` with Ax unknown and x 1-D); `a or b` likewise true.
        """
        if isinstance(node, cst.BooleanOperation):
            is_and = isinstance(node.operator, cst.And)
            left = self.test(node.left, scope, ctx)
            if left is not None and left is not is_and:
                return left  # short-circuited: the right side never runs
            right = self.test(node.right, scope, ctx)
            if left is None:
                return right if right is not is_and else None
            return right
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            inner = self.test(node.expression, scope, ctx)
            return None if inner is None else not inner
        return truth(self.eval(node, scope, ctx))

    def eval_ifexp(self, node: cst.IfExp, scope: Scope, ctx: Context) -> Value:
        test = self.test(node.test, scope, ctx)
        if test is True:
            return self.eval(node.body, scope, ctx)
        if test is False:
            return self.eval(node.orelse, scope, ctx)
        return join(self.eval(node.body, scope, ctx), self.eval(node.orelse, scope, ctx))

    def eval_lambda(self, node: cst.Lambda, scope: Scope, ctx: Context) -> Value:
        function = Function(node, scope, self.module_name, "<lambda>")
        self.functions.append(function)
        return function

    def eval_namedexpr(self, node: cst.NamedExpr, scope: Scope, ctx: Context) -> Value:
        value = self.eval(node.value, scope, ctx)
        self.assign(node.target, value, scope, node.value)
        return value

    def eval_subscript(self, node: cst.Subscript, scope: Scope, ctx: Context) -> Value:
        base = self.eval(node.value, scope, ctx)
        handler = self.handlers.get("operator:Subscript")
        if handler is None or base is None:
            for element in node.slice:
                if isinstance(element.slice, cst.Index):
                    self.eval(element.slice.value, scope, ctx)
            return None
        return handler(cast("Interpreter", self), CallArgs(node, [base], [node.value]), ctx, scope)

    def eval_call(self, node: cst.Call, scope: Scope, ctx: Context) -> Value:
        func = self.eval(node.func, scope, ctx)
        self._forget_mutated(node.func, scope)
        if expects_error_call(node):
            # `assert_raises(IndexError, lambda: a[5])`: the arguments are meant to fail.
            self.reporter.muted += 1
            first = len(self.functions)
            try:
                return self._eval_call(node, func, scope, ctx)
            finally:
                self.reporter.muted -= 1
                self.expected_failures.update(id(f.node) for f in self.functions[first:])
        return self._eval_call(node, func, scope, ctx)

    def _eval_call(self, node: cst.Call, func: Value, scope: Scope, ctx: Context) -> Value:
        call = CallArgs(node)
        for arg in node.args:
            value = self.eval(arg.value, scope, ctx)
            if arg.star == "*":
                if isinstance(value, Seq):
                    call.args.extend(value.items)
                    call.arg_nodes.extend([arg.value] * len(value.items))
                    call.raw_args.extend([arg.value] * len(value.items))
                else:
                    call.opaque = True
            elif arg.star == "**":
                call.opaque = True
            elif arg.keyword is not None:
                call.kwargs[arg.keyword.value] = value
                call.kwarg_nodes[arg.keyword.value] = arg.value
                call.raw_kwargs[arg.keyword.value] = arg.value
            else:
                call.args.append(value)
                call.arg_nodes.append(arg.value)
                call.raw_args.append(arg.value)
        if isinstance(func, Lazy):
            func = self.imports.resolve(func) if self.imports.worth_loading(func, call) else None
        if func is None:
            return None
        if isinstance(func, Qual) and canonical(func.name) in takes_functions():
            # Maps and partial need the function and specs they are given, even imported ones.
            call.args = [self.imports.resolve(arg) for arg in call.args]
            call.kwargs = {key: self.imports.resolve(arg) for key, arg in call.kwargs.items()}
        result = self.call(func, call, ctx, scope)
        inputs = [v for v in (*call.args, *call.kwargs.values()) if isinstance(v, ArrayType)]
        if isinstance(func, BoundMethod):
            inputs.append(func.receiver)
        self.check_cooccurrence(result, inputs, node, ctx)
        return result

    def _forget_mutated(self, func: cst.BaseExpression, scope: Scope) -> None:
        """`labels.append(row)` and friends: the list's contents are no longer what was built."""
        if (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                and func.attr.value in _MUTATORS
                and isinstance(scope.lookup(func.value.value), Seq | Dict)):
            scope.bind(func.value.value, None)


_EVAL: dict[type, Callable[[Expressions, cst.BaseExpression, Scope, Context], Value]] = {
    cst.Name: Expressions.eval_name,  # type: ignore[dict-item]
    cst.Integer: Expressions.eval_int,  # type: ignore[dict-item]
    cst.Float: Expressions.eval_float,  # type: ignore[dict-item]
    cst.SimpleString: Expressions.eval_string,  # type: ignore[dict-item]
    cst.ConcatenatedString: Expressions.eval_string,  # type: ignore[dict-item]
    cst.Tuple: Expressions.eval_seq,  # type: ignore[dict-item]
    cst.List: Expressions.eval_seq,  # type: ignore[dict-item]
    cst.Dict: Expressions.eval_dict,  # type: ignore[dict-item]
    cst.Attribute: Expressions.eval_attribute,  # type: ignore[dict-item]
    cst.BinaryOperation: Expressions.eval_binary,  # type: ignore[dict-item]
    cst.UnaryOperation: Expressions.eval_unary,  # type: ignore[dict-item]
    cst.Comparison: Expressions.eval_comparison,  # type: ignore[dict-item]
    cst.BooleanOperation: Expressions.eval_boolean,  # type: ignore[dict-item]
    cst.IfExp: Expressions.eval_ifexp,  # type: ignore[dict-item]
    cst.Lambda: Expressions.eval_lambda,  # type: ignore[dict-item]
    cst.NamedExpr: Expressions.eval_namedexpr,  # type: ignore[dict-item]
    cst.Subscript: Expressions.eval_subscript,  # type: ignore[dict-item]
    cst.Call: Expressions.eval_call,  # type: ignore[dict-item]
}
