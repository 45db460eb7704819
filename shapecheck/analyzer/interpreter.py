"""The abstract interpreter: walks a module's statements and expressions, tracking values.

It holds no shape rule: operations on arrays go to the algebra through the library handlers,
and annotations to the annotation parser. Unknown things stay unknown (None) and are never
reported.

`Interpreter` composes its parts over one shared state (`state`): the statement walker
(`statements`), the expression evaluator (`expressions`) and calls with function summaries
(`invocation`); imports are resolved by `imports`, constants folded by `folding`. What stays
here runs a module, reads its annotations and checks the rules that cut across the parts.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from shapecheck.algebra.resources import cooccurrence
from shapecheck.analyzer.annotations import Invalid, read_annotation
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context, Undecided
from shapecheck.analyzer.expressions import Expressions
from shapecheck.analyzer.invocation import Invocation
from shapecheck.analyzer.library import binder_callees
from shapecheck.analyzer.literals import to_lit
from shapecheck.analyzer.provenance import Provenance
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.state import Frame
from shapecheck.analyzer.statements import Statements
from shapecheck.analyzer.values import Class, Function, Lazy, Value
from shapecheck.analyzer.walk import map_axis_names, may_set_mesh, subscripts, unmapped_functions
from shapecheck.codes import Code
from shapecheck.literal import Kind, Lit
from shapecheck.types import ArrayType

_UNDECIDED = Context(unmapped=None)


class Interpreter(Statements, Expressions, Invocation):
    """Analyses one module. `handlers` maps canonical qualified names to library rules."""

    def run(self, *, analyse_functions: bool = True) -> None:
        # Classes are known before their statement runs: stubs and postponed annotations name
        # them earlier (`Array[_CT]` above `class Array` in typeshed's _ctypes).
        for statement in self.module.body:
            if isinstance(statement, ast.ClassDef):
                self.scope.bind(statement.name, Class(statement.name))
        ctx = Context(bound=frozenset(), meshless=True)
        self.frames.append(Frame(None))
        if self.recorder is not None:  # the language server's: the last run's statements replayed
            self.recorder.run_module(self.module.body, ctx)
        else:
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
            self._map_axis_names = map_axis_names(self.module, binder_callees())
        if self.recorder is not None and self.recorder.active:
            self.recorder.derived("map_axis_names", self._map_axis_names)
        return self._map_axis_names

    def unmapped_functions(self) -> frozenset[ast.AST]:
        """This module's functions that nothing in it calls under a map (read once)."""
        if self._unmapped is None:
            # A walk of the whole module: skipped where no collective can be reported anyway.
            self._unmapped = unmapped_functions(self.module) if self.names_axes else frozenset()
        if self.recorder is not None and self.recorder.active:
            self.recorder.derived("unmapped_functions", self._unmapped)
        return self._unmapped

    def sets_mesh_unseen(self) -> bool:
        """Whether a statement of this module calls something that may set a mesh the checker
        does not follow (`jax.set_mesh(m)` of an unknown `m`, a `setup_mesh()` imported): a
        walk of the module, done once a report that no mesh is set asks."""
        if self._sets_mesh is None:
            self._sets_mesh = may_set_mesh(self.module)
        if self.recorder is not None and self.recorder.active:
            self.recorder.derived("sets_mesh_unseen", self._sets_mesh)
        return self._sets_mesh

    def derived(self, name: str) -> object:
        """A module-wide answer by name (`summaries` compares those a summary asked for)."""
        if name == "sets_mesh_unseen":
            return self.sets_mesh_unseen()
        return self.map_axis_names() if name == "map_axis_names" else self.unmapped_functions()

    def _has_symbols(self, function: Function) -> bool:
        params = function.node.args
        for param in (*params.posonlyargs, *params.args, *params.kwonlyargs):
            declared = self._param_type(param, function.scope)
            if declared is not None and declared.symbols():
                return True
        return False

    def analyse_alone(self, function: Function) -> None:
        expected = id(function.node) in self.expected_failures
        self.reporter.muted += expected
        try:
            ctx = Context()
            if self.names_axes and self._may_be_unmapped(function):
                if self._unmapped is None:
                    # Whether nothing here calls it under a map is worked out (a walk of the
                    # whole module) only once an analysis asks; most never do.
                    budget = self.budget
                    try:
                        self.call_function(function, CallArgs(function.node), _UNDECIDED, alone=True)
                        return
                    except Undecided:
                        self.budget = budget  # what was cut short is done again
                if function.node in self.unmapped_functions():
                    ctx = Context(unmapped=True, binders=((
                        f"`{function.name}` is called under no map in this module (nothing here passes it to one)",
                        function.node),))
            self.call_function(function, CallArgs(function.node), ctx, alone=True)
        finally:
            self.reporter.muted -= expected

    def _may_be_unmapped(self, function: Function) -> bool:
        """Whether `function` is one `walk.unmapped_functions` considers: a module-level,
        undecorated def."""
        node = function.node
        return (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.decorator_list
                and function.scope is self.scope)

    def read(self, node: ast.expr, scope: Scope) -> ArrayType | Invalid | None:
        """`read_annotation`, once per annotation node (functions are analysed many times)."""
        key = id(node)
        if key not in self._annotations:
            names = Provenance(scope, self, self.loader)
            self.annotation_entered(key, node, read_annotation(node, names, self.annotation_names))
        elif self.recorder is not None and self.recorder.active:
            self.recorder.annotation(node, self._annotations[key], made=False)
        return self._annotations[key]

    def module_source(self, name: str) -> ast.expr | None:
        """The expression a module-level name was last assigned (for annotation provenance)."""
        return self._module_sources.get(name)

    def annotation(self, node: ast.expr, scope: Scope) -> ArrayType | None:
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

    def check_cooccurrence(self, result: Value, inputs: Iterable[Value], node: ast.AST, ctx: Context) -> None:
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
