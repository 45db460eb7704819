"""Structural walks over CPython's tree: the names a block binds, parameters in order, the
subscripts of an annotation, the strings that may name axes. Iterative where the tree can be
deep (a 3,000-long expression must not exhaust the Python stack)."""

from __future__ import annotations

import ast
import weakref
from collections.abc import Iterator, Mapping, Sequence
from typing import NamedTuple

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class Parameter(NamedTuple):
    """One declared parameter: its node, its default, and how it may be passed."""

    node: ast.arg
    default: ast.expr | None
    kind: str  # "positional_only", "positional", "vararg", "keyword_only" or "kwarg"


def parameters(arguments: ast.arguments) -> tuple[Parameter, ...]:
    """A signature's parameters in declaration order, each with its own default.

    Kept per signature while its tree lives: a function is called (analysed) many times.
    """
    found = _SIGNATURES.get(arguments)
    if found is None:
        found = _SIGNATURES[arguments] = tuple(_parameters(arguments))
    return found


_SIGNATURES: weakref.WeakKeyDictionary[ast.arguments, tuple[Parameter, ...]] = weakref.WeakKeyDictionary()


def _parameters(arguments: ast.arguments) -> list[Parameter]:
    positional = [*arguments.posonlyargs, *arguments.args]
    # Defaults belong to the last parameters that can be passed by position.
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
    defaults.extend(arguments.defaults)
    found = [Parameter(arg, default, "positional_only" if index < len(arguments.posonlyargs) else "positional")
             for index, (arg, default) in enumerate(zip(positional, defaults, strict=True))]
    if arguments.vararg is not None:
        found.append(Parameter(arguments.vararg, None, "vararg"))
    found.extend(Parameter(arg, default, "keyword_only")
                 for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True))
    if arguments.kwarg is not None:
        found.append(Parameter(arguments.kwarg, None, "kwarg"))
    return found


def code(node: ast.AST, limit: int | None = None) -> str:
    """The source of an expression as messages quote it: CPython's unparsing, on one line,
    cut to `limit` characters with an ellipsis.

    Rebuilt from the tree rather than cut from the file, since the nodes interpreted may be
    another module's (a function imported and called here). Kept per node: a function's body is
    analysed once per call, and its literal specs are read (and spelled) each time."""
    text = _CODE.get(node)
    if text is None:
        try:
            text = " ".join(ast.unparse(node).split())
        except (RecursionError, ValueError):
            return "..."
        _CODE[node] = text
    return text if limit is None or len(text) <= limit else text[:limit - 3] + "..."


_CODE: weakref.WeakKeyDictionary[ast.AST, str] = weakref.WeakKeyDictionary()


def target_names(node: ast.AST) -> list[str]:
    """The names an assignment target binds."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Tuple | ast.List):
        return [name for element in node.elts for name in target_names(element)]
    if isinstance(node, ast.Starred):
        return target_names(node.value)
    return []


def assigned_names(node: ast.AST | Sequence[ast.stmt]) -> set[str]:
    """Every name a statement or block may rebind (not looking into nested defs and classes)."""
    names: set[str] = set()
    for statement in statements(node):
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                names.update(target_names(target))
        elif isinstance(statement, ast.AnnAssign | ast.AugAssign):
            names.update(target_names(statement.target))
        elif isinstance(statement, ast.Import | ast.ImportFrom):
            for alias in statement.names:
                if alias.name == "*":
                    continue
                # `import a.b` binds `a`.
                names.add(alias.asname if alias.asname is not None else alias.name.partition(".")[0])
        elif isinstance(statement, _DEFS):
            names.add(statement.name)
        elif isinstance(statement, ast.For | ast.AsyncFor):
            names.update(target_names(statement.target))
        elif isinstance(statement, ast.With | ast.AsyncWith):
            for item in statement.items:
                if item.optional_vars is not None:
                    names.update(target_names(item.optional_vars))
        elif isinstance(statement, ast.Try | ast.TryStar):
            names.update(handler.name for handler in statement.handlers if handler.name is not None)
        elif isinstance(statement, ast.Match):
            for case in statement.cases:
                names.update(_captures(case.pattern))
    return names


def _captures(pattern: ast.pattern) -> Iterator[str]:
    for node in ast.walk(pattern):
        if isinstance(node, ast.MatchAs | ast.MatchStar) and node.name is not None:
            yield node.name
        elif isinstance(node, ast.MatchMapping) and node.rest is not None:
            yield node.rest


def statements(node: ast.AST | Sequence[ast.stmt], *, into_defs: bool = False) -> Iterator[ast.stmt]:
    """Statements in `node` and in the blocks nested in them; in nested defs' and classes'
    bodies too only with `into_defs`. Never into expressions."""
    stack: list[ast.stmt] = list(reversed(node)) if isinstance(node, Sequence) else (
        list(reversed(node.body)) if isinstance(node, ast.Module) else [node]  # type: ignore[list-item]
    )
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, _DEFS) and not into_defs:
            continue
        for block in _blocks(current):
            stack.extend(reversed(block))


def _blocks(statement: ast.stmt) -> Iterator[list[ast.stmt]]:
    for field in ("body", "orelse", "finalbody"):
        block = getattr(statement, field, None)
        if isinstance(block, list):
            yield block
    for handler in getattr(statement, "handlers", ()):
        yield handler.body
    for case in getattr(statement, "cases", ()):
        yield case.body


def subscripts(node: ast.expr) -> Iterator[ast.expr]:
    """Subscripts and strings nested in an annotation (`Callable[[f32[(3,)]], f32[()]]`, `A | B`)."""
    stack: list[ast.expr] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Subscript):
            yield current
            inner = current.slice
            if isinstance(inner, ast.Tuple):
                stack.extend(element for element in reversed(inner.elts) if not isinstance(element, ast.Slice))
            elif not isinstance(inner, ast.Slice):
                stack.append(inner)
        elif isinstance(current, ast.Constant) and isinstance(current.value, str):
            yield current
        elif isinstance(current, ast.Tuple | ast.List):
            stack.extend(reversed(current.elts))
        elif isinstance(current, ast.BinOp):
            stack.extend((current.right, current.left))


_NAME_KEYWORDS = frozenset({"axis_name", "spmd_axis_name", "axis_names", "in_axes", "out_axes",
                            "axis_sizes", "axis_resources"})


def _references(root: ast.stmt, enclosing: str | None, defs: Mapping[str, ast.AST],
                callers: dict[str, set[str | None]], escaped: set[str]) -> None:
    """Record how `root` refers to the names of `defs`: a direct call (from `enclosing`), or
    anything else (passed, stored, returned, or called inside a nested def or lambda, where
    this module cannot see when it runs). Walked without generators (every node of every
    module goes through here)."""
    plain: list[ast.AST] = [root]
    nested: list[ast.AST] = []
    while plain:
        node = plain.pop()
        # Exact classes, not isinstance: this loop sees every node of the module.
        if type(node) is ast.Name:
            if node.id in defs and type(node.ctx) is not ast.Store:
                escaped.add(node.id)
            continue
        if type(node) is ast.Call and type(func := node.func) is ast.Name and func.id in defs:
            callers[func.id].add(enclosing)
            plain.extend(node.args)
            plain.extend(node.keywords)
            continue
        if type(node) in _FUNCTION_KINDS and node is not root:
            nested.append(node)
            continue
        _children(node, plain)
    while nested:  # every reference in here escapes
        node = nested.pop()
        if type(node) is ast.Name:
            if node.id in defs and type(node.ctx) is not ast.Store:
                escaped.add(node.id)
            continue
        _children(node, nested)


_FUNCTION_KINDS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda})


def _children(node: ast.AST, into: list[ast.AST]) -> None:
    fields = _CHILD_FIELDS.get(type(node))
    if fields is None:
        fields = _CHILD_FIELDS[type(node)] = _child_fields(type(node))
    for name in fields:
        value = getattr(node, name, None)
        if type(value) is list:
            into.extend([item for item in value if isinstance(item, ast.AST)])
        elif isinstance(value, ast.AST):
            into.append(value)


# Per node class, the fields that can hold nodes: `ctx` (a Load or Store on every name) and
# the fields of leaves (a constant's value, a name's id) never lead to a reference.
_CHILD_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}
_LEAF_FIELDS = frozenset({"ctx", "id", "attr", "arg", "kind", "type_comment", "name", "asname", "module",
                          "level", "conversion", "is_async", "simple", "names", "tag", "lineno"})


def _child_fields(kind: type[ast.AST]) -> tuple[str, ...]:
    if kind is ast.Constant:
        return ()
    return tuple(name for name in kind._fields if name not in _LEAF_FIELDS)


def map_axis_names(module: ast.Module, binders: frozenset[str]) -> frozenset[str]:
    """The strings that could name an axis some map of `module` binds: every string literal in
    a call of a map, a mesh or `partial` (`partial(jax.pmap, axis_name='i')`; `binders`: their
    callees as written, `pmap` or `P`, from the library's registrations), in an axis-name
    keyword anywhere, every string assigned to a name, alone or in a tuple, list or set
    (`BATCH = 'batch'`, `AXES = ('data', 'model')`), and string defaults of parameters. A
    superset, so that what it lacks is certainly bound by no map the module builds."""
    names: set[str] = set()
    for node in ast.walk(module):  # breadth-first and iterative: deep expressions are safe
        if isinstance(node, ast.Call) and _callee(node.func) in binders:
            names.update(_strings([*node.args, *node.keywords]))
        elif isinstance(node, ast.keyword | ast.Assign | ast.AnnAssign):
            value = node.value
            named = (node.arg in _NAME_KEYWORDS if isinstance(node, ast.keyword)
                     else isinstance(value, ast.Constant | ast.Tuple | ast.List | ast.Set))
            if named and value is not None:
                names.update(_strings([value]))
        elif isinstance(node, ast.arguments):  # `def step(x, axis_name='batch')`
            names.update(_strings([d for d in (*node.defaults, *node.kw_defaults)
                                   if isinstance(d, ast.Constant)]))
    return frozenset(names)


# What makes or reads a mesh without setting one: a call of these is not a setter.
_MESH_READERS = frozenset({"make_mesh", "Mesh", "AbstractMesh", "create_device_mesh", "create_hybrid_device_mesh",
                           "get_abstract_mesh", "get_mesh", "get_concrete_mesh"})


def may_set_mesh(module: ast.Module) -> bool:
    """Whether a statement of `module` calls, for its effect alone, something named for a mesh
    (`jax.set_mesh(mesh)`, `setup_mesh()`): it may set a mesh for what follows, where the
    interpreter cannot tell."""
    for statement in statements(module, into_defs=True):
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            name = _callee(statement.value.func)
            if "mesh" in name.lower() and name not in _MESH_READERS:
                return True
        elif isinstance(statement, ast.Assign) and any(isinstance(t, ast.Attribute) for t in statement.targets):
            # The old global setter, `maps.thread_resources.env = ResourceEnv(...)`.
            written = " ".join(ast.unparse(t) for t in statement.targets).lower()
            if "mesh" in written or "resources" in written:
                return True
    return False


def _callee(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _strings(nodes: Sequence[ast.AST]) -> Iterator[str]:
    """String literals in `nodes`, except in a lambda's body: the mapped function's own strings
    (`pmap(lambda v: psum(v, 'k'), ...)`) are what is checked, not what is bound."""
    stack: list[ast.AST] = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                yield node.value
        elif not isinstance(node, ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))


def unmapped_functions(module: ast.Module) -> frozenset[ast.AST]:
    """The module-level, undecorated functions that nothing in the module can call under a map:
    their name is only ever called directly, at module level or in another such function (or
    not at all). Passed anywhere (to a map, a partial, a list), its calls are not all in view.

    The maps and jits built and called in such a function bind only their own names: a
    collective there naming any other is certainly unbound (SC202), unless the function is
    called from another module under a map, which this module cannot see.
    """
    defs = {statement.name: statement for statement in module.body
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) and not statement.decorator_list}
    if not defs:
        return frozenset()
    callers: dict[str, set[str | None]] = {name: set() for name in defs}
    escaped: set[str] = set()
    # Each top-level statement on its own: its caller is the def it is (None for module code).
    for statement in module.body:
        enclosing = statement.name if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) else None
        _references(statement, enclosing, defs, callers, escaped)
    unmapped = set(defs) - escaped
    changed = True
    while changed:
        changed = False
        for name in list(unmapped):
            if any(caller is not None and caller not in unmapped for caller in callers[name]):
                unmapped.discard(name)
                changed = True
    return frozenset(defs[name] for name in unmapped)
