"""Calls: what each kind of callee does with its arguments, and function summaries.

A library name goes to its handler; a function of the project is analysed for the call's
argument types (binding them to its declared parameters, checked there), once per distinct
arguments, within a depth and a per-file budget; what it returns is joined over its returns.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, cast

from shapecheck.algebra.conformance import (
    Bindings,
    conform,
    forget_symbols,
    rigid,
    substitute,
    unknown_where,
)
from shapecheck.algebra.declared_sharding import sharding_conflict
from shapecheck.analyzer import containers, objects
from shapecheck.analyzer.calls import CallArgs
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.declared import axis_types, prefer, source_of, visible
from shapecheck.analyzer.library import caller_of
from shapecheck.analyzer.qualnames import canonical
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.state import MAX_ANALYSES, MAX_DEPTH, Frame, InterpreterState
from shapecheck.analyzer.values import (
    BoundFunction,
    BoundMethod,
    Class,
    Const,
    ContainerMethod,
    Dict,
    Function,
    Instance,
    Partial,
    Qual,
    Seq,
    Value,
    join,
)
from shapecheck.analyzer.walk import parameters
from shapecheck.dims import Conflict
from shapecheck.types import ArrayType, Sharding

if TYPE_CHECKING:
    from shapecheck.analyzer.interpreter import Interpreter
    from shapecheck.analyzer.report import Finding


class Invocation(InterpreterState):
    """Calls values: the part of `Interpreter` that runs functions for their arguments."""

    def call(self, func: Value, call: CallArgs, ctx: Context, scope: Scope) -> Value:
        if call.opaque and isinstance(func, Qual | BoundMethod):
            return None  # `*args`/`**kwargs` not expanded: no argument's position or meaning is certain
        if isinstance(func, Qual):
            call.name = canonical(func.name)
            call.written = func.name
            handler = self.handlers.get(call.name)
            return handler(cast("Interpreter", self), call, ctx, scope) if handler is not None else None
        if isinstance(func, BoundMethod):
            handler = self.methods.get(f"method:{func.name}")
            if handler is None:
                return None
            bound = CallArgs(call.node, [func.receiver, *call.args], [call.node, *call.arg_nodes],
                             call.kwargs, call.kwarg_nodes, [], call.raw_kwargs, call.opaque)
            bound.raw_args = [None, *call.raw_args]  # type: ignore[list-item]
            bound.name = f"method:{func.name}"
            bound.indexed = func.indexed
            bound.index = func.index
            return handler(cast("Interpreter", self), bound, ctx, scope)
        if isinstance(func, Function):
            if call.opaque:
                return None
            return self.call_function(func, call, ctx)
        if isinstance(func, ContainerMethod):
            return None if call.opaque else containers.method(func.receiver, func.name, call.args, call.kwargs)
        if isinstance(func, Class):
            return None if call.opaque else self.construct(func, call, ctx)
        if isinstance(func, Instance):
            method = func.get("__call__")
            return self.call(BoundFunction(func, method), call, ctx, scope) if isinstance(method, Function) else None
        if isinstance(func, BoundFunction):
            return None if call.opaque else self.call_method(func, call, ctx, scope)
        if isinstance(func, Partial):
            merged = CallArgs(call.node, [*func.args, *call.args],
                              [call.node] * len(func.args) + call.arg_nodes,
                              {**dict(func.kwargs), **call.kwargs},
                              {**{k: call.node for k, _ in func.kwargs}, **call.kwarg_nodes},
                              [], dict(call.raw_kwargs), call.opaque)
            return self.call(func.func, merged, ctx, scope)
        # Maps, jitted and shard_mapped functions: the library module that made the value says
        # how it is called.
        caller = caller_of(type(func))
        return caller(cast("Interpreter", self), func, call, ctx, scope) if caller is not None else None

    def _captured(self, function: Function) -> tuple[object, ...]:
        """What a closure reads from the scopes of the calls that made it, for its summary's
        key: those scopes themselves (each call of the function around it makes its own; what it
        holds there differs from call to call as often as not). Empty for a function of the
        module. The scope object, not its id: the key keeps it alive, so no later scope takes
        its id while the cache holds it."""
        return () if function.scope is self.scope else (function.scope,)

    def call_function(self, function: Function, call: CallArgs, ctx: Context, *, alone: bool = False,
                      declared_args: bool = True) -> Value:
        """Analyse `function` for these arguments (once per distinct argument types)."""
        self.last_receiver = None
        if ctx.depth > MAX_DEPTH:
            return None
        recorder = self.recorder
        if function.module != self.module_name:
            self.ran_foreign = True  # before its defaults are read: they are its module's nodes too
            if recorder is not None and recorder.active:
                recorder.spoil()  # another module's body: reported apart (`_report_inside`), not kept
        params = function.node.args
        listed = parameters(params)
        scope = self.child_scope(function.scope)
        bindings: Bindings = {}
        positional = [param for param in listed if param.kind in ("positional_only", "positional")]
        args = list(call.args)
        typed: list[tuple[str, ArrayType | None]] = []
        axes_reported: set[str] = set()  # a named axis has one size per call: one SC103 for it
        keyword_only = [(None, param) for param in listed if param.kind == "keyword_only"]
        # `*args` and `**kwargs` bind after the others, whatever their place in the signature.
        for index, param in [*enumerate(positional), *keyword_only]:
            name = param.node.arg
            declared = self._param_type(param.node, function.scope)
            if index is not None and index < len(args):
                value, node = args[index], call.arg_nodes[index]
            elif name in call.kwargs:
                value, node = call.kwargs[name], call.kwarg_nodes.get(name, call.node)
            elif param.default is not None:
                value, node = self.eval(param.default, function.scope, ctx), param.default
            else:
                value, node = None, call.node
            scope.bind(name, self._bind_param(function, name, declared, value, node, bindings, ctx, alone,
                                                   axes_reported))
            typed.append((name, declared))
        if params.vararg is not None:
            rest = args[len(positional):]
            scope.bind(params.vararg.arg, Seq(tuple(rest)) if not alone else None)
        if params.kwarg is not None:
            scope.bind(params.kwarg.arg, None)
        conflicted = {symbol for symbol, size in bindings.items() if isinstance(size, Conflict)}
        if conflicted:
            # A symbol two arguments gave different sizes is unknown in the whole body, also in
            # the parameters bound before the conflict showed.
            for name, declared in typed:
                bound = scope.bindings.get(name)
                if declared is not None and isinstance(bound, ArrayType):
                    scope.bind(name, forget_symbols(declared, bound, conflicted))

        declared_return: ArrayType | None = None
        if not isinstance(function.node, ast.Lambda) and function.node.returns is not None:
            read = self.read(function.node.returns, function.scope)
            declared_return = read if isinstance(read, ArrayType) else None
        # A closure's result depends on what it captured from the calls that made it too.
        arg_key = (*scope.bindings.items(), *self._captured(function))
        # A haiku `init` scans otherwise than its `apply` (`haiku_recurrent`): analysed apart.
        run = (*ctx.key(), "init") if self.params_log is not None and self.params_log.initializing else ctx.key()
        key = (id(function.node), _hashable((arg_key, tuple(_shardings(scope.bindings.values())))), run)
        first = positional[0].node.arg if positional else None
        log = self.params_log
        if key in self.cache and (log is None or key in self.params_made):
            if log is not None:  # what the analysis created, created again (model_params)
                log.events.extend(self.params_made[key])
            self.last_receiver = self.receivers.get(key)
            if recorder is not None and recorder.active:
                recorder.hit(key, self.cache[key])
            return self._returned(self.cache[key], declared_return, bindings)
        if recorder is not None and log is None:
            replayed, value = recorder.replay(function, key, ctx)
            if replayed:  # the last run's analysis of this call, all it read as it was
                self.last_receiver = None
                return self._returned(value, declared_return, bindings)
        analyses = self.analyses.get(id(function.node), 0)
        if id(function.node) in self.active or self.budget <= 0 or (analyses >= MAX_ANALYSES and not alone):
            # Recursion (whatever the arguments), runaway call trees and a function called with
            # ever new arguments (a registration helper in a loop) are cut off: unknown.
            if recorder is not None and recorder.active:
                recorder.spoil()
            return self._returned(None, declared_return, bindings)
        self.budget -= 1
        self.analyses[id(function.node)] = analyses + 1
        recording = recorder.begin(function) if recorder is not None else None
        foreign = function.module != self.module_name
        if foreign:
            # Another module's body: what fails there only for these arguments is reported at
            # this file's call; the rest belongs to that module's own check.
            self.reporter.capture()
        self.active.add(id(function.node))
        self.analysed.add(id(function.node))
        frame = Frame(function, declared_return=declared_return, bindings=dict(bindings))
        self.frames.append(frame)
        logged_from = len(log.events) if log is not None else 0
        try:
            try:
                inner = ctx.deeper()
                for param in listed:
                    self.note_type(param.node, scope.bindings.get(param.node.arg), inner)
                if isinstance(function.node, ast.Lambda):
                    frame.returns.append(self.eval(function.node.body, scope, inner))
                else:
                    falls_off = self.exec_block(function.node.body, scope, inner)
                    if falls_off and frame.returns:
                        frame.returns.append(Const(None))  # reaching the end returns None too
            finally:
                self.frames.pop()
                self.active.discard(id(function.node))
                if foreign:
                    inside = self.reporter.release()
                    if alone:
                        self.reporter.pass_up(inside)  # to `_report_inside`, which asked for them
                    elif inside:
                        self._report_inside(function, call, inside)
        except BaseException:
            if recording is not None and recorder is not None:
                recorder.abandon(recording)
            raise
        result: Value = None
        if frame.returns:
            result = frame.returns[0]
            for other in frame.returns[1:]:
                result = join(result, other)
        elif not isinstance(function.node, ast.Lambda):
            result = Const(None)
        self.cache[key] = result
        if log is not None:
            self.params_made[key] = tuple(log.events[logged_from:])
        receiver = scope.bindings.get(first) if first is not None else None
        if isinstance(receiver, Instance):
            self.receivers[key] = receiver
        self.last_receiver = receiver if isinstance(receiver, Instance) else None
        if recording is not None and recorder is not None:
            recorder.end(recording, function, key, ctx, result, receiver)
        return self._returned(result, declared_return, bindings)

    def construct(self, cls: Class, call: CallArgs, ctx: Context) -> Value:
        """`Cls(...)`: the instance its `__init__` leaves (or its record fields take)."""
        init = objects.initializer(cls)
        if init is not None:
            bound = CallArgs(call.node, [Instance(cls), *call.args], [call.node, *call.arg_nodes],
                             call.kwargs, call.kwarg_nodes, [], call.raw_kwargs, call.opaque)
            bound.raw_args = [None, *call.raw_args]  # type: ignore[list-item]
            self.call_function(init, bound, ctx)
            return self.last_receiver if isinstance(self.last_receiver, Instance) else Instance(cls)
        instance = Instance(cls)
        if cls.record is None:
            return instance
        if len(call.args) > len(cls.fields) or any(name not in cls.fields for name in call.kwargs):
            return None  # Python raises: too many arguments, or an unknown field
        given = {**dict(zip(cls.fields, call.args, strict=False)), **call.kwargs}
        for name in cls.fields:
            instance = instance.with_field(name, given[name] if name in given else cls.attribute(name))
        post_init = cls.attribute("__post_init__")
        if isinstance(post_init, Function) and cls.record != "namedtuple":
            # A dataclass's derived fields (`self.head_dim = self.d_model // self.n_heads`).
            self.call_function(post_init, CallArgs(call.node, [instance], [call.node]), ctx)
            if isinstance(self.last_receiver, Instance):
                instance = self.last_receiver
        return instance

    def call_method(self, method: BoundFunction, call: CallArgs, ctx: Context, scope: Scope) -> Value:
        """`obj.method(...)`: the method with `obj` first; a receiver held by a name is rebound
        to what the method left of it (`self.count = ...` in a method changes `obj`)."""
        bound = CallArgs(call.node, [method.receiver, *call.args], [call.node, *call.arg_nodes],
                         call.kwargs, call.kwarg_nodes, [], call.raw_kwargs, call.opaque)
        bound.raw_args = [None, *call.raw_args]  # type: ignore[list-item]
        result = self.call_function(method.function, bound, ctx)
        holder = call.node.func if isinstance(call.node, ast.Call) else None
        if (isinstance(holder, ast.Attribute) and isinstance(holder.value, ast.Name)
                and isinstance(method.receiver, Instance) and objects.stored_attributes(method.function)):
            after = self.last_receiver
            scope.bind(holder.value.id, after if isinstance(after, Instance) else None)
        return result

    def _report_inside(self, function: Function, call: CallArgs, inside: list[Finding]) -> None:
        """Report at this call what another module's body found for these arguments only: what
        it finds whatever the arguments is that module's own check's to report, once, and must
        not hide this call's own problem behind it."""
        key = id(function.node)
        if key not in self.found_alone:
            self.found_alone[key] = frozenset()  # a recursive call meanwhile finds nothing more
            self.reporter.capture()
            try:
                self.call_function(function, CallArgs(function.node), Context(), alone=True)
            finally:
                self.found_alone[key] = frozenset((id(f.node), f.code) for f in self.reporter.release())
        alone = self.found_alone[key]
        for finding in inside:
            if (id(finding.node), finding.code) not in alone:
                self.reporter.add(call.node, finding.code,
                                  f"in `{function.name}` (module {function.module}), called here: "
                                  f"{finding.message}")
                return

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
            return unknown_where(prefer(resolved, inferred), problems)
        return resolved

    def _param_type(self, param: ast.arg, scope: Scope) -> ArrayType | None:
        if param.annotation is None:
            return None
        found = self.read(param.annotation, scope)
        return found if isinstance(found, ArrayType) else None

    def _bind_param(self, function: Function, name: str, declared: ArrayType | None, value: Value,
                    node: ast.AST, bindings: Bindings, ctx: Context, alone: bool,
                    axes_reported: set[str]) -> Value:
        if declared is None:
            return value
        if isinstance(value, ArrayType) and not alone:
            what = f"argument `{name}` of {function.name}"
            problems = conform(declared, visible(value, ctx), bindings, what, source=source_of(node), x64=self.x64)
            # Two arguments with one wrong axis size (both from one xmap axis, say): one root.
            fresh = [p for p in problems if not any(a in axes_reported for a in p.axes if isinstance(a, str))]
            axes_reported.update(a for p in problems for a in p.axes if isinstance(a, str))
            types = axis_types(ctx)
            conflict = sharding_conflict(declared, value, what, source=source_of(node), axis_types=types)
            self.reporter.problems([*fresh, *([conflict] if conflict else [])], node)
            # The body sees the declared type (its contract), with symbols the call bound, and
            # unknown sizes (or sharding) where the argument contradicts it (reported here, once).
            bound = unknown_where(prefer(substitute(declared, bindings), value, types), problems)
            return bound.with_sharding(None) if conflict and bound.dims else bound
        if alone:
            # On its own, the body is checked for every size its symbols may take.
            return rigid(declared, bindings)
        return declared


def _shardings(values: Iterable[Value]) -> Iterator[Sharding | None]:
    """The sharding of each array among `values`, in containers and objects too: a summary holds
    for one placement of its arguments, which ArrayType's equality leaves out (`f(x_on_X)` and
    `f(x_on_Y)` have results placed apart)."""
    for value in values:
        if isinstance(value, ArrayType):
            yield value.sharding
        elif isinstance(value, Seq):
            yield from _shardings(value.items)
        elif isinstance(value, Dict):
            yield from _shardings(item for _, item in value.items)
        elif isinstance(value, Instance):
            yield from _shardings(item for _, item in value.fields)


def _hashable(items: object) -> object:
    try:
        hash(items)
    except TypeError:
        return object()  # unhashable arguments: never shares a cache entry
    return items

