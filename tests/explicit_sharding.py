"""The differential oracle of sharding in types: random programs over explicit meshes, run by JAX
and checked by shapecheck (DESIGN.md section 3b).

A program builds a mesh of 1 to 3 axes (Explicit by default, sometimes Auto or mixed), places a
few arrays with random specs under `jax.set_mesh`, and chains the ops of section 3b on them, one
statement per line (`v3 = v1 + v2`). JAX runs it statement by statement on 8 CPU devices until
one raises; the checker analyses the same text. `judge` compares them:

- the first statement JAX refuses with a ShardingTypeError (or shard_map's in_specs ValueError)
  is SC208, with the ValueError/AssertionError of an axis of the wrong type SC209; any other
  exception is `other` (the generator avoids them; nothing is demanded there);
- no statement JAX runs may be reported with SC208 or SC209;
- each value JAX makes has the sharding `jax.typeof` prints wherever the checker claims one.

The generator draws through a `Chooser`, so hypothesis (`st.data()`) and a seeded
`random.Random` (the benchmark, `benchmarks/explicit_sharding.py`) build the same programs.
"""

from __future__ import annotations

import inspect
import random
import re
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from math import prod
from typing import Any, Protocol, TypeVar

from shapecheck.algebra.sharding_types import typeof
from shapecheck.api import analyze_source

T = TypeVar("T")

SHARDING_CODES = ("SC208", "SC209")
HEADER = """\
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, Mesh, NamedSharding, PartitionSpec as P
"""


class Chooser(Protocol):
    def choice(self, options: Sequence[T]) -> T: ...


class RandomChooser:
    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def choice(self, options: Sequence[T]) -> T:
        return self.random.choice(list(options))


# ---------------------------------------------------------------- programs


@dataclass
class Program:
    mesh_line: str
    axes: dict[str, int]
    explicit: set[str]
    body: list[str] = field(default_factory=list)
    shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    setter: bool = False  # `jax.set_mesh(mesh)` as a statement rather than `with jax.set_mesh(mesh):`

    @property
    def source(self) -> str:
        if self.setter:
            return HEADER + self.mesh_line + "\njax.set_mesh(mesh)\n" + "".join(f"{line}\n" for line in self.body)
        return HEADER + self.mesh_line + "\nwith jax.set_mesh(mesh):\n" + \
            "".join(f"    {line}\n" for line in self.body)

    @property
    def first_body_line(self) -> int:
        # The mesh line (with what runs before the mesh is set, on lines of its own), the with
        # line (or the setter), then the body.
        return HEADER.count("\n") + self.mesh_line.count("\n") + 3


_MESHES = [((8,),), ((2,),), ((4,),), ((2, 4),), ((4, 2),), ((2, 2),), ((2, 2, 2),), ((1, 4),), ((2, 1, 4),)]
_NAMES = ["X", "Y", "Z"]
_SIZES = [2, 4, 8, 16]


def _spec(choose: Chooser, program: Program, shape: tuple[int, ...], *, divisible: bool = True) -> str:
    """A random PartitionSpec for `shape` over the mesh's axes (each axis at most once)."""
    free = list(program.axes)
    entries: list[str] = []
    for size in shape:
        picked: list[str] = []
        for _ in range(choose.choice([0, 0, 1, 1, 2])):
            options = [a for a in free if not divisible or (size // prod(program.axes[p] for p in picked))
                       % program.axes[a] == 0]
            if not options:
                break
            axis = choose.choice(options)
            if divisible and size % (prod(program.axes[p] for p in picked) * program.axes[axis]):
                break
            picked.append(axis)
            free.remove(axis)
        entries.append("None" if not picked else repr(picked[0]) if len(picked) == 1
                       else "(" + ", ".join(repr(p) for p in picked) + ")")
    while entries and entries[-1] == "None" and choose.choice([True, False]):
        entries.pop()
    return "P(" + ", ".join(entries) + ")"


def _mesh(choose: Chooser) -> Program:
    built = _mesh_of_kind(choose)
    built.setter = choose.choice([False, False, False, True])
    return built


def _mesh_of_kind(choose: Chooser) -> Program:
    (sizes,) = choose.choice(_MESHES)
    names = _NAMES[:len(sizes)]
    kind = choose.choice(["explicit", "explicit", "explicit", "auto", "mixed"])
    shape = f"({', '.join(map(str, sizes))}{',' if len(sizes) == 1 else ''})"
    named = f"({', '.join(repr(n) for n in names)}{',' if len(names) == 1 else ''})"
    if kind == "explicit":
        return Program(f"mesh = jax.make_mesh({shape}, {named})", dict(zip(names, sizes, strict=True)), set(names))
    if kind == "auto":
        return Program(f"mesh = Mesh(np.array(jax.devices()[:{prod(sizes)}]).reshape({shape}), {named})",
                       dict(zip(names, sizes, strict=True)), set())
    types = [choose.choice(["Explicit", "Auto"]) for _ in names]
    listed = ", ".join(f"AxisType.{t}" for t in types)
    return Program(f"mesh = jax.make_mesh({shape}, {named}, axis_types=({listed},))",
                   dict(zip(names, sizes, strict=True)), {n for n, t in zip(names, types, strict=True) if t == "Explicit"})


def _new(program: Program, line: str, shape: tuple[int, ...]) -> None:
    name = f"v{len(program.body)}"
    program.body.append(f"{name} = {line}")
    program.shapes[name] = shape


def _shape(choose: Chooser, rank: int | None = None) -> tuple[int, ...]:
    rank = rank if rank is not None else choose.choice([1, 2, 2, 2, 3])
    return tuple(choose.choice(_SIZES) for _ in range(rank))


def _shown(shape: Sequence[int]) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def _place(choose: Chooser, program: Program, shape: tuple[int, ...] | None = None) -> str:
    shape = shape or _shape(choose)
    _new(program, f"jax.device_put(jnp.ones({_shown(shape)}), {_spec(choose, program, shape)})", shape)
    return f"v{len(program.body) - 1}"


def _pick(choose: Chooser, program: Program, rank: int | None = None) -> str | None:
    names = [n for n, s in program.shapes.items() if (rank is None and s) or len(s) == rank]
    return choose.choice(names) if names else None


def _op(choose: Chooser, program: Program) -> None:
    kind = choose.choice(["binary", "binary", "broadcast", "scalar", "where", "matmul", "dot_out", "einsum",
                          "reduce", "cumsum", "sort", "reshape", "reshape_out", "transpose", "concatenate",
                          "stack", "index", "reshard", "wsc", "zeros", "shard_map", "softmax", "pad", "place",
                          "jit_in", "jit_out", "shard_map_infer", "auto_axes", "at_get", "at_set", "dot_general",
                          "roll", "lax_slice", "slice_in_dim", "index_in_dim", "dynamic_slice_in_dim"])
    v = _pick(choose, program)
    if v is None or kind == "place":
        _place(choose, program)
        return
    shape = program.shapes[v]
    rank = len(shape)
    if kind == "binary":
        other = _pick(choose, program, rank)
        same = [n for n, s in program.shapes.items() if s == shape]
        w = choose.choice(same) if same and choose.choice([True, True, False]) else None
        if w is None:
            w = _place(choose, program, shape)
        op = choose.choice(["+", "*", "-"])
        fn = choose.choice([None, "jnp.maximum"])
        _new(program, f"{v} {op} {w}" if fn is None else f"{fn}({v}, {w})", shape)
        del other
    elif kind == "broadcast" and rank >= 2:
        w = _place(choose, program, shape[1:])
        _new(program, f"{v} * {w}", shape)
    elif kind == "scalar":
        _new(program, f"{v} * 2.0", shape)
    elif kind == "where":
        same = [n for n, s in program.shapes.items() if s == shape]
        w = choose.choice(same)
        third = choose.choice(["0.0", w])
        _new(program, f"jnp.where({v} > 0, {v}, {third})", shape)
    elif kind in ("matmul", "dot_out") and rank == 2:
        k = choose.choice(_SIZES)
        w = _place(choose, program, (shape[1], k))
        if kind == "matmul":
            _new(program, f"{v} @ {w}", (shape[0], k))
        else:
            _new(program, f"jnp.dot({v}, {w}, out_sharding={_spec(choose, program, (shape[0], k))})", (shape[0], k))
    elif kind == "einsum" and rank == 2:
        k = choose.choice(_SIZES)
        form = choose.choice(["ij,jk->ik", "ij,kj->ik", "ij,jk->ki", "ij,ik->jk"])
        rhs = form.split("->")[0].split(",")[1]
        sizes = {"i": shape[0], "j": shape[1], "k": k}
        w = _place(choose, program, tuple(sizes[c] for c in rhs))
        out = form.split("->")[1]
        _new(program, f"jnp.einsum('{form}', {v}, {w})", tuple(sizes[c] for c in out))
    elif kind == "reduce":
        axis = choose.choice(range(-rank, rank))
        fn = choose.choice(["jnp.sum", "jnp.max", "jnp.mean", "jnp.argmax"])
        keep = fn != "jnp.argmax" and choose.choice([False, False, True])
        out = tuple(1 if i == axis % rank else s for i, s in enumerate(shape)) if keep else \
            tuple(s for i, s in enumerate(shape) if i != axis % rank)
        _new(program, f"{fn}({v}, axis={axis}{', keepdims=True' if keep else ''})", out)
    elif kind == "cumsum":
        _new(program, f"jnp.cumsum({v}, axis={choose.choice(range(rank))})", shape)
    elif kind == "sort":
        _new(program, f"jnp.sort({v}, axis={choose.choice(range(rank))})", shape)
    elif kind in ("reshape", "reshape_out"):
        new = _reshaped(choose, shape)
        if kind == "reshape":
            _new(program, f"{v}.reshape({_shown(new)})", new)
        else:
            _new(program, f"jnp.reshape({v}, {_shown(new)}, out_sharding={_spec(choose, program, new)})", new)
    elif kind == "transpose" and rank >= 2:
        form = choose.choice(["T", "swap"])
        if form == "T":
            _new(program, f"{v}.T", tuple(reversed(shape)))
        else:
            i, j = choose.choice(range(rank)), choose.choice(range(rank))
            out = list(shape)
            out[i], out[j] = out[j], out[i]
            _new(program, f"jnp.swapaxes({v}, {i}, {j})", tuple(out))
    elif kind in ("concatenate", "stack"):
        same = [n for n, s in program.shapes.items() if s == shape]
        w = choose.choice(same) if choose.choice([True, False]) else _place(choose, program, shape)
        axis = choose.choice(range(rank))
        if kind == "concatenate":
            out = tuple(2 * s if i == axis else s for i, s in enumerate(shape))
            _new(program, f"jnp.concatenate([{v}, {w}], axis={axis})", out)
        else:
            _new(program, f"jnp.stack([{v}, {w}], axis={axis})", (*shape[:axis], 2, *shape[axis:]))
    elif kind == "index":
        form = choose.choice(["[0]", "[:, 0]", "[None]", "[..., None]", "[:2]", "[jnp.int32(1)]", "jit[0]", "jit[:2]"])
        if form == "[0]":
            _new(program, f"{v}[0]", shape[1:])
        elif form == "[jnp.int32(1)]":
            _new(program, f"{v}[jnp.int32(1)]", shape[1:])
        elif form == "jit[0]":
            _new(program, f"jax.jit(lambda x: x[0])({v})", shape[1:])
        elif form == "jit[:2]":
            _new(program, f"jax.jit(lambda x: x[:2])({v})", (2, *shape[1:]))
        elif form == "[:, 0]" and rank >= 2:
            _new(program, f"{v}[:, 0]", (shape[0], *shape[2:]))
        elif form == "[None]":
            _new(program, f"{v}[None]", (1, *shape))
        elif form == "[..., None]":
            _new(program, f"{v}[..., None]", (*shape, 1))
        elif form == "[:2]":
            _new(program, f"{v}[:2]", (2, *shape[1:]))
    elif kind == "reshard":
        _new(program, f"jax.sharding.reshard({v}, {_spec(choose, program, shape)})", shape)
    elif kind == "wsc":
        _new(program, f"jax.lax.with_sharding_constraint({v}, {_spec(choose, program, shape)})", shape)
    elif kind == "zeros":
        new = _shape(choose)
        _new(program, f"jnp.zeros({_shown(new)}, out_sharding={_spec(choose, program, new)})", new)
    elif kind == "shard_map":
        spec = _spec(choose, program, shape)
        _new(program, f"jax.shard_map(lambda x: x * 2, in_specs={spec}, out_specs={spec})({v})", shape)
    elif kind == "softmax":
        fn = choose.choice(["jax.nn.softmax", "jnp.exp", "jax.nn.relu"])
        _new(program, f"{fn}({v})" if fn != "jax.nn.softmax" else f"{fn}({v}, axis={choose.choice(range(rank))})",
             shape)
    elif kind == "jit_in":
        _new(program, f"jax.jit(lambda x: x * 2, in_shardings={_spec(choose, program, shape)})({v})", shape)
    elif kind == "jit_out":
        _new(program, f"jax.jit(lambda x: x * 2, out_shardings={_spec(choose, program, shape)})({v})", shape)
    elif kind == "shard_map_infer":
        _new(program, f"jax.shard_map(lambda x: x * 2, out_specs={_spec(choose, program, shape)})({v})", shape)
    elif kind == "auto_axes":
        axes = choose.choice([None, *program.axes])
        option = "" if axes is None else f"axes={axes!r}, "
        _new(program, f"jax.sharding.auto_axes(lambda x: x * 2, {option}out_sharding={_spec(choose, program, shape)})"
                      f"({v})", shape)
    elif kind == "at_get":
        form = choose.choice(["[0]", "[:, 0]"]) if rank >= 2 else "[0]"
        out = shape[1:] if form == "[0]" else (shape[0], *shape[2:])
        given = choose.choice([False, True])
        option = f"out_sharding={_spec(choose, program, out)}" if given else ""
        _new(program, f"{v}.at{form}.get({option})", out)
    elif kind == "at_set":
        form = choose.choice(["[0]", "[:, 0]", "[1:3]"]) if rank >= 2 else choose.choice(["[0]", "[1:3]"])
        update = choose.choice(["set", "add", "multiply"])
        option = f", out_sharding={_spec(choose, program, shape)}" if choose.choice([False, False, True]) else ""
        _new(program, f"{v}.at{form}.{update}(1.0{option})", shape)
    elif kind == "dot_general" and rank == 2:
        k = choose.choice(_SIZES)
        w = _place(choose, program, (shape[1], k))
        option = f", out_sharding={_spec(choose, program, (shape[0], k))}" if choose.choice([False, True]) else ""
        _new(program, f"jax.lax.dot_general({v}, {w}, (((1,), (0,)), ((), ())){option})", (shape[0], k))
    elif kind == "roll":
        axis = choose.choice(range(rank))
        _new(program, f"jnp.roll({v}, {choose.choice([1, 2, -1, 3, 4])}, axis={axis})", shape)
    elif kind in ("lax_slice", "slice_in_dim", "dynamic_slice_in_dim"):
        axis = choose.choice(range(rank))
        taken = choose.choice(range(1, shape[axis] + 1))
        out = tuple(taken if i == axis else s for i, s in enumerate(shape))
        if kind == "lax_slice":
            limits = ", ".join(str(n) for n in out)
            _new(program, f"jax.lax.slice({v}, ({', '.join(['0'] * rank)},), ({limits},))", out)
        elif kind == "slice_in_dim":
            _new(program, f"jax.lax.slice_in_dim({v}, 0, {taken}, axis={axis})", out)
        else:
            _new(program, f"jax.lax.dynamic_slice_in_dim({v}, 0, {taken}, axis={axis})", out)
    elif kind == "index_in_dim":
        axis = choose.choice(range(rank))
        keep = choose.choice([True, False])
        out = tuple(1 if i == axis else s for i, s in enumerate(shape)) if keep else \
            tuple(s for i, s in enumerate(shape) if i != axis)
        _new(program, f"jax.lax.index_in_dim({v}, 0, axis={axis}, keepdims={keep})", out)
    elif kind == "pad":
        axis = choose.choice(range(rank))
        widths = ", ".join("(0, 2)" if i == axis else "(0, 0)" for i in range(rank))
        out = tuple(s + 2 if i == axis else s for i, s in enumerate(shape))
        _new(program, f"jnp.pad({v}, ({widths}{',' if rank == 1 else ''}))", out)


def _reshaped(choose: Chooser, shape: tuple[int, ...]) -> tuple[int, ...]:
    options: list[tuple[int, ...]] = [(prod(shape),)]
    for i in range(len(shape) - 1):
        options.append((*shape[:i], shape[i] * shape[i + 1], *shape[i + 2:]))
    for i, size in enumerate(shape):
        for first in (2, 4):
            if size % first == 0 and size > first:
                options.append((*shape[:i], first, size // first, *shape[i + 1:]))
    if len(shape) == 2:
        options.append((shape[1], shape[0]))
        options.append((shape[0] * shape[1] // 4, 4) if shape[0] * shape[1] % 4 == 0 else shape)
    options.append((1, *shape))
    return choose.choice(options)


def program(choose: Chooser, length: int | None = None) -> Program:
    built = _mesh(choose)
    _place(choose, built)
    _place(choose, built)
    for _ in range(length if length is not None else choose.choice([2, 3, 4, 5, 6])):
        _op(choose, built)
    return built


# ---------------------------------------------------------------- running and judging


@dataclass(frozen=True)
class Ran:
    """What JAX did: each statement's `jax.typeof` until the first that raised, and that one."""

    types: dict[int, str]  # body index -> jax.typeof of the value it assigned
    failed: int | None  # body index of the statement that raised
    verdict: str  # "ok", "SC208", "SC209" or "other"
    error: str = ""


_SC209 = ("cannot contain axis names that are of type", "can only refer to Auto axes",
          "acts as an assert when all axes of mesh are of type")
# "Incompatible types for broadcasting": `.at[...].set(v)` with `v` split otherwise than the indexed
# part (the oracle's programs give updates of the right shape, so it is the split that differs).
_SC208_VALUE = ("does not match the specs of the input", "Sharding passed to jit does not match the sharding",
                "Incompatible types for broadcasting")


def classify(error: BaseException) -> str:
    from jax._src.core import ShardingTypeError  # the oracle's own import: not exported by JAX

    text = str(error)
    if isinstance(error, ShardingTypeError):
        return "SC208"
    if isinstance(error, ValueError | AssertionError) and any(m in text for m in _SC209):
        return "SC209"
    if isinstance(error, ValueError) and any(m in text for m in _SC208_VALUE):
        return "SC208"
    return "other"


def run(built: Program) -> Ran:
    import jax

    namespace: dict[str, Any] = {}
    exec(compile(HEADER + built.mesh_line, "program.py", "exec"), namespace)
    types: dict[int, str] = {}
    with jax.set_mesh(namespace["mesh"]):
        for index, line in enumerate(built.body):
            try:
                exec(compile(line, "program.py", "exec"), namespace)
            except Exception as error:  # the program's own failure is the oracle's answer
                traceback.clear_frames(error.__traceback__)
                return Ran(types, index, classify(error), f"{type(error).__name__}: {str(error).splitlines()[0]}")
            value = namespace[line.split(" = ", 1)[0]]
            if inspect.isfunction(value):
                continue  # a function the program defines (`f = lambda x: ...`): no value to type
            types[index] = str(jax.typeof(value)).lstrip("~")
    return Ran(types, None, "ok")


@dataclass(frozen=True)
class Checked:
    codes: dict[int, set[str]]  # body index -> codes reported there
    types: dict[int, str | None]  # body index -> the typeof the checker infers, None: sharding unknown


def check(built: Program) -> Checked:
    source = built.source
    result = analyze_source("program.py", source, keep_types=True)
    assert result.error is None, result.error
    first = built.first_body_line
    codes: dict[int, set[str]] = {}
    for diagnostic in result.diagnostics:
        codes.setdefault(diagnostic.span.line - first, set()).add(str(diagnostic.code))
    lines = source.splitlines()
    types: dict[int, str | None] = {}
    for index in range(len(built.body)):
        line = first + index
        text = lines[line - 1]
        column = text.index(" = ") + 3
        found = [t.type for t in result.types
                 if t.span.line == line and t.span.column == column and t.span.end_line == line
                 and t.span.end_column == len(text)]
        known = found[0] if found else None
        types[index] = typeof(known) if known is not None and known.sharding is not None \
            and known.sharding.known and known.ellipsis is None else None
    return Checked(codes, types)


_TYPE = re.compile(r"^(?:[a-z0-9]+|\?)\[(.*)\]$")  # "?": a dtype the checker does not know


def same_sharding(checker: str, jax_type: str) -> bool:
    """Whether the dims and their splits agree (dtypes are another rule's)."""
    a, b = _TYPE.match(checker), _TYPE.match(jax_type)
    return a is not None and b is not None and a.group(1) == b.group(1)


@dataclass(frozen=True)
class Judged:
    expected: str  # JAX: ok, SC208, SC209, other
    reported: str  # checker at that statement (or anywhere before): clean, SC208, SC209, both
    false_reports: tuple[int, ...]  # statements JAX ran that the checker reported
    types_agreed: int
    types_unknown: int
    types_wrong: tuple[tuple[int, str, str], ...]  # (statement, checker, jax)


def judge(built: Program, ran: Ran, checked: Checked) -> Judged:
    upto = ran.failed if ran.failed is not None else len(built.body)
    false = tuple(i for i in range(upto) if checked.codes.get(i, set()) & set(SHARDING_CODES))
    at = checked.codes.get(ran.failed, set()) & set(SHARDING_CODES) if ran.failed is not None else set()
    reported = "clean" if not at else next(iter(at)) if len(at) == 1 else "both"
    agreed = unknown = 0
    wrong: list[tuple[int, str, str]] = []
    for index, jax_type in ran.types.items():
        mine = checked.types.get(index)
        if mine is None:
            unknown += 1
        elif same_sharding(mine, jax_type):
            agreed += 1
        else:
            wrong.append((index, mine, jax_type))
    return Judged(ran.verdict, reported, false, agreed, unknown, tuple(wrong))


def evaluate(built: Program) -> Judged:
    return judge(built, run(built), check(built))


def describe(built: Program, judged: Judged, ran: Ran | None = None) -> str:
    lines = [f"{i:2}: {line}" for i, line in enumerate(built.body)]
    return "\n".join([built.mesh_line, *lines, f"JAX: {judged.expected} {ran.error if ran else ''}",
                      f"checker: {judged.reported}, false reports at {judged.false_reports}, "
                      f"wrong types {judged.types_wrong}"])


def fails(judged: Judged) -> bool:
    """Whether the checker disagrees with JAX where the contract demands agreement."""
    if judged.false_reports or judged.types_wrong:
        return True
    if judged.expected in SHARDING_CODES:
        return judged.reported not in (judged.expected,)
    return False


Strategy = Callable[[Chooser], Program]

