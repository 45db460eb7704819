"""`shapecheck migrate`: make a program written for xmap run on current JAX under plain `python`.

What `shapecheck run` does while a program runs, written into the program instead:

- every import of `jax.experimental.maps` (`from jax.experimental.maps import xmap, Mesh`,
  `from jax.experimental import maps`, `import jax.experimental.maps as maps`, the dotted
  `jax.experimental.maps.xmap`) imports `xmap` from `shapecheck.runtime` and `Mesh` from
  `jax.sharding`, its current home;
- `jax.numpy`, `jax.lax`, `jax.nn` and `jax.scipy.special` are imported from the runtime only
  where the program uses them with named axes (`named_usage`);
- a mesh entered the legacy way (`with Mesh(...):`, `with mesh:` for a name bound to a mesh)
  is entered with `jax.set_mesh(...)`; `with Mesh(...) as mesh:` becomes `mesh = Mesh(...)`
  then `with jax.set_mesh(mesh):` (`set_mesh` gives no value to bind).

Formatting and comments are kept (libcst), and a migrated program has nothing left to migrate.
What it cannot read (another member of `jax.experimental.maps`, a `with` of something that
may be a mesh) is left as written, with a message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor
from libcst.helpers import get_full_name_for_node
from libcst.metadata import (
    Assignment,
    ParentNodeProvider,
    PositionProvider,
    QualifiedNameProvider,
    ScopeProvider,
)

from shapecheck.codemods.driver import CannotRewrite, Rewrite
from shapecheck.codemods.named_usage import JNP, LAX, NN, SPECIAL, needed_modules

MAPS: Final = "jax.experimental.maps"
RUNTIME: Final = "shapecheck.runtime"
# Where each member of jax.experimental.maps lives now.
_MAPS_MEMBERS: Final = {"xmap": RUNTIME, "Mesh": "jax.sharding"}
_RUNTIME_MODULES: Final = {JNP: f"{RUNTIME}.numpy", LAX: f"{RUNTIME}.lax", NN: f"{RUNTIME}.nn",
                           SPECIAL: f"{RUNTIME}.special"}
_MESH_CONSTRUCTORS: Final = frozenset(("jax.sharding.Mesh", "jax.experimental.maps.Mesh", "jax.make_mesh",
                                       "jax.sharding.make_mesh", "jax.interpreters.pxla.Mesh"))


def migrate_text(path: str, text: str) -> Rewrite:
    """The program with xmap and the named-axis modules imported from shapecheck.runtime."""
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        raise CannotRewrite(f"not migrated: libcst cannot parse the file ({error.message})") from error
    wrapper = cst.MetadataWrapper(module)
    needed = needed_modules(wrapper)
    migrator = _Migrator(needed)
    migrated = wrapper.visit(migrator)
    context = CodemodContext()
    for source, name in sorted(migrator.imports, key=lambda pair: (pair[0], pair[1] or "")):
        AddImportsVisitor.add_needed_import(context, source, name)
    if migrator.imports:
        migrated = AddImportsVisitor(context).transform_module(migrated)
    return Rewrite(migrated.code, migrator.messages, incomplete=bool(migrator.messages))


class _Migrator(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (QualifiedNameProvider, ScopeProvider, ParentNodeProvider, PositionProvider)

    def __init__(self, needed: set[str]) -> None:
        super().__init__()
        self.needed = needed
        self.moved = {MAPS: RUNTIME} | {old: new for old, new in _RUNTIME_MODULES.items() if old in needed}
        self.imports: set[tuple[str, str | None]] = set()
        self.messages: list[str] = []
        self.jax_imports: set[cst.CSTNode] = set()

    def visit_Module(self, node: cst.Module) -> None:
        # The module-level imports that bind the name `jax` (`import jax`, `import jax.numpy`).
        scope = self.get_metadata(ScopeProvider, node, None)
        if scope is not None:
            self.jax_imports = {a.node for a in scope.assignments["jax"]
                                if isinstance(a, Assignment) and isinstance(a.node, cst.Import)}

    def _line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    # --- imports ---

    def visit_Import(self, node: cst.Import) -> bool:
        return False  # its dotted names are module names, not references to rewrite

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine,
                                  updated_node: cst.SimpleStatementLine,
                                  ) -> cst.SimpleStatementLine | cst.FlattenSentinel[cst.SimpleStatementLine]:
        if len(updated_node.body) != 1:
            return self._imports_among_others(original_node, updated_node)
        replaced = self._replace_import(updated_node.body[0], original_node.body[0], original_node)
        if replaced is None:
            return updated_node
        lines = [updated_node.with_changes(body=[statement]) if index == 0 else
                 cst.SimpleStatementLine(body=[statement]) for index, statement in enumerate(replaced)]
        return cst.FlattenSentinel(lines)

    def _replace_import(self, small: cst.BaseSmallStatement, original: cst.BaseSmallStatement,
                        line: cst.SimpleStatementLine) -> list[cst.BaseSmallStatement] | None:
        if isinstance(small, cst.ImportFrom):
            return self._import_from(small, line)
        if isinstance(small, cst.Import):
            return self._import(small, original)
        return None

    def _imports_among_others(self, original: cst.SimpleStatementLine,
                              updated: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
        """`import jax.numpy as jnp; ...`: an import that stays one statement is rewritten in place;
        one that becomes several is left, with a message."""
        body = list(updated.body)
        for index, (before, small) in enumerate(zip(original.body, updated.body, strict=True)):
            replaced = self._replace_import(small, before, original)
            if replaced is None:
                continue
            if len(replaced) == 1:
                body[index] = replaced[0].with_changes(semicolon=small.semicolon)
            else:
                self.messages.append(f"line {self._line(original)}: an import among other statements on "
                                     "one line is left as written; put it on its own line and run again")
        return updated.with_changes(body=body)

    def _import(self, node: cst.Import, original: cst.CSTNode) -> list[cst.BaseSmallStatement] | None:
        """`import jax.numpy as jnp` -> `import shapecheck.runtime.numpy as jnp`; an import without
        alias stays (it binds `jax`) and the runtime module is imported beside it."""
        aliases = []
        extra: list[cst.BaseSmallStatement] = []
        changed = False
        for alias in node.names:
            name = get_full_name_for_node(alias.name) or ""
            new = self.moved.get(name)
            if new is None:
                aliases.append(alias)
            elif alias.asname is not None:
                aliases.append(alias.with_changes(name=_dotted(new)))
                changed = True
            elif name == MAPS:
                # It bound `jax` too: keep that binding unless another import makes it.
                if not self.jax_imports - {original}:
                    aliases.append(alias.with_changes(name=cst.Name("jax")))
                extra.append(cst.Import(names=[cst.ImportAlias(_dotted(new))]))
                changed = True
            else:
                aliases.append(alias)
                extra.append(cst.Import(names=[cst.ImportAlias(_dotted(new))]))
                changed = True
        if not changed:
            return None
        return [node.with_changes(names=_commas(aliases)), *extra] if aliases else extra

    def _import_from(self, node: cst.ImportFrom, line: cst.SimpleStatementLine) -> list[cst.BaseSmallStatement] | None:
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            if node.module is not None and not node.relative and isinstance(node.names, cst.ImportStar):
                module = get_full_name_for_node(node.module) or ""
                if module in self.moved:
                    self.messages.append(f"line {self._line(line)}: `from {module} import *` is left as written; "
                                         "import the names it uses")
            return None
        module = get_full_name_for_node(node.module) or ""
        if module == MAPS:
            return self._from_maps(node, line)
        if module in self.moved:
            # `from jax.nn import one_hot, relu`: the runtime module passes jax's other names through.
            new = self.moved[module]
            if module == SPECIAL and {get_full_name_for_node(a.name) for a in node.names} == {"logsumexp"}:
                new = _RUNTIME_MODULES[NN]  # the same function, under the name the checker follows
            return [node.with_changes(module=_dotted(new))]
        parent_moves = {name: new for name, new in self.moved.items() if name.rpartition(".")[0] == module}
        if not parent_moves:
            return None
        # `from jax import lax, random`: the moved modules go to a statement of their own.
        kept: list[cst.ImportAlias] = []
        moved: list[cst.ImportAlias] = []
        for alias in node.names:
            name = f"{module}.{get_full_name_for_node(alias.name)}"
            (moved if name in parent_moves else kept).append(alias)
        if not moved:
            return None
        statements: list[cst.BaseSmallStatement] = []
        if kept:
            statements.append(node.with_changes(names=_commas(kept)))
        for alias in moved:
            name = f"{module}.{get_full_name_for_node(alias.name)}"
            new_module, _, new_name = parent_moves[name].rpartition(".")
            renamed = alias.with_changes(name=cst.Name(new_name), comma=cst.MaybeSentinel.DEFAULT)
            if alias.asname is None and new_name != name.rpartition(".")[2]:
                renamed = renamed.with_changes(asname=cst.AsName(cst.Name(name.rpartition(".")[2])))
            statements.append(cst.ImportFrom(module=_dotted(new_module), names=[renamed]))
        return statements

    def _from_maps(self, node: cst.ImportFrom, line: cst.SimpleStatementLine) -> list[cst.BaseSmallStatement]:
        """`from jax.experimental.maps import xmap, Mesh` -> one import per current home."""
        by_home: dict[str, list[cst.ImportAlias]] = {}
        assert not isinstance(node.names, cst.ImportStar)
        for alias in node.names:
            name = get_full_name_for_node(alias.name) or ""
            home = _MAPS_MEMBERS.get(name)
            if home is None:
                self.messages.append(f"line {self._line(line)}: `{name}` of jax.experimental.maps has no "
                                     "counterpart in shapecheck.runtime; its import is left as written")
                home = MAPS
            by_home.setdefault(home, []).append(alias.with_changes(comma=cst.MaybeSentinel.DEFAULT))
        if len(by_home) == 1:
            # One new home for every name: only the module changes (the names' layout and comments stay).
            return [node.with_changes(module=_dotted(next(iter(by_home))))]
        statements: list[cst.BaseSmallStatement] = []
        for home, aliases in by_home.items():
            statement = cst.ImportFrom(module=_dotted(home), names=_commas(aliases))
            statements.append(node.with_changes(module=_dotted(home), names=_commas(aliases))
                              if not statements else statement)
        return statements

    # --- references through a module's dotted name, and `maps.Mesh` ---

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        written = get_full_name_for_node(original_node)
        for qualified in self.get_metadata(QualifiedNameProvider, original_node, set()):
            name = qualified.name
            owner, _, member = name.rpartition(".")
            if owner == MAPS and member == "Mesh":
                self.imports.add(("jax.sharding", "Mesh"))
                return cst.Name("Mesh")
            if owner == MAPS and member not in _MAPS_MEMBERS:
                self.messages.append(f"line {self._line(original_node)}: `{written}` has no counterpart "
                                     "in shapecheck.runtime; left as written")
                return updated_node
            if name in self.moved and written == name:
                # `jax.numpy.sum(...)` through `import jax`: `jax.numpy` -> `shapecheck.runtime.numpy`.
                self.imports.add((self.moved[name], None))
                return _dotted(self.moved[name])
        return updated_node

    # --- meshes ---

    def leave_With(self, original_node: cst.With, updated_node: cst.With) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
        items = list(updated_node.items)
        before: list[cst.BaseStatement] = []
        for index, (original, item) in enumerate(zip(original_node.items, items, strict=True)):
            if not self._is_mesh(original.item):
                continue
            value: cst.BaseExpression = item.item
            if item.asname is not None:
                target = item.asname.name
                if len(items) != 1 or not isinstance(target, cst.Name):
                    self.messages.append(f"line {self._line(original)}: a mesh entered `as` a target among "
                                         "several items is left as written")
                    continue
                # set_mesh's context gives no value: bind the mesh first, then enter it.
                before.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], value)]))
                value = target
            self._need_jax()
            items[index] = item.with_changes(item=_set_mesh(value), asname=None)
        if items == list(updated_node.items):
            return updated_node
        new = updated_node.with_changes(items=items)
        if not before:
            return new
        # The comments above the `with` stay above the code that now starts there.
        first = before[0]
        assert isinstance(first, cst.SimpleStatementLine)
        before[0] = first.with_changes(leading_lines=updated_node.leading_lines)
        return cst.FlattenSentinel([*before, new.with_changes(leading_lines=())])

    def _is_mesh(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Call):
            return self._calls_mesh_constructor(node)
        if isinstance(node, cst.Name):
            value = self._single_value(node)
            if isinstance(value, cst.Call) and self._calls_mesh_constructor(value):
                return True
            if "mesh" in node.value.lower():
                self.messages.append(f"line {self._line(node)}: `with {node.value}:` is left as written: "
                                     f"cannot tell that `{node.value}` is a Mesh; if it is, write "
                                     f"`with jax.set_mesh({node.value}):`")
        return False

    def _calls_mesh_constructor(self, call: cst.Call) -> bool:
        names = {q.name for q in self.get_metadata(QualifiedNameProvider, call.func, set())}
        return bool(names & _MESH_CONSTRUCTORS)

    def _single_value(self, name: cst.Name) -> cst.BaseExpression | None:
        """The value assigned to `name` where it is bound once (`mesh = Mesh(...)`)."""
        scope = self.get_metadata(ScopeProvider, name, None)
        if scope is None:
            return None
        assignments = list(scope[name.value])  # this scope's binding, or the enclosing one's
        if len(assignments) != 1 or not isinstance(assignments[0], Assignment):
            return None
        target = assignments[0].node
        parent = self.get_metadata(ParentNodeProvider, target, None)
        statement = self.get_metadata(ParentNodeProvider, parent, None) if isinstance(parent, cst.AssignTarget) else None
        return statement.value if isinstance(statement, cst.Assign) and len(statement.targets) == 1 else None

    def _need_jax(self) -> None:
        if not self.jax_imports:
            self.imports.add(("jax", None))


def _set_mesh(value: cst.BaseExpression) -> cst.Call:
    return cst.Call(func=cst.Attribute(cst.Name("jax"), cst.Name("set_mesh")), args=[cst.Arg(value)])


def _dotted(name: str) -> cst.Attribute | cst.Name:
    head, *rest = name.split(".")
    node: cst.Attribute | cst.Name = cst.Name(head)
    for part in rest:
        node = cst.Attribute(node, cst.Name(part))
    return node


def _commas(aliases: Sequence[cst.ImportAlias]) -> list[cst.ImportAlias]:
    """Aliases with a comma after each but the last (the last keeps a trailing comma it had)."""
    if not aliases:
        return []
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    fixed = [a.with_changes(comma=comma) if isinstance(a.comma, cst.MaybeSentinel) else a for a in aliases[:-1]]
    return [*fixed, aliases[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
