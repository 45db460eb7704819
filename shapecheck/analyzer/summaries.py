"""Function summaries kept from one analysis of a module to the next (the language server's).

A keystroke in one function of a 1,000-line buffer changes one statement, yet the whole module
is interpreted again, and with it every function its statements call: most of them read
nothing the edit changed. So each analysis of a function for some arguments (a summary) is
recorded with everything it read and everything it did, and the next analysis of the buffer
replays it, rather than interpreting the body again, where all it read is as it was.

What an analysis reads, and how each is compared with the last run's:
- its body, and every other function it runs: the same tree nodes (`lsp.reuse.spliced` keeps
  the statements an edit leaves alone, node for node, and nothing changes a node);
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
spent, the modules read. An analysis that did anything else is never replayed: one that defined
a function or lambda (its closure is that run's scope), ran another module's function, wrote a
module name, returned or met a value that cannot be compared across runs (a class, an object, a
map), or was cut short. So a run that replays is, finding for finding and type for type, the
run that interprets everything; the hypothesis test in tests/lsp/test_summaries.py holds it to
that over random edits.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from shapecheck.analyzer.context import Context
from shapecheck.analyzer.scope import Scope
from shapecheck.analyzer.values import (
    Const,
    Devices,
    Dict,
    DType,
    Function,
    Instance,
    Lazy,
    Mesh,
    MeshContext,
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

Key = tuple[object, ...]  # a run's summary key: (id of the function node, arguments, context key)
StoreKey = tuple[object, ...]  # the same with the node itself, which keeps its id unique


def _own_lookup(name: str) -> Lit | None:
    """Stands in a kept value for the literal lookup of the run that made it (the next run's
    own lookup replaces it: a spec read later reads the module as that run sees it)."""
    raise AssertionError("a kept value's lookup is replaced before use")


def fingerprint(value: object, owner: InterpreterState) -> object:
    """What of `value` an analysis can tell apart, comparable across runs of the module:
    _UNKNOWN for a value that holds a run's scope (a class, an object, a closure) or is not
    followed here (maps, jitted functions)."""
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
    if kind is Seq or kind is Dict:
        assert isinstance(value, Seq | Dict)
        items = value.items if isinstance(value, Seq) else tuple(part for pair in value.items for part in pair)
        prints = tuple(fingerprint(item, owner) for item in items)
        if any(p is _UNKNOWN for p in prints):
            return _UNKNOWN
        lookup = value.lookup
        own = lookup is not None and getattr(lookup, "__self__", None) is owner
        return (kind, prints, value.is_list if isinstance(value, Seq) else None, value.node,
                "own" if own else lookup)
    if isinstance(value, ast.AST):  # a module-level name's source expression
        return value
    return _UNKNOWN


def carried(value: Value, lookup: Callable[[str], Lit | None], own: Callable[[str], Lit | None] | None) -> Value:
    """`value` with the literal lookup `own` (a run's) replaced by `lookup`; raises _NotCarried
    for a value that cannot be kept past its run (it holds that run's scopes)."""
    if value is None or type(value) is ArrayType or type(value) in _PLAIN:
        return value
    if type(value) is Seq:
        assert isinstance(value, Seq)
        return Seq(tuple(carried(item, lookup, own) for item in value.items), value.is_list, value.node,
                   lookup if value.lookup is not None and value.lookup == own else value.lookup)
    if type(value) is Dict:
        assert isinstance(value, Dict)
        return Dict(tuple((carried(k, lookup, own), carried(v, lookup, own)) for k, v in value.items), value.node,
                    lookup if value.lookup is not None and value.lookup == own else value.lookup)
    raise _NotCarried


class _NotCarried(Exception):
    """A value that cannot be kept past the run that made it."""


@dataclass(slots=True)
class Recording:
    """What one analysis of a function (and every analysis it ran) read and did."""

    stars: tuple[str, ...]
    reads: dict[tuple[str, str], object] = field(default_factory=dict)  # (table, name) -> fingerprint
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
    spent: int = 0  # of the budget
    valid: bool = True


@dataclass(frozen=True, slots=True)
class Entry:
    """A summary as kept for the next run: the call it answers and what it recorded."""

    context: Context
    arguments: tuple[object, ...]  # fingerprints of the parameters' bindings
    result: Value
    recording: Recording


class Summaries:
    """The summaries of one buffer's last analysis, replayed by the next (`Recorder`)."""

    def __init__(self) -> None:
        self.entries: dict[StoreKey, Entry] = {}
        self._next: dict[StoreKey, Entry] = {}
        self.replayed = 0  # in the current run: analyses replayed rather than run (for tests)

    def begin(self) -> None:
        self._next = {}
        self.replayed = 0

    def finish(self, complete: bool) -> None:
        """Keep what this run made and replayed (everything else is dropped: an entry of a
        function whose text changed could only ever match a node that no longer exists)."""
        self.entries = self._next if complete else {}
        self._next = {}


class Watched(dict[str, object]):
    """The module scope's bindings (or the literal each name was assigned) while summaries are
    recorded: each read is noted in the analyses in progress; a write among them stops them
    from being kept (only the module's own statements bind its names)."""

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
            self.recorder.spoil()
        dict.__setitem__(self, name, value)

    def _whole(self) -> None:
        if self.recorder.active:
            self.recorder.spoil()  # a read of every name: not followed name by name

    def keys(self):  # type: ignore[no-untyped-def]
        self._whole()
        return dict.keys(self)

    def values(self):  # type: ignore[no-untyped-def]
        self._whole()
        return dict.values(self)

    def items(self):  # type: ignore[no-untyped-def]
        self._whole()
        return dict.items(self)

    def __iter__(self):  # type: ignore[no-untyped-def]
        self._whole()
        return dict.__iter__(self)


class WatchedScope(Scope):
    """A module scope whose bindings are `Watched`, also after a branch restores them."""

    __slots__ = ("recorder",)

    def __init__(self, module: str, recorder: Recorder) -> None:
        super().__init__(None, module)
        self.recorder = recorder
        self.bindings = Watched(recorder, "name")  # type: ignore[assignment]

    def restore(self, bindings: dict[str, Value]) -> None:
        self.bindings = Watched(self.recorder, "name", bindings.items())  # type: ignore[assignment]


class Recorder:
    """One run's side of `Summaries`: records each function analysis, and replays the last
    run's where all it read is as it was. Every hook is called by the interpreter's parts."""

    def __init__(self, store: Summaries, owner: InterpreterState, max_analyses: int) -> None:
        self.store = store
        self.owner = owner
        self.max_analyses = max_analyses
        self.active: list[Recording] = []  # the analyses in progress, outermost first

    # What the analyses in progress read and did.

    def read(self, table: str, name: str, value: object) -> None:
        key = (table, name)
        for recording in self.active:
            if key not in recording.reads:
                found = fingerprint(value, self.owner)
                recording.reads[key] = found
                if found is _UNKNOWN:
                    recording.valid = False

    def spoil(self) -> None:
        """Whatever happens now cannot be replayed: no analysis in progress is kept."""
        for recording in self.active:
            recording.valid = False

    def hit(self, key: Key, value: Value) -> None:
        for recording in self.active:
            if key not in recording.made and key not in recording.hits:
                found = fingerprint(value, self.owner)
                recording.hits[key] = found
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

    # One analysis.

    def begin(self, function: Function) -> Recording:
        """Start recording an analysis of `function` (the budget and counts are spent)."""
        owner = self.owner
        recording = Recording(tuple(owner.scope.stars))
        if owner.reporter.muted or owner.reporter.capturing:
            recording.valid = False
        self.active.append(recording)
        for each in self.active:
            each.spent += 1
            each.analysed[function.node] = each.analysed.get(function.node, 0) + 1
        if owner.loader is not None:
            owner.loader.watch_reads(recording.modules)
        return recording

    def abandon(self, recording: Recording) -> None:
        """The analysis was cut short by an exception: nothing of it is kept."""
        self._pop(recording)
        self.spoil()

    def end(self, recording: Recording, function: Function, key: Key, context: Context, result: Value,
            receiver: Value) -> None:
        """The analysis returned `result`, now in the run's table under `key`."""
        self._pop(recording)
        owner = self.owner
        try:
            kept = carried(result, _own_lookup, owner.literal_lookup)
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
        if not recording.valid:
            return
        arguments = _arguments(owner, function, key)
        if arguments is None:
            return
        self.store._next[store_key] = Entry(context, arguments, kept, recording)

    def _pop(self, recording: Recording) -> None:
        popped = self.active.pop()
        assert popped is recording
        if self.owner.loader is not None:
            self.owner.loader.unwatch_reads(recording.modules)

    # Replaying the last run's.

    def replay(self, function: Function, key: Key, context: Context) -> tuple[bool, Value]:
        """Whether the last run's analysis of this call holds now, and then its result, with
        everything it did done again."""
        store_key = (function.node, *key[1:])
        entry = self.store.entries.get(store_key)
        if entry is None or not self._holds(entry, function, key, context):
            return False, None
        owner = self.owner
        recording = entry.recording
        lookup = owner.literal_lookup
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
            outer.kept[store_key] = None
        if owner.loader is not None:
            owner.loader.note_reads(recording.modules)
        for made_key, value in recording.made.items():
            result = carried(value, lookup, _own_lookup)
            owner.cache[made_key] = result
            for outer in self.active:
                outer.made[made_key] = value
        for finding in recording.findings:
            owner.reporter.add(finding.node, finding.code, finding.message, finding.notes, finding.fallback)
        for node, shown, placement in recording.notes:
            owner.keep_type(node, shown, placement)
        result = carried(entry.result, lookup, _own_lookup)
        owner.cache[key] = result
        for outer in self.active:
            outer.made[key] = entry.result
        self.store._next[store_key] = entry
        for nested in recording.kept:
            kept = self.store.entries.get(nested)
            if kept is not None:
                self.store._next.setdefault(nested, kept)
        self.store.replayed += 1
        return True, result

    def _holds(self, entry: Entry, function: Function, key: Key, context: Context) -> bool:
        owner = self.owner
        recording = entry.recording
        if owner.reporter.muted or owner.reporter.capturing:
            return False
        if not _same_context(entry.context, context):
            return False
        if _arguments(owner, function, key) != entry.arguments:
            return False
        if owner.budget < recording.spent or tuple(owner.scope.stars) != recording.stars:
            return False
        for node, count in recording.analysed.items():
            if id(node) in owner.active or owner.analyses.get(id(node), 0) + count > self.max_analyses:
                return False
        bindings, sources = owner.scope.bindings, owner.module_sources()
        for (table, name), found in recording.reads.items():
            now = dict.get(bindings if table == "name" else sources, name, MISSING)  # unwatched
            if fingerprint(now, owner) != found:
                return False
        for name, value in recording.derived.items():
            if owner.derived(name) != value:
                return False
        cache = owner.cache
        for made in recording.made:
            if made in cache:
                return False
        for hit, found in recording.hits.items():
            if hit not in cache or fingerprint(cache[hit], owner) != found:
                return False
        if key in cache:
            return False
        known = owner.annotations_known()
        for key_of, value in recording.annotations_read.items():
            if key_of not in known or not _same_annotation(known[key_of], value):
                return False
        for key_of, (_, value) in recording.annotations_made.items():
            if key_of in known and not _same_annotation(known[key_of], value):
                return False
        seen = owner.reporter.seen
        return all((place in seen) == was for place, was in recording.seen.items())


def _arguments(owner: InterpreterState, function: Function, key: Key) -> tuple[object, ...] | None:
    """Fingerprints of the call's parameter bindings (the key's first part): None where one
    has none."""
    hashed = key[1]
    if not isinstance(hashed, tuple) or not hashed or not isinstance(hashed[0], tuple):
        return None
    prints = tuple((name, fingerprint(value, owner)) for name, value in hashed[0])
    if any(found is _UNKNOWN for _, found in prints):
        return None
    return prints


def _same_context(before: Context, now: Context) -> bool:
    """Equal, and so are what equality leaves out: the depth, and the notes that messages show
    (their nodes by identity)."""
    return (before == now and before.depth == now.depth and before.binders == now.binders
            and before.resource_notes == now.resource_notes)


def _same_annotation(before: object, now: object) -> bool:
    if isinstance(before, ArrayType) and isinstance(now, ArrayType):
        return before.identical(now)
    return type(before) is type(now) and before == now

