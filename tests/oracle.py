"""JAX as the oracle for every map, spec and collective the checker models.

Hypothesis strategies build small programs over vmap/pmap, shard_map, jit, the shardings and
the collectives, with random shapes, meshes, specs and structures (some of them planted wrong),
nested maps and helper functions. `judge` runs one on JAX (8 CPU devices, traced under
`jax.eval_shape` and lowered: every shape, spec and name check runs, nothing is compiled) and through the
checker in this process, and says which cell of the confusion matrix it falls in:

- `accepted`: JAX runs it and the checker reports nothing;
- `caught`: JAX refuses it and the checker reports it;
- `false report`: JAX runs it and the checker reports something (never allowed);
- `miss`: JAX refuses it and the checker says nothing;
- `internal error`: the checker failed (never allowed).

`tests/test_oracle.py` runs a bounded number in `make test`; `benchmarks/oracle.py` runs
thousands and prints the matrix per API and code.
"""

from __future__ import annotations

import textwrap
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from math import prod
from typing import Any

from hypothesis import strategies as st

from shapecheck.api import analyze_source

HEADER = """\
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P
"""

Shape = tuple[int, ...]
CRASH = "internal error"  # the checker's own failure: a cell of its own


@dataclass(frozen=True)
class Leaf:
    shape: Shape


Tree = Leaf | tuple[Any, ...] | dict[str, Any]


@dataclass(frozen=True)
class Program:
    api: str  # the row of the confusion matrix: the API the program exercises
    body: str  # statements after HEADER; the last assigns `out`

    @property
    def text(self) -> str:
        return HEADER + self.body


@dataclass(frozen=True)
class Verdict:
    program: Program
    refused: str | None  # JAX's exception, `Type: message`, or None where it runs
    codes: tuple[str, ...]  # the checker's codes

    @property
    def cell(self) -> str:
        if CRASH in self.codes:
            return CRASH
        if self.refused is None:
            return "false report" if self.codes else "accepted"
        return "caught" if self.codes else "miss"

    def __str__(self) -> str:
        return f"[{self.program.api}] {self.cell}: JAX {self.refused or 'runs it'}; " \
               f"checker {list(self.codes) or 'silent'}\n{self.program.body}"


def run_jax(program: Program) -> str | None:
    """JAX's refusal of the program, or None: the module is traced as one function and lowered;
    one that enters a mesh's context (`jax.set_mesh`, refused inside a jit) is run as it is."""
    import jax

    source = "def program():\n" + textwrap.indent(program.text, "    ") + "    return out\n"
    namespace: dict[str, Any] = {}
    exec(compile(source, "oracle.py", "exec"), namespace)
    try:
        if "jax.set_mesh" in program.text:
            namespace["program"]()
        else:
            jax.eval_shape(namespace["program"])
            # Lowered too (not compiled): some checks run only there (a mesh axis twice in a spec).
            jax.jit(namespace["program"]).lower()
    except Exception as error:  # the program's own failure is the oracle's answer
        traceback.clear_frames(error.__traceback__)
        return f"{type(error).__name__}: {' '.join(str(error).split())[:300]}"
    return None


def run_checker(program: Program) -> tuple[str, ...]:
    result = analyze_source("oracle.py", program.text)
    if result.error is not None:
        return (CRASH,)
    return tuple(sorted({str(d.code) for d in result.diagnostics}))


def judge(program: Program) -> Verdict:
    return Verdict(program, run_jax(program), run_checker(program))


# ---------------------------------------------------------------- pieces

MESHES: tuple[tuple[Shape, tuple[str, ...]], ...] = (
    ((8,), ("x",)), ((2,), ("x",)), ((4,), ("data",)), ((2, 4), ("x", "y")), ((4, 2), ("x", "y")),
    ((1, 4), ("data", "model")), ((2, 2, 2), ("x", "y", "z")), ((2, 2), ("data", "model")),
)
DIMS = st.sampled_from((1, 2, 3, 4, 6, 8))


def array(shape: Shape) -> str:
    return f"jnp.zeros({shape!r})"


def render(tree: Tree) -> str:
    if isinstance(tree, Leaf):
        return array(tree.shape)
    if isinstance(tree, tuple):
        return "(" + ", ".join(render(t) for t in tree) + ("," if len(tree) == 1 else "") + ")"
    return "{" + ", ".join(f"{k!r}: {render(v)}" for k, v in tree.items()) + "}"


def leaves(tree: Tree, path: str = "") -> list[tuple[str, Leaf]]:
    """Each leaf with the subscripts that reach it from the tree's root."""
    if isinstance(tree, Leaf):
        return [(path, tree)]
    items = enumerate(tree) if isinstance(tree, tuple) else tree.items()
    return [found for key, sub in items for found in leaves(sub, f"{path}[{key!r}]")]


def spec_text(entries: tuple[Any, ...]) -> str:
    return "P(" + ", ".join(repr(e) for e in entries) + ")"


@st.composite
def structure(draw: st.DrawFn, make_leaf: Any, depth: int = 0) -> Any:
    """A pytree of `make_leaf()`s: a leaf, a tuple or a dict, at most two levels deep."""
    kind = draw(st.integers(0, 5)) if depth < 2 else 0
    if kind <= 2:
        return draw(make_leaf)
    if kind <= 4:
        return tuple(draw(structure(make_leaf, depth + 1)) for _ in range(draw(st.integers(1, 2))))
    keys = draw(st.sampled_from((("a",), ("a", "b"), ("w", "b"))))
    return {k: draw(structure(make_leaf, depth + 1)) for k in keys}


def mutate_structure(draw: st.DrawFn, spec: Any) -> Any:
    """The spec tree with one container made wrong: a key renamed, an item dropped or added."""
    if isinstance(spec, dict) and spec:
        key = draw(st.sampled_from(sorted(spec)))
        if draw(st.booleans()):
            return {("q" if k == key else k): v for k, v in spec.items()}
        return {**spec, key: mutate_structure(draw, spec[key])}
    if isinstance(spec, tuple) and spec:
        choice = draw(st.integers(0, 2))
        if choice == 0:
            return spec[:-1]
        if choice == 1:
            return (*spec, spec[-1])
        index = draw(st.integers(0, len(spec) - 1))
        return (*spec[:index], mutate_structure(draw, spec[index]), *spec[index + 1:])
    return (spec, spec)


class Raw(str):
    """Source text placed as is in a spec tree (a `P(...)`, a `NamedSharding(...)`)."""

    def __repr__(self) -> str:
        return str(self)


def code(spec: Any) -> str:
    """A spec tree (ints, None, Raw texts, tuples, lists, dicts) as source."""
    if isinstance(spec, tuple):
        return "(" + ", ".join(code(s) for s in spec) + ("," if len(spec) == 1 else "") + ")"
    if isinstance(spec, list):
        return "[" + ", ".join(code(s) for s in spec) + "]"
    if isinstance(spec, dict):
        return "{" + ", ".join(f"{k!r}: {code(v)}" for k, v in spec.items()) + "}"
    return repr(spec)


@st.composite
def mesh_setup(draw: st.DrawFn, explicit: bool = False) -> tuple[str, Shape, tuple[str, ...]]:
    """The statement that builds `mesh`, with its shape and names."""
    shape, names = draw(st.sampled_from(MESHES))
    n = prod(shape)
    if explicit:
        form = f"jax.make_mesh({shape!r}, {names!r}, axis_types=(AxisType.Explicit,) * {len(names)}, " \
               f"devices=jax.devices()[:{n}])"
    else:
        form = draw(st.sampled_from((
            f"Mesh(np.array(jax.devices()[:{n}]).reshape{shape!r}, {names!r})",
            f"jax.make_mesh({shape!r}, {names!r}, axis_types=(AxisType.Auto,) * {len(names)}, "
            f"devices=jax.devices()[:{n}])",
            "build()",
        )))
    if form == "build()":
        setup = f"def build():\n    return Mesh(np.array(jax.devices()[:{n}]).reshape{shape!r}, {names!r})\n\n\n" \
                "mesh = build()\n"
    else:
        setup = f"mesh = {form}\n"
    return setup, shape, names


# ---------------------------------------------------------------- vmap and pmap


@st.composite
def axis_leaf(draw: st.DrawFn, size: int, pmap: bool) -> tuple[Leaf, int | None]:
    """An argument leaf and the axis it is mapped over (None: not mapped)."""
    rank = draw(st.integers(0 if not pmap else 1, 3))
    axis = draw(st.one_of(st.none(), st.integers(0, max(rank - 1, 0)))) if rank else None
    dims = [draw(DIMS) for _ in range(rank)]
    if axis is not None:
        dims[axis] = size if draw(st.integers(0, 9)) else size + 1
        if draw(st.integers(0, 3)) == 0 and not pmap:
            # The same axis counted from the end (JAX 0.10.2's pmap misreads negative in_axes
            # other than -rank: out of reach, see rules/sc106_axis_out_of_range.py).
            axis -= rank
    return Leaf(tuple(dims)), axis


def split_pairs(tree: Any, entry: Callable[[Any], Any] = lambda axis: axis) -> tuple[Tree, Any]:
    """(argument tree, its in_axes tree) from a tree of (leaf, axis) pairs; `entry` writes each
    axis as the spec tree holds it."""
    if isinstance(tree, tuple) and len(tree) == 2 and isinstance(tree[0], Leaf):
        return tree[0], entry(tree[1])
    if isinstance(tree, tuple):
        parts = [split_pairs(t, entry) for t in tree]
        return tuple(p[0] for p in parts), tuple(p[1] for p in parts)
    parts_d = {k: split_pairs(v, entry) for k, v in tree.items()}
    return {k: p[0] for k, p in parts_d.items()}, {k: p[1] for k, p in parts_d.items()}


def entries(tree: Any) -> list[Any]:
    """The entries of a tuple/dict tree of in_axes or specs, in order."""
    if isinstance(tree, tuple | dict):
        return [leaf for v in (tree.values() if isinstance(tree, dict) else tree) for leaf in entries(v)]
    return [tree]


def collapse(axes: Any) -> Any:
    """An in_axes tree whose leaves all agree, written as that one entry."""
    flat = entries(axes)
    return flat[0] if flat and all(f == flat[0] for f in flat) and not isinstance(axes, int | None) else axes


def mutate_leaf(draw: st.DrawFn, axes: Any, rank_hint: int) -> Any:
    if isinstance(axes, tuple) and axes:
        index = draw(st.integers(0, len(axes) - 1))
        return (*axes[:index], mutate_leaf(draw, axes[index], rank_hint), *axes[index + 1:])
    if isinstance(axes, dict) and axes:
        key = draw(st.sampled_from(sorted(axes)))
        return {**axes, key: mutate_leaf(draw, axes[key], rank_hint)}
    return draw(st.sampled_from((Raw("'a'"), 1.0, (0, 1), rank_hint + 1, 3)))


@st.composite
def vmap_programs(draw: st.DrawFn, pmap: bool = False) -> Program:
    # pmap's sizes (and a planted size + 1) stay within the 8 devices: how many devices the
    # program runs on is not in its text (out of reach, rules/sc106_axis_out_of_range.py).
    size = draw(st.sampled_from((2, 4, 7) if pmap else (1, 2, 3, 4)))
    nargs = draw(st.integers(0 if not pmap else 1, 3))
    pairs = [draw(structure(axis_leaf(size, pmap))) for _ in range(nargs)]
    split = [split_pairs(p) for p in pairs]
    args = [s[0] for s in split]
    entries = [collapse(s[1]) if draw(st.booleans()) else s[1] for s in split]
    keyword = nargs > 1 and draw(st.integers(0, 4)) == 0  # the last argument passed by keyword
    positional = entries[:-1] if keyword else entries
    in_axes: Any
    if positional and all(e == 0 for e in positional) and draw(st.booleans()):
        in_axes = 0
    else:
        in_axes = tuple(positional)
    api = "pmap" if pmap else "vmap"
    if draw(st.integers(0, 3)) == 0:  # planted: a structure or a leaf JAX refuses
        kind = draw(st.integers(0, 2))
        if kind == 0:
            in_axes = mutate_structure(draw, in_axes)
        elif kind == 1:
            in_axes = mutate_leaf(draw, in_axes, 2)
        elif isinstance(in_axes, tuple) and len(in_axes) == 1 and isinstance(in_axes[0], dict):
            in_axes = in_axes[0]  # a bare dict
        else:
            in_axes = list(in_axes) if isinstance(in_axes, tuple) else in_axes
    name = "i"
    used = draw(st.sampled_from(("i", "i", "j")))
    params = [f"a{k}" for k in range(nargs)]
    found = [(f"a{k}{path}", leaf) for k, arg in enumerate(args) for path, leaf in leaves(arg)]
    lines: list[str] = []
    helper = False
    outs: list[str] = []
    for expr, _leaf in draw(st.lists(st.sampled_from(found), min_size=1, max_size=2)) if found else []:
        op = draw(st.integers(0, 5))
        if op == 0:
            expr = f"jax.lax.psum({expr}, {used!r})"
        elif op == 1:
            expr = f"reduce({expr})"
            helper = True
        elif op == 2:
            expr = f"jax.vmap(lambda r: jax.lax.pmax(r, {used!r}), axis_name='k')({expr})"
        elif op == 3:
            expr = f"{expr} * 2"
        outs.append(expr)
    if not outs:
        outs = ["jnp.zeros(3)"]
    shape_kind = draw(st.integers(0, 2)) if len(outs) == 2 else 0
    result = outs[0] if shape_kind == 0 else f"({outs[0]}, {outs[1]})" if shape_kind == 1 else \
        f"{{'o': {outs[0]}, 'p': {outs[1]}}}"
    out_axes: Any = 0
    if draw(st.booleans()):
        choice = draw(st.sampled_from((1, 0, None, 2) if pmap else (-1, 1, 0, None, 2, -3)))
        if shape_kind == 1 and draw(st.booleans()):
            out_axes = (choice, 0) if draw(st.integers(0, 4)) else (choice,)
        elif shape_kind == 2 and draw(st.booleans()):
            out_axes = {"o": choice, "p": 0} if draw(st.integers(0, 4)) else {"o": choice}
        else:
            out_axes = choice
    options = []
    if in_axes != 0 or draw(st.booleans()):
        options.append(f"in_axes={code(in_axes)}")
    if out_axes != 0:
        options.append(f"out_axes={code(out_axes)}")
    decorated = draw(st.booleans())
    if not pmap or decorated or draw(st.booleans()):
        options.append(f"axis_name={name!r}")
    else:
        options.insert(0, repr(name))  # pmap's second positional parameter
    if draw(st.integers(0, 3)) == 0 or nargs == 0:
        options.append(f"axis_size={size if draw(st.integers(0, 5)) else size + 1}")
    if helper:
        lines.append(f"def reduce(v):\n    return jax.lax.pmean(v, {used!r})\n\n")
    call_args = [render(a) for a in args]
    if keyword:
        call_args[-1] = f"{params[-1]}={call_args[-1]}"
    mapper = "jax.pmap" if pmap else "jax.vmap"
    if decorated:
        lines.append(f"@partial({mapper}, {', '.join(options)})\ndef f({', '.join(params)}):\n"
                     f"    return {result}\n\n")
        lines.append(f"out = f({', '.join(call_args)})\n")
    else:
        lines.append(f"def f({', '.join(params)}):\n    return {result}\n\n")
        lines.append(f"out = {mapper}(f, {', '.join(options)})({', '.join(call_args)})\n")
    return Program(api, "\n" + "".join(lines))


# ---------------------------------------------------------------- shard_map and collectives


@dataclass
class Block:
    expr: str
    shape: Shape
    varying: set[str]


COLLECTIVES = ("psum", "pmean", "pmax", "pmin", "all_gather", "psum_scatter", "all_to_all", "ppermute",
               "axis_index")


def collective(draw: st.DrawFn, block: Block, sizes: dict[str, int], bound: tuple[str, ...]) -> tuple[str, Block]:
    """One collective over `block` (usually valid for its shape): its name and the new block."""
    op = draw(st.sampled_from(COLLECTIVES))
    names = list(bound) if bound and draw(st.integers(0, 7)) else ["w"]
    name = draw(st.sampled_from(names))
    n = sizes.get(name, 1)
    shape, rank = block.shape, len(block.shape)
    varying = set(block.varying)
    if op in ("psum", "pmean", "pmax", "pmin"):
        if len(bound) > 1 and draw(st.booleans()):
            group = tuple(draw(st.lists(st.sampled_from(bound), min_size=2, max_size=2, unique=True)))
            return op, Block(f"jax.lax.{op}({block.expr}, {group!r})", shape, varying - set(group))
        return op, Block(f"jax.lax.{op}({block.expr}, {name!r})", shape, varying - {name})
    varying.add(name)
    if op == "axis_index":
        return op, Block(f"{block.expr} + jax.lax.axis_index({name!r})", shape, varying)
    if op == "ppermute":
        perm = [(i, (i + 1) % n) for i in range(n)] if draw(st.integers(0, 5)) else [(0, n)]
        return op, Block(f"jax.lax.ppermute({block.expr}, {name!r}, {perm!r})", shape, varying)
    tiled = draw(st.booleans())
    if op == "all_gather":
        axis = draw(st.integers(-1, rank + (0 if tiled else 1)))
        if tiled:
            new = tuple(d * n if i == axis % max(rank, 1) else d for i, d in enumerate(shape))
        else:
            at = axis % (rank + 1) if axis >= -rank - 1 else 0
            new = (*shape[:at], n, *shape[at:])
        options = f", axis={axis}" * draw(st.booleans()) if axis == 0 else f", axis={axis}"
        return op, Block(f"jax.lax.all_gather({block.expr}, {name!r}{options}, tiled={tiled})", new, varying)
    if op == "psum_scatter":
        dim = draw(st.integers(0, rank)) if draw(st.integers(0, 5)) else draw(st.integers(-1, rank))
        if 0 <= dim < rank:
            new = tuple(d // n if i == dim else d for i, d in enumerate(shape)) if tiled else \
                shape[:dim] + shape[dim + 1:]
        else:
            new = shape
        return op, Block(f"jax.lax.psum_scatter({block.expr}, {name!r}, scatter_dimension={dim}, tiled={tiled})",
                         new, varying)
    split = draw(st.integers(0, rank)) if draw(st.integers(0, 5)) else draw(st.integers(-1, rank))
    # Never negative: JAX 0.10.2 reads a negative concat_axis apart from its positive twin.
    concat = draw(st.integers(0, max(rank - 1, 0)))
    new = list(shape)
    if tiled and 0 <= split < rank and 0 <= concat < rank:
        new[split] //= n
        new[concat] *= n
    return op, Block(f"jax.lax.all_to_all({block.expr}, {name!r}, {split}, {concat}, tiled={tiled})",
                     tuple(new), varying)


@st.composite
def spec_leaf(draw: st.DrawFn, sizes: dict[str, int], manual: tuple[str, ...]) -> tuple[Leaf, tuple[Any, ...]]:
    """A global argument and its PartitionSpec, usually one that divides it."""
    rank = draw(st.integers(0, 3))
    free = list(manual)
    entries: list[Any] = []
    dims: list[int] = []
    for _ in range(rank):
        entry: Any = None
        if free and draw(st.booleans()):
            if len(free) > 1 and draw(st.integers(0, 3)) == 0:
                entry = tuple(free[:2])
            else:
                entry = draw(st.sampled_from(free))
            for used in (entry if isinstance(entry, tuple) else (entry,)):
                free.remove(used)
        split = prod(sizes[e] for e in (entry if isinstance(entry, tuple) else (entry,)) if e) if entry else 1
        dims.append(split * draw(st.sampled_from((1, 1, 2, 3))) + (1 if not draw(st.integers(0, 12)) else 0))
        entries.append(entry)
    while entries and entries[-1] is None and draw(st.booleans()):
        entries.pop()
    if draw(st.integers(0, 15)) == 0:
        entries.append(draw(st.sampled_from(("w", manual[0] if manual else "w", None))))  # too long, unknown
    return Leaf(tuple(dims)), tuple(entries)


def block_of(leaf: Leaf, entries: tuple[Any, ...], sizes: dict[str, int]) -> tuple[Shape, set[str]]:
    shape = list(leaf.shape)
    varying: set[str] = set()
    for i, entry in enumerate(entries[:len(shape)]):
        for name in (entry if isinstance(entry, tuple) else (entry,)):
            if name in sizes:
                shape[i] = max(shape[i] // sizes[name], 1)
                varying.add(name)
    return tuple(shape), varying


def out_spec_for(draw: st.DrawFn, block: Block, names: tuple[str, ...]) -> str:
    """Usually one that places every axis the value varies over (on dim 0)."""
    need = [n for n in names if n in block.varying]
    if draw(st.integers(0, 6)) == 0 and need:
        need = need[1:]
    if not need:
        return "P()"
    if not block.shape:
        return spec_text((tuple(need),))
    return spec_text((tuple(need) if len(need) > 1 else need[0],))


@st.composite
def shard_map_programs(draw: st.DrawFn) -> Program:
    setup, mesh_shape, names = draw(mesh_setup())
    sizes = dict(zip(names, mesh_shape, strict=True))
    manual = names
    axis_names = ""
    if len(names) > 1 and draw(st.integers(0, 4)) == 0:
        manual = tuple(draw(st.lists(st.sampled_from(names), min_size=1, max_size=len(names) - 1, unique=True)))
        axis_names = f", axis_names={set(manual)!r}"
    nargs = draw(st.integers(1, 2))
    trees = [draw(structure(spec_leaf(sizes, manual))) for _ in range(nargs)]
    split = [split_pairs_spec(t) for t in trees]
    args = [s[0] for s in split]
    spec_trees: list[Any] = [s[1] for s in split]
    in_specs: Any = tuple(collapse_spec(s) if draw(st.booleans()) else s for s in spec_trees)
    if len(in_specs) == 1 and isinstance(in_specs[0], Raw) and draw(st.booleans()):
        in_specs = in_specs[0]
    if draw(st.integers(0, 6)) == 0:
        in_specs = mutate_structure(draw, in_specs)
    blocks: list[Block] = []
    for k, arg in enumerate(args):
        for path, leaf in leaves(arg):
            entries = spec_at(trees[k], path)
            shape, varying = block_of(leaf, entries, sizes)
            blocks.append(Block(f"a{k}{path}", shape, varying))
    api = "shard_map"
    helper = ""
    results: list[Block] = []
    for block in draw(st.lists(st.sampled_from(blocks), min_size=1, max_size=2)):
        for _ in range(draw(st.integers(0, 2))):
            op, block = collective(draw, block, sizes, manual)
            api = op
        if draw(st.integers(0, 5)) == 0:
            helper = f"def helper(v):\n    return jax.lax.psum(v, {draw(st.sampled_from(manual))!r})\n\n\n"
            block = Block(f"helper({block.expr})", block.shape, block.varying - set(manual))
        elif draw(st.integers(0, 6)) == 0 and block.shape:
            name = draw(st.sampled_from(manual))
            block = Block(f"jax.vmap(lambda r: jax.lax.pmean(r, {name!r}), axis_name='v')({block.expr})",
                          block.shape, block.varying - {name})
        results.append(block)
    check_vma = draw(st.integers(0, 7)) == 0
    if len(results) == 1:
        result, out_specs = results[0].expr, out_spec_for(draw, results[0], manual)
    elif draw(st.booleans()):
        result = f"({results[0].expr}, {results[1].expr})"
        out_specs = f"({out_spec_for(draw, results[0], manual)}, {out_spec_for(draw, results[1], manual)})"
    else:
        result = f"{{'o': {results[0].expr}, 'p': {results[1].expr}}}"
        out_specs = f"{{'o': {out_spec_for(draw, results[0], manual)}, 'p': {out_spec_for(draw, results[1], manual)}}}"
    if draw(st.integers(0, 8)) == 0:
        out_specs = draw(st.sampled_from(("P()", f"({out_specs},)", f"{{'o': {out_specs}}}")))
    params = ", ".join(f"a{k}" for k in range(nargs))
    options = f"mesh=mesh, in_specs={code(in_specs)}, out_specs={out_specs}{axis_names}" + \
        (", check_vma=False" if check_vma else "")
    call = ", ".join(render(a) for a in args)
    form = draw(st.integers(0, 2))
    if form == 0:
        text = f"def f({params}):\n    return {result}\n\n\nout = jax.shard_map(f, {options})({call})\n"
    elif form == 1:
        text = f"@partial(jax.shard_map, {options})\ndef f({params}):\n    return {result}\n\n\nout = f({call})\n"
    else:
        text = f"@jax.shard_map({options})\ndef f({params}):\n    return {result}\n\n\nout = f({call})\n"
    return Program(api, setup + "\n\n" + helper + text)


def split_pairs_spec(tree: Any) -> tuple[Tree, Any]:
    return split_pairs(tree, lambda spec: Raw(spec_text(spec)))


def collapse_spec(spec: Any) -> Any:
    flat = entries(spec)
    return flat[0] if len(flat) > 1 and all(f == flat[0] for f in flat) else spec


def spec_at(tree: Any, path: str) -> tuple[Any, ...]:
    """The entries of the spec drawn for the leaf at `path` of a (leaf, entries) tree."""
    node = tree
    for key in path.strip("[]").split("][") if path else ():
        node = node[eval(key)]
    return node[1]  # type: ignore[no-any-return]


# ---------------------------------------------------------------- jit and shardings


@st.composite
def jit_programs(draw: st.DrawFn) -> Program:
    setup, mesh_shape, names = draw(mesh_setup())
    sizes = dict(zip(names, mesh_shape, strict=True))
    nargs = draw(st.integers(0, 3))
    pairs = [draw(spec_leaf(sizes, names)) for _ in range(nargs)]
    static = nargs > 0 and draw(st.integers(0, 4)) == 0
    params = [f"a{k}" for k in range(nargs)] + (["n"] if static else [])
    shardings: list[str] = []
    for _, entries in pairs:
        shardings.append("None" if draw(st.integers(0, 4)) == 0 else f"NamedSharding(mesh, {spec_text(entries)})")
    options = []
    kind = draw(st.integers(0, 4))
    if kind == 0 and shardings:
        options.append(f"in_shardings={shardings[0]}")
    elif kind in (1, 2):
        chosen = list(shardings)
        if draw(st.integers(0, 5)) == 0:
            chosen = chosen[:-1] if chosen and draw(st.booleans()) else [*chosen, "None"]
        options.append(f"in_shardings=({', '.join(chosen)}{',' if len(chosen) == 1 else ''})")
    if static:
        options.append(draw(st.sampled_from((f"static_argnums=({nargs},)", "static_argnames=('n',)"))))
    body = " + ".join(f"a{k}.sum()" for k in range(nargs)) or "jnp.zeros(())"
    result = f"({body}) * jnp.ones((8, 4))" + (" * n" if static else "")
    if draw(st.booleans()):
        leaf, entries = draw(spec_leaf(sizes, names))
        del leaf
        options.append(f"out_shardings=NamedSharding(mesh, {spec_text(entries[:2])})")
    call = [array(leaf.shape) for leaf, _ in pairs] + (["2"] if static else [])
    text = f"def f({', '.join(params)}):\n    return {result}\n\n\n" \
           f"out = jax.jit(f{''.join(', ' + o for o in options)})({', '.join(call)})\n"
    return Program("jit", setup + "\n\n" + text)


@st.composite
def sharding_programs(draw: st.DrawFn) -> Program:
    api = draw(st.sampled_from(("device_put", "with_sharding_constraint", "reshard", "NamedSharding")))
    explicit = api == "reshard" or (api == "with_sharding_constraint" and draw(st.integers(0, 5)) == 0)
    setup, mesh_shape, names = draw(mesh_setup(explicit=explicit))
    sizes = dict(zip(names, mesh_shape, strict=True))
    leaf, entries = draw(spec_leaf(sizes, names))
    if draw(st.integers(0, 8)) == 0:
        entries = (*entries, "w")
    sharding = f"NamedSharding(mesh, {spec_text(entries)})"
    x = array(leaf.shape)
    if api == "device_put":
        text = f"out = jax.device_put({x}, {sharding})\n"
    elif api == "with_sharding_constraint":
        call = f"with jax.set_mesh(mesh):\n    out = jax.jit(f)({x})\n" if explicit else f"out = jax.jit(f)({x})\n"
        text = f"def f(a):\n    return jax.lax.with_sharding_constraint(a * 2, {sharding})\n\n\n" + call
    elif api == "reshard":
        # Under Explicit axes a jit is lowered inside the mesh's context (JAX asks for set_mesh).
        text = f"def f(a):\n    return jax.sharding.reshard(a, {sharding})\n\n\n" \
               f"with jax.set_mesh(mesh):\n    out = jax.jit(f)({x})\n"
    else:
        text = f"s = {sharding}\nout = {x}\n"
    return Program(api, setup + "\n" + text)


@st.composite
def unbound_programs(draw: st.DrawFn) -> Program:
    """A helper's collective and the maps and jits that call it, some binding its name."""
    name = draw(st.sampled_from(("i", "x")))
    op = draw(st.sampled_from(("psum", "pmean", "pmax", "axis_index")))
    expr = f"jax.lax.axis_index({name!r}) + v" if op == "axis_index" else f"jax.lax.{op}(v, {name!r})"
    lines = [f"def g(v):\n    return {expr}\n\n\n"]
    decoy = draw(st.sampled_from((
        "", "mesh = Mesh(np.array(jax.devices()[:2]), ('x',))\n",
        "other = jax.vmap(lambda a: a, axis_name='i')(jnp.zeros(2))\n",
        "other = jax.vmap(lambda a: jax.lax.psum(a, 'i'), axis_name='i')(jnp.zeros(2))\n",
    )))
    lines.append(decoy)
    callers = draw(st.lists(st.sampled_from(("jit", "vmap_bound", "vmap_other", "plain", "main_jit", "vmap_main")),
                            min_size=1, max_size=2))
    for k, caller in enumerate(callers):
        if caller == "jit":
            lines.append(f"r{k} = jax.jit(g)(jnp.zeros(2))\n")
        elif caller == "vmap_bound":
            lines.append(f"r{k} = jax.vmap(g, axis_name={name!r})(jnp.zeros(2))\n")
        elif caller == "vmap_other":
            lines.append(f"r{k} = jax.vmap(lambda a: g(a), axis_name='j')(jnp.zeros(2))\n")
        elif caller == "plain":
            lines.append(f"r{k} = g(jnp.zeros(2))\n")
        elif caller == "main_jit":
            lines.append(f"def main{k}():\n    return jax.jit(g)(jnp.zeros(2))\n\n\nr{k} = main{k}()\n")
        else:
            lines.append(f"def main{k}(a):\n    return g(a)\n\n\nr{k} = jax.vmap(main{k}, axis_name={name!r})"
                         "(jnp.zeros(2))\n")
    lines.append("out = jnp.zeros(1)\n")
    return Program("unbound name", "\n" + "".join(lines))


@st.composite
def indexing_programs(draw: st.DrawFn) -> Program:
    rank = draw(st.integers(0, 3))
    shape = tuple(draw(st.integers(1, 4)) for _ in range(rank))
    parts = draw(st.lists(st.sampled_from(("0", ":", "None", "...", "-1", "1:")), min_size=1, max_size=4))
    if parts.count("...") > 1:
        parts = [p for p in parts if p != "..."] + ["..."]
    return Program("indexing", f"\nx = {array(shape)}\nout = x[{', '.join(parts)}]\n")


def programs() -> st.SearchStrategy[Program]:
    """Every kind of program, in the proportions of the oracle's test."""
    return st.one_of(vmap_programs(), vmap_programs(pmap=True), shard_map_programs(), shard_map_programs(),
                     jit_programs(), sharding_programs(), unbound_programs(), indexing_programs())
