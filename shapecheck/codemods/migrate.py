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
  then `with jax.set_mesh(mesh):` (`set_mesh` gives no value to bind);
- the rest of the old mesh and partitioning API (the old mesh function `maps.mesh`,
  `maps.thread_resources`, `jax.experimental.PartitionSpec`, pjit's `in_axis_resources`) is
  written in today's forms (`legacy_api`).

Formatting and comments are kept (libcst), and a migrated program has nothing left to migrate.
What it cannot read (another member of `jax.experimental.maps`, a `with` of something that
may be a mesh, a use of the old mesh API it has no rewrite for) is left as written, with a
message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor
from libcst.helpers import get_full_name_for_node
from libcst.metadata import (
    Assignment,
    ParentNodeProvider,
    PositionProvider,
    QualifiedNameProvider,
    ScopeProvider,
)

from shapecheck.codemods import legacy_api as old
from shapecheck.codemods.driver import CannotRewrite, Rewrite
from shapecheck.codemods.legacy_api import MAPS, MEMBERS, PJIT_MODULE, RUNTIME, dotted
from shapecheck.codemods.named_usage import JNP, LAX, NN, SPECIAL, needed_modules

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
    if migrator.rewrote_old_api:
        # What the old mesh API's rewrites left unused: the runtime's stand-ins and module aliases.
        for source, member, asname in sorted(migrator.stand_in_imports, key=str):
            RemoveImportsVisitor.remove_unused_import(context, source, member, asname)
        migrated = RemoveImportsVisitor(context).transform_module(migrated)
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
        # Imports this migration wrote that only the old mesh API may have used: (module, name, asname).
        self.stand_in_imports: set[tuple[str, str | None, str | None]] = set()
        self.rewrote_old_api = False
        self.handled: set[cst.CSTNode] = set()  # old-API references inside a rewritten expression

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
            asname = _asname(alias)
            if name in (MAPS, PJIT_MODULE):
                # The old mesh API's rewrites may leave the module's new import unused.
                self.stand_in_imports.add((RUNTIME if name == MAPS else name, None, asname))
            if new is None:
                aliases.append(alias)
            elif alias.asname is not None:
                aliases.append(alias.with_changes(name=dotted(new)))
                changed = True
            elif name == MAPS:
                # It bound `jax` too: keep that binding unless another import makes it.
                if not self.jax_imports - {original}:
                    aliases.append(alias.with_changes(name=cst.Name("jax")))
                extra.append(cst.Import(names=[cst.ImportAlias(dotted(new))]))
                changed = True
            else:
                aliases.append(alias)
                extra.append(cst.Import(names=[cst.ImportAlias(dotted(new))]))
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
        if module in (MAPS, PJIT_MODULE):
            return self._from_members(node, line, module)
        if module in self.moved:
            # `from jax.nn import one_hot, relu`: the runtime module passes jax's other names through.
            new = self.moved[module]
            if module == SPECIAL and {get_full_name_for_node(a.name) for a in node.names} == {"logsumexp"}:
                new = _RUNTIME_MODULES[NN]  # the same function, under the name the checker follows
            return [node.with_changes(module=dotted(new))]
        # The modules that move (`jax.experimental.maps`) and the members that do (`PartitionSpec`).
        parent_moves = {name: new for name, new in self.moved.items() if name.rpartition(".")[0] == module}
        parent_moves |= {name: f"{home}.{new}" for name, (home, new) in MEMBERS.items()
                         if name.rpartition(".")[0] == module}
        kept: list[cst.ImportAlias] = []
        moved: list[cst.ImportAlias] = []
        for alias in node.names:
            name = f"{module}.{get_full_name_for_node(alias.name)}"
            (moved if name in parent_moves else kept).append(alias)
            if name in (MAPS, PJIT_MODULE):
                # `from jax.experimental import maps` -> `from shapecheck import runtime as maps`.
                home, _, attribute = (RUNTIME if name == MAPS else name).rpartition(".")
                asname = _asname(alias) or (None if name == PJIT_MODULE else "maps")
                self.stand_in_imports.add((home, attribute, asname))
        if not moved:
            return None
        # `from jax import lax, random`: the moved modules go to a statement of their own.
        statements: list[cst.BaseSmallStatement] = []
        if kept:
            statements.append(node.with_changes(names=_commas(kept)))
        for alias in moved:
            name = f"{module}.{get_full_name_for_node(alias.name)}"
            new_module, _, new_name = parent_moves[name].rpartition(".")
            renamed = alias.with_changes(name=cst.Name(new_name), comma=cst.MaybeSentinel.DEFAULT)
            if alias.asname is None and new_name != name.rpartition(".")[2]:
                renamed = renamed.with_changes(asname=cst.AsName(cst.Name(name.rpartition(".")[2])))
            statements.append(cst.ImportFrom(module=dotted(new_module), names=[renamed]))
        return statements

    def _from_members(self, node: cst.ImportFrom, line: cst.SimpleStatementLine,
                      module: str) -> list[cst.BaseSmallStatement]:
        """`from jax.experimental.maps import xmap, Mesh` -> one import per current home."""
        by_home: dict[str, list[cst.ImportAlias]] = {}
        renamed = False
        assert not isinstance(node.names, cst.ImportStar)
        for alias in node.names:
            name = get_full_name_for_node(alias.name) or ""
            home, new = MEMBERS.get(f"{module}.{name}", (module, name))
            if home == module == MAPS:
                self.messages.append(f"line {self._line(line)}: `{name}` of jax.experimental.maps has no "
                                     "counterpart in shapecheck.runtime; its import is left as written")
            if home == RUNTIME and new in old.RUNTIME_STAND_INS:
                self.stand_in_imports.add((home, new, _asname(alias)))
            if new != name:
                # `from jax.experimental.pjit import pjit` -> `from jax import jit as pjit`: uses keep their name.
                alias = alias.with_changes(name=cst.Name(new), asname=alias.asname or cst.AsName(cst.Name(name)))
                renamed = True
            by_home.setdefault(home, []).append(alias.with_changes(comma=cst.MaybeSentinel.DEFAULT))
        if len(by_home) == 1 and not renamed:
            # One new home for every name: only the module changes (the names' layout and comments stay).
            return [node.with_changes(module=dotted(next(iter(by_home))))]
        statements: list[cst.BaseSmallStatement] = []
        for home, aliases in by_home.items():
            statement = cst.ImportFrom(module=dotted(home), names=_commas(aliases))
            statements.append(node.with_changes(module=dotted(home), names=_commas(aliases))
                              if not statements else statement)
        return statements

    # --- references through a module's dotted name, and `maps.Mesh` ---

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        written = get_full_name_for_node(original_node)
        for qualified in self.get_metadata(QualifiedNameProvider, original_node, set()):
            name = qualified.name
            owner, _, member = name.rpartition(".")
            if name == f"{old.THREAD_RESOURCES}.env.physical_mesh":
                self._need_jax()
                self._old_api()
                return old.get_mesh()
            home, new = MEMBERS.get(name, (None, member))
            if home in ("jax.sharding",):
                # `maps.Mesh`, `jax.experimental.PartitionSpec`: imported by name from their home.
                self.imports.add((home, new))
                self._old_api()
                return cst.Name(new)
            if home is not None and home != RUNTIME:
                # `jax.experimental.pjit.pjit` -> `jax.jit`.
                self._need_jax()
                self._old_api()
                return dotted(f"{home}.{new}")
            if home is None and owner == MAPS:
                self.messages.append(f"line {self._line(original_node)}: `{written}` has no counterpart "
                                     "in shapecheck.runtime; left as written")
                return updated_node
            self._left_to_runtime(original_node, name, written)
            if name in self.moved and written == name:
                # `jax.numpy.sum(...)` through `import jax`: `jax.numpy` -> `shapecheck.runtime.numpy`.
                self.imports.add((self.moved[name], None))
                if name == MAPS:
                    self.stand_in_imports.add((RUNTIME, None, None))
                return dotted(self.moved[name])
        return updated_node

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        for qualified in self.get_metadata(QualifiedNameProvider, original_node, set()):
            self._left_to_runtime(original_node, qualified.name, original_node.value)
        return updated_node

    # --- the old mesh API (legacy_api) ---

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if f"{old.THREAD_RESOURCES}.env.physical_mesh" in self._qualified(node):
            assert isinstance(node.value, cst.Attribute)  # `<thread_resources>.env`
            self.handled.add(node.value.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        if self._resource_env_assignment(node) is not None:
            target, value = node.targets[0].target, node.value
            assert isinstance(target, cst.Attribute) and isinstance(value, cst.Call)
            self.handled |= {target.value, value.func}

    def leave_Assign(self, original_node: cst.Assign, updated_node: cst.Assign) -> cst.BaseSmallStatement:
        """`maps.thread_resources.env = ResourceEnv(mesh, ())` -> `jax.set_mesh(mesh)`."""
        if self._resource_env_assignment(original_node) is None:
            return updated_node
        assert isinstance(updated_node.value, cst.Call)
        mesh = old.resource_env_mesh(updated_node.value)
        assert mesh is not None
        self._need_jax()
        self._old_api()
        return cst.Expr(old.set_mesh(mesh), semicolon=updated_node.semicolon)

    def _resource_env_assignment(self, node: cst.Assign) -> cst.BaseExpression | None:
        if len(node.targets) != 1 or not isinstance(node.value, cst.Call):
            return None
        if f"{old.THREAD_RESOURCES}.env" not in self._qualified(node.targets[0].target):
            return None
        if not self._qualified(node.value.func) & old.RESOURCE_ENVS:
            return None
        return old.resource_env_mesh(node.value)

    def visit_With(self, node: cst.With) -> None:
        for item in node.items:
            if self._is_mesh_function(item.item):
                assert isinstance(item.item, cst.Call)
                self.handled.add(item.item.func)

    def _is_mesh_function(self, node: cst.BaseExpression) -> bool:
        return isinstance(node, cst.Call) and old.MESH_FUNCTION in self._qualified(node.func)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        """pjit's and its with_sharding_constraint's old keywords renamed (also through functools.partial)."""
        names = self._qualified(original_node.func)
        if old.PVARY in names:
            return old.varying_cast(updated_node)
        if old.EXPERIMENTAL_SHARD_MAP in names:
            call = old.manual_axes(old.with_keywords(updated_node, old.EXPERIMENTAL_SHARD_MAP, skip=0))
            if call is None:
                self.messages.append(f"line {self._line(original_node)}: shard_map's `auto=` is left as written: "
                                     "write `axis_names=` the mesh axes that are not auto")
                return old.with_keywords(updated_node, old.EXPERIMENTAL_SHARD_MAP, skip=0)
            return call
        for function in old.KEYWORDS:
            if function in names:
                return old.with_keywords(updated_node, function, skip=0)
            if old.PARTIAL in names and original_node.args and function in self._qualified(original_node.args[0].value):
                return old.with_keywords(updated_node, function, skip=1)
        return updated_node

    def _left_to_runtime(self, node: cst.CSTNode, name: str, written: str | None) -> None:
        """A use of the old mesh API that no rewrite covers: the runtime's stand-in runs it."""
        if node in self.handled or name not in (old.MESH_FUNCTION, old.THREAD_RESOURCES, *old.RESOURCE_ENVS):
            return
        today = {old.MESH_FUNCTION: "`with jax.set_mesh(Mesh(devices, axis_names)):`",
                 old.THREAD_RESOURCES: "jax.sharding.get_mesh() to read the mesh, jax.set_mesh(mesh) to set it"}
        self.messages.append(f"line {self._line(node)}: `{written}` is left to shapecheck.runtime's stand-in for the "
                             f"old mesh API; today's form is {today.get(name, 'jax.set_mesh(mesh)')}")

    def _qualified(self, node: cst.CSTNode) -> set[str]:
        return {q.name for q in self.get_metadata(QualifiedNameProvider, node, set())}

    def _old_api(self) -> None:
        self.rewrote_old_api = True

    # --- meshes ---

    def leave_With(self, original_node: cst.With, updated_node: cst.With) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
        items = list(updated_node.items)
        before: list[cst.BaseStatement] = []
        for index, (original, item) in enumerate(zip(original_node.items, items, strict=True)):
            if self._is_mesh_function(original.item):
                # The old mesh function: `jax.set_mesh(Mesh(...))`; both give `as` None.
                assert isinstance(item.item, cst.Call)
                self.imports.add(("jax.sharding", "Mesh"))
                self._need_jax()
                self._old_api()
                items[index] = item.with_changes(item=old.mesh_context(item.item))
                continue
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
            items[index] = item.with_changes(item=old.set_mesh(value), asname=None)
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


def _commas(aliases: Sequence[cst.ImportAlias]) -> list[cst.ImportAlias]:
    """Aliases with a comma after each but the last (the last keeps a trailing comma it had)."""
    if not aliases:
        return []
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    fixed = [a.with_changes(comma=comma) if isinstance(a.comma, cst.MaybeSentinel) else a for a in aliases[:-1]]
    return [*fixed, aliases[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]


def _asname(alias: cst.ImportAlias) -> str | None:
    return get_full_name_for_node(alias.asname.name) if alias.asname is not None else None
