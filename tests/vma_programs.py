"""Random shard_map bodies for the differential test of varying manual axes (SC210).

A program builds a few values in a `jax.shard_map` body over a random mesh (its in_specs, the
manual axes of `axis_names=`, `check_vma=`) with the operations that change what a value varies
over (`psum`, `pmean`, `pmax`, `pmin`, `all_gather`, `axis_index`, `ppermute`, `pcast`,
constructors, arithmetic), and runs loops (`scan`, with and without `xs`, closing over varying
values; `fori_loop`; `while_loop`; tuple carries) and branches (`cond`, `switch`) over them, with
initial carries and branch outputs that may or may not vary as the body makes them. Every value
is a `float32[4,4]` block, so that only the varying axes can be wrong; the out_spec names every
manual axis, so that it never is.

The generator draws through a `choose` function: hypothesis's `draw(sampled_from(...))` in the
test (which then shrinks), `random.Random.choice` in the benchmark. `verdict` runs a program on
JAX (traced with `jax.eval_shape`: nothing is compiled) and `checked` through the checker, each
answering whether the program is refused for its varying axes.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeVar

T = TypeVar("T")
Choose = Callable[[Sequence[Any]], Any]

MESHES: tuple[tuple[tuple[int, ...], tuple[str, ...]], ...] = (
    ((8,), ("i",)), ((2, 4), ("X", "Y")), ((4, 2), ("a", "b")), ((2, 2, 2), ("x", "y", "z")))

Verdict = Literal["vma", "ok", "other"]


def subsets(names: Sequence[str]) -> list[tuple[str, ...]]:
    """Every non-empty ordered choice of `names` up to two (enough to mix)."""
    found: list[tuple[str, ...]] = [(n,) for n in names]
    found += [(a, b) for a in names for b in names if a != b]
    return found


class Program:
    """One random program, built statement by statement."""

    def __init__(self, choose: Choose, *, depth: int = 2, statements: int = 4) -> None:
        self.choose = choose
        self.shape, self.names = choose(MESHES)
        self.sizes = dict(zip(self.names, self.shape, strict=True))
        partial = len(self.names) > 1 and choose((False, False, True))
        picked: tuple[str, ...] = choose(subsets(self.names)) if partial else self.names
        self.manual = tuple(n for n in self.names if n in picked)
        self.check_vma = choose((True, True, True, True, False))
        self.depth = depth
        self.lines: list[str] = []
        self.pool = ["x", "y"]
        for _ in range(statements):
            self.statement()

    # ------------------------------------------------------------ pieces

    def axes(self) -> tuple[str, ...]:
        return self.choose(subsets(self.manual))

    def axis(self) -> str:
        return self.choose(self.manual)

    def axes_text(self, axes: tuple[str, ...]) -> str:
        if len(axes) == 1 and self.choose((True, False)):
            return repr(axes[0])
        return "(" + ", ".join(repr(a) for a in axes) + ("," if len(axes) == 1 else "") + ")"

    def var(self, pool: Sequence[str] | None = None) -> str:
        return self.choose(pool or self.pool)

    def expr(self, depth: int, pool: Sequence[str] | None = None) -> str:
        """A float32[4,4] expression over `pool`'s names."""
        v = self.var(pool)
        if depth <= 0:
            return self.choose((v, v, "jnp.zeros((4, 4))"))
        sub = self.expr(depth - 1, pool)
        kind = self.choose(("var", "zeros", "ones_like", "pcast", "reduce", "gather", "index", "permute",
                            "scale", "add", "where"))
        if kind == "var":
            return v
        if kind == "zeros":
            return self.choose(("jnp.zeros((4, 4))", "jnp.full((4, 4), 2.0)", "jnp.ones((4, 4))"))
        if kind == "ones_like":
            return f"jnp.ones_like({sub})"
        if kind == "pcast":
            return f"lax.pcast({sub}, {self.axes_text(self.axes())}, to='varying')"
        if kind == "reduce":
            op = self.choose(("psum", "pmean", "pmax", "pmin"))
            return f"lax.{op}({sub}, {self.axes_text(self.axes())})"
        if kind == "gather":
            return f"lax.all_gather({sub}, {self.axis()!r}, axis=0, tiled=True)[:4]"
        if kind == "index":
            return f"({sub} + lax.axis_index({self.axis()!r}))"
        if kind == "permute":
            axis = self.axis()
            n = self.sizes[axis]
            perm = [(j, (j + 1) % n) for j in range(n)]
            return f"lax.ppermute({sub}, {axis!r}, {perm!r})"
        if kind == "scale":
            return f"({sub} * 2.0)"
        other = self.expr(depth - 1, pool)
        if kind == "add":
            return f"({sub} + {other})"
        return f"jnp.where({sub} > 0, {sub}, {other})"

    def init(self, shape: str = "(4, 4)") -> str:
        """An initial carry: fresh (varying over nothing), cast, or a value of the body."""
        kind = self.choose(("zeros", "pcast", "var", "zeros_like", "scalar"))
        if kind == "zeros" or (kind == "scalar" and shape != "(4, 4)"):
            return f"jnp.zeros({shape})"
        if kind == "pcast":
            return f"lax.pcast(jnp.zeros({shape}), {self.axes_text(self.axes())}, to='varying')"
        if kind == "scalar":
            return "jnp.zeros((4, 4)) + 1.0"
        v = self.var()
        if shape != "(4, 4)":
            return f"{v}[0]"
        return v if kind == "var" else f"jnp.zeros_like({v})"

    def step(self, carry: str) -> str:
        """What a loop's body makes of its carry (closing over the body's values)."""
        kind = self.choose(("add", "add", "replace", "reduce", "keep"))
        if kind == "add":
            return f"{carry} + {self.expr(self.depth - 1)}"
        if kind == "replace":
            return self.expr(self.depth - 1)
        if kind == "reduce":
            return f"lax.psum({carry}, {self.axes_text(self.axes())})"
        return f"{carry} * 2.0"

    # ------------------------------------------------------------ statements

    def statement(self) -> None:
        name = f"v{len(self.pool) - 2}"
        kind = self.choose(("expr", "scan", "scan_xs", "fori", "while", "tuple", "cond", "cond_operand",
                            "switch"))
        if kind == "expr":
            line = f"{name} = {self.expr(self.depth)}"
        elif kind == "scan":
            line = f"{name} = lax.scan(lambda c, _: ({self.step('c')}, None), {self.init()}, None, length=2)[0]"
        elif kind == "scan_xs":
            v = self.var()
            line = f"{name} = {v} * lax.scan(lambda c, r: (c + r, None), {self.init('(4,)')}, {self.var()})[0]"
        elif kind == "fori":
            line = f"{name} = lax.fori_loop(0, 2, lambda i, c: {self.step('c')}, {self.init()})"
        elif kind == "while":
            line = (f"{name} = lax.while_loop(lambda c: jnp.sum(c) > 1e9, lambda c: {self.step('c')}, "
                    f"{self.init()})")
        elif kind == "tuple":
            line = (f"{name}, _ = lax.fori_loop(0, 2, lambda i, c: ({self.step('c[0]')}, {self.step('c[1]')}), "
                    f"({self.init()}, {self.init()}))")
        elif kind == "cond":
            line = f"{name} = lax.cond({self.pred()}, lambda: {self.expr(self.depth - 1)}, lambda: {self.expr(self.depth - 1)})"
        elif kind == "cond_operand":
            pool = [*self.pool, "o", "o"]
            line = (f"{name} = lax.cond({self.pred()}, lambda o: {self.expr(self.depth - 1, pool)}, "
                    f"lambda o: {self.expr(self.depth - 1, pool)}, {self.var()})")
        else:
            branches = ", ".join(f"lambda: {self.expr(self.depth - 1)}" for _ in range(self.choose((2, 3))))
            line = f"{name} = lax.switch(1, [{branches}])"
        self.lines.append(line)
        self.pool.append(name)

    def pred(self) -> str:
        return self.choose(("True", f"jnp.sum({self.var()}) > 0"))

    # ------------------------------------------------------------ the program

    def spec(self) -> tuple[str, tuple[int, int]]:
        """An in_spec over the manual axes, and the global shape whose block is (4, 4)."""
        free = list(self.manual)
        entries: list[str] = []
        dims = []
        for _ in range(2):
            taken = tuple(a for a in free if self.choose((False, True)))
            free = [a for a in free if a not in taken]
            entries.append("None" if not taken else repr(taken[0]) if len(taken) == 1 else repr(taken))
            size = 4
            for a in taken:
                size *= self.sizes[a]
            dims.append(size)
        return f"P({', '.join(entries)})", (dims[0], dims[1])

    def source(self) -> str:
        (x_spec, x_shape), (y_spec, y_shape) = self.spec(), self.spec()
        out_axes = tuple(n for n in self.names if n in self.manual)
        options = "" if self.check_vma else ", check_vma=False"
        if self.manual != self.names:
            options += ", axis_names={" + ", ".join(repr(n) for n in self.manual) + "}"
        body = textwrap.indent("\n".join([*self.lines, f"return {self.pool[-1]}"]), "    ")
        types = ", ".join(["jax.sharding.AxisType.Auto"] * len(self.names)) + ("," if len(self.names) == 1 else "")
        return (
            "import jax\n"
            "import jax.numpy as jnp\n"
            "from jax import lax\n"
            "from jax.sharding import PartitionSpec as P\n\n"
            f"mesh = jax.make_mesh({self.shape!r}, {self.names!r}, axis_types=({types}))\n\n\n"
            f"def body(x, y):\n{body}\n\n\n"
            f"out = jax.shard_map(body, mesh=mesh, in_specs=({x_spec}, {y_spec}), out_specs=P({out_axes!r}){options})"
            f"(jnp.ones({x_shape!r}), jnp.ones({y_shape!r}))\n")


VMA_ERRORS = ("manual axis types do not match", "Unsupported pcast from=varying",
              "can only accept axis_name which corresponds to one of varying")


def verdict(source: str) -> tuple[Verdict, str]:
    """What JAX says of the program: refused for its varying axes, accepted, or refused otherwise
    (with the first line of the error)."""
    import jax

    namespace: dict[str, Any] = {}
    body = "def program():\n" + textwrap.indent(source, "    ") + "    return out\n"
    exec(compile(body, "program.py", "exec"), namespace)
    try:
        jax.eval_shape(namespace["program"])
    except Exception as error:  # the program's own failure is the oracle's answer
        text = str(error)
        kind: Verdict = "vma" if any(marker in text for marker in VMA_ERRORS) else "other"
        return kind, f"{type(error).__name__}: {text.splitlines()[0] if text else ''}"
    return "ok", ""


def checked(source: str) -> tuple[Verdict, list[str]]:
    """What the checker says of the program: SC210, nothing, or other codes (with the messages)."""
    from shapecheck.api import analyze_source

    result = analyze_source("program.py", source)
    assert result.error is None, result.error
    codes = {d.code for d in result.diagnostics}
    shown = [f"{d.span.line}: {d.code} {d.message}" for d in result.diagnostics]
    if not codes:
        return "ok", shown
    return ("vma" if codes == {"SC210"} else "other"), shown


def fixed(source: str) -> str:
    """The program after `shapecheck check --fix`'s passes over it."""
    from shapecheck.api import analyze_source
    from shapecheck.fixes import MAX_PASSES, apply

    text = source
    for _ in range(MAX_PASSES):
        diagnostics = analyze_source("program.py", text).diagnostics
        applied = apply("program.py", text, diagnostics, unsafe=False)
        if applied.text == text:
            break
        text = applied.text
    return text
