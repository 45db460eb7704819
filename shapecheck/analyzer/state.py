"""What the interpreter's parts share: one module's analysis state, and their interface.

`Interpreter` is composed of parts, each a mixin over this state: the statement walker
(`statements`), the expression evaluator (`expressions`) and calls with function summaries
(`invocation`). Each part calls the others only through the methods declared at the end of
`InterpreterState`, so a reader of one part sees here what it may rely on from the rest.
Library handlers take the whole `Interpreter`: a part hands itself over as one
(`cast("Interpreter", self)`), which it always is at run time.
"""

from __future__ import annotations

import ast
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from shapecheck.algebra.conformance import Bindings
from shapecheck.analyzer.annotations import Invalid
from shapecheck.analyzer.calls import CallArgs, Handler
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.imports import Imports
from shapecheck.analyzer.report import Reporter
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.summaries import Recorder, Summaries, Watched, WatchedScope
from shapecheck.analyzer.values import Function, Value
from shapecheck.codes import Code
from shapecheck.literal import Lit
from shapecheck.results import Placement
from shapecheck.types import ArrayType

Typed = tuple[ast.AST, ArrayType, Placement | None]
"""What hover shows of one expression: its node, type, and place on the mesh inside a map."""

if TYPE_CHECKING:
    # Only a type here: the loader builds interpreters for imported modules, so importing it
    # at run time would close a cycle.
    from shapecheck.analyzer.library.model_params import Event, ParamLog
    from shapecheck.analyzer.modules import ModuleLoader

MAX_DEPTH = 12  # nested analyses (calls within calls) before results are left unknown
MAX_ANALYSES = 32  # distinct argument lists one function is analysed for in a file


@dataclass(slots=True)
class Frame:
    """One function analysis in progress: what it returns, and its signature's bindings."""

    function: Function | None
    returns: list[Value] = field(default_factory=list)
    declared_return: ArrayType | None = None
    bindings: Bindings = field(default_factory=dict)
    returned_node: ast.AST | None = None


class InterpreterState:
    """One module's analysis. `handlers` maps canonical qualified names to library rules."""

    def __init__(
        self, module: ast.Module, module_name: str, reporter: Reporter,
        handlers: dict[str, Handler], methods: dict[str, Handler],
        annotation_names: frozenset[str], types: dict[int, Typed] | None = None,
        loader: ModuleLoader | None = None, x64: bool | None = None, names_axes: bool = True,
        summaries: Summaries | None = None,
    ) -> None:
        # False only where the source certainly names no collective or axis: then which of its
        # functions some map may call does not matter (`Interpreter.unmapped_functions`).
        self.names_axes = names_axes
        self.loader = loader
        self.x64 = x64  # jax_enable_x64 in the checked program (None: not known), for SC301
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
        # The first argument as the function left it (`self` after a method set its attributes),
        # per cache key, and for the call that returned last.
        self.receivers: dict[tuple[object, ...], Value] = {}
        self.last_receiver: Value = None
        # The parameters a model creates while `init` or `apply` runs it (`model_params`);
        # None: not logged. Per cache key, those an analysis made while logged: a summary reused
        # in a logged run logs them again.
        self.params_log: ParamLog | None = None
        self.params_made: dict[tuple[object, ...], tuple[Event, ...]] = {}
        self.active: set[int] = set()  # functions being analysed: a call back into one is recursion
        # Another module's function -> what its body finds whatever the arguments (node id, code).
        self.found_alone: dict[int, frozenset[tuple[int, Code]]] = {}
        # Analyses per file are bounded: each function a few times over, whatever the call graph.
        self.budget = 200 + 20 * sum(1 for _ in _function_defs(module))
        self.analyses: dict[int, int] = {}  # function node id -> analyses for distinct arguments
        self.frames: list[Frame] = []
        self.types = types  # node id -> (node, type, placement) of array-valued expressions, for hover
        # Whether a function of another module was analysed here: only then can a finding or a
        # kept type be at a node of another module's tree.
        self.ran_foreign = False
        # The last run's function analyses and top-level statements, replayed where all they
        # read is as it was, and this run's recorded for the next (the language server's:
        # `summaries`; None: nothing recorded, nothing replayed).
        self.recorder: Recorder | None = None
        self._module_sources: dict[str, ast.expr] = {}
        if summaries is not None:
            self.recorder = Recorder(summaries, self, MAX_ANALYSES)
            reporter.recorder = self.recorder
            self.scope: Scope = WatchedScope(module_name, self.recorder)
            self._module_sources = Watched(self.recorder, "source")  # type: ignore[assignment]
        else:
            self.scope = Scope(None, module_name)
        # Every scope this analysis made, for `release`; held weakly, so that the interpreters the
        # loader keeps for imported modules (never released) keep no call's scope alive.
        self._made: list[weakref.ref[Scope]] = [weakref.ref(self.scope)]
        self._map_axis_names: frozenset[str] | None = None
        self._unmapped: frozenset[ast.AST] | None = None
        self._sets_mesh: bool | None = None
        self._through: dict[int, bool] = {}  # loop node id -> whether its body always runs through
        self._rebinds: dict[int, frozenset[str]] = {}  # loop node id -> the names its body may rebind
        self._annotations: dict[int, ArrayType | Invalid | None] = {}
        self.imports = Imports(module_name, loader)

    def module_sources(self) -> dict[str, ast.expr]:
        """The expression each module-level name was last assigned."""
        return self._module_sources

    def annotations_known(self) -> dict[int, ArrayType | Invalid | None]:
        """The annotations read so far, by node id."""
        return self._annotations

    def annotation_entered(self, key: int, node: ast.expr, value: ArrayType | Invalid | None) -> None:
        """Enter an annotation's reading in the run's table (as `read` does)."""
        self._annotations[key] = value
        if self.recorder is not None and self.recorder.active:
            self.recorder.annotation(node, value, made=True)

    def child_scope(self, parent: Scope) -> Scope:
        """A scope inside `parent` (a call's, a class body's, a comprehension's), for `release`."""
        scope = parent.child()
        self._made.append(weakref.ref(scope))
        return scope

    def release(self) -> None:
        """Let go of what the analysis built, once its findings and types are read.

        Its values and scopes refer to each other: a function's scope binds the function, and a
        summary in `cache` holds values that hold this interpreter. Left so, the module's tree
        and everything analysed would wait for the cyclic collector, which traverses all of it
        to free it (about 10^5 objects for a large file): 0.4-0.5 s of a 3-4 s check of a third
        of jax's files in one process. Emptied here, reference counting frees them at once.
        """
        for made in self._made:
            scope = made()
            if scope is not None:
                scope.bindings.clear()
        self._made.clear()
        for table in (self.cache, self.receivers, self.found_alone, self._module_sources):
            table.clear()
        self.functions.clear()
        self.frames.clear()
        self.last_receiver = None

    if TYPE_CHECKING:
        # Defined by the parts (`Interpreter` composes them); declared here for the others.
        def exec_block(self, body: Sequence[ast.stmt], scope: Scope, ctx: Context) -> bool: ...

        def exec_statement(self, node: ast.stmt, scope: Scope, ctx: Context) -> bool: ...

        def exec_top(self, node: ast.stmt, scope: Scope, ctx: Context) -> object: ...

        def assign(self, target: ast.expr, value: Value, scope: Scope, source: ast.AST) -> None: ...

        def eval(self, node: ast.expr, scope: Scope, ctx: Context) -> Value: ...

        def note_type(self, node: ast.AST, value: Value, ctx: Context) -> None: ...

        def test(self, node: ast.expr, scope: Scope, ctx: Context) -> bool | None: ...

        def binary(self, node: ast.AST, operator: type, left: Value, right: Value,
                   left_node: ast.AST, right_node: ast.AST, ctx: Context) -> Value: ...

        def call(self, func: Value, call: CallArgs, ctx: Context, scope: Scope) -> Value: ...

        def call_function(self, function: Function, call: CallArgs, ctx: Context, *, alone: bool = False,
                          declared_args: bool = True) -> Value: ...

        def read(self, node: ast.expr, scope: Scope) -> ArrayType | Invalid | None: ...

        def annotation(self, node: ast.expr, scope: Scope) -> ArrayType | None: ...

        def literal_lookup(self, name: str) -> Lit | None: ...

        def keep_type(self, node: ast.AST, shown: ArrayType, placement: Placement | None) -> None: ...

        def derived(self, name: str) -> object: ...

        def sets_mesh_unseen(self) -> bool: ...

        def check_cooccurrence(self, result: Value, inputs: Iterable[Value], node: ast.AST,
                               ctx: Context) -> None: ...


def _function_defs(module: ast.Module) -> list[ast.stmt]:
    return [n for n in module.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]

