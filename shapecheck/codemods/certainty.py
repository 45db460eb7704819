"""Where an inferred type is certain enough to be written down, and what to write there.

The engine's types are joins over every analysis of a node that gave an array, so they hold for
every value only where no analysis can have seen an unknown or a caller's more precise
argument. That is so at module level, and inside a *closed* function: one whose parameters all
declare fully known types (the body then sees the declared types whoever calls it). Elsewhere
nothing is written:

- assignments `name = value` (one target, the name's only binding in its scope), at module level
  or in a closed function, get the value's type;
- a closed function without a return annotation gets the type of its returns when every
  `return` gives one and the same fully known type and the body cannot fall off its end;
- a parameter gets a type only where every caller is in view: a private (`_name`) module-level
  function or a function local to a closed one, named only as the callee of plain calls from
  certain places, whose argument there has one fully known type at every call.

Class bodies (an annotation there makes a dataclass field), methods, lambdas, generators and
async functions are left alone.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import (
    Assignment,
    FunctionScope,
    GlobalScope,
    ParentNodeProvider,
    PositionProvider,
    Scope,
    ScopeProvider,
)

from shapecheck.analyzer.literals import to_lit
from shapecheck.annotation import JAXTYPING_DTYPES, parse_annotation, parse_jaxtyping
from shapecheck.codemods.annotations import (
    Annotation,
    annotation_for,
    fully_known,
    jaxtyping_annotation_for,
)
from shapecheck.codemods.names import Binding, ModuleNames, Style
from shapecheck.diagnostic import Diagnostic
from shapecheck.literal import Kind, Lit
from shapecheck.results import TypedSpan
from shapecheck.types import ArrayType

SpanKey = tuple[int, int, int, int]


@dataclass(slots=True)
class Plan:
    """The annotations to write, keyed by the node that gets them, and the imports they need."""

    assignments: dict[cst.Assign, Annotation] = field(default_factory=dict)
    returns: dict[cst.FunctionDef, Annotation] = field(default_factory=dict)
    params: dict[cst.Param, Annotation] = field(default_factory=dict)
    imports: set[tuple[str, str]] = field(default_factory=set)
    messages: list[tuple[int, str]] = field(default_factory=list)  # (line, what was left alone)

    def __bool__(self) -> bool:
        return bool(self.assignments or self.returns or self.params)


def plan(wrapper: cst.MetadataWrapper, types: tuple[TypedSpan, ...], names: ModuleNames,
         diagnostics: tuple[Diagnostic, ...] = ()) -> Plan:
    """What to annotate in `wrapper.module`, from the engine's types and diagnostics of the same text.

    Nothing is written on a line with a diagnostic: the type there is what the checker assumed
    after the error (a failed reshape's target shape), not a fact to certify.
    """
    return _Planner(wrapper, types, names, diagnostics).run()


class _Planner:
    def __init__(self, wrapper: cst.MetadataWrapper, types: tuple[TypedSpan, ...], names: ModuleNames,
                 diagnostics: tuple[Diagnostic, ...]) -> None:
        self.flagged = {line for d in diagnostics for line in range(d.span.line, d.span.end_line + 1)}
        self.module = wrapper.module
        self.positions = wrapper.resolve(PositionProvider)
        self.scopes = wrapper.resolve(ScopeProvider)
        self.parents = wrapper.resolve(ParentNodeProvider)
        self.names = names
        self.types: dict[SpanKey, ArrayType | None] = {}
        for typed in types:
            key = (typed.span.line, typed.span.column, typed.span.end_line, typed.span.end_column)
            # One span with two different types (a node and its only child): trust neither.
            self.types[key] = typed.type if self.types.get(key, typed.type) == typed.type else None
        self.certain_scopes: set[Scope] = set()
        self.planning = False
        self.plan = Plan()

    def run(self) -> Plan:
        global_scope = self.scopes.get(self.module)
        if global_scope is not None:
            self.certain_scopes.add(global_scope)
        # Which scopes are certain first, so a call from a closed function defined below the
        # callee counts as a call in view.
        self.planning = False
        self._block(self.module.body, certain=True)
        self.planning = True
        self._block(self.module.body, certain=True)
        return self.plan

    # --- walking: which statements run in a certain context ---

    def _block(self, body: object, certain: bool) -> None:
        for statement in _statements(body):
            self._statement(statement, certain)

    def _statement(self, statement: cst.CSTNode, certain: bool) -> None:
        if isinstance(statement, cst.SimpleStatementLine):
            if certain and self.planning:
                for small in statement.body:
                    if isinstance(small, cst.Assign):
                        self._assignment(small)
            return
        if isinstance(statement, cst.ClassDef):
            return
        if isinstance(statement, cst.FunctionDef):
            self._function(statement, certain)
            return
        for child in _child_blocks(statement):
            self._block(child, certain)

    def _function(self, function: cst.FunctionDef, outer_certain: bool) -> None:
        if function.asynchronous is not None:
            return
        closed = outer_certain and self._closed(function)
        if not self.planning:
            inner = self.scopes.get(function.body.body[0] if isinstance(function.body, cst.IndentedBlock)
                                    and function.body.body else function.body)
            if closed and inner is not None:
                self.certain_scopes.add(inner)
        else:
            if outer_certain:
                self._parameters(function)
            if closed:
                self._return(function)
        self._block(function.body.body, closed)

    # --- closed functions ---

    def _closed(self, function: cst.FunctionDef) -> bool:
        params = function.params
        if isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None:
            return False
        every = [*params.posonly_params, *params.params, *params.kwonly_params]
        return all(self._declared_known(param) for param in every)

    def _declared_known(self, param: cst.Param) -> bool:
        """The parameter's annotation is ours (or jaxtyping's) and fully known."""
        if param in self.plan.params:
            return False  # written this round: the body's types are the next round's business
        if param.annotation is None:
            return False
        node = param.annotation.annotation
        if not isinstance(node, cst.Subscript) or not isinstance(node.value, cst.Name):
            return False
        head = node.value.value
        if self.names.binding(head) is not Binding.OURS:
            return False
        elements = []
        for element in node.slice:
            if not isinstance(element.slice, cst.Index):
                return False
            elements.append(_literal(element.slice.value))
        if head in JAXTYPING_DTYPES:
            read = parse_jaxtyping(JAXTYPING_DTYPES[head], elements)
        elif head == "Array":
            return False  # any dtype
        else:
            read = parse_annotation(head, elements)
        return isinstance(read, ArrayType) and fully_known(read)

    # --- the three kinds of place ---

    def _assignment(self, assign: cst.Assign) -> None:
        if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
            return
        target = assign.targets[0].target
        scope = self.scopes.get(assign)
        if scope is None or not isinstance(scope, GlobalScope | FunctionScope):
            return
        bound = scope.assignments[target.value]
        # The only binding, and in this scope (a `global x` in a function binds elsewhere, and
        # an annotation there would be a syntax error).
        only = next(iter(bound), None)
        if len(bound) != 1 or not isinstance(only, Assignment) or only.node is not target:
            return
        annotation = self._annotation(self._type(assign.value), assign)
        if annotation is not None:
            self.plan.assignments[assign] = annotation

    def _return(self, function: cst.FunctionDef) -> None:
        if function.returns is not None or not isinstance(function.body, cst.IndentedBlock):
            return
        body = function.body.body
        last = body[-1] if body else None
        if not (isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Return)):
            return  # may fall off the end, returning None
        finder = _Returns()
        function.body.visit(finder)
        if finder.yields or not finder.returns:
            return
        found = [self._type(r.value) if r.value is not None else None for r in finder.returns]
        first = found[0]
        if first is None or any(other != first for other in found):
            return
        annotation = self._annotation(first, function)
        if annotation is not None:
            self.plan.returns[function] = annotation

    def _parameters(self, function: cst.FunctionDef) -> None:
        scope = self.scopes.get(function)
        name = function.name.value
        if scope is None or function.decorators or name not in scope.assignments:
            return
        if isinstance(scope, GlobalScope) and not name.startswith("_"):
            return  # a public function: other modules may call it with anything
        if not isinstance(scope, GlobalScope | FunctionScope) or scope not in self.certain_scopes:
            return
        bound = scope.assignments[name]
        if len(bound) != 1:
            return
        params = function.params
        if isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None:
            return
        calls = []
        for access in next(iter(bound)).references:
            call = self.parents.get(access.node)
            if not (isinstance(call, cst.Call) and call.func is access.node):
                return  # passed around as a value: callers out of view
            if self.scopes.get(call) not in self.certain_scopes:
                return
            calls.append(call)
        if not calls:
            return
        positional = [*params.posonly_params, *params.params]
        for index, param in enumerate([*positional, *params.kwonly_params]):
            if param.annotation is not None or param.default is not None:
                continue
            keyword_ok = param not in params.posonly_params
            values = [_argument(call, index if index < len(positional) else None, param.name.value, keyword_ok)
                      for call in calls]
            if any(value is None for value in values):
                continue
            found = {self._type(value) for value in values if value is not None}
            if len(found) == 1:
                value_type = next(iter(found))
                annotation = self._annotation(value_type, param)
                if annotation is not None:
                    self.plan.params[param] = annotation

    # --- types and names ---

    def _type(self, node: cst.CSTNode) -> ArrayType | None:
        position = self.positions.get(node)
        if position is None or any(line in self.flagged for line in range(position.start.line, position.end.line + 1)):
            return None
        return self.types.get((position.start.line, position.start.column, position.end.line, position.end.column))

    def _annotation(self, value: ArrayType | None, where: cst.CSTNode) -> Annotation | None:
        if value is None or not fully_known(value):
            return None
        if self.names.style is Style.JAXTYPING:
            array = self.names.binding("Array")
            if array is Binding.OTHER:
                return None
            annotation = jaxtyping_annotation_for(value)
            if annotation is not None and array is Binding.FREE:
                self.plan.imports.add(("jaxtyping", "Array"))
        else:
            line = self.positions[where].start.line if where in self.positions else 0
            annotation = annotation_for(value, self.names.spec_name(line))
        if annotation is None:
            return None
        line = self.positions[where].start.line if where in self.positions else 0
        if not self.names.usable(annotation, line):
            meaning = ("to something else" if self.names.binding(annotation.name) is Binding.OTHER
                       else "only further down")
            self.plan.messages.append((line, f"not annotated with {annotation.text}: the module binds "
                                             f"`{annotation.name}` {meaning}"))
            return None
        if self.names.needs_import(annotation):
            self.plan.imports.add((annotation.module, annotation.name))
        return annotation


class _Returns(cst.CSTVisitor):
    """The function's own returns and yields (not those of functions and lambdas inside it)."""

    def __init__(self) -> None:
        self.returns: list[cst.Return] = []
        self.yields = False

    def visit_Return(self, node: cst.Return) -> None:
        self.returns.append(node)

    def visit_Yield(self, node: cst.Yield) -> None:
        self.yields = True

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


def _argument(call: cst.Call, index: int | None, name: str, keyword_ok: bool) -> cst.BaseExpression | None:
    """The expression a plain call passes for one parameter; None when not plainly bound."""
    if any(arg.star for arg in call.args):
        return None
    positional = [arg for arg in call.args if arg.keyword is None]
    if index is not None and index < len(positional):
        return positional[index].value
    for arg in call.args:
        if keyword_ok and arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


def _statements(body: object) -> Iterator[cst.CSTNode]:
    if isinstance(body, cst.IndentedBlock | cst.SimpleStatementSuite):
        yield from body.body
    elif isinstance(body, list | tuple):
        yield from body


def _child_blocks(statement: cst.CSTNode) -> Iterator[object]:
    """The blocks of a compound statement (if, for, while, try, with, match): its own scope."""
    body = getattr(statement, "body", None)
    if isinstance(body, cst.BaseSuite):
        yield body
    for handler in getattr(statement, "handlers", ()):
        yield handler.body
    for case in getattr(statement, "cases", ()):
        yield case.body
    orelse = getattr(statement, "orelse", None)
    if isinstance(orelse, cst.If):
        yield from _child_blocks(orelse)
    elif isinstance(orelse, cst.Else):
        yield orelse.body
    final = getattr(statement, "finalbody", None)
    if isinstance(final, cst.Finally):
        yield final.body


_EMPTY = cst.Module(body=[])


def _literal(node: cst.BaseExpression) -> Lit:
    """The literal an annotation element writes, read as the analyzer reads it (from CPython's
    tree of the element's own text)."""
    try:
        tree = ast.parse(_EMPTY.code_for_node(node).strip(), mode="eval")
    except SyntaxError:
        return Lit(Kind.OTHER, text="")
    return to_lit(tree.body)
