"""The expression evaluator: the value of each expression, with hover types recorded.

Array operations go to the library handlers (`operator:Add`, `method:sum`, qualified names);
constants are folded where Python's meaning is certain (see `folding`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, cast

from shapecheck.algebra import replication
from shapecheck.analyzer import containers, objects
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.declared import visible
from shapecheck.analyzer.folding import compare, truth
from shapecheck.analyzer.library import takes_functions
from shapecheck.analyzer.qualnames import CONSTANTS, DATACLASSES_REPLACE, canonical
from shapecheck.analyzer.raises import expects_error_call
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.state import InterpreterState
from shapecheck.analyzer.values import (
    AtIndexer,
    BoundFunction,
    BoundMethod,
    Class,
    ClassMethod,
    Const,
    ContainerMethod,
    Dict,
    Function,
    Instance,
    Jitted,
    Layer,
    Lazy,
    Module,
    Partial,
    Property,
    Qual,
    Seq,
    StaticMethod,
    Value,
    join,
)
from shapecheck.results import Placement
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter

_MUTATORS = frozenset({
    "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update",
    "setdefault", "popitem", "__setitem__", "__delitem__",
})

class Expressions(InterpreterState):
    """Evaluates expressions: the part of `Interpreter` that computes values."""

    def eval(self, node: ast.expr, scope: Scope, ctx: Context) -> Value:
        method = _EVAL.get(type(node))
        value = method(self, node, scope, ctx) if method is not None else None
        if self.types is not None and isinstance(value, ArrayType):  # kept for hover only
            self.note_type(node, value, ctx)
        return value

    def note_type(self, node: ast.AST, value: Value, ctx: Context) -> None:
        """Keep `node`'s array type for hover (an expression's, or a parameter's as its body sees it)."""
        if self.types is not None and isinstance(value, ArrayType):
            # A node analysed several times (a function called with different arguments) shows
            # what holds in every analysis that gave it an array type, not the last one's type.
            # Hover shows what an annotation there would say: without vmap's and pmap's axes.
            shown = visible(value, ctx)
            self.keep_type(node, shown, _placement(value, ctx) if ctx.resources or ctx.manual else None)

    def keep_type(self, node: ast.AST, shown: ArrayType, placement: Placement | None) -> None:
        """Join `shown` into what hover shows of `node`."""
        assert self.types is not None
        if self.recorder is not None and self.recorder.active:
            self.recorder.noted(node, shown, placement)
        before = self.types.get(id(node))
        typed = join(before[1], shown) if before is not None else shown
        if before is not None and before[2] != placement:
            placement = None  # placed differently in different analyses: no one answer
        if isinstance(typed, ArrayType):
            self.types[id(node)] = (node, typed, placement)

    def eval_name(self, node: ast.Name, scope: Scope, ctx: Context) -> Value:
        return scope.lookup(node.id)

    def eval_constant(self, node: ast.Constant, scope: Scope, ctx: Context) -> Value:
        value = node.value
        if value is None or isinstance(value, int | float | complex | str):  # bool is an int
            return Const(value)  # `1j * k`: a weak complex scalar to the arrays it meets
        return None  # bytes and `...`: nothing the checker folds

    def eval_seq(self, node: ast.Tuple | ast.List, scope: Scope, ctx: Context) -> Value:
        items: list[Value] = []
        for element in node.elts:
            if isinstance(element, ast.Starred):
                inner = self.eval(element.value, scope, ctx)
                if not isinstance(inner, Seq):
                    return None
                items.extend(inner.items)
            else:
                items.append(self.eval(element, scope, ctx))
        return Seq(tuple(items), isinstance(node, ast.List), node, self.literal_lookup)

    def eval_fstring(self, node: ast.JoinedStr, scope: Scope, ctx: Context) -> Value:
        return containers.fstring(node, lambda part: self.eval(part, scope, ctx))

    def eval_dict(self, node: ast.Dict, scope: Scope, ctx: Context) -> Value:
        items: list[tuple[Value, Value]] = []
        parts: list[Value] = []  # `{**a, 'k': v, **b}`: the literal runs between merges
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:  # `**other`
                parts.extend((Dict(tuple(items)), self.eval(value, scope, ctx)))
                items = []
                continue
            items.append((self.eval(key, scope, ctx), self.eval(value, scope, ctx)))
        if parts:
            return containers.merge(*parts, Dict(tuple(items)))
        return Dict(tuple(items), node, self.literal_lookup)

    def eval_comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp,
                           scope: Scope, ctx: Context) -> Value:
        """Over known, short iterables, item by item: a list (a generator is read as one) or a
        dict; unknown otherwise, its element still evaluated once for what is certain in it."""
        known = True
        elements: list[Value] = []
        keys: list[Value] = []
        for bound, certain in self._comprehend(node.generators, self.child_scope(scope), ctx):
            if isinstance(node, ast.DictComp):
                keys.append(self.eval(node.key, bound, ctx))
                elements.append(self.eval(node.value, bound, ctx))
            else:
                elements.append(self.eval(node.elt, bound, ctx))
            known = known and certain
        if not known or isinstance(node, ast.SetComp):
            return None
        if isinstance(node, ast.DictComp):
            return containers.merge(Dict(tuple(zip(keys, elements, strict=True))))
        return Seq(tuple(elements), True)

    def _comprehend(self, generators: list[ast.comprehension], scope: Scope, ctx: Context,
                    ) -> Iterator[tuple[Scope, bool]]:
        """The scope of each item the element is evaluated for, and whether the item certainly
        belongs to the result; one uncertain scope, its names unknown, where the items are not
        known."""
        first, rest = generators[0], generators[1:]
        items = containers.iteration(self.eval(first.iter, scope, ctx))
        if items is None or len(items) > containers.MAX_ITEMS:
            self._bind_unknown(generators, scope, ctx, evaluated=1)
            yield scope, False
            return
        for item in items:
            self.assign(first.target, item, scope, first.iter)
            decided = [self.test(condition, scope, ctx) for condition in first.ifs]
            if any(d is False for d in decided):
                continue
            certain = all(d is True for d in decided)
            if rest:
                for bound, inner in self._comprehend(rest, scope, ctx):
                    yield bound, certain and inner
            else:
                yield scope, certain

    def _bind_unknown(self, generators: list[ast.comprehension], scope: Scope, ctx: Context,
                      evaluated: int) -> None:
        """Every generator's names unknown, their conditions (and the iterables after the first
        `evaluated`) still evaluated for what is certain in them."""
        for index, generator in enumerate(generators):
            if index >= evaluated:
                self.eval(generator.iter, scope, ctx)
            self.assign(generator.target, None, scope, generator.iter)
            for condition in generator.ifs:
                self.eval(condition, scope, ctx)

    def eval_attribute(self, node: ast.Attribute, scope: Scope, ctx: Context) -> Value:
        base = self.eval(node.value, scope, ctx)
        attr = node.attr
        if isinstance(base, Qual):
            name = canonical(f"{base.name}.{attr}")
            return Const(CONSTANTS[name]) if name in CONSTANTS else Qual(f"{base.name}.{attr}")
        if isinstance(base, Lazy):
            if base.attr is None:
                return Lazy(base.module, attr)
            return Lazy(f"{base.module}.{base.attr}", attr)
        if isinstance(base, Module):
            return base.scope.bindings.get(attr)
        if attr == "__wrapped__" and isinstance(base, Function | Jitted):
            # What `jax.jit` (and `functools.wraps`) wrapped: the function itself, as a jit
            # without shardings is here.
            return base.fun if isinstance(base, Jitted) else base
        if isinstance(base, Seq | Dict) and attr in containers.METHODS:
            return ContainerMethod(base, attr)
        if isinstance(base, Instance):
            if attr in ("_replace", "replace") and base.cls.record is not None and not base.has(attr):
                return Partial(Qual(DATACLASSES_REPLACE), (base,))
            found = base.get(attr)
            if isinstance(found, Function) and not base.has(attr):
                return BoundFunction(base, found)  # a method: the instance is its first argument
            if isinstance(found, Property) and not base.has(attr):
                return self.call_function(found.getter, CallArgs(node, [base], [node.value]), ctx)
            if isinstance(found, ClassMethod) and not base.has(attr):
                return BoundFunction(base.cls, found.function)
            if isinstance(found, StaticMethod) and not base.has(attr):
                return found.function
            return found if found is not None or base.has(attr) else objects.library_method(base, attr)
        if isinstance(base, Class):
            found = base.attribute(attr)
            if isinstance(found, ClassMethod):
                return BoundFunction(base, found.function)
            if isinstance(found, StaticMethod):
                return found.function
            return found if found is not None else objects.library_class_method(base, attr)
        if isinstance(base, Property) and attr in ("getter", "setter", "deleter"):
            return Partial(Qual(f"builtins.property.{attr}"), (base,))  # `@head_dim.setter`
        if isinstance(base, AtIndexer) and base.indexed:
            return BoundMethod(base.receiver, f"at.{attr}", base.target, base.index)
        if isinstance(base, Layer):
            # A built layer's parameter (`layer.kernel`, `linear.weight`), where its library
            # says what that attribute holds; else one of its library's methods.
            handler = self.methods.get(f"attr:{base.name}.{attr}")
            if handler is not None:
                return handler(cast("Interpreter", self), CallArgs(node, [base], [node.value]), ctx, scope)
            return objects.layer_method(base, attr)
        if isinstance(base, ArrayType):
            handler = self.methods.get(f"attr:{attr}")
            if handler is not None:
                return handler(cast("Interpreter", self), CallArgs(node, [base], [node.value]), ctx, scope)
            if f"method:{attr}" in self.methods:
                return BoundMethod(base, attr)
        return None

    def eval_binary(self, node: ast.BinOp, scope: Scope, ctx: Context) -> Value:
        left = self.eval(node.left, scope, ctx)
        right = self.eval(node.right, scope, ctx)
        return self.binary(node, type(node.op), left, right, node.left, node.right, ctx)

    def binary(self, node: ast.AST, operator: type[ast.operator], left: Value, right: Value,
               left_node: ast.AST, right_node: ast.AST, ctx: Context) -> Value:
        if operator is ast.BitOr and isinstance(left, Dict) and isinstance(right, Dict):
            return containers.merge(left, right)
        handler = self.handlers.get(f"operator:{operator.__name__}")
        if handler is None:
            return None
        call = CallArgs(node, [left, right], [left_node, right_node])
        result = handler(cast("Interpreter", self), call, ctx, self.scope)
        self.check_cooccurrence(result, (left, right), node, ctx)
        return result

    def eval_unary(self, node: ast.UnaryOp, scope: Scope, ctx: Context) -> Value:
        value = self.eval(node.operand, scope, ctx)
        op = type(node.op)
        if op is ast.Not:
            known = truth(value)
            return None if known is None else Const(not known)
        if isinstance(value, ArrayType):
            return value
        if isinstance(value, Const) and isinstance(value.value, int | float) and not isinstance(value.value, bool):
            if op is ast.USub:
                return type(value)(-value.value)  # a traced int stays traced
            if op is ast.UAdd:
                return value
        return None

    def eval_comparison(self, node: ast.Compare, scope: Scope, ctx: Context) -> Value:
        left = self.eval(node.left, scope, ctx)
        left_node: ast.expr = node.left
        result: Value = None
        decided: list[bool | None] = []
        for operator, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.eval(comparator, scope, ctx)
            decided.append(compare(operator, left, right))
            if isinstance(operator, ast.Is | ast.IsNot | ast.In | ast.NotIn):
                result = None
            elif isinstance(left, ArrayType) or isinstance(right, ArrayType):
                handler = self.handlers["operator:Comparison"]
                call = CallArgs(node, [left, right], [left_node, comparator])
                result = handler(cast("Interpreter", self), call, ctx, scope)
            left, left_node = right, comparator
        if decided and all(d is not None for d in decided):
            return Const(all(decided))
        if any(d is False for d in decided):
            return Const(False)
        return result if len(node.ops) == 1 else None

    def eval_boolean(self, node: ast.BoolOp, scope: Scope, ctx: Context) -> Value:
        is_and = isinstance(node.op, ast.And)
        left = self.eval(node.values[0], scope, ctx)
        # `a and b and c` is one node: fold it as `(a and b) and c`.
        for operand in node.values[1:]:
            known = truth(left)
            if known is not None and known is not is_and:
                return left  # short-circuited: the rest never runs
            right = self.eval(operand, scope, ctx)
            left = right if known is not None else None
        return left

    def test(self, node: ast.expr, scope: Scope, ctx: Context) -> bool | None:
        """Whether a condition is certainly true or false, None when it may be either.

        `a and b` is false when either side certainly is, whatever the other (klujax's
        `if Ax.ndim == 1 and x.ndim == 2` with Ax unknown and x 1-D); `a or b` likewise true.
        """
        if isinstance(node, ast.BoolOp):
            is_and = isinstance(node.op, ast.And)
            left = self.test(node.values[0], scope, ctx)
            for operand in node.values[1:]:
                if left is not None and left is not is_and:
                    return left  # short-circuited: the rest never runs
                right = self.test(operand, scope, ctx)
                # Undecided `x and True` stays undecided; `x and False` is false whatever x is.
                left = None if left is None and right is is_and else right
            return left
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = self.test(node.operand, scope, ctx)
            return None if inner is None else not inner
        return truth(self.eval(node, scope, ctx))

    def eval_ifexp(self, node: ast.IfExp, scope: Scope, ctx: Context) -> Value:
        test = self.test(node.test, scope, ctx)
        if test is True:
            return self.eval(node.body, scope, ctx)
        if test is False:
            return self.eval(node.orelse, scope, ctx)
        return join(self.eval(node.body, scope, ctx), self.eval(node.orelse, scope, ctx))

    def eval_lambda(self, node: ast.Lambda, scope: Scope, ctx: Context) -> Value:
        function = Function(node, scope, self.module_name, "<lambda>")
        self.functions.append(function)
        if self.recorder is not None and self.recorder.active:
            self.recorder.defined(function)
        return function

    def eval_namedexpr(self, node: ast.NamedExpr, scope: Scope, ctx: Context) -> Value:
        value = self.eval(node.value, scope, ctx)
        self.assign(node.target, value, scope, node.value)
        return value

    def eval_subscript(self, node: ast.Subscript, scope: Scope, ctx: Context) -> Value:
        base = containers.as_sequence(self.eval(node.value, scope, ctx))
        handler = self.handlers.get("operator:Subscript")
        if handler is None or base is None:
            index = node.slice
            for part in index.elts if isinstance(index, ast.Tuple) else (index,):
                if isinstance(part, ast.Starred):
                    self.eval(part.value, scope, ctx)
                elif not isinstance(part, ast.Slice):
                    self.eval(part, scope, ctx)
            return None
        return handler(cast("Interpreter", self), CallArgs(node, [base], [node.value]), ctx, scope)

    def eval_call(self, node: ast.Call, scope: Scope, ctx: Context) -> Value:
        func = self.eval(node.func, scope, ctx)
        callee = node.func
        if type(callee) is ast.Attribute and callee.attr in _MUTATORS:  # `layers.append(x)`, ...
            if self._grow(node, scope, ctx):
                return Const(None)
            self._forget_mutated(callee, scope)
        if expects_error_call(node):
            # `assert_raises(IndexError, lambda: a[5])`: the arguments are meant to fail.
            self.reporter.muted += 1
            first = len(self.functions)
            try:
                return self._eval_call(node, func, scope, ctx)
            finally:
                self.reporter.muted -= 1
                self.expected_failures.update(id(f.node) for f in self.functions[first:])
                if self.recorder is not None and self.recorder.active and len(self.functions) > first:
                    self.recorder.spoil()  # the functions it marks are not followed across runs
        return self._eval_call(node, func, scope, ctx)

    def _eval_call(self, node: ast.Call, func: Value, scope: Scope, ctx: Context) -> Value:
        call = CallArgs(node)
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                value = self.eval(arg.value, scope, ctx)
                if isinstance(value, Seq):
                    call.args.extend(value.items)
                    call.arg_nodes.extend([arg.value] * len(value.items))
                    call.raw_args.extend([arg.value] * len(value.items))
                else:
                    call.opaque = True
            else:
                call.args.append(self.eval(arg, scope, ctx))
                call.arg_nodes.append(arg)
                call.raw_args.append(arg)
        for keyword in node.keywords:
            value = self.eval(keyword.value, scope, ctx)
            if keyword.arg is None:  # `**options`
                expanded = _keywords(value)
                if expanded is None:
                    call.opaque = True
                    continue
                # `init(**CONFIG)`: each key a keyword written there. Its source is the dict's, not
                # a literal of its own (`arg_expr` is None: rules read the value).
                for name, item in expanded:
                    call.kwargs[name] = item
                    call.kwarg_nodes[name] = keyword.value
                    call.raw_kwargs.pop(name, None)
            else:
                call.kwargs[keyword.arg] = value
                # The value, not `name=value`: findings about an argument point at what was passed.
                call.kwarg_nodes[keyword.arg] = keyword.value
                call.raw_kwargs[keyword.arg] = keyword.value
        if isinstance(func, Lazy):
            func = self.imports.resolve(func) if self.imports.worth_loading(func, call) else None
        if func is None:
            return None
        if isinstance(func, Qual) and canonical(func.name) in takes_functions():
            # Maps and partial need the function and specs they are given, even imported ones.
            call.args = [self.imports.resolve(arg) for arg in call.args]
            call.kwargs = {key: self.imports.resolve(arg) for key, arg in call.kwargs.items()}
        result = self.call(func, call, ctx, scope)
        if ctx.resources and isinstance(result, ArrayType):  # what `check_cooccurrence` checks first
            inputs = [v for v in (*call.args, *call.kwargs.values()) if isinstance(v, ArrayType)]
            if isinstance(func, BoundMethod):
                inputs.append(func.receiver)
            self.check_cooccurrence(result, inputs, node, ctx)
        return result

    def _grow(self, node: ast.Call, scope: Scope, ctx: Context) -> bool:
        """`layers.append(x)`, `layers.extend(more)`, `params.update(more)` on a list or dict the
        checker follows: bind the grown container. False where the call is not one of these."""
        func = node.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.attr in ("append", "extend", "update") and len(node.args) == 1
                and not node.keywords and not isinstance(node.args[0], ast.Starred)):
            return False
        container = scope.lookup(func.value.id)
        grown: Value = None
        if func.attr == "update" and isinstance(container, Dict):
            grown = containers.merge(container, self.eval(node.args[0], scope, ctx))
        elif func.attr != "update" and isinstance(container, Seq) and container.is_list:
            item = self.eval(node.args[0], scope, ctx)
            if func.attr == "append":
                grown = Seq((*container.items, item), True)
            elif isinstance(item, Seq):
                grown = Seq((*container.items, *item.items), True)
        else:
            return False
        scope.bind(func.value.id, grown)
        return True

    def _forget_mutated(self, func: ast.expr, scope: Scope) -> None:
        """`labels.append(row)` and friends: the list's contents are no longer what was built."""
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.attr in _MUTATORS
                and isinstance(scope.lookup(func.value.id), Seq | Dict)):
            scope.bind(func.value.id, None)


_EVAL: dict[type, Callable[[Expressions, ast.expr, Scope, Context], Value]] = {
    ast.Name: Expressions.eval_name,  # type: ignore[dict-item]
    ast.Constant: Expressions.eval_constant,  # type: ignore[dict-item]
    ast.Tuple: Expressions.eval_seq,  # type: ignore[dict-item]
    ast.List: Expressions.eval_seq,  # type: ignore[dict-item]
    ast.Dict: Expressions.eval_dict,  # type: ignore[dict-item]
    ast.Attribute: Expressions.eval_attribute,  # type: ignore[dict-item]
    ast.BinOp: Expressions.eval_binary,  # type: ignore[dict-item]
    ast.UnaryOp: Expressions.eval_unary,  # type: ignore[dict-item]
    ast.Compare: Expressions.eval_comparison,  # type: ignore[dict-item]
    ast.BoolOp: Expressions.eval_boolean,  # type: ignore[dict-item]
    ast.IfExp: Expressions.eval_ifexp,  # type: ignore[dict-item]
    ast.Lambda: Expressions.eval_lambda,  # type: ignore[dict-item]
    ast.NamedExpr: Expressions.eval_namedexpr,  # type: ignore[dict-item]
    ast.Subscript: Expressions.eval_subscript,  # type: ignore[dict-item]
    ast.Call: Expressions.eval_call,  # type: ignore[dict-item]
    ast.JoinedStr: Expressions.eval_fstring,  # type: ignore[dict-item]
    ast.ListComp: Expressions.eval_comprehension,  # type: ignore[dict-item]
    ast.SetComp: Expressions.eval_comprehension,  # type: ignore[dict-item]
    ast.GeneratorExp: Expressions.eval_comprehension,  # type: ignore[dict-item]
    ast.DictComp: Expressions.eval_comprehension,  # type: ignore[dict-item]
}


def _placement(value: ArrayType, ctx: Context) -> Placement | None:
    """How `value` lies on the mesh: the mesh axes xmap's axis_resources give its named axes,
    and, in a shard_map body, the manual mesh axes it varies over (carried as named axes)."""
    resources = ctx.resource_map
    named = [name for name, _ in value.named]
    placement = Placement(tuple((name, resources[name]) for name in named if name in resources),
                          replication.ordered((name for name in named if name in ctx.manual), ctx.checked))
    return placement if placement.resources or placement.varying else None


def _keywords(value: Value) -> list[tuple[str, Value]] | None:
    """The keywords `**value` passes: a dict whose keys are all known strings; None otherwise."""
    if not isinstance(value, Dict):
        return None
    found = [(key.value, item) for key, item in value.items if isinstance(key, Const) and isinstance(key.value, str)]
    return found if len(found) == len(value.items) else None
