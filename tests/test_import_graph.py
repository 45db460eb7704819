"""No import cycle among shapecheck's modules, read from the source with ast.

Counted: every import that runs, at module level (also inside `if`, `try`, `with` and class
bodies) and inside functions (lazy imports: they run too, later, and a lazy import that
closes a circle still ties the modules together). Not counted: imports under
`if TYPE_CHECKING:`, which never run (a module may name another's type without depending on
it). `import a.b` and `from a import b` (b a submodule) are edges to `a.b`; `from a.b import
name` is an edge to `a.b`. A package's `__init__` that runs first because a submodule is
imported is not an edge: Python holds the package in `sys.modules` while its submodules load.
plugin/ and rules/ count as shapecheck.plugin and shapecheck.rules, as they install.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREES = {"shapecheck": ROOT / "shapecheck", "shapecheck.plugin": ROOT / "plugin",
         "shapecheck.rules": ROOT / "rules"}


def modules(trees: dict[str, Path]) -> dict[str, Path]:
    """Module name -> file, for every .py file under each tree."""
    found: dict[str, Path] = {}
    for prefix, base in trees.items():
        for path in sorted(base.rglob("*.py")):
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([prefix, *parts])] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run, at any depth, outside `if TYPE_CHECKING:`."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _imports(node.orelse)
        else:
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                for child in getattr(node, field, []):
                    yield from _imports(child.body if isinstance(child, ast.excepthandler | ast.match_case)
                                        else [child])


def import_graph(trees: dict[str, Path]) -> dict[str, set[str]]:
    """Each module's edges to the modules of the trees it imports."""
    found = modules(trees)
    graph: dict[str, set[str]] = {}
    for name, path in found.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges: set[str] = set()
        for node in _imports(ast.parse(path.read_text(encoding="utf-8")).body):
            if isinstance(node, ast.Import):
                edges.update(alias.name for alias in node.names if alias.name in found)
                continue
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                target = f"{module}.{alias.name}"
                if target in found:
                    edges.add(target)
                elif module in found:
                    edges.add(module)
        edges.discard(name)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            child = next(edges, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_package_has_no_import_cycle() -> None:
    graph = import_graph(TREES)
    assert "shapecheck.analyzer.interpreter" in graph and "shapecheck.rules.rule" in graph
    assert "shapecheck.plugin.main" in graph
    assert cycles(graph) == []


def test_the_graph_sees_lazy_and_relative_imports_and_skips_type_only_ones(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.sub import b\n")
    (package / "sub" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n"
        "def f():\n    try:\n        from ..c import g\n    except ImportError:\n        pass\n")
    (package / "c.py").write_text("class C:\n    def m(self):\n        import pkg.a\n")
    graph = import_graph({"pkg": package})
    assert graph["pkg.a"] == {"pkg.sub.b"}
    assert graph["pkg.sub.b"] == {"pkg.c"}
    assert graph["pkg.c"] == {"pkg.a"}
    assert cycles(graph) == [["pkg.a", "pkg.c", "pkg.sub.b"]]
    (package / "c.py").write_text("")
    assert cycles(import_graph({"pkg": package})) == []
