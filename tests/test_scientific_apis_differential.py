"""jax.scipy's scientific helpers against JAX: signal's convolutions (convolve, correlate,
convolve2d, correlate2d, fftconvolve), multivariate_normal's densities, jnp.histogram's
weights, ndimage.map_coordinates, optimize.minimize and experimental.ode.odeint, on
`jnp.zeros` of drawn shapes (rank 0 to 3, sizes 1 to 4, some empty) with drawn modes, methods,
coordinates and functions. Where JAX accepts, the checker reports nothing and infers the shape
and dtype of `out`; where it raises, the checker reports it. Plus unit tests of the rules."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shapecheck.algebra import interpolation, signal, solvers, statistics
from shapecheck.codes import Code
from shapecheck.types import ArrayType
from tests.differential import agree, cases, shape_literal

pytest.importorskip("jax")

SIZES = st.integers(1, 4)
SHAPES = st.lists(SIZES, max_size=3)
HEADER = ("import jax\nimport jax.numpy as jnp\nfrom jax.scipy import signal, stats\n"
          "from jax.scipy.ndimage import map_coordinates\nfrom jax.scipy.optimize import minimize\n"
          "from jax.experimental.ode import odeint\n\n")


def _zeros(shape: list[int], dtype: str = "jnp.float32") -> str:
    return f"jnp.zeros({shape_literal(shape)}, {dtype})"


def _agree(body: str, codes: frozenset[str]) -> None:
    agree(HEADER + body + "\n", codes)


# ---------------------------------------------------------------- jax.scipy.signal

SIGNAL_CODES = frozenset({Code.AXIS_OUT_OF_RANGE, Code.SIZE_ARGUMENT_MISMATCH})


@st.composite
def signal_programs(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(("convolve", "correlate", "convolve2d", "correlate2d", "fftconvolve")))
    method = draw(st.sampled_from((None, "auto", "direct", "fft"))) if name in ("convolve", "correlate") else None
    rank = 2 if name.endswith("2d") and draw(st.integers(0, 4)) else draw(st.integers(0, 3))
    # Empty inputs: the direct method refuses them; what the FFT makes of them is not followed.
    empty = draw(st.integers(0, 9)) == 0 and name != "fftconvolve" and method != "fft"
    first = draw(st.lists(st.integers(0 if empty else 1, 4), min_size=rank, max_size=rank))
    if draw(st.booleans()):  # one no larger than the other along every axis: what the direct method needs
        second = [draw(st.integers(1, size)) if size else 1 for size in first]
    else:
        other = rank if draw(st.integers(0, 5)) else draw(st.integers(0, 3))
        second = draw(st.lists(SIZES, min_size=other, max_size=other))
    if draw(st.booleans()):
        first, second = second, first
    options = []
    mode = draw(st.sampled_from((None, "full", "same", "valid")))
    if mode is not None:
        options.append(f"mode={mode!r}")
    if method is not None:
        options.append(f"method={method!r}")
    dtype = draw(st.sampled_from(("jnp.float32", "jnp.int32", "jnp.float16")))
    arguments = ", ".join([_zeros(first, dtype), _zeros(second), *options])
    return f"out = signal.{name}({arguments})"


@given(signal_programs())
@cases(150)
def test_signal_agrees_with_jax(body: str) -> None:
    _agree(body, SIGNAL_CODES)


@pytest.mark.parametrize("body", [
    "out = signal.convolve2d(jnp.zeros((50, 40)), jnp.ones((3, 3)), mode='valid')",  # (48, 38)
    "out = signal.convolve2d(jnp.zeros((3, 3)), jnp.ones((50, 40)), mode='same')",  # in1's shape: (3, 3)
    "out = signal.correlate2d(jnp.zeros((2, 3)), jnp.ones((5, 4)), mode='valid')",  # swapped: (4, 2)
    "out = signal.convolve(jnp.zeros(()), jnp.zeros(()))",  # 0-d: ()
    "out = signal.convolve(jnp.zeros((1,)), jnp.zeros((1,)))",  # size 1, the default mode
    "out = signal.convolve(jnp.zeros((3, 3)), jnp.zeros((3, 5)), mode='valid')",  # equal along one axis: (1, 3)
    "out = signal.convolve(jnp.zeros((3, 2)), jnp.zeros((1, 4)), method='fft')",  # fft: no containment outside valid
    "out = signal.convolve(jnp.zeros((3, 2)), jnp.zeros((1, 4)))",  # direct: one must hold the other
    "out = signal.convolve2d(jnp.zeros((3,)), jnp.zeros((3, 3)))",  # 2-d only
    "out = signal.convolve(jnp.zeros((5, 4)), jnp.zeros((2,)))",  # ranks differ
    "out = signal.convolve(jnp.zeros((0,)), jnp.zeros((3,)))",  # empty
    "out = signal.fftconvolve(jnp.zeros((5, 4)), jnp.zeros((7, 2)), mode='valid')",
    "out = signal.convolve(jnp.zeros((5,), jnp.int32), jnp.zeros((3,), jnp.int32))",  # float32
])
def test_signal_fixed_programs(body: str) -> None:
    _agree(body, SIGNAL_CODES)


# ---------------------------------------------------------------- multivariate_normal

MVN_CODES = frozenset({Code.BROADCAST_MISMATCH, Code.CONTRACTION_MISMATCH, Code.AXIS_OUT_OF_RANGE})


@st.composite
def multivariate_normal_programs(draw: st.DrawFn) -> str:
    n = draw(SIZES)
    batch = draw(st.lists(SIZES, max_size=2))
    mean = draw(st.sampled_from(([], [n], [n], [*batch[-1:], n], [draw(SIZES)])))
    x = draw(st.sampled_from(([*batch, n], [*batch, n], [n], [], [*batch, 1], [*batch, draw(SIZES)])))
    cov = draw(st.sampled_from(([n, n], [n, n], [], [*batch[:1], n, n], [draw(SIZES), draw(SIZES)], [n],
                                draw(SHAPES))))
    function = draw(st.sampled_from(("logpdf", "pdf")))
    return f"out = stats.multivariate_normal.{function}({_zeros(x)}, {_zeros(mean)}, {_zeros(cov)})"


@given(multivariate_normal_programs())
@cases(150)
def test_multivariate_normal_agrees_with_jax(body: str) -> None:
    _agree(body, MVN_CODES)


@pytest.mark.parametrize("body", [
    "out = stats.multivariate_normal.logpdf(jnp.ones((100, 3)), jnp.zeros(3), jnp.eye(100))",
    "out = stats.multivariate_normal.logpdf(jnp.ones((100, 3)), jnp.zeros(3), jnp.cov(jnp.ones((100, 3))))",
    "out = stats.multivariate_normal.logpdf(jnp.ones((100, 3)), jnp.zeros(3), jnp.eye(3))",  # (100,)
    "out = stats.multivariate_normal.pdf(jnp.ones((100, 3)), jnp.zeros(3), 2.0)",  # a scalar variance
    "out = stats.multivariate_normal.logpdf(jnp.ones((100, 3)), 0.0, 1.0)",  # 0-d mean: elementwise (100, 3)
    "out = stats.multivariate_normal.logpdf(jnp.ones((100, 3)), jnp.zeros(3), jnp.ones((3,)))",  # 1-d cov
    "out = stats.multivariate_normal.logpdf(jnp.ones((100, 3)), jnp.zeros(1), jnp.eye(1))",  # core dim 3 vs 1
    "out = stats.multivariate_normal.logpdf(jnp.ones((5, 1, 3)), jnp.zeros((2, 3)), jnp.ones((4, 1, 1, 3, 3)))",
    "out = stats.multivariate_normal.logpdf(jnp.ones((4, 3)), jnp.zeros((3,)), jnp.ones((5, 3, 3)))",
    "out = stats.multivariate_normal.logpdf(jnp.ones(()), jnp.zeros((1,)), jnp.eye(1))",  # size 1: ()
    "out = stats.multivariate_normal.logpdf(jnp.ones((4, 0)), jnp.zeros(0), jnp.eye(0))",  # empty vectors: (4,)
])
def test_multivariate_normal_fixed_programs(body: str) -> None:
    _agree(body, MVN_CODES)


# ---------------------------------------------------------------- histogram's weights

@st.composite
def histogram_programs(draw: st.DrawFn) -> str:
    shape = draw(SHAPES)
    weights = draw(st.sampled_from((shape, shape, draw(SHAPES), shape[1:], [*shape, 1])))
    dtype = draw(st.sampled_from(("jnp.float32", "jnp.int32")))
    part = draw(st.sampled_from(("counts", "edges")))
    return (f"counts, edges = jnp.histogram({_zeros(shape, dtype)}, bins={draw(SIZES)}, "
            f"weights={_zeros(weights, draw(st.sampled_from(('jnp.float32', 'jnp.float16', 'jnp.int32'))))})\n"
            f"out = {part}")


@given(histogram_programs())
@cases(60)
def test_histogram_weights_agree_with_jax(body: str) -> None:
    _agree(body, frozenset({Code.BROADCAST_MISMATCH}))


@pytest.mark.parametrize("body", [
    "counts, edges = jnp.histogram(jnp.ones(10), bins=5, weights=jnp.ones(4))\nout = counts",
    "counts, edges = jnp.histogram(jnp.ones(10), bins=5, weights=jnp.ones(10))\nout = counts",
    "counts, edges = jnp.histogram(jnp.ones((1,)), weights=jnp.ones((1,)))\nout = counts",  # size 1, default bins
    "counts, edges = jnp.histogram(jnp.ones((2, 3)), bins=4, weights=jnp.ones((3,)))\nout = counts",  # no broadcast
])
def test_histogram_fixed_programs(body: str) -> None:
    _agree(body, frozenset({Code.BROADCAST_MISMATCH}))


# ---------------------------------------------------------------- map_coordinates

COORDINATE_CODES = frozenset({Code.AXIS_OUT_OF_RANGE, Code.BROADCAST_MISMATCH})


@st.composite
def map_coordinates_programs(draw: st.DrawFn) -> str:
    image = draw(st.lists(st.integers(2, 4), min_size=1, max_size=3))
    count = len(image) if draw(st.integers(0, 3)) else draw(st.integers(1, 4))
    points = draw(SHAPES)
    if draw(st.booleans()):
        coordinates = _zeros([count, *points])
    else:
        shapes = [draw(st.sampled_from((points, points, points[1:], draw(SHAPES)))) for _ in range(count)]
        coordinates = "[" + ", ".join(_zeros(shape) for shape in shapes) + "]"
    order = draw(st.sampled_from((0, 1)))
    mode = draw(st.sampled_from(("", ", mode='nearest'", ", mode='wrap'", ", mode='mirror'", ", mode='reflect'")))
    dtype = draw(st.sampled_from(("jnp.float32", "jnp.int32", "jnp.float16")))
    return f"out = map_coordinates({_zeros(image, dtype)}, {coordinates}, order={order}{mode})"


@given(map_coordinates_programs())
@cases(100)
def test_map_coordinates_agrees_with_jax(body: str) -> None:
    _agree(body, COORDINATE_CODES)


@pytest.mark.parametrize("body", [
    "out = map_coordinates(jnp.ones((8, 8, 8)), jnp.ones((10, 3)), order=1)",  # points along the wrong axis
    "out = map_coordinates(jnp.ones((8, 8, 8)), jnp.ones((3, 10)), order=1)",  # (10,)
    "out = map_coordinates(jnp.ones((8,)), jnp.ones((1,)), order=0)",  # one point, one dim: ()
    "out = map_coordinates(jnp.ones((8, 8)), [jnp.ones((10,)), jnp.ones((3,))], order=1)",  # cannot broadcast
    "out = map_coordinates(jnp.ones((8, 8)), [jnp.ones((2, 1)), jnp.ones((5,))], 1, 'wrap', 2.0)",  # (2, 5)
])
def test_map_coordinates_fixed_programs(body: str) -> None:
    _agree(body, COORDINATE_CODES)


# ---------------------------------------------------------------- minimize and odeint

# SC101: what the program's own function computes on what the solver hands it (`-a * y`).
SOLVER_CODES = frozenset({Code.BROADCAST_MISMATCH, Code.AXIS_OUT_OF_RANGE, Code.ANNOTATION_MISMATCH, Code.DTYPE_MISMATCH,
                          Code.SIZE_ARGUMENT_MISMATCH})
LBFGS = "l-bfgs-experimental-do-not-rely-on-this"


@st.composite
def minimize_programs(draw: st.DrawFn) -> str:
    x0 = draw(st.sampled_from(([draw(SIZES)], [draw(SIZES)], draw(st.lists(SIZES, max_size=2)))))
    fun = draw(st.sampled_from(("lambda w: jnp.sum(w ** 2)", "lambda w: jnp.sum(w ** 2)", "lambda w: w ** 2",
                                "lambda w: jnp.sum(w ** 2, keepdims=True)", "lambda w: jnp.mean(w)")))
    dtype = draw(st.sampled_from(("jnp.float32", "jnp.float32", "jnp.int32")))
    method = draw(st.sampled_from(("BFGS", "bfgs", LBFGS)))
    part = draw(st.sampled_from(("x", "jac", "fun", "nit") + (("hess_inv",) if method != LBFGS else ())))
    return f"res = minimize({fun}, {_zeros(x0, dtype)}, method={method!r})\nout = res.{part}"


@given(minimize_programs())
@cases(50)
def test_minimize_agrees_with_jax(body: str) -> None:
    _agree(body, SOLVER_CODES)


@pytest.mark.parametrize("body", [
    "res = minimize(lambda w: jnp.sum(w**2), jnp.ones((3, 2)), method='BFGS')\nout = res.x",
    "res = minimize(lambda w: jnp.sum(w**2), jnp.ones((3,)), method='BFGS')\nout = res.hess_inv",  # (3, 3)
    "res = minimize(lambda w: jnp.sum(w**2), jnp.ones((1,)), method='BFGS')\nout = res.x",  # size 1
    "res = minimize(lambda w: jnp.sum(w**2), jnp.ones(()), method='BFGS')\nout = res.x",  # 0-d
    "res = minimize(lambda w: w ** 2, jnp.ones((1,)), method='BFGS')\nout = res.x",  # (1,) is no scalar
    "res = minimize(lambda w, a: jnp.sum(w * a), jnp.ones((3,)), (jnp.ones((3,)),), method='BFGS')\nout = res.fun",
    "x, *rest = minimize(lambda w: jnp.sum(w**2), jnp.ones((4,)), method='BFGS')\nout = x",  # a NamedTuple
])
def test_minimize_fixed_programs(body: str) -> None:
    _agree(body, SOLVER_CODES)


@st.composite
def odeint_programs(draw: st.DrawFn) -> str:
    y0 = draw(SHAPES)
    rhs = draw(st.sampled_from(("lambda y, t: -y", "lambda y, t: t * y", "lambda y, t: -y",
                                f"lambda y, t: jnp.zeros({shape_literal(draw(SHAPES))})")))
    times = draw(st.sampled_from(([draw(st.integers(1, 5))], [draw(st.integers(1, 5))], draw(SHAPES))))
    dtype = draw(st.sampled_from(("jnp.float32", "jnp.float32", "jnp.int32")))
    return f"out = odeint({rhs}, {_zeros(y0, dtype)}, {_zeros(times)})"


@given(odeint_programs())
@cases(50)
def test_odeint_agrees_with_jax(body: str) -> None:
    _agree(body, SOLVER_CODES)


@pytest.mark.parametrize("body", [
    "out = odeint(lambda y, t: jnp.zeros(3), jnp.ones(2), jnp.linspace(0.0, 1.0, 5))",
    "out = odeint(lambda y, t: -y, jnp.ones(2), jnp.linspace(0.0, 1.0, 5))",  # (5, 2)
    "out = odeint(lambda y, t: jnp.zeros((1, 2)), jnp.ones(2), jnp.linspace(0.0, 1.0, 5))",  # raveled: as many
    "out = odeint(lambda y, t: jnp.zeros(()), jnp.ones(1), jnp.linspace(0.0, 1.0, 1))",  # size 1: (1, 1)
    "out = odeint(lambda y, t: -y, 1.0, jnp.linspace(0.0, 1.0, 5))",  # a Python number: (5,)
    "out = odeint(lambda y, t, a: -a * y, jnp.ones(2), jnp.linspace(0.0, 1.0, 5), jnp.ones(3))",  # args reach func
    "out = odeint(lambda y, t: -y, jnp.ones(2), jnp.arange(5))",  # integer times
    "out = odeint(lambda y, t: -y, jnp.ones(2), jnp.zeros((0,)))",  # no start
    "ys = odeint(lambda y, t: (y[1], y[0]), (jnp.ones(2), jnp.ones(3)), jnp.linspace(0.0, 1.0, 4))\nout = ys[1]",
    "ys = odeint(lambda y, t: {'a': -y['a']}, {'a': jnp.ones((2, 3))}, jnp.linspace(0.0, 1.0, 4))\nout = ys['a']",
])
def test_odeint_fixed_programs(body: str) -> None:
    _agree(body, SOLVER_CODES)


# ---------------------------------------------------------------- the rules themselves

def _array(*dims: int) -> ArrayType:
    return ArrayType("f32", dims)


def test_signal_modes() -> None:
    found = {mode: signal.convolve(_array(5, 4), _array(2, 3), mode, "convolve").type.dims for mode in signal.MODES}
    assert found == {"full": (6, 6), "same": (5, 4), "valid": (4, 2)}
    assert signal.convolve(_array(3, 2), _array(1, 4), "full", "convolve").problems[0].code == \
        Code.SIZE_ARGUMENT_MISMATCH
    assert signal.convolve(_array(3, 2), _array(1, 4), "full", "convolve", fft=True).type.dims == (3, 5)
    assert signal.convolve(_array(3), _array(3, 3), "full", "convolve2d", rank=2).problems[0].code == \
        Code.AXIS_OUT_OF_RANGE


def test_multivariate_normal_shapes() -> None:
    what = "multivariate_normal.logpdf"
    assert statistics.multivariate_normal(_array(100, 3), _array(3), _array(3, 3), what).type.dims == (100,)
    assert statistics.multivariate_normal(_array(100, 3), _array(3), _array(100, 100), what).problems[0].code == \
        Code.CONTRACTION_MISMATCH
    assert statistics.multivariate_normal(_array(100, 3), _array(), _array(3), what).type.dims == (100, 3)
    assert statistics.multivariate_normal(_array(3), _array(3), _array(2, 3, 3), what).type.dims == (2,)


def test_map_coordinates_and_solvers() -> None:
    assert interpolation.map_coordinates(_array(8, 8, 8), _array(10, 3)).problems[0].code == Code.AXIS_OUT_OF_RANGE
    assert interpolation.map_coordinates(_array(8, 8), [_array(2, 1), _array(5)]).type.dims == (2, 5)
    assert solvers.derivative_problem([_array(2)], [_array(1, 2)], "f32[(1, 2)]") is None
    assert solvers.derivative_problem([_array(2)], [_array(3)], "f32[(3,)]") is not None
    assert solvers.minimize_rank(_array(3, 2), "`x0`") is not None and solvers.minimize_rank(_array(3), "x0") is None
    assert solvers.trajectory(_array(2, 3), 5).dims == (5, 2, 3)
