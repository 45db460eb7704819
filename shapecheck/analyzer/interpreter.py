"""The abstract interpreter: walks a module's statements and expressions, tracking values.

It holds no shape rule: operations on arrays go to the algebra through the library handlers,
and annotations to the annotation parser. Unknown things stay unknown (None) and are never
reported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import libcst as cst

from shapecheck.algebra.conformance import (
    Bindings,
    conform,
    forget_symbols,
    rigid,
    substitute,
    unknown_where,
)
from shapecheck.algebra.resources import cooccurrence
from shapecheck.analyzer.annotations import Invalid, read_annotation
from shapecheck.analyzer.calls import CallArgs, Handler
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.literals import string_value, to_lit
from shapecheck.analyzer.provenance import Provenance
from shapecheck.analyzer.qualnames import canonical
from shapecheck.analyzer.report import Reporter
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    AtIndexer,
    AxisSize,
    BoundMethod,
    Class,
    Const,
    Dict,
    Function,
    Lazy,
    Mesh,
    MeshContext,
    Module,
    Partial,
    Qual,
    Seq,
    Value,
    Vmap,
    Xmap,
    join,
)
from shapecheck.analyzer.walk import assigned_names, map_axis_names, subscripts, target_names
from shapecheck.codes import Code
from shapecheck.dims import Conflict
from shapecheck.literal import Kind, Lit
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    # Only a type here: the loader builds interpreters for imported modules, so importing it
    # at run time would close a cycle.
    from shapecheck.analyzer.modules import ModuleLoader

_MUTATORS = frozenset({
    "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update",
    "setdefault", "popitem", "__setitem__", "__delitem__",
})

_TAKES_FUNCTIONS = frozenset({
    "jax.experimental.maps.xmap", "jax.vmap", "jax.pmap", "functools.partial", "jax.jit",
})

MAX_DEPTH = 12  # nested analyses (calls within calls) before results are left unknown


@dataclass(slots=True)
class Frame:
    """One function analysis in progress: what it returns, and its signature's bindings."""

    function: Function | None
    returns: list[Value] = field(default_factory=list)
    declared_return: ArrayType | None = None
    bindings: Bindings = field(default_factory=dict)
    returned_node: cst.CSTNode | None = None


class Interpreter:
    """Analyses one module. `handlers` maps canonical qualified names to library rules."""

    def __init__(
        self, module: cst.Module, module_name: str, reporter: Reporter,
        handlers: dict[str, Handler], methods: dict[str, Handler],
        annotation_names: frozenset[str], types: dict[int, tuple[cst.CSTNode, ArrayType]] | None = None,
        loader: ModuleLoader | None = None,
    ) -> None:
        self.loader = loader
        self.module = module
        self.module_name = module_name
        self.reporter = reporter
        self.handlers = handlers
        self.methods = methods
        self.annotation_names = annotation_names
        self.functions: list[Function] = []
        self.expected_failures: set[int] = set()  # lambdas handed to assert_raises and friends
        self.analysed: set[int] = set()
        self.cache: dict[tuple[object, ...], Value] = {}
        self.active: set[int] = set()  # functions being analysed: a call back into one is recursion
        # Analyses per file are bounded: each function a few times over, whatever the call graph.
        self.budget = 200 + 20 * sum(1 for _ in _function_defs(module))
        self.frames: list[Frame] = []
        self.types = types  # node id -> (node, type) of array-valued expressions, for hover
        self.scope = Scope(None, module_name)
        self._module_sources: dict[str, cst.BaseExpression] = {}
        self._map_axis_names: frozenset[str] | None = None
        self._annotations: dict[int, ArrayType | Invalid | None] = {}

    # ---------------------------------------------------------------- module

    def run(self, *, analyse_functions: bool = True) -> None:
        # Classes are known before their statement runs: stubs and postponed annotations name
        # them earlier (`Array[_CT]` above `class Array` in typeshed's _ctypes).
        for statement in self.module.body:
            if isinstance(statement, cst.ClassDef):
                self.scope.bind(statement.name.value, Class(statement.name.value))
        ctx = Context(bound=frozenset())
        self.frames.append(Frame(None))
        self.exec_block(self.module.body, self.scope, ctx)
        self.frames.pop()
        if not analyse_functions:
            return
        # Every function is also analysed on its own, with its declared (or unknown) argument
        # types, so code that no checked call reaches is still checked.
        index = 0
        while index < len(self.functions):
            function = self.functions[index]
            index += 1
            # A signature with symbols is also checked generically, whatever calls it got:
            # a call binds its symbols to sizes that may hide what is wrong for others.
            if id(function.node) not in self.analysed or self._has_symbols(function):
                self.analyse_alone(function)

    def map_axis_names(self) -> frozenset[str]:
        """Every axis name a map of this module could bind (read once, when first needed)."""
        if self._map_axis_names is None:
            self._map_axis_names = map_axis_names(self.module)
        return self._map_axis_names

    def _has_symbols(self, function: Function) -> bool:
        params = function.node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            declared = self._param_type(param, function.scope)
            if declared is not None and declared.symbols():
                return True
        return False

    def analyse_alone(self, function: Function) -> None:
        expected = id(function.node) in self.expected_failures
        self.reporter.muted += expected
        try:
            self.call_function(function, CallArgs(function.node), Context(), alone=True)
        finally:
            self.reporter.muted -= expected

    # ---------------------------------------------------------------- statements

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
            for alias in node.names:
                full = _dotted(alias.name)
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    scope.bind(alias.asname.name.value, self.imported(full, None))
                else:
                    root = full.split(".")[0]
                    scope.bind(root, self.imported(root, None))
        elif isinstance(node, cst.ImportFrom):
            self.exec_import_from(node, scope)
        elif isinstance(node, cst.Global | cst.Nonlocal):
            for item in node.names:
                scope.bind(item.name.value, None)
        elif isinstance(node, cst.Del):
            for name in target_names(node.target):
                scope.bind(name, None)

    def exec_import_from(self, node: cst.ImportFrom, scope: Scope) -> None:
        module = _dotted(node.module) if node.module is not None else ""
        if node.relative:
            # `from .layers import dense` inside package `models`: `models.layers`.
            package = self.module_name.split(".")
            base = package[: max(len(package) - len(node.relative), 0)]
            module = ".".join([*base, module] if module else base)
        if isinstance(node.names, cst.ImportStar) and module:
            scope.stars.append(module)  # read by annotation provenance
        if isinstance(node.names, cst.ImportStar) or not module:
            return
        for alias in node.names:
            name = _dotted(alias.name)
            local = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else name
            if self.loader is not None and self.loader.knows(f"{module}.{name}"):
                scope.bind(local, Lazy(f"{module}.{name}"))
            else:
                scope.bind(local, self.imported(module, name))

    def imported(self, module: str, name: str | None) -> Value:
        """What an import binds: a project module (lazily) or a library name."""
        if self.loader is not None and self.loader.knows(module):
            return Lazy(module, name)
        return Qual(f"{module}.{name}" if name else module)

    def resolve(self, value: Value) -> Value:
        """The value behind a lazy import (None when it cannot be loaded)."""
        if not isinstance(value, Lazy) or self.loader is None:
            return value
        scope = self.loader.load(value.module)
        if scope is None:
            return None
        if value.attr is None:
            return Module(value.module, scope)
        if self.loader.knows(f"{value.module}.{value.attr}"):
            return self.resolve(Lazy(f"{value.module}.{value.attr}"))
        return scope.lookup(value.attr)

    def worth_loading(self, value: Value, call: CallArgs) -> bool:
        """Load an imported callee only where it can say something: known arrays go in, or its
        module uses the annotation language."""
        if not isinstance(value, Lazy) or self.loader is None:
            return False
        if any(isinstance(arg, ArrayType) for arg in (*call.args, *call.kwargs.values())):
            return True
        return self.loader.mentions_annotations(value.module)

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
                problems = conform(declared, _visible(value, ctx), bindings, what)
                self.reporter.problems(problems, node.value)
                value = unknown_where(_prefer(substitute(declared, bindings), value), problems)
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
                conform(frame.declared_return, _visible(value, ctx), frame.bindings,
                        f"the value {name} returns"),
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
            expects_error = expects_error or _expects_error(item.item)
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

    # ---------------------------------------------------------------- annotations

    def read(self, node: cst.BaseExpression, scope: Scope) -> ArrayType | Invalid | None:
        """`read_annotation`, once per annotation node (functions are analysed many times)."""
        key = id(node)
        if key not in self._annotations:
            names = Provenance(scope, self, self.loader)
            self._annotations[key] = read_annotation(node, names, self.annotation_names)
        return self._annotations[key]

    def module_source(self, name: str) -> cst.BaseExpression | None:
        """The expression a module-level name was last assigned (for annotation provenance)."""
        return self._module_sources.get(name)

    def annotation(self, node: cst.BaseExpression, scope: Scope) -> ArrayType | None:
        """The array type `node` declares, reporting SC001 for malformed ones (nested ones too)."""
        result = self.read(node, scope)
        if isinstance(result, Invalid):
            self.reporter.add(result.node, Code.INVALID_ANNOTATION, f"invalid annotation: {result.message}")
            return None
        if result is None:
            for inner in subscripts(node):
                if inner is node:
                    continue
                found = self.read(inner, scope)
                if isinstance(found, Invalid):
                    self.reporter.add(found.node, Code.INVALID_ANNOTATION, f"invalid annotation: {found.message}")
        return result

    # ---------------------------------------------------------------- assignment

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

    def _forget_mutated(self, func: cst.BaseExpression, scope: Scope) -> None:
        """`labels.append(row)` and friends: the list's contents are no longer what was built."""
        if (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                and func.attr.value in _MUTATORS
                and isinstance(scope.lookup(func.value.value), Seq | Dict)):
            scope.bind(func.value.value, None)

    def literal_lookup(self, name: str) -> Lit | None:
        """Module-level names bound to literals (an in_axes spec assigned once, used later)."""
        source = self._module_sources.get(name)
        if source is None:
            # `from specs import BATCH`: the literal lives in the other module.
            bound = self.scope.bindings.get(name)
            if isinstance(bound, Lazy) and bound.attr is not None and self.loader is not None:
                return self.loader.literal(bound.module, bound.attr)
            return None
        lit = to_lit(source, self.literal_lookup)
        return lit if lit.kind not in (Kind.NAME, Kind.OTHER) else None

    # ---------------------------------------------------------------- expressions

    def eval(self, node: cst.BaseExpression, scope: Scope, ctx: Context) -> Value:
        method = _EVAL.get(type(node))
        value = method(self, node, scope, ctx) if method is not None else None
        if self.types is not None and isinstance(value, ArrayType):
            self.types[id(node)] = (node, value)
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
                return handler(self, CallArgs(node, [base], [node.value]), ctx, scope)
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
        result = handler(self, call, ctx, self.scope)
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
                result = handler(self, CallArgs(node, [left, right], [left_node, target.comparator]), ctx, scope)
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
        return handler(self, CallArgs(node, [base], [node.value]), ctx, scope)

    def eval_call(self, node: cst.Call, scope: Scope, ctx: Context) -> Value:
        func = self.eval(node.func, scope, ctx)
        self._forget_mutated(node.func, scope)
        if _expects_error_call(node):
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
            func = self.resolve(func) if self.worth_loading(func, call) else None
        if func is None:
            return None
        if isinstance(func, Qual) and canonical(func.name) in _TAKES_FUNCTIONS:
            # xmap/vmap/partial need the function and specs they are given, even imported ones.
            call.args = [self.resolve(arg) for arg in call.args]
            call.kwargs = {key: self.resolve(arg) for key, arg in call.kwargs.items()}
        result = self.call(func, call, ctx, scope)
        inputs = [v for v in (*call.args, *call.kwargs.values()) if isinstance(v, ArrayType)]
        if isinstance(func, BoundMethod):
            inputs.append(func.receiver)
        self.check_cooccurrence(result, inputs, node, ctx)
        return result

    # ---------------------------------------------------------------- calls

    def call(self, func: Value, call: CallArgs, ctx: Context, scope: Scope) -> Value:
        if call.opaque and isinstance(func, Qual | BoundMethod):
            return None  # `*args`/`**kwargs` not expanded: no argument's position or meaning is certain
        if isinstance(func, Qual):
            call.name = canonical(func.name)
            call.written = func.name
            handler = self.handlers.get(call.name)
            return handler(self, call, ctx, scope) if handler is not None else None
        if isinstance(func, BoundMethod):
            handler = self.methods.get(f"method:{func.name}")
            if handler is None:
                return None
            bound = CallArgs(call.node, [func.receiver, *call.args], [call.node, *call.arg_nodes],
                             call.kwargs, call.kwarg_nodes, [], call.raw_kwargs, call.opaque)
            bound.raw_args = [None, *call.raw_args]  # type: ignore[list-item]
            bound.name = f"method:{func.name}"
            return handler(self, bound, ctx, scope)
        if isinstance(func, Function):
            if call.opaque:
                return None
            return self.call_function(func, call, ctx)
        if isinstance(func, Partial):
            merged = CallArgs(call.node, [*func.args, *call.args],
                              [call.node] * len(func.args) + call.arg_nodes,
                              {**dict(func.kwargs), **call.kwargs},
                              {**{k: call.node for k, _ in func.kwargs}, **call.kwarg_nodes},
                              [], dict(call.raw_kwargs), call.opaque)
            return self.call(func.func, merged, ctx, scope)
        if isinstance(func, Xmap | Vmap):
            from shapecheck.analyzer.library.maps import call_map

            return call_map(self, func, call, ctx, scope)
        return None

    def call_function(self, function: Function, call: CallArgs, ctx: Context, *, alone: bool = False,
                      declared_args: bool = True) -> Value:
        """Analyse `function` for these arguments (once per distinct argument types)."""
        if ctx.depth > MAX_DEPTH:
            return None
        params = function.node.params
        scope = function.scope.child()
        bindings: Bindings = {}
        positional = [*params.posonly_params, *params.params]
        args = list(call.args)
        typed: list[tuple[str, ArrayType | None]] = []
        axes_reported: set[str] = set()  # a named axis has one size per call: one SC103 for it
        for index, param in enumerate(positional):
            name = param.name.value
            declared = self._param_type(param, function.scope)
            if index < len(args):
                value, node = args[index], call.node_of(index)
            elif name in call.kwargs:
                value, node = call.kwargs[name], call.kwarg_nodes.get(name, call.node)
            elif param.default is not None:
                value, node = self.eval(param.default, function.scope, ctx), param.default
            else:
                value, node = None, call.node
            scope.bind(name, self._bind_param(function, name, declared, value, node, bindings, ctx, alone,
                                                   axes_reported))
            typed.append((name, declared))
        if isinstance(params.star_arg, cst.Param):
            rest = args[len(positional):]
            scope.bind(params.star_arg.name.value, Seq(tuple(rest)) if not alone else None)
        for param in params.kwonly_params:
            name = param.name.value
            declared = self._param_type(param, function.scope)
            if name in call.kwargs:
                value, node = call.kwargs[name], call.kwarg_nodes.get(name, call.node)
            elif param.default is not None:
                value, node = self.eval(param.default, function.scope, ctx), param.default
            else:
                value, node = None, call.node
            scope.bind(name, self._bind_param(function, name, declared, value, node, bindings, ctx, alone,
                                                   axes_reported))
            typed.append((name, declared))
        if params.star_kwarg is not None:
            scope.bind(params.star_kwarg.name.value, None)
        conflicted = {symbol for symbol, size in bindings.items() if isinstance(size, Conflict)}
        if conflicted:
            # A symbol two arguments gave different sizes is unknown in the whole body, also in
            # the parameters bound before the conflict showed.
            for name, declared in typed:
                bound = scope.bindings.get(name)
                if declared is not None and isinstance(bound, ArrayType):
                    scope.bind(name, forget_symbols(declared, bound, conflicted))

        declared_return: ArrayType | None = None
        if isinstance(function.node, cst.FunctionDef) and function.node.returns is not None:
            read = self.read(function.node.returns.annotation, function.scope)
            declared_return = read if isinstance(read, ArrayType) else None
        arg_key = tuple(scope.bindings.items())
        key = (id(function.node), _hashable(arg_key), ctx.key())
        if key in self.cache:
            return self._returned(self.cache[key], declared_return, bindings)
        if id(function.node) in self.active or self.budget <= 0:
            # Recursion (whatever the arguments) and runaway call trees are cut off: unknown.
            return self._returned(None, declared_return, bindings)
        self.budget -= 1
        foreign = function.module != self.module_name
        if foreign:
            # Another module's body: what fails there only for these arguments is reported at
            # this file's call; the rest belongs to that module's own check.
            self.reporter.capture()
        self.active.add(id(function.node))
        self.analysed.add(id(function.node))
        frame = Frame(function, declared_return=declared_return, bindings=dict(bindings))
        self.frames.append(frame)
        try:
            inner = ctx.deeper()
            if isinstance(function.node, cst.Lambda):
                frame.returns.append(self.eval(function.node.body, scope, inner))
            else:
                body = function.node.body
                if isinstance(body, cst.IndentedBlock):
                    falls_off = self.exec_block(body.body, scope, inner)
                else:
                    falls_off = all(self.exec_small(small, scope, inner) for small in body.body
                                    if isinstance(small, cst.BaseSmallStatement))
                if falls_off and frame.returns:
                    frame.returns.append(Const(None))  # reaching the end returns None too
        finally:
            self.frames.pop()
            self.active.discard(id(function.node))
            if foreign:
                inside = self.reporter.release()
                if inside and not alone:
                    first = inside[0]
                    self.reporter.add(call.node, first.code,
                                      f"in `{function.name}` (module {function.module}), called here: "
                                      f"{first.message}")
        result: Value = None
        if frame.returns:
            result = frame.returns[0]
            for other in frame.returns[1:]:
                result = join(result, other)
        elif isinstance(function.node, cst.FunctionDef):
            result = Const(None)
        self.cache[key] = result
        return self._returned(result, declared_return, bindings)

    def _returned(self, inferred: Value, declared: ArrayType | None, bindings: Bindings) -> Value:
        """What a call gives its caller: the declared return with the call's sizes, where the
        body's own result does not contradict it (that is reported in the body, once)."""
        if declared is None:
            return inferred
        resolved = substitute(declared, bindings, free=False)
        if isinstance(inferred, ArrayType):
            # Names the annotation does not declare (vmap's hidden axes among them) are dropped
            # by the declared type anyway: only contradicted sizes are made unknown.
            declared_names = resolved.named_dict
            problems = [p for p in conform(resolved, inferred, {}, "")
                        if all(isinstance(a, int) or a in declared_names for a in p.axes)]
            return unknown_where(_prefer(resolved, inferred), problems)
        return resolved

    def _param_type(self, param: cst.Param, scope: Scope) -> ArrayType | None:
        if param.annotation is None:
            return None
        found = self.read(param.annotation.annotation, scope)
        return found if isinstance(found, ArrayType) else None

    def _bind_param(self, function: Function, name: str, declared: ArrayType | None, value: Value,
                    node: cst.CSTNode, bindings: Bindings, ctx: Context, alone: bool,
                    axes_reported: set[str]) -> Value:
        if declared is None:
            return value
        if isinstance(value, ArrayType) and not alone:
            what = f"argument `{name}` of {function.name}"
            problems = conform(declared, _visible(value, ctx), bindings, what)
            # Two arguments with one wrong axis size (both from one xmap axis, say): one root.
            fresh = [p for p in problems if not any(a in axes_reported for a in p.axes if isinstance(a, str))]
            axes_reported.update(a for p in problems for a in p.axes if isinstance(a, str))
            self.reporter.problems(fresh, node)
            # The body sees the declared type (its contract), with symbols the call bound, and
            # unknown sizes where the argument contradicts it (reported here, once).
            return unknown_where(_prefer(substitute(declared, bindings), value), problems)
        if alone:
            # On its own, the body is checked for every size its symbols may take.
            return rigid(declared, bindings)
        return declared

    def check_cooccurrence(self, result: Value, inputs: Iterable[Value], node: cst.CSTNode, ctx: Context) -> None:
        """SC201 at the expression that first builds a value holding two co-mapped axes."""
        if not ctx.resources or not isinstance(result, ArrayType):
            return
        resources = ctx.resource_map
        problems = cooccurrence((name for name, _ in result.named), resources)
        if not problems:
            return
        before = {tuple(sorted(p.axes)) for value in inputs if isinstance(value, ArrayType)
                  for p in cooccurrence((name for name, _ in value.named), resources)}
        fresh = [p for p in problems if tuple(sorted(p.axes)) not in before]
        self.reporter.problems(fresh, node, notes=ctx.resource_notes)


def _function_defs(module: cst.Module) -> list[cst.CSTNode]:
    return [n for n in module.body if isinstance(n, cst.FunctionDef | cst.ClassDef)]


_RAISES = frozenset({"raises", "assertRaises", "assertRaisesRegex", "assertRaisesWithLiteralMatch",
                     "assert_raises", "assert_raises_regex"})


def _expects_error_call(node: cst.Call) -> bool:
    """`pytest.raises(E, fn, *args)` and `assert_raises(E, fn)`: the callable form."""
    return len(node.args) >= 2 and _expects_error(node)


def _expects_error(item: cst.BaseExpression) -> bool:
    """`pytest.raises(...)`, `self.assertRaises(...)`, `assertRaisesRegex(...)`."""
    if not isinstance(item, cst.Call):
        return False
    func = item.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    return name in _RAISES


def truth(value: Value) -> bool | None:
    """Python truthiness where the checker knows it, else None."""
    if isinstance(value, Const):
        return bool(value.value)
    if isinstance(value, Seq):
        return bool(value.items)
    if isinstance(value, Function | Partial | Xmap | Vmap | Mesh):
        return True
    return None


def _known_not_none(value: Value) -> bool:
    if isinstance(value, Const):
        return value.value is not None
    return value is not None and not isinstance(value, Qual | Lazy | Module | AxisSize)


def _plain(value: Value) -> object:
    """The Python value of a constant (tuples of constants included), or a sentinel."""
    if isinstance(value, Const):
        return value.value
    if isinstance(value, Seq) and all(isinstance(item, Const) for item in value.items):
        return tuple(item.value for item in value.items if isinstance(item, Const))
    return _UNKNOWN


_UNKNOWN = object()


def compare(operator: cst.BaseCompOp, left: Value, right: Value) -> bool | None:
    """The outcome of one comparison between constants (shape tuples included), else None."""
    if isinstance(operator, cst.Is | cst.IsNot):
        outcome: bool | None = None
        if isinstance(right, Const) and right.value is None:
            if isinstance(left, Const) and left.value is None:
                outcome = True
            elif _known_not_none(left):
                outcome = False
        return outcome if outcome is None or isinstance(operator, cst.Is) else not outcome
    a, b = _plain(left), _plain(right)
    if a is _UNKNOWN or b is _UNKNOWN:
        return None
    try:
        if isinstance(operator, cst.In | cst.NotIn):
            if not isinstance(b, tuple):
                return None
            return (a in b) == isinstance(operator, cst.In)
        result = _COMPARE[type(operator)](a, b)
    except (TypeError, KeyError):
        return None
    return bool(result)


_COMPARE: dict[type, Callable[[Any, Any], object]] = {
    cst.Equal: lambda a, b: a == b,
    cst.NotEqual: lambda a, b: a != b,
    cst.LessThan: lambda a, b: a < b,
    cst.LessThanEqual: lambda a, b: a <= b,
    cst.GreaterThan: lambda a, b: a > b,
    cst.GreaterThanEqual: lambda a, b: a >= b,
}


def _visible(value: ArrayType, ctx: Context) -> ArrayType:
    """`value` as annotations see it: vmap's batch axes are invisible to the mapped function."""
    if not ctx.hidden or not any(name in ctx.hidden for name, _ in value.named):
        return value
    return value.with_named((n, s) for n, s in value.named if n not in ctx.hidden)


def _prefer(declared: ArrayType, inferred: ArrayType) -> ArrayType:
    """The declared type, with what inference knows filling its unknown parts."""
    if declared.is_anything:
        return inferred if declared.dtype is None else inferred.with_dtype(declared.dtype)
    if declared.ellipsis is None and inferred.ellipsis is None and len(declared.dims) == len(inferred.dims):
        dims = tuple(d if isinstance(d, int) else (i if i is not None else d)
                     for d, i in zip(declared.dims, inferred.dims, strict=True))
        return ArrayType(declared.dtype or inferred.dtype, dims, declared.named, None, declared.named_open)
    return declared


def _hashable(items: object) -> object:
    try:
        hash(items)
    except TypeError:
        return object()  # unhashable arguments: never shares a cache entry
    return items


def _merge(a: dict[str, Value], b: dict[str, Value]) -> dict[str, Value]:
    merged: dict[str, Value] = {}
    for name in a.keys() | b.keys():
        if name in a and name in b:
            merged[name] = join(a[name], b[name])
        else:
            merged[name] = None
    return merged


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


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

_EVAL: dict[type, Callable[[Interpreter, cst.BaseExpression, Scope, Context], Value]] = {
    cst.Name: Interpreter.eval_name,  # type: ignore[dict-item]
    cst.Integer: Interpreter.eval_int,  # type: ignore[dict-item]
    cst.Float: Interpreter.eval_float,  # type: ignore[dict-item]
    cst.SimpleString: Interpreter.eval_string,  # type: ignore[dict-item]
    cst.ConcatenatedString: Interpreter.eval_string,  # type: ignore[dict-item]
    cst.Tuple: Interpreter.eval_seq,  # type: ignore[dict-item]
    cst.List: Interpreter.eval_seq,  # type: ignore[dict-item]
    cst.Dict: Interpreter.eval_dict,  # type: ignore[dict-item]
    cst.Attribute: Interpreter.eval_attribute,  # type: ignore[dict-item]
    cst.BinaryOperation: Interpreter.eval_binary,  # type: ignore[dict-item]
    cst.UnaryOperation: Interpreter.eval_unary,  # type: ignore[dict-item]
    cst.Comparison: Interpreter.eval_comparison,  # type: ignore[dict-item]
    cst.BooleanOperation: Interpreter.eval_boolean,  # type: ignore[dict-item]
    cst.IfExp: Interpreter.eval_ifexp,  # type: ignore[dict-item]
    cst.Lambda: Interpreter.eval_lambda,  # type: ignore[dict-item]
    cst.NamedExpr: Interpreter.eval_namedexpr,  # type: ignore[dict-item]
    cst.Subscript: Interpreter.eval_subscript,  # type: ignore[dict-item]
    cst.Call: Interpreter.eval_call,  # type: ignore[dict-item]
}
