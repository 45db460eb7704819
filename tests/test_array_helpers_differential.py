"""NumPy's array helpers that model code reaches for, against JAX: diagonal, trace, atleast_2d
and atleast_3d, meshgrid, broadcast_arrays, matrix_transpose (and `.mT`), append, inner, kron,
vecdot, linalg.matrix_power, convolve and correlate. Each drawn program calls one on
`jnp.zeros` of drawn shapes (of rank 0 to 3, sizes 0 to 4, so that empty and size-1 dims are
drawn too) with drawn axes and modes; several results are unpacked first. Where JAX accepts,
the checker reports nothing and infers the shape and dtype of `out`; where it raises, the
checker reports it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.differential import agree, cases

pytest.importorskip("jax")

CASES = cases(150)
CODES = frozenset({"SC101", "SC104", "SC106", "SC107"})

PROGRAM = """\
import jax.numpy as jnp

a = jnp.zeros({a}, {dtype})
b = jnp.zeros({b}, jnp.float32)
{body}
"""

SIZES = st.integers(0, 4)
NAMES = ("diagonal", "trace", "atleast_2d", "atleast_3d", "meshgrid", "broadcast_arrays", "matrix_transpose",
         ".mT", "append", "inner", "kron", "vecdot", "matrix_power", "convolve", "correlate")


def _tuple(items: list[int]) -> str:
    return "(" + "".join(f"{item}, " for item in items) + ")"


@st.composite
def shapes(draw: st.DrawFn, max_rank: int = 3) -> list[int]:
    return draw(st.lists(SIZES, max_size=max_rank))


@st.composite
def helper_programs(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(NAMES))
    a = draw(shapes())
    b = draw(shapes())
    dtype = draw(st.sampled_from(("jnp.float32", "jnp.int32", "jnp.bool_")))
    axis = st.integers(-4, 3)
    if draw(st.booleans()) and name in ("inner", "vecdot", "append", "broadcast_arrays", "kron"):
        b = list(a)  # often the same shape: the calls that succeed are drawn too
    if name in ("diagonal", "trace"):
        args = "".join(f", {key}={draw(value)}" for key, value in (("offset", st.integers(-3, 3)), ("axis1", axis),
                                                                    ("axis2", axis)) if draw(st.booleans()))
        body = f"out = jnp.{name}(a{args})"
    elif name in ("atleast_2d", "atleast_3d"):
        if draw(st.booleans()):
            body = f"out = jnp.{name}(a)"
        else:
            body = f"x, y = jnp.{name}(a, b)\nout = {draw(st.sampled_from(('x', 'y')))}"
    elif name == "meshgrid":
        if draw(st.integers(0, 3)):
            a, b = draw(st.lists(SIZES, min_size=1, max_size=1)), draw(st.lists(SIZES, min_size=1, max_size=1))
        indexing = draw(st.sampled_from(("", ", indexing='ij'", ", indexing='xy'")))
        sparse = draw(st.sampled_from(("", ", sparse=True", ", sparse=False")))
        body = f"x, y = jnp.meshgrid(a, b{indexing}{sparse})\nout = {draw(st.sampled_from(('x', 'y')))}"
    elif name == "broadcast_arrays":
        body = f"x, y = jnp.broadcast_arrays(a, b)\nout = {draw(st.sampled_from(('x', 'y')))}"
    elif name == "matrix_transpose":
        body = "out = jnp.matrix_transpose(a)"
    elif name == ".mT":
        body = "out = a.mT"
    elif name == "append":
        given = f", axis={draw(axis)}" if draw(st.booleans()) else ""
        body = f"out = jnp.append(a, b{given})"
    elif name == "vecdot":
        given = f", axis={draw(axis)}" if draw(st.booleans()) else ""
        body = f"out = jnp.vecdot(a, b{given})"
    elif name == "matrix_power":
        if draw(st.integers(0, 3)):
            n = draw(SIZES)
            a = [*draw(st.lists(SIZES, max_size=1)), n, n]
        body = f"out = jnp.linalg.matrix_power(a, {draw(st.integers(-2, 3))})"
    elif name in ("convolve", "correlate"):
        if draw(st.integers(0, 3)):
            a, b = draw(st.lists(SIZES, min_size=1, max_size=1)), draw(st.lists(SIZES, min_size=1, max_size=1))
        mode = draw(st.sampled_from(("", ", mode='full'", ", mode='same'", ", mode='valid'")))
        body = f"out = jnp.{name}(a, b{mode})"
    else:
        body = f"out = jnp.{name}(a, b)"
    if dtype == "jnp.bool_" and name in ("matrix_power", "convolve", "correlate", "inner", "vecdot", "kron"):
        dtype = "jnp.int32"  # JAX refuses some of these for booleans, for reasons apart from shape
    return PROGRAM.format(a=_tuple(a), dtype=dtype, b=_tuple(b), body=body)


@given(helper_programs())
@CASES
def test_array_helpers_agree_with_jax(program: str) -> None:
    agree(program, CODES)


@pytest.mark.parametrize(("a", "b", "body"), [
    ((3, 4), (1,), "out = jnp.diagonal(a, offset=-2)"),  # one element: (1,)
    ((3, 4), (1,), "out = jnp.diagonal(a, offset=7)"),  # past the matrix: (0,), not an error
    ((2, 3, 4), (1,), "out = jnp.diagonal(a, axis1=2, axis2=0)"),  # (3, 2)
    ((2, 3, 4), (1,), "out = jnp.diagonal(a, axis1=0, axis2=-3)"),  # one axis twice
    ((3,), (1,), "out = jnp.trace(a)"),
    ((2, 3, 4), (1,), "out = jnp.trace(a, axis1=1, axis2=2)"),
    ((5,), (1,), "out = jnp.atleast_3d(a)"),  # (1, 5, 1)
    ((3, 2), (4,), "x, y = jnp.meshgrid(a, b)\nout = x"),  # 2-d input
    ((3,), (4,), "x, y = jnp.meshgrid(a, b)\nout = x"),  # xy: (4, 3)
    ((3,), (4,), "x, y = jnp.meshgrid(a, b, indexing='ij', sparse=True)\nout = y"),  # (1, 4)
    ((3, 1), (4,), "x, y = jnp.broadcast_arrays(a, b)\nout = x"),
    ((3,), (4,), "x, y = jnp.broadcast_arrays(a, b)\nout = y"),
    ((3,), (1,), "out = a.mT"),
    ((2, 3), (4,), "out = jnp.append(a, b)"),  # flattened: (10,)
    ((2, 3), (4, 2), "out = jnp.append(a, b, axis=0)"),
    ((2, 3), (4, 2), "out = jnp.inner(a, b)"),
    ((2, 3), (4,), "out = jnp.kron(a, b)"),  # (2, 12)
    ((2, 1), (3,), "out = jnp.vecdot(a, b)"),  # a 1 is not stretched to 3
    ((2, 3), (5, 1, 3), "out = jnp.vecdot(a, b)"),  # (5, 2)
    ((3, 4), (1,), "out = jnp.linalg.matrix_power(a, 2)"),
    ((0,), (3,), "out = jnp.convolve(a, b)"),  # empty
    ((3,), (5,), "out = jnp.correlate(a, b, mode='same')"),  # (5,)
    ((3,), (1,), "parts = jnp.meshgrid()\nout = jnp.zeros((len(parts),))"),  # no inputs: no grids
    ((3,), (1,), "parts = jnp.broadcast_arrays()\nout = jnp.zeros((len(parts),))"),
    ((1, 3), (1,), "out = jnp.broadcast_arrays(a)[0]"),  # one array: itself
    ((0,), (0,), "out = jnp.vecdot(a, b)"),  # empty vectors: a 0-d sum
    ((), (1,), "out = jnp.kron(a, a)"),  # 0-d: 0-d
    ((1, 1), (1,), "out = jnp.trace(a)"),
])
def test_fixed_programs(a: tuple[int, ...], b: tuple[int, ...], body: str) -> None:
    agree(PROGRAM.format(a=_tuple(list(a)), dtype="jnp.float32", b=_tuple(list(b)), body=body), CODES)


@st.composite
def reduction_programs(draw: st.DrawFn) -> str:
    """Quantiles (q a scalar, a vector, or of rank 2, which JAX refuses), nanmedian, the array
    API's cumulative_sum and cumulative_prod, and rot90."""
    a = draw(st.lists(st.integers(1, 4), max_size=3))
    dtype = draw(st.sampled_from(("jnp.float32", "jnp.int32", "jnp.bool_")))
    name = draw(st.sampled_from(("quantile", "percentile", "nanquantile", "nanpercentile", "nanmedian",
                                 "cumulative_sum", "cumulative_prod", "rot90")))
    axis = f", axis={draw(st.integers(-len(a) - 1, len(a)))}" if draw(st.booleans()) else ""
    keep = ", keepdims=True" if draw(st.booleans()) else ""
    if name == "nanmedian":
        body = f"out = jnp.nanmedian(a{axis}{keep})"
    elif name.startswith("cumulative"):
        initial = ", include_initial=True" if draw(st.booleans()) else ""
        body = f"out = jnp.{name}(a{axis}{initial})"
    elif name == "rot90":
        plane = f", axes={(draw(st.integers(-2, 2)), draw(st.integers(-2, 2)))}" if draw(st.booleans()) else ""
        body = f"out = jnp.rot90(a, k={draw(st.integers(-1, 3))}{plane})"
    else:
        q = draw(st.sampled_from(("0.5", "jnp.zeros((3,))", "jnp.zeros((2, 2))", "jnp.zeros(())")))
        if dtype == "jnp.bool_":
            dtype = "jnp.float32"  # JAX's quantiles of booleans fail on the dtype, not the shape
        body = f"out = jnp.{name}(a, {q}{axis}{keep})"
    return PROGRAM.format(a=_tuple(a), dtype=dtype, b="(1, )", body=body)


@given(reduction_programs())
@CASES
def test_quantiles_and_cumulative_agree_with_jax(program: str) -> None:
    agree(program, CODES)


@st.composite
def pair_programs(draw: st.DrawFn) -> str:
    """gcd and lcm (integers only), frexp, modf and divmod (two results), allclose, array_equal
    and array_equiv (one boolean), ediff1d, partition and argpartition (kth within the axis),
    and jax.nn's log1mexp, sparse_sigmoid and logmeanexp."""
    a = draw(st.lists(st.integers(1, 4), max_size=3))
    b = draw(st.sampled_from((a[1:], a, draw(st.lists(st.integers(1, 4), max_size=3)))))
    dtype = draw(st.sampled_from(("jnp.float32", "jnp.int32")))
    name = draw(st.sampled_from(("gcd", "lcm", "frexp", "modf", "divmod", "allclose", "array_equal", "array_equiv",
                                 "ediff1d", "partition", "argpartition", "log1mexp", "sparse_sigmoid", "logmeanexp")))
    if name in ("gcd", "lcm", "allclose", "array_equal", "array_equiv"):
        body = f"out = jnp.{name}(a, b)"
    elif name in ("frexp", "modf"):
        body = f"first, second = jnp.{name}(a)\nout = {draw(st.sampled_from(('first', 'second')))}"
    elif name == "divmod":
        body = f"first, second = jnp.divmod(a, b)\nout = {draw(st.sampled_from(('first', 'second')))}"
    elif name == "ediff1d":
        extra = ", to_end=b" if draw(st.booleans()) else ""
        body = f"out = jnp.ediff1d(a{extra})"
    elif name in ("partition", "argpartition"):
        axis = f", axis={draw(st.integers(-len(a) - 1, len(a)))}" if draw(st.booleans()) else ""
        body = f"out = jnp.{name}(a, {draw(st.integers(-4, 4))}{axis})"
    elif name == "logmeanexp":
        axis = f", axis={draw(st.integers(-len(a) - 1, len(a)))}" if draw(st.booleans()) else ""
        body = f"out = jax.nn.logmeanexp(a{axis})"
    else:
        body = f"out = jax.nn.{name}(a)"
    b_dtype = draw(st.sampled_from((dtype, "jnp.float32")))
    return (f"import jax\nimport jax.numpy as jnp\n\na = jnp.zeros({_tuple(a)}, {dtype})\n"
            f"b = jnp.zeros({_tuple(b)}, {b_dtype})\n{body}\n")


@given(pair_programs())
@CASES
def test_pairs_and_comparisons_agree_with_jax(program: str) -> None:
    agree(program, CODES | {"SC301"})  # gcd and lcm of floats


@st.composite
def broadcasts_to(draw: st.DrawFn) -> str:
    """`jnp.broadcast_to(a, shape)`: a target drawn at random, or grown from `a`'s shape (leading
    dims added, size-1 dims widened), so that both the refusals and the acceptances are many."""
    a = draw(shapes())
    if draw(st.booleans()):
        target = draw(shapes(max_rank=4))
    else:
        target = [*draw(st.lists(SIZES, max_size=2)), *(draw(SIZES) if size == 1 else size for size in a)]
    return PROGRAM.format(a=_tuple(a), b="()", dtype="jnp.int32", body=f"out = jnp.broadcast_to(a, {_tuple(target)})")


@given(broadcasts_to())
@CASES
def test_broadcast_to_agrees_with_jax(program: str) -> None:
    """One way only: `(3,)` does not broadcast to `(1,)`, nor `(1, 1)` to `(1,)`, though an
    elementwise op would broadcast each pair."""
    agree(program, frozenset({"SC101"}))


@pytest.mark.parametrize(("a", "target"), [
    ("()", "()"), ("()", "(0,)"), ("(0,)", "(0,)"), ("(1,)", "(0,)"), ("(0,)", "(1,)"), ("(2, 3)", "(2, 3)"),
    ("(3,)", "(1,)"), ("(1, 1)", "(1,)"),
])
def test_broadcast_to_trivial_and_empty_shapes(a: str, target: str) -> None:
    """The same shape, a scalar, empty dims, and the two refusals an elementwise op would accept."""
    agree(PROGRAM.format(a=a, b="()", dtype="jnp.int32", body=f"out = jnp.broadcast_to(a, {target})"),
          frozenset({"SC101"}))


@st.composite
def broadcast_shapes(draw: st.DrawFn) -> str:
    """`jnp.broadcast_shapes` / `lax.broadcast_shapes` of drawn shapes, the result used as a
    shape (`jnp.zeros`) so that the oracle compares it."""
    given = [_tuple(draw(shapes())) for _ in range(draw(st.integers(1, 3)))]
    api = draw(st.sampled_from(["jnp", "jax.lax"]))
    return "import jax\n" + PROGRAM.format(a="()", b="()", dtype="jnp.int32",
                                           body=f"out = jnp.zeros({api}.broadcast_shapes({', '.join(given)}))")


@given(broadcast_shapes())
@CASES
def test_broadcast_shapes_agrees_with_jax(program: str) -> None:
    agree(program, frozenset({"SC101"}))


@pytest.mark.parametrize("given", ["", "()", "(1,), (0,)", "(3,), (1, 3)"])
def test_broadcast_shapes_trivial_and_empty_shapes(given: str) -> None:
    """No shape at all (jnp's gives `()`), a scalar's, an empty dim, and a size-1 dim."""
    agree("import jax.numpy as jnp\n" + f"out = jnp.zeros(jnp.broadcast_shapes({given}))\n")
