"""einops against the real thing: drawn shapes and patterns for rearrange, repeat, reduce,
einsum, pack and unpack, some of them planted wrong. einops runs each program on JAX arrays
(under `jax.eval_shape`); the checker analyses the same text. It must report nothing where einops
accepts the call and infer the shape it gives, and where einops raises, report the code that
error means (`expected_code`): a malformed or misfitting pattern SC003, a dim a group cannot
be split into SC105 (or SC102 for one axis given a length the input contradicts), einsum's
contracted sizes SC104, pack's named dims SC101."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.differential import check, trace

pytest.importorskip("jax")
pytest.importorskip("einops")

CASES = settings(max_examples=120, deadline=None, derandomize=True, database=None,
                 suppress_health_check=list(HealthCheck))

# What each einops (or JAX) refusal means, by its message: the code the checker must give.
_MEANINGS = (
    ("can't divide axis", {"SC105"}),
    ("Shape mismatch", {"SC105", "SC102"}),
    ("could not split axis", {"SC105"}),
    ("Size of label", {"SC104"}),
    ("Cannot concatenate", {"SC101"}),
)


def expected_code(error: BaseException) -> set[str]:
    """The codes that may report what einops raised: SC003 unless the message says sizes."""
    text = str(error)
    for fragment, codes in _MEANINGS:
        if fragment in text:
            return codes
    return {"SC003"}


def agree_with_einops(program: str) -> bool:
    """The checker and einops agree on `program`; True where einops accepted it."""
    checked = check(program)
    traced = trace(program)
    codes = set(checked.codes)
    if isinstance(traced, BaseException):
        wanted = expected_code(traced)
        assert codes and codes <= wanted, \
            f"einops raises {type(traced).__name__}: {traced}\nthe checker reports {codes}, not {wanted}:\n{program}"
        return False
    assert not codes, f"einops accepts (out: {traced.shape}), the checker reports {codes}:\n{program}"
    inferred = checked.type
    assert inferred is not None and inferred.dims == tuple(traced.shape), \
        f"inferred {inferred}, einops {traced.shape}:\n{program}"
    return True


HEADER = "import jax.numpy as jnp\nimport einops\n"
NAMES = ("a", "b", "c", "d", "e")


def _text(entries: list[list[str] | str]) -> str:
    return " ".join(e if isinstance(e, str) else e[0] if len(e) == 1 else f"({' '.join(e)})" for e in entries)


@st.composite
def _grouping(draw: st.DrawFn, axes: list[str]) -> list[list[str] | str]:
    """`axes` in a drawn order, cut into groups (a group of one is a bare axis)."""
    order = draw(st.permutations(axes))
    entries: list[list[str] | str] = []
    for axis in order:
        if entries and not isinstance(entries[-1], str) and draw(st.integers(0, 2)) == 0:
            entries[-1].append(axis)
        else:
            entries.append([axis])
    return entries


_MUTATIONS = ("none", "none", "none", "length", "dim", "rank", "drop", "duplicate", "unused", "forget",
              "syntax", "numeric")
_BAD_TOKENS = ("(", ")", "a.b", "_x", "y_", "0", "((b))", "a-b", "... ...", "->")


@st.composite
def transforms(draw: st.DrawFn) -> str:
    operation = draw(st.sampled_from(("rearrange", "repeat", "reduce")))
    axes = list(NAMES[:draw(st.integers(1, 4))])
    sizes = {axis: draw(st.integers(1, 4)) for axis in axes}
    left = draw(_grouping(axes))
    ellipsis = draw(st.integers(0, 3)) == 0
    extra = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    if draw(st.integers(0, 4)) == 0:
        left.insert(draw(st.integers(0, len(left))), draw(st.sampled_from(("1", "()"))))
    dims = [1 if isinstance(e, str) else math.prod(sizes[a] for a in e) for e in left]
    if ellipsis:
        at = draw(st.integers(0, len(left)))
        left.insert(at, "...")
        dims[at:at] = extra
    lengths = {}
    for entry in left:
        if not isinstance(entry, str) and len(entry) > 1:
            for axis in entry[:-1] if draw(st.booleans()) else entry:
                lengths[axis] = sizes[axis]
    kept = axes if operation != "reduce" else draw(st.lists(st.sampled_from(axes), unique=True))
    right = draw(_grouping(list(kept))) if kept else []
    if ellipsis and (operation != "reduce" or draw(st.booleans())):
        right.insert(draw(st.integers(0, len(right))), "..." if draw(st.booleans()) else ["..."])
    if operation == "repeat":
        for new in draw(st.lists(st.sampled_from(("r", "s", "2", "3")), unique=True, max_size=2)):
            right.insert(draw(st.integers(0, len(right))), [new])
            if new.isalpha():
                lengths[new] = draw(st.integers(1, 3))
    if draw(st.booleans()):
        right.insert(draw(st.integers(0, len(right))), "1")
    mutation = draw(st.sampled_from(_MUTATIONS))
    if mutation == "length" and lengths:
        axis = draw(st.sampled_from(sorted(lengths)))
        lengths[axis] += draw(st.sampled_from((1, 2)))
    elif mutation == "dim" and dims:
        at = draw(st.integers(0, len(dims) - 1))
        dims[at] += 1
    elif mutation == "rank":
        if dims and draw(st.booleans()):
            dims.pop()
        else:
            dims.append(2)
    elif mutation == "drop" and right:
        right.pop(draw(st.integers(0, len(right) - 1)))
    elif mutation == "duplicate" and axes:
        right.append([draw(st.sampled_from(axes))])
    elif mutation == "unused":
        lengths["z"] = 2
    elif mutation == "forget" and lengths:
        del lengths[draw(st.sampled_from(sorted(lengths)))]
    elif mutation == "numeric":
        right.append("2")
    pattern = f"{_text(left)} -> {_text(right)}"
    if mutation == "syntax":
        words = pattern.split(" ")
        words.insert(draw(st.integers(0, len(words))), draw(st.sampled_from(_BAD_TOKENS)))
        pattern = " ".join(words)
    options = "".join(f", {name}={size}" for name, size in lengths.items())
    reduction = f", {draw(st.sampled_from(('sum', 'max', 'mean', 'any', 'prod')))!r}" if operation == "reduce" else ""
    return f"x = jnp.zeros({tuple(dims)!r})\nout = einops.{operation}(x, {pattern!r}{reduction}{options})"


@CASES
@given(transforms())
def test_rearrange_repeat_reduce_agree_with_einops(program: str) -> None:
    agree_with_einops(HEADER + program)


@st.composite
def einsums(draw: st.DrawFn) -> str:
    axes = list(NAMES[:draw(st.integers(1, 4))])
    sizes = {axis: draw(st.integers(1, 4)) for axis in axes}
    count = draw(st.integers(1, 3))
    terms = [draw(st.lists(st.sampled_from(axes), min_size=1, max_size=3, unique=True)) for _ in range(count)]
    used = sorted({a for term in terms for a in term})
    output = draw(st.lists(st.sampled_from(used), unique=True))
    shapes = [[sizes[a] for a in term] for term in terms]
    mutation = draw(st.sampled_from(("none", "none", "size", "output", "rank", "operands", "syntax")))
    if mutation == "size":
        shapes[0][0] += 1
    elif mutation == "output":
        output.append("z")
    elif mutation == "rank":
        shapes[-1].append(2)
    elif mutation == "operands":
        terms.append(["a"])
    pattern = f"{', '.join(' '.join(t) for t in terms)} -> {' '.join(output)}"
    if mutation == "syntax":
        pattern = pattern.replace(" ->", draw(st.sampled_from((" (a) ->", ",", " 2 ->", " -> -> "))), 1)
    inputs = "".join(f"x{i} = jnp.zeros({tuple(shape)!r})\n" for i, shape in enumerate(shapes))
    operands = ", ".join(f"x{i}" for i in range(len(shapes)))
    return f"{inputs}out = einops.einsum({operands}, {pattern!r})"


@CASES
@given(einsums())
def test_einsum_agrees_with_einops(program: str) -> None:
    agree_with_einops(HEADER + program)


@st.composite
def packs(draw: st.DrawFn) -> str:
    before = list(NAMES[:draw(st.integers(0, 2))])
    after = ["e"] if draw(st.booleans()) else []
    outer = [draw(st.integers(1, 3)) for _ in before + after]
    arrays = []
    for _ in range(draw(st.integers(1, 3))):
        inner = draw(st.lists(st.integers(1, 3), max_size=2))
        dims = outer[:len(before)] + inner + outer[len(before):]
        if dims and draw(st.integers(0, 5)) == 0:
            dims[draw(st.integers(0, len(dims) - 1))] += 1  # planted: a named dim differs
        arrays.append(tuple(dims))
    pattern = " ".join([*before, "*", *after])
    if draw(st.integers(0, 6)) == 0:
        pattern = draw(st.sampled_from(("a b", "* *", "a (b) *", "a a *", "... *")))
    inputs = "".join(f"x{i} = jnp.zeros({shape!r})\n" for i, shape in enumerate(arrays))
    listed = ", ".join(f"x{i}" for i in range(len(arrays)))
    if draw(st.booleans()):
        return f"{inputs}out = einops.pack([{listed}], {pattern!r})[0]"
    # Unpack what pack gave, or with shapes written by hand (some wrong).
    shapes = f"einops.pack([{listed}], {pattern!r})[1]"
    if draw(st.booleans()):
        written = [tuple(draw(st.lists(st.integers(1, 3), max_size=2))) for _ in arrays]
        if draw(st.booleans()):
            at = draw(st.integers(0, len(written) - 1))
            written[at] = (*written[at], -1)
        shapes = repr(written)
    return f"{inputs}packed = einops.pack([{listed}], {pattern!r})[0]\n" \
           f"out = einops.unpack(packed, {shapes}, {pattern!r})[{draw(st.integers(0, len(arrays) - 1))}]"


@CASES
@given(packs())
def test_pack_and_unpack_agree_with_einops(program: str) -> None:
    agree_with_einops(HEADER + program)


@pytest.mark.parametrize("call", [
    # The trivially valid: identity, size-1 dims, scalars, empty groups.
    "einops.rearrange(jnp.zeros((3,)), 'a -> a')",
    "einops.rearrange(jnp.zeros(()), ' -> ')",
    "einops.rearrange(jnp.zeros((1,)), '1 -> ')",
    "einops.rearrange(jnp.zeros((2, 1)), 'a () -> a')",
    "einops.rearrange(jnp.zeros((2, 3)), '... -> ...')",
    "einops.repeat(jnp.zeros(()), ' -> r', r=1)",
    "einops.reduce(jnp.zeros((2, 3)), 'a b -> ', 'max')",
    "einops.reduce(jnp.zeros((4, 3)), '(a 2) b -> a b', 'max')",
    "einops.reduce(jnp.zeros((4, 3)), 'a b -> a', reduction='sum')",
    "einops.rearrange(jnp.zeros((2, 12)), 'b (h d) -> b h d', h=3)",
    "einops.rearrange(jnp.zeros((2, 3, 4)), 'b ... -> b (...)')",
    "einops.einsum(jnp.zeros((3, 3)), 'a a -> a')",
    "einops.einsum(jnp.zeros((2, 3)), jnp.zeros((1, 4)), 'a b, b c -> a c')",
    "einops.pack([jnp.zeros((2, 3)), jnp.zeros((2,))], 'a *')[0]",
    "einops.unpack(jnp.zeros((2, 7)), [(3,), (-1,)], 'b *')[1]",
    # Planted: each one einops refuses.
    "einops.rearrange(jnp.zeros((2, 12)), 'b (h d) -> b h d', h=5)",
    "einops.rearrange(jnp.zeros((2, 12)), 'b (h d) -> b h d')",
    "einops.rearrange(jnp.zeros((2, 12)), 'b d -> b d', d=10)",
    "einops.rearrange(jnp.zeros((2, 12)), 'b d -> d')",
    "einops.rearrange(jnp.zeros((2, 12)), 'b d c -> d b c')",
    "einops.rearrange(jnp.zeros((2, 12)), 'b d -> b (d d)')",
    "einops.rearrange(jnp.zeros((2, 12)), 'b (d -> b d')",
    "einops.rearrange(jnp.zeros((2, 12)), 'b d')",
    "einops.repeat(jnp.zeros((2, 12)), 'b d -> b d r')",
    "einops.reduce(jnp.zeros((2, 12)), 'b d -> b', 'median')",
    "einops.reduce(jnp.zeros((2, 12)), 'b d -> b r', 'sum', r=2)",
    "einops.einsum(jnp.zeros((2, 3)), jnp.zeros((4, 5)), 'a b, b c -> a c')",
    "einops.einsum(jnp.zeros((2, 3)), 'a b -> a c')",
    "einops.pack([jnp.zeros((2, 3)), jnp.zeros((3, 3))], 'a *')[0]",
    "einops.unpack(jnp.zeros((2, 7)), [(3,), (5,)], 'b *')[0]",
])
def test_edge_cases_agree_with_einops(call: str) -> None:
    agree_with_einops(f"{HEADER}out = {call}")


def test_unknown_sizes_are_never_reported() -> None:
    """A parameter without an annotation has an unknown shape: no pattern fits it wrongly."""
    program = HEADER + "def f(x, h):\n    return einops.rearrange(x, 'b (h d) -> b h d', h=h)\n"
    assert check(program + "out = 1").codes == ()
    # Called with known values, the call is checked with them: 12 is not a multiple of 5.
    assert check(program + "out = f(jnp.zeros((2, 12)), 5)").codes == ("SC105",)
    # A malformed pattern is wrong whatever the input.
    assert check(HEADER + "def f(x):\n    return einops.rearrange(x, 'b d -> b')\nout = 1").codes == ("SC003",)


def test_symbols_flow_through_patterns() -> None:
    program = (
        "from shapecheck import f32\nimport einops\n"
        "def f(x: f32[('B', 'T', 'D')]) -> f32[('B', 'T', 8, None)]:\n"
        "    return einops.rearrange(x, 'b t (h d) -> b t h d', h=8)\n"
        "def g(x: f32[('B', 'T', 'D')]) -> f32[('T', 'B', 'D')]:\n"
        "    return einops.rearrange(x, 'b t d -> t b d')\n"
        "out = 1\n")
    assert check(program).codes == ()
    swapped = program.replace("f32[('T', 'B', 'D')]:", "f32[('B', 'T', 'D')]:")
    assert check(swapped).codes == ("SC103",)


def test_the_messages_name_the_pattern_and_sizes() -> None:
    from shapecheck.api import analyze_source

    source = HEADER + "x = jnp.zeros((2, 12))\ny = einops.rearrange(x, 'b (h d) -> b h d', h=5)\n"
    (diagnostic,) = analyze_source("t.py", source).diagnostics
    assert diagnostic.code == "SC105" and diagnostic.span.line == 4
    assert re.search(r"'b \(h d\) -> b h d'.*12.*5", diagnostic.message), diagnostic.message
