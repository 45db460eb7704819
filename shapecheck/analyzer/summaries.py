"""Function summaries and top-level statements kept from one analysis of a module to the next
(the language server's).

A keystroke in one function of a 1,000-line buffer changes one statement, yet the whole module
is interpreted again, and with it every function its statements call: most of them read
nothing the edit changed. So each analysis of a function for some arguments (a summary), and
each top-level statement, is recorded with everything it read and everything it did, and the
next analysis of the buffer replays it, rather than interpreting it again, where all it read
is as it was.

What an analysis or statement reads, and how each is compared with the last run's:
- its code, and every function it runs: the same tree nodes (`lsp.reuse.spliced` keeps the
  statements an edit leaves alone, node for node, and nothing changes a node);
- its arguments and context: equal, nodes compared by identity (`fingerprint`);
- the module's names it looks up (`Watched` notes each first read, found or not) and the
  literal each was assigned (specs), compared by fingerprint; the star imports;
- what the run's tables held when it looked: summaries of other calls (present and equal, or
  absent where it made them), annotations read, findings already reported at a place (a
  handler asks whether its call reported), the analyses budget and per-function counts (none
  may run out), the functions being analysed (no recursion cut);
- the module-wide answers it asked for (`map_axis_names`, `unmapped_functions`);
- other project modules: the same texts (the language server drops every summary otherwise).

What it did is done again in the same order: findings reported (deduplicated as then), types
noted for hover, summaries and annotations entered in the run's tables, the budget and counts
spent, the modules read, and a statement's bindings of module names and functions defined (a
top-level `def`; a branch or loop of the module's code binds the names it joins again at once,
each reading what the name held before). Nothing is replayed that did anything else: defined a
function or lambda in a function or class body (its closure is that run's call or class
scope), ran another module's function, bound a module name from a function, bound or read a
value that cannot be compared across runs (a class, an object), unbound a module name, or was
cut short. So a run that replays is, finding for finding and type for type, the run that
interprets everything; the hypothesis test in tests/lsp/test_summaries.py holds it to that over
random edits.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields, is_dataclass, replace
from enum import Enum
from functools import cached_property
from typing import TYPE_CHECKING, Any, Final, cast

from shapecheck.algebra.axis_mapping import AxisMapping, SpecContainer
from shapecheck.analyzer.context import Context
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    BoundFunction,
    Class,
    Const,
    ContainerMethod,
    Devices,
    DType,
    Function,
    FunctionNode,
    Instance,
    Lazy,
    Mesh,
    MeshContext,
    Module,
    Qual,
    Seq,
    Value,
)
from shapecheck.codes import Code
from shapecheck.literal import Lit
from shapecheck.types import ArrayType

if TYPE_CHECKING:
    from shapecheck.analyzer.report import Finding
    from shapecheck.analyzer.state import InterpreterState
    from shapecheck.results import Placement

MISSING: Final = object()
"""A name looked up and not bound (its first binding later changes what a replay would read)."""

_UNKNOWN: Final = object()  # a value with no fingerprint: what read it is never replayed
_PLAIN: Final = (Const, Qual, Lazy, DType, Devices, Mesh, MeshContext)  # frozen, compared by value
# Values that hold a run's scopes or an object's state: never fingerprinted or kept.
_OPAQUE: Final = (Class, Instance, Module, BoundFunction, ContainerMethod)
# Parts of values kept as they are: atoms, nodes, and literals and specs (plain data with nodes).
_ATOMS: Final = (bool, int, float, str, Enum, ast.AST, frozenset, Lit, AxisMapping, SpecContainer)

Key = tuple[object, ...]  # a run's summary key: (id of the function node, arguments, context key)
StoreKey = tuple[object, ...]  # the same with the node itself, which keeps its id unique


def _own_lookup(name: str) -> Lit | None:
    """Stands in a kept value for the literal lookup of the run that made it (the next run's
    own lookup replaces it: a spec read later reads the module as that run sees it)."""
    raise AssertionError("a kept value's lookup is replaced before use")


def fingerprint(value: object, owner: InterpreterState) -> object:
    """What of `value` an analysis can tell apart, comparable across runs of the module: every
    field, the nodes it came from by identity; _UNKNOWN for a value that holds a run's scope (a
    class, an object, a closure, a loaded module)."""
    if value is None or value is MISSING:
        return value
    kind = type(value)
    if kind is ArrayType:
        assert isinstance(value, ArrayType)
        return (ArrayType, value, value.sharding)  # equality leaves the sharding out
    if kind is Const:
        assert isinstance(value, Const)
        return (Const, type(value.value), value.value)  # Const(1) == Const(True) == Const(1.0)
    if kind in _PLAIN:
        return (kind, value)
    if kind is Function:
        assert isinstance(value, Function)
        if value.scope is not owner.scope:
            return _UNKNOWN  # a closure over a call's scope
        return (Function, value.node, value.module, value.name)
    if isinstance(value, ast.AST):  # a module-level name's source expression
        return value
    if kind in _OPAQUE or not is_dataclass(value):
        return _UNKNOWN
    # Containers, maps, jitted functions, specs, shardings, layers: every field, those equality
    # leaves out (the node a literal or spec came from, its literal lookup) too.
    return (kind, _deep(tuple(getattr(value, name) for name in _names(kind)), owner))


_FIELDS: dict[type, tuple[str, ...]] = {}


def _names(kind: type) -> tuple[str, ...]:
    """A dataclass's field names (read once per kind)."""
    found = _FIELDS.get(kind)
    if found is None:
        found = _FIELDS[kind] = tuple(f.name for f in fields(cast(Any, kind)))
    return found


def _deep(value: object, owner: InterpreterState) -> object:
    """A part of a value as a fingerprint (`fingerprint`)."""
    if value is None or isinstance(value, bool | int | float | str | Enum | ast.AST):
        return (type(value), value)
    if isinstance(value, tuple):
        parts = tuple(_deep(item, owner) for item in value)
        return _UNKNOWN if any(part is _UNKNOWN for part in parts) else parts
    if isinstance(value, frozenset):
        members = frozenset(_deep(item, owner) for item in value)
        return _UNKNOWN if _UNKNOWN in members else (frozenset, members)
    if isinstance(value, dict):
        return _deep(tuple(value.items()), owner)
    if is_dataclass(value) and not isinstance(value, type):
        return fingerprint(value, owner)
    if callable(value):  # a literal lookup: this run's own, or another module's (kept by the loader)
        return "own" if getattr(value, "__self__", None) is owner else value
    return _UNKNOWN


@dataclass(frozen=True, slots=True)
class Swap:
    """What a kept value refers to of the run that made it (its literal lookup, its module
    scope), and what stands for them where it is kept or replayed."""

    lookup: object
    to_lookup: Callable[[str], Lit | None]
    scope: Scope
    to_scope: Scope


def carried(value: Value, swap: Swap) -> Value:
    """`value` with what it refers to of one run replaced as `swap` says; raises _NotCarried for
    a value that cannot be kept past its run (it holds a scope of a call, a class, an object)."""
    kind = type(value)
    if value is None or kind is ArrayType or kind in _PLAIN:
        return value
    if kind is Seq:  # the generic way below gives the same, slower: every replay carries many
        assert isinstance(value, Seq)
        return Seq(tuple(carried(item, swap) for item in value.items), value.is_list, value.node,
                   swap.to_lookup if value.lookup is not None and value.lookup == swap.lookup else value.lookup)
    if kind is Function:
        assert isinstance(value, Function)
        if value.scope is not swap.scope:
            raise _NotCarried  # a closure over a call's scope
        return Function(value.node, swap.to_scope, value.module, value.name)
    if kind in _OPAQUE or not is_dataclass(value):
        raise _NotCarried
    changes = {}
    for name in _names(kind):
        part = getattr(value, name)
        new = _carried_part(part, swap)
        if new is not part:
            changes[name] = new
    return cast(Value, replace(cast(Any, value), **changes)) if changes else value


def _carried_part(part: object, swap: Swap) -> object:
    if part is None or isinstance(part, _ATOMS):
        return part
    if isinstance(part, tuple):
        items = tuple(_carried_part(item, swap) for item in part)
        return part if all(new is old for new, old in zip(items, part, strict=True)) else items
    if isinstance(part, dict):
        entries = {key: _carried_part(item, swap) for key, item in part.items()}
        return part if all(entries[key] is item for key, item in part.items()) else entries
    if is_dataclass(part) and not isinstance(part, type):
        return carried(cast(Value, part), swap)
    if callable(part) and part == swap.lookup:
        return swap.to_lookup  # a container's literal lookup: the run's own
    if getattr(part, "__self__", None) is not None:
        return part  # another module's literal lookup (its interpreter kept by the loader)
    raise _NotCarried


@dataclass(frozen=True, slots=True)
class _Print:
    """A kept binding's fingerprint (`_UNKNOWN`: none was made)."""

    value: object


class _NotCarried(Exception):
    """A value that cannot be kept past the run that made it."""


@dataclass(slots=True)
class Recording:
    """What one analysis of a function, or one top-level statement, read and did (with every
    analysis it ran)."""

    stars: tuple[str, ...]
    statement: bool = False
    reads: dict[tuple[str, str], object] = field(default_factory=dict)  # (table, name) -> fingerprint
    # A statement's bindings: (table, name) -> the kept value, with the value itself until the
    # run ends, then with its fingerprint (`Recorder.finish`).
    writes: dict[tuple[str, str], tuple[object, object]] = field(default_factory=dict)
    hits: dict[Key, object] = field(default_factory=dict)  # summaries found in the run's table
    made: dict[Key, Value] = field(default_factory=dict)  # summaries it entered (kept form)
    kept: dict[StoreKey, None] = field(default_factory=dict)  # the store's entries among them (in order)
    annotations_read: dict[int, object] = field(default_factory=dict)
    annotations_made: dict[int, tuple[ast.expr, object]] = field(default_factory=dict)
    seen: dict[tuple[int, Code], bool] = field(default_factory=dict)  # place already reported, at first try
    findings: list[Finding] = field(default_factory=list)  # every report tried, in order
    notes: list[tuple[ast.AST, ArrayType, Placement | None]] = field(default_factory=list)
    derived: dict[str, object] = field(default_factory=dict)  # module-wide answers asked for
    modules: dict[str, str | None] = field(default_factory=dict)  # project modules read, and their hashes
    analysed: dict[ast.AST, int] = field(default_factory=dict)  # function node -> analyses run
    # A top-level statement's defs and lambdas, in order: (node, module, name).
    defined: list[tuple[FunctionNode, str, str]] = field(default_factory=list)
    spent: int = 0  # of the budget
    valid: bool = True


@dataclass(frozen=True, slots=True)
class Entry:
    """A summary as kept for the next run: the call it answers and what it recorded."""

    context: Context
    arguments: tuple[object, ...]  # fingerprints of the parameters' bindings
    result: Value
    recording: Recording


@dataclass(frozen=True, slots=True)
class Done:
    """A top-level statement as kept for the next run: its context, what it recorded, and
    whether control went on after it (or the mesh it set, `jax.set_mesh(mesh)`)."""

    context: Context
    recording: Recording
    went: object


class Summaries:
    """The summaries of one buffer's last analysis, replayed by the next (`Recorder`)."""

    def __init__(self) -> None:
        self.entries: dict[StoreKey, Entry] = {}
        self.statements: dict[ast.stmt, Done] = {}
        self._next: dict[StoreKey, Entry] = {}
        self._next_statements: dict[ast.stmt, Done] = {}
        self.replayed = 0  # in the current run: analyses and statements replayed (for tests)

    def begin(self) -> None:
        self._next, self._next_statements = {}, {}
        self.replayed = 0

    def finish(self, complete: bool) -> None:
        """Keep what this run made and replayed (everything else is dropped: an entry of a
        function whose text changed could only ever match a node that no longer exists)."""
        self.entries = self._next if complete else {}
        self.statements = self._next_statements if complete else {}
        self._next, self._next_statements = {}, {}


_KEPT_SCOPE: Final = Scope(None, "<kept>")  # stands in a kept value for its run's module scope


class Watched(dict[str, object]):
    """The module scope's bindings (or the literal each name was assigned) while summaries are
    recorded: each read is noted in the analyses in progress, and each write in the top-level
    statement in progress (a function's analysis that wrote one is not kept)."""

    __slots__ = ("recorder", "table")

    def __init__(self, recorder: Recorder, table: str, items: Iterable[tuple[str, object]] = ()) -> None:
        super().__init__(items)
        self.recorder = recorder
        self.table = table

    def get(self, name: str, default: object = None) -> object:
        found = dict.get(self, name, MISSING)
        if self.recorder.active:
            self.recorder.read(self.table, name, found)
        return default if found is MISSING else found

    def __getitem__(self, name: str) -> object:
        found = dict.get(self, name, MISSING)
        if self.recorder.active:
            self.recorder.read(self.table, name, found)
        if found is MISSING:
            raise KeyError(name)
        return found

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False  # every key is a name
        found = dict.get(self, name, MISSING)
        if self.recorder.active:
            self.recorder.read(self.table, name, found)
        return found is not MISSING

    def __setitem__(self, name: str, value: object) -> None:
        if self.recorder.active:
            self.recorder.wrote(self.table, name, value)
        dict.__setitem__(self, name, value)

    def whole(self) -> None:
        """Every name read or changed at once (a copy, an iteration, an update): not followed
        name by name, so nothing in progress is kept."""
        if self.recorder.active:
            self.recorder.spoil()


def _whole(name: str) -> Callable[..., object]:
    method = getattr(dict, name)

    def whole(self: Watched, *args: object, **kwargs: object) -> object:
        self.whole()
        return method(self, *args, **kwargs)

    whole.__name__ = name
    return whole


for _name in ("keys", "values", "items", "__iter__", "__delitem__", "pop", "popitem", "setdefault", "update",
              "copy", "__ior__", "__or__"):
    setattr(Watched, _name, _whole(_name))


class WatchedScope(Scope):
    """A module scope whose bindings are `Watched`, also after a branch restores them."""

    __slots__ = ("recorder",)

    def __init__(self, module: str, recorder: Recorder) -> None:
        super().__init__(None, module)
        self.recorder = recorder
        self.bindings = Watched(recorder, "name")  # type: ignore[assignment]

    def snapshot(self) -> dict[str, Value]:
        # Kept to join branches: no read of its own (a name the branches bind reads its value
        # before them, `Recorder.wrote`; the others join to the same value).
        return dict(dict.items(self.bindings))

    def restore(self, bindings: dict[str, Value]) -> None:
        """Bind every name again at once (branches joined, a branch undone): a write of each
        name whose value is another than now; a name unbound so is not followed."""
        now = self.bindings
        if self.recorder.active:
            if dict.keys(now) - bindings.keys():
                self.recorder.spoil()
            for name, value in bindings.items():
                if dict.get(now, name, MISSING) is not value:
                    self.recorder.wrote("name", name, value)
        self.bindings = Watched(self.recorder, "name", bindings.items())  # type: ignore[assignment]


class Recorder:
    """One run's side of `Summaries`: records each function analysis and top-level statement,
    and replays the last run's where all it read is as it was. The interpreter's parts call
    the hooks; `run_module` runs the module's statements."""

    def __init__(self, store: Summaries, owner: InterpreterState, max_analyses: int) -> None:
        self.store = store
        self.owner = owner
        self.max_analyses = max_analyses
        self.active: list[Recording] = []  # in progress, outermost first (a statement's at the bottom)
        self._prints: dict[int, tuple[object, object]] = {}

    def print_of(self, value: object) -> object:
        """`fingerprint(value)`, once per value of the run (values are immutable; a module name
        is read by many analyses)."""
        if value is None or value is MISSING:
            return value
        known = self._prints.get(id(value))
        if known is not None and known[0] is value:
            return known[1]
        found = fingerprint(value, self.owner)
        self._prints[id(value)] = (value, found)  # the value held: its id names no other meanwhile
        return found

    # Kept values refer to no run: this run's lookup and module scope are swapped out of what
    # it keeps, and into what it replays (read once the owner has its module scope).

    @cached_property
    def _keeping(self) -> Swap:
        return Swap(self.owner.literal_lookup, _own_lookup, self.owner.scope, _KEPT_SCOPE)

    @cached_property
    def _replaying(self) -> Swap:
        return Swap(_own_lookup, self.owner.literal_lookup, _KEPT_SCOPE, self.owner.scope)

    # What the analyses in progress read and did.

    def read(self, table: str, name: str, value: object) -> None:
        key = (table, name)
        for recording in self.active:
            if key not in recording.reads and key not in recording.writes:
                self._compared(recording, recording.reads, key, value)

    def wrote(self, table: str, name: str, value: object) -> None:
        for recording in self.active:
            if not recording.statement:
                recording.valid = False  # only the module's own statements bind its names
                continue
            if (table, name) not in recording.writes and (table, name) not in recording.reads:
                # What the name held before: a join of branches reads it (`WatchedScope.restore`).
                self._compared(recording, recording.reads, (table, name),
                               dict.get(self._table(table), name, MISSING))
            try:
                kept = value if table == "source" else carried(value, self._keeping)  # type: ignore[arg-type]
            except _NotCarried:
                kept, recording.valid = None, False
            # With the value itself until the run ends (`finish`), which keeps its fingerprint
            # where a reader of it made one.
            recording.writes[(table, name)] = (kept, value)

    def defined(self, function: Function) -> None:
        """A `def` or lambda was run: a top-level statement's, closing over the module scope, is
        part of what the statement did (the run analyses it on its own later); any other closes
        over a call's scope, which no later run has."""
        for recording in self.active:
            if recording.statement and function.scope is self.owner.scope:
                recording.defined.append((function.node, function.module, function.name))
            else:
                recording.valid = False

    def spoil(self) -> None:
        """Whatever happens now cannot be replayed: nothing in progress is kept."""
        for recording in self.active:
            recording.valid = False

    def hit(self, key: Key, value: Value) -> None:
        for recording in self.active:
            if key not in recording.made and key not in recording.hits:
                self._compared(recording, recording.hits, key, value)

    def _compared(self, recording: Recording, table: dict[Any, object], key: object, value: object) -> None:
        """Keep what a replay must find again, by fingerprint (a value without one: never)."""
        found = table[key] = self.print_of(value)
        if found is _UNKNOWN:
            recording.valid = False

    def tried(self, finding: Finding, key: tuple[int, Code], seen: bool) -> None:
        for recording in self.active:
            if key not in recording.seen:
                recording.seen[key] = seen
            recording.findings.append(finding)

    def noted(self, node: ast.AST, shown: ArrayType, placement: Placement | None) -> None:
        for recording in self.active:
            recording.notes.append((node, shown, placement))

    def annotation(self, node: ast.expr, value: object, made: bool) -> None:
        key = id(node)
        for recording in self.active:
            if made:
                recording.annotations_made[key] = (node, value)
            elif key not in recording.annotations_made and key not in recording.annotations_read:
                recording.annotations_read[key] = value

    def derived(self, name: str, value: object) -> None:
        for recording in self.active:
            recording.derived.setdefault(name, value)

    # One function analysis.

    def begin(self, function: Function) -> Recording | None:
        """Start recording an analysis of `function` (the budget and counts are spent); None
        where nothing would keep it: a closure (a method, say) analysed outside any recording,
        which is never kept itself (`end`) and has no recording in progress to tell what it
        read. Recording it would only cost time: on a module of classes, most of it."""
        if not self.active and function.scope is not self.owner.scope:
            return None
        recording = self._start(statement=False)
        for each in self.active:
            each.spent += 1
            each.analysed[function.node] = each.analysed.get(function.node, 0) + 1
        return recording

    def abandon(self, recording: Recording) -> None:
        """The analysis was cut short by an exception: nothing of it is kept."""
        self._pop(recording)
        self.spoil()

    def end(self, recording: Recording, function: Function, key: Key, context: Context, result: Value,
            receiver: Value) -> None:
        """The analysis returned `result`, now in the run's table under `key`."""
        self._pop(recording)
        try:
            kept = carried(result, self._keeping)
        except _NotCarried:
            kept, recording.valid = None, False
        if isinstance(receiver, Instance):
            recording.valid = False  # the first argument as the body left it: kept apart, per call
        store_key = (function.node, *key[1:])
        for outer in self.active:
            outer.made[key] = kept
            if not recording.valid:
                outer.valid = False
            else:
                outer.kept[store_key] = None
        if not recording.valid or function.scope is not self.owner.scope:
            # A closure (a lambda or def in a function body, a method) reads the scope of the
            # call or class that made it, which no fingerprint covers: only what made it, and
            # so made its scope the same, may be replayed.
            return
        arguments = self._arguments(key)
        if arguments is not None:
            self.store._next[store_key] = Entry(context, arguments, kept, recording)

    def replay(self, function: Function, key: Key, context: Context) -> tuple[bool, Value]:
        """Whether the last run's analysis of this call holds now, and then its result, with
        everything it did done again."""
        store_key = (function.node, *key[1:])
        entry = self.store.entries.get(store_key)
        if (entry is None or function.scope is not self.owner.scope or key in self.owner.cache
                or self._arguments(key) != entry.arguments or not self._holds(entry.recording, entry.context, context)):
            return False, None
        self._apply(entry.recording)
        result = carried(entry.result, self._replaying)
        self.owner.cache[key] = result
        for outer in self.active:
            outer.made[key] = entry.result
            outer.kept[store_key] = None
        self.store._next[store_key] = entry
        return True, result

    # The module's statements.

    def run_module(self, body: list[ast.stmt], context: Context) -> None:
        """Run the module's top-level statements, as `exec_block` does, each replayed where the
        last run's holds."""
        owner = self.owner
        for node in body:
            done = self.store.statements.get(node)
            if done is not None and self._holds(done.recording, done.context, context):
                self._apply(done.recording)
                for (table, name), (value, found) in done.recording.writes.items():
                    if table == "name":
                        value = carried(value, self._replaying)  # type: ignore[arg-type]
                        assert isinstance(found, _Print)
                        if value is not None and found.value is not _UNKNOWN:
                            self._prints[id(value)] = (value, found.value)
                    dict.__setitem__(self._table(table), name, value)
                owner.functions.extend(Function(defined, owner.scope, module, name)
                                       for defined, module, name in done.recording.defined)
                self.store._next_statements[node] = done
                went = done.went
            else:
                recording = self._start(statement=True)
                try:
                    went = owner.exec_top(node, owner.scope, context)
                except BaseException:
                    self.abandon(recording)
                    raise
                self._pop(recording)
                if tuple(owner.scope.stars) != recording.stars:
                    recording.valid = False  # `from module import *`: names not followed one by one
                if recording.valid and (went is True or went is False or isinstance(went, Mesh)):
                    self.store._next_statements[node] = Done(context, recording, went)
            if not went:
                return
            if went is not True and isinstance(went, Mesh):
                context = context.with_mesh(went)

    def finish(self, complete: bool) -> None:
        """The run has ended: keep what it made and replayed for the next (`Summaries.finish`).
        Each binding its statements made is kept with the fingerprint a reader of it made (a
        replayed binding carries the one it was kept with): the next run's readers compare it
        at once, and a map's fingerprint is worth sparing (its specs' literals, part by part)."""
        prints = self._prints
        for done in self.store._next_statements.values():
            writes = done.recording.writes
            for key, (kept, value) in writes.items():
                if not isinstance(value, _Print):
                    known = prints.get(id(value))
                    writes[key] = (kept, _Print(known[1] if known is not None and known[0] is value else _UNKNOWN))
        self.store.finish(complete)

    # Shared.

    def _start(self, statement: bool) -> Recording:
        owner = self.owner
        recording = Recording(tuple(owner.scope.stars), statement)
        if owner.reporter.muted or owner.reporter.capturing:
            recording.valid = False
        self.active.append(recording)
        if owner.loader is not None:
            owner.loader.watch_reads(recording.modules)
        return recording

    def _pop(self, recording: Recording) -> None:
        popped = self.active.pop()
        assert popped is recording
        if self.owner.loader is not None:
            self.owner.loader.unwatch_reads(recording.modules)

    def _apply(self, recording: Recording) -> None:
        """Do again what a recording did (its statement's bindings aside), in its order where
        order shows: findings and hover types."""
        owner = self.owner
        owner.budget -= recording.spent
        for node, count in recording.analysed.items():
            owner.analyses[id(node)] = owner.analyses.get(id(node), 0) + count
            owner.analysed.add(id(node))
        for key_of, (node, value) in recording.annotations_made.items():
            owner.annotation_entered(key_of, node, value)  # type: ignore[arg-type]
        for outer in self.active:
            outer.spent += recording.spent
            for node, count in recording.analysed.items():
                outer.analysed[node] = outer.analysed.get(node, 0) + count
            for table_name, found in recording.reads.items():
                if table_name not in outer.writes:
                    outer.reads.setdefault(table_name, found)
            for hit, found in recording.hits.items():
                if hit not in outer.made:
                    outer.hits.setdefault(hit, found)
            for key_of, value in recording.annotations_read.items():
                if key_of not in outer.annotations_made:
                    outer.annotations_read.setdefault(key_of, value)
            for name, value in recording.derived.items():
                outer.derived.setdefault(name, value)
            outer.kept.update(recording.kept)
        if owner.loader is not None:
            owner.loader.note_reads(recording.modules)
        for made_key, value in recording.made.items():
            owner.cache[made_key] = carried(value, self._replaying)
            for outer in self.active:
                outer.made[made_key] = value
        for finding in recording.findings:
            owner.reporter.add(finding.node, finding.code, finding.message, finding.notes, finding.fallback)
        for node, shown, placement in recording.notes:
            owner.keep_type(node, shown, placement)
        for nested in recording.kept:
            kept = self.store.entries.get(nested)
            if kept is not None:
                self.store._next.setdefault(nested, kept)
        self.store.replayed += 1

    def _arguments(self, key: Key) -> tuple[object, ...] | None:
        """Fingerprints of a call's parameter bindings (its key's first part): None where one
        has none."""
        hashed = key[1]
        if not isinstance(hashed, tuple) or not hashed or not isinstance(hashed[0], tuple):
            return None
        prints = tuple((name, self.print_of(value)) for name, value in hashed[0])
        return None if any(found is _UNKNOWN for _, found in prints) else prints

    def _table(self, table: str) -> dict[str, object]:
        """The module's bindings ("name") or the literal each name was assigned ("source"), as
        they are: reading them here notes nothing."""
        held = self.owner.scope.bindings if table == "name" else self.owner.module_sources()
        return cast(dict[str, object], held)

    def _holds(self, recording: Recording, before: Context, context: Context) -> bool:
        """Whether all `recording` read is as it was, in this context."""
        owner = self.owner
        if owner.reporter.muted or owner.reporter.capturing or not _same_context(before, context):
            return False
        if owner.budget < recording.spent or tuple(owner.scope.stars) != recording.stars:
            return False
        for node, count in recording.analysed.items():
            if id(node) in owner.active or owner.analyses.get(id(node), 0) + count > self.max_analyses:
                return False
        for (table, name), found in recording.reads.items():
            if self.print_of(dict.get(self._table(table), name, MISSING)) != found:
                return False
        for name, value in recording.derived.items():
            if owner.derived(name) != value:
                return False
        cache = owner.cache
        for made in recording.made:
            if made in cache:
                return False
        for hit, found in recording.hits.items():
            if hit not in cache or self.print_of(cache[hit]) != found:
                return False
        known = owner.annotations_known()
        for key_of, value in recording.annotations_read.items():
            if key_of not in known or self.print_of(known[key_of]) != self.print_of(value):
                return False
        for key_of, (_, value) in recording.annotations_made.items():
            if key_of in known and self.print_of(known[key_of]) != self.print_of(value):
                return False
        seen = owner.reporter.seen
        return all((place in seen) == was for place, was in recording.seen.items())


def _same_context(before: Context, now: Context) -> bool:
    """Equal, and so are what equality leaves out: the depth, and the notes that messages show
    (their nodes by identity)."""
    return (before == now and before.depth == now.depth and before.binders == now.binders
            and before.resource_notes == now.resource_notes)
