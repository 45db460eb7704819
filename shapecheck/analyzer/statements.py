"""The statement walker: runs a module's or a function's statements in order, binding names.

Conditions the checker can decide leave the other branch dead; loops forget what they rebind;
branches that both fall through join what they bound. Declared types are checked where a
value meets them (annotated assignments, returns).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from shapecheck.algebra.conformance import conform, substitute, unknown_where
from shapecheck.algebra.declared_sharding import sharding_conflict
from shapecheck.analyzer import containers, objects, raises
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.declared import axis_types, prefer, source_of, visible
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.state import InterpreterState
from shapecheck.analyzer.values import (
    Class,
    Const,
    DefNode,
    Dict,
    Function,
    Instance,
    Mesh,
    MeshContext,
    Partial,
    Qual,
    Seq,
    Value,
    join,
)
from shapecheck.analyzer.walk import assigned_names, code, target_names
from shapecheck.codes import Code
from shapecheck.types import ArrayType


class Statements(InterpreterState):
    """Runs statements: the part of `Interpreter` that walks blocks."""

    def exec_block(self, body: Sequence[ast.stmt], scope: Scope, ctx: Context) -> bool:
        """Run statements in order. False when control certainly leaves the block (return,
        raise, break, continue): what follows is dead on this path and must not be checked."""
        # `exec_statement` inlined: this loop runs every statement of every analysis.
        for statement in body:
            run = _EXEC.get(type(statement))
            if run is not None:
                went = run(self, statement, scope, ctx)
                if not went:
                    return False
                if went is not True and isinstance(went, Mesh):
                    ctx = ctx.with_mesh(went)  # `jax.set_mesh(mesh)` as a statement: the mesh from here on
        return True

    def exec_top(self, node: ast.stmt, scope: Scope, ctx: Context) -> object:
        """Run one statement of a block as `exec_block` does: false when control certainly
        leaves the block, a mesh where the statement sets one (`jax.set_mesh(mesh)`)."""
        run = _EXEC.get(type(node))
        return run(self, node, scope, ctx) if run is not None else True

    def exec_statement(self, node: ast.stmt, scope: Scope, ctx: Context) -> bool:
        """Run one statement; False when it certainly leaves the block."""
        run = _EXEC.get(type(node))
        # Statements without a rule here (pass, and anything new) fall through.
        return bool(run(self, node, scope, ctx)) if run is not None else True

    def exec_assign(self, node: ast.Assign, scope: Scope, ctx: Context) -> bool:
        value = self.eval(node.value, scope, ctx)
        for target in node.targets:
            self.assign(target, value, scope, node.value)
        return True

    def exec_annassign(self, node: ast.AnnAssign, scope: Scope, ctx: Context) -> bool:
        declared = self.annotation(node.annotation, scope)
        if node.value is None:
            if isinstance(node.target, ast.Name):
                scope.bind(node.target.id, declared)
            return True
        value = self.eval(node.value, scope, ctx)
        if isinstance(declared, ArrayType):
            # Inside a function its signature's symbols mean what they mean there (rigid when
            # it is checked on its own); a copy, so a symbol new here binds for this line only.
            frame = self.frames[-1]
            bindings = dict(frame.bindings) if frame.function is not None else {}
            if isinstance(value, ArrayType):
                what = f"`{code(node.target)}`"
                problems = conform(declared, visible(value, ctx), bindings, what,
                                   source=source_of(node.value), x64=self.x64)
                types = axis_types(ctx)
                conflict = sharding_conflict(declared, value, what, source=source_of(node.value), axis_types=types)
                self.reporter.problems([*problems, *([conflict] if conflict else [])], node.value)
                value = unknown_where(prefer(substitute(declared, bindings), value, types), problems)
                if conflict and value.dims:
                    value = value.with_sharding(None)  # reported here, once
            else:
                value = substitute(declared, bindings)
        self.assign(node.target, value, scope, node.value)
        return True

    def exec_augassign(self, node: ast.AugAssign, scope: Scope, ctx: Context) -> bool:
        left = self.eval(node.target, scope, ctx)
        right = self.eval(node.value, scope, ctx)
        value = self.binary(node, type(node.op), left, right, node.target, node.value, ctx)
        self.assign(node.target, value, scope, node.value)
        return True

    def exec_return(self, node: ast.Return, scope: Scope, ctx: Context) -> bool:
        value = self.eval(node.value, scope, ctx) if node.value is not None else Const(None)
        frame = self.frames[-1]
        if frame.declared_return is not None and isinstance(value, ArrayType) and node.value is not None:
            name = frame.function.name if frame.function else "the function"
            what = f"the value {name} returns"
            conflict = sharding_conflict(frame.declared_return, value, what, source=source_of(node.value),
                                         axis_types=axis_types(ctx))
            self.reporter.problems(
                [*conform(frame.declared_return, visible(value, ctx), frame.bindings, what,
                          source=source_of(node.value), x64=self.x64), *([conflict] if conflict else [])],
                node.value)
        frame.returns.append(value)
        return False

    def exec_if(self, node: ast.If, scope: Scope, ctx: Context) -> bool:
        # A condition the checker can decide (`x.ndim == 4` for a known rank, `axis is None`)
        # leaves the other branch dead: code there is never checked against these values.
        # An `elif` is an `If` alone in `orelse`, so it runs through here again.
        test = self.test(node.test, scope, ctx)
        if test is True:
            return self.exec_block(node.body, scope, ctx)
        if test is False:
            return self.exec_block(node.orelse, scope, ctx)
        before = scope.snapshot()
        body_falls = self.exec_block(node.body, scope, ctx)
        after_body = scope.snapshot()
        scope.restore(dict(before))
        else_falls = self.exec_block(node.orelse, scope, ctx)
        after_else = scope.snapshot()
        if body_falls and else_falls:
            scope.restore(_merge(after_body, after_else))
        elif body_falls:
            scope.restore(after_body)
        return body_falls or else_falls

    def exec_loop(self, node: ast.For | ast.AsyncFor | ast.While, scope: Scope, ctx: Context) -> bool:
        iterated: tuple[Value, ...] | None = None
        if not isinstance(node, ast.While):
            iterated = containers.iteration(self.eval(node.iter, scope, ctx))
            if (isinstance(node, ast.For) and iterated is not None and len(iterated) <= _MAX_UNROLLED
                    and self._runs_through(node)):
                # A few known items, a body that always runs to its end: run it once per item,
                # as Python does (`for name, (m, n) in zip(names, sizes): params[name] = ...`
                # builds a dict the checker then knows).
                for each in iterated:
                    self.assign(node.target, each, scope, node.iter)
                    self.exec_block(node.body, scope, ctx)
                return self.exec_block(node.orelse, scope, ctx)
        if (iterated is not None and not iterated) or (
                isinstance(node, ast.While) and self.test(node.test, scope, ctx) is False):
            return self.exec_block(node.orelse, scope, ctx)  # the body never runs
        # A loop body may run many times: what it rebinds holds, on entry to each run and after
        # the loop, what holds for every number of runs (`_invariant`), else it is unknown.
        rebinds = self._rebinds.get(id(node))
        if rebinds is None:
            # Once per loop: the walk goes through the nested loops, which make their own.
            rebinds = self._rebinds[id(node)] = frozenset(assigned_names(node.body))
        item: Value = None
        if iterated:
            item = iterated[0]
            for other in iterated[1:]:
                item = join(item, other)
        invariant = self._invariant(node, scope, ctx, rebinds, item)
        for name in rebinds:
            scope.bind(name, invariant.get(name) if invariant is not None else None)
        if isinstance(node, ast.While):
            if self.test(node.test, scope, ctx) is False:
                return True
        else:
            self.assign(node.target, item, scope, node.iter)
        self.exec_block(node.body, scope, ctx)
        for name in rebinds:
            scope.bind(name, invariant.get(name) if invariant is not None else None)
        if not isinstance(node, ast.While):
            for name in target_names(node.target):
                scope.bind(name, None)
        self.exec_block(node.orelse, scope, ctx)
        return True

    def _invariant(self, node: ast.For | ast.AsyncFor | ast.While, scope: Scope, ctx: Context,
                   rebinds: frozenset[str], item: Value) -> dict[str, Value] | None:
        """What the names a loop rebinds hold at the start of every run of its body, and after
        it: their values on entry, joined with what the body makes of them until that no longer
        changes (a training loop's parameters keep their shapes epoch after epoch). The body is
        run for it at most `_WIDENINGS` times: the first run is the loop's first, with the values
        coming in, whose findings hold whenever the loop runs; the others are silent. None where
        it does not settle, or where nothing known comes in (most loops: then one run, with
        everything unknown, is all)."""
        state = {name: scope.lookup(name) for name in rebinds}
        if all(value is None for value in state.values()) or self.params_log is not None:
            return None  # a logged model run would log its parameters once per silent run
        for run in range(_WIDENINGS):
            for name, value in state.items():
                scope.bind(name, value)
            if not isinstance(node, ast.While):
                self.assign(node.target, item, scope, node.iter)
            self.reporter.muted += run > 0
            try:
                self.exec_block(node.body, scope, ctx)
            finally:
                self.reporter.muted -= run > 0
            joined = {name: join(value, scope.lookup(name)) for name, value in state.items()}
            if joined == state:
                return state
            state = joined
        return None

    def _runs_through(self, node: ast.For) -> bool:
        """`_runs_through(node.body)`, once per loop of the module (a loop in a function is run
        in every analysis of that function)."""
        found = self._through.get(id(node))
        if found is None:
            found = self._through[id(node)] = _runs_through(node.body)
        return found

    def exec_with(self, node: ast.With | ast.AsyncWith, scope: Scope, ctx: Context) -> bool:
        # Any context manager may set a mesh (a mesh the checker cannot read, a helper's).
        inner = replace(ctx, meshless=False) if ctx.meshless else ctx
        expects_error = False
        for item in node.items:
            expects_error = expects_error or raises.expects_error(item.context_expr)
            value = self.eval(item.context_expr, scope, ctx)
            if isinstance(value, MeshContext):
                inner = inner.with_mesh(value.mesh)
                value = value.mesh
            elif isinstance(value, Mesh):
                inner = inner.with_mesh(value)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, value, scope, item.context_expr)
        if expects_error:
            # `with pytest.raises(ValueError):` — the code inside is meant to fail.
            self.reporter.muted += 1
        try:
            return self.exec_block(node.body, scope, inner)
        finally:
            if expects_error:
                self.reporter.muted -= 1

    def exec_try(self, node: ast.Try | ast.TryStar, scope: Scope, ctx: Context) -> bool:
        before = scope.snapshot()
        self.exec_block(node.body, scope, ctx)
        merged = _merge(before, scope.snapshot())
        for handler in node.handlers:
            scope.restore(dict(merged))
            if handler.name is not None:
                scope.bind(handler.name, None)
            self.exec_block(handler.body, scope, ctx)
            merged = _merge(merged, scope.snapshot())
        scope.restore(merged)
        self.exec_block(node.orelse, scope, ctx)
        self.exec_block(node.finalbody, scope, ctx)
        return True

    def exec_class(self, node: ast.ClassDef, scope: Scope, ctx: Context) -> bool:
        bases = tuple(self.eval(base, scope, ctx) for base in node.bases)
        # `@dataclass(frozen=True)` is known by what it calls, not by the call's result.
        decorators = [self.eval(d.func if isinstance(d, ast.Call) else d, scope, ctx)
                      for d in node.decorator_list]
        body_scope = self.child_scope(scope)
        self.exec_block(node.body, body_scope, ctx)
        record = objects.record_kind(decorators, bases)
        fields = objects.field_names(node, bases) if record is not None else ()
        scope.bind(node.name, Class(node.name, node, body_scope, bases, record, fields))
        return True

    def define_function(self, node: DefNode, scope: Scope, ctx: Context) -> None:
        function = Function(node, scope, self.module_name, node.name)
        self.functions.append(function)
        if self.recorder is not None and self.recorder.active:
            self.recorder.defined(function)
        self.check_signature_annotations(node, scope)
        value: Value = function
        for decorator in reversed(node.decorator_list):
            decorator_value = self.eval(decorator, scope, ctx)
            value = self.apply_decorator(decorator_value, value, decorator, ctx, scope)
        scope.bind(node.name, value)

    def apply_decorator(self, decorator: Value, value: Value, node: ast.expr, ctx: Context,
                        scope: Scope) -> Value:
        if isinstance(decorator, Qual | Partial):
            call = CallArgs(node, [value], [node])
            return self.call(decorator, call, ctx, scope)
        return None

    def check_signature_annotations(self, node: DefNode, scope: Scope) -> None:
        params = node.args
        for param in (*params.posonlyargs, *params.args, *params.kwonlyargs):
            if param.annotation is not None:
                self.annotation(param.annotation, scope)
        if node.returns is not None:
            self.annotation(node.returns, scope)

    def assign(self, target: ast.expr, value: Value, scope: Scope, source: ast.AST) -> None:
        if isinstance(target, ast.Name):
            scope.bind(target.id, value)
            if scope.parent is None and isinstance(source, ast.expr):
                self._module_sources[target.id] = source
        elif isinstance(target, ast.Tuple | ast.List):
            elements = target.elts
            starred = [i for i, e in enumerate(elements) if isinstance(e, ast.Starred)]
            if isinstance(value, ArrayType) and len(starred) <= 1:
                self._check_unpacked(target, value, len(elements) - len(starred), bool(starred), source)
            items = containers.unpack(value, len(elements), starred[0] if len(starred) == 1 else None) \
                if len(starred) <= 1 else None
            for index, element in enumerate(elements):
                item = items[index] if items is not None else None
                self.assign(element.value if isinstance(element, ast.Starred) else element, item, scope, source)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, None, scope, source)
        elif isinstance(target, ast.Attribute | ast.Subscript):
            # `self.w = v`, `params['w'] = v`, and deeper (`params[-1]['W'] = v`, `self.cache[i] =
            # v`): each holder on the way gets the new member, and the name at the root is bound
            # to its new value. A holder the interpreter does not follow (or a key it cannot
            # read) is no longer known from there up: never the stale value it held.
            root = _root_name(target)
            if root is not None and _holder_followed(scope.lookup(root.id)):
                self._store(target, value, scope)

    def _store(self, target: ast.expr, value: Value, scope: Scope) -> None:
        if isinstance(target, ast.Name):
            scope.bind(target.id, value)
            return
        updated: Value
        if isinstance(target, ast.Attribute):
            holder = _read_path(target.value, scope)
            updated = holder.with_field(target.attr, value) if isinstance(holder, Instance) else None
        elif isinstance(target, ast.Subscript):
            container = _read_path(target.value, scope)
            if isinstance(container, ArrayType):
                return  # `buffers['x'][0] = v`: a NumPy array changed in place keeps its type
            updated = containers.set_item(container, _key(target.slice, scope), value) \
                if isinstance(container, Seq | Dict) else None
        else:
            return
        self._store(target.value, updated, scope)

    def _check_unpacked(self, target: ast.expr, value: ArrayType, names: int, starred: bool, source: ast.AST) -> None:
        """`k1, k2, k3 = random.split(key, 4)`: an array unpacks into its rows, as many as there
        are names (at least, with a starred one); Python's ValueError otherwise (SC103)."""
        if value.ellipsis is not None:
            return
        shown = f"`{code(source, 40)}`" if isinstance(source, ast.expr) else "the value"
        if not value.dims:
            self.reporter.add(target, Code.ANNOTATION_MISMATCH,
                              f"unpacks a 0-d array (from {shown}) into names; only arrays of rank 1 or more unpack")
            return
        rows = value.dims[0]
        if isinstance(rows, int) and (rows < names if starred else rows != names):
            wanted = f"at least {names}" if starred else str(names)
            self.reporter.add(target, Code.ANNOTATION_MISMATCH, (
                f"unpacks an array of shape {value.positional_text()} (from {shown}) into {wanted} "
                f"name{'s' if names != 1 else ''}, but it has {rows} row{'s' if rows != 1 else ''} along its first axis"))


def _attribute_chain(node: ast.Attribute) -> tuple[ast.Name | None, list[str]]:
    """`a.b.c` as (`a`, ['b', 'c']); no name where the chain starts elsewhere (`f().b`)."""
    attrs: list[str] = []
    current: ast.expr = node
    while isinstance(current, ast.Attribute):
        attrs.insert(0, current.attr)
        current = current.value
    return (current if isinstance(current, ast.Name) else None), attrs


_MAX_UNROLLED = 16
"""Longer loops are run as `_invariant` says: each run of the body costs an analysis."""
_WIDENINGS = 3  # runs of a loop body to find what its names hold in every run


def _runs_through(body: Sequence[ast.stmt]) -> bool:
    """Whether no statement of `body` can leave it early (break, continue, return, raise,
    yield), nested functions and classes aside."""
    todo: list[ast.AST] = list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Break | ast.Continue | ast.Return | ast.Raise | ast.Yield | ast.YieldFrom
                      | ast.Await | ast.Try | ast.TryStar | ast.With | ast.AsyncWith):
            return False
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return True


def _root_name(node: ast.expr) -> ast.Name | None:
    """The name an attribute or subscript chain starts from (`a` of `a.b[0].c`), if any."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node if isinstance(node, ast.Name) else None


def _holder_followed(value: Value) -> bool:
    """Whether the root of an assignment target is something whose members the interpreter
    tracks (an object of the program's own, a dict, a list): only then is it updated."""
    return isinstance(value, Instance | Seq | Dict)


def _read_path(node: ast.expr, scope: Scope) -> Value:
    """A target's holder read without evaluating anything: names, fields of objects, items
    at keys `_key` reads; None (unknown) elsewhere."""
    if isinstance(node, ast.Name):
        return scope.lookup(node.id)
    if isinstance(node, ast.Attribute):
        holder = _read_path(node.value, scope)
        return holder.get(node.attr) if isinstance(holder, Instance) and holder.has(node.attr) else None
    if isinstance(node, ast.Subscript):
        return containers.get_item(_read_path(node.value, scope), _key(node.slice, scope))
    return None


def _key(node: ast.expr, scope: Scope) -> Value:
    """A subscript's key where it is a constant, a name bound to one, or an f-string of those
    (`params[f'layer_{i}']`): read without evaluating anything."""
    if isinstance(node, ast.Constant):
        return Const(node.value) if isinstance(node.value, int | float | str) or node.value is None else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and type(node.operand.value) is int:
        return Const(-node.operand.value)  # `params[-1]`
    if isinstance(node, ast.Name):
        found = scope.lookup(node.id)
        return found if isinstance(found, Const) else None
    if isinstance(node, ast.JoinedStr):
        return containers.fstring(node, lambda part: _key(part, scope))
    return None


def _merge(a: dict[str, Value], b: dict[str, Value]) -> dict[str, Value]:
    merged: dict[str, Value] = {}
    for name in a.keys() | b.keys():
        if name in a and name in b:
            merged[name] = join(a[name], b[name])
        else:
            merged[name] = None
    return merged


# The rules below return whether control may fall through the statement; the walker looks
# them up by the statement's exact class (it runs for every statement of every analysis).

def _raise(self: Statements, node: ast.Raise, scope: Scope, ctx: Context) -> bool:
    if node.exc is not None:
        self.eval(node.exc, scope, ctx)
    return False


def _leave(self: Statements, node: ast.stmt, scope: Scope, ctx: Context) -> bool:
    return False  # break, continue


def _expr(self: Statements, node: ast.Expr, scope: Scope, ctx: Context) -> bool | Mesh:
    value = self.eval(node.value, scope, ctx)
    # `jax.set_mesh(mesh)` called as a statement sets the mesh for the rest of the block.
    return value.mesh if isinstance(value, MeshContext) else True


def _assert(self: Statements, node: ast.Assert, scope: Scope, ctx: Context) -> bool:
    self.eval(node.test, scope, ctx)
    return True


def _import(self: Statements, node: ast.Import, scope: Scope, ctx: Context) -> bool:
    self.imports.bind(node, scope)
    return True


def _import_from(self: Statements, node: ast.ImportFrom, scope: Scope, ctx: Context) -> bool:
    self.imports.bind_from(node, scope)
    return True


def _unbind(self: Statements, node: ast.Global | ast.Nonlocal, scope: Scope, ctx: Context) -> bool:
    for name in node.names:
        scope.bind(name, None)
    return True


def _delete(self: Statements, node: ast.Delete, scope: Scope, ctx: Context) -> bool:
    for target in node.targets:
        for name in target_names(target):
            scope.bind(name, None)
    return True


def _match(self: Statements, node: ast.Match, scope: Scope, ctx: Context) -> bool:
    # Not interpreted: the names its cases bind read as unknown.
    for name in assigned_names(node):
        scope.bind(name, None)
    return True


def _def(self: Statements, node: DefNode, scope: Scope, ctx: Context) -> bool:
    self.define_function(node, scope, ctx)
    return True


_EXEC: dict[type[ast.stmt], Callable[[Statements, Any, Scope, Context], bool | Mesh]] = {
    ast.Assign: Statements.exec_assign,
    ast.Expr: _expr,
    ast.Return: Statements.exec_return,
    ast.If: Statements.exec_if,
    ast.AnnAssign: Statements.exec_annassign,
    ast.AugAssign: Statements.exec_augassign,
    ast.FunctionDef: _def,
    ast.AsyncFunctionDef: _def,
    ast.For: Statements.exec_loop,
    ast.AsyncFor: Statements.exec_loop,
    ast.While: Statements.exec_loop,
    ast.With: Statements.exec_with,
    ast.AsyncWith: Statements.exec_with,
    ast.Raise: _raise,
    ast.Break: _leave,
    ast.Continue: _leave,
    ast.Try: Statements.exec_try,
    ast.TryStar: Statements.exec_try,
    ast.ClassDef: Statements.exec_class,
    ast.Assert: _assert,
    ast.Import: _import,
    ast.ImportFrom: _import_from,
    ast.Global: _unbind,
    ast.Nonlocal: _unbind,
    ast.Delete: _delete,
    ast.Match: _match,
}
