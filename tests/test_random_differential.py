"""jax.random and NumPy's generators against the real thing: random shapes, parameters,
axes and draw counts, some of them planted wrong. Each program is traced by JAX (NumPy's run
inside the trace); the checker must report nothing where it runs and infer the shape of what it
draws, and report where it raises."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shapecheck.api import analyze_source
from tests.differential import agree

pytest.importorskip("jax")

CODES = frozenset({"SC101", "SC106", "SC107"})
Shape = tuple[int, ...]

shapes = st.lists(st.integers(1, 3), max_size=3).map(tuple)


@st.composite
def parameter_shape(draw: st.DrawFn, target: Shape, *, wrong: bool = True) -> Shape:
    """Mostly a shape that broadcasts to `target` (a suffix, with 1s); sometimes any shape."""
    if wrong and draw(st.integers(0, 4)) == 0:
        return draw(shapes)
    suffix = target[draw(st.integers(0, len(target))):]
    return tuple(1 if draw(st.integers(0, 2)) == 0 else d for d in suffix)


def zeros(dims: Shape, dtype: str = "jnp.float32") -> str:
    return f"jnp.zeros({dims!r}, {dtype})" if dims else f"jnp.zeros((), {dtype})"


@st.composite
def jax_random_calls(draw: st.DrawFn) -> str:
    api = draw(st.sampled_from(("normal", "gumbel", "exponential", "uniform", "randint", "bernoulli",
                                "truncated_normal", "gamma", "beta", "poisson", "categorical", "permutation",
                                "choice", "split", "key_data")))
    shape = draw(shapes)
    given_shape = draw(st.booleans())
    if api in ("normal", "gumbel", "exponential"):
        dtype = draw(st.sampled_from(("", ", jnp.float32", ", jnp.bfloat16")))
        return f"jax.random.{api}(key, {shape!r}{dtype})"
    if api == "uniform":
        # Bounds that do not broadcast to the shape: jax.eval_shape lets some through that fail
        # when compiled (an unchecked reshape), so there is no oracle to compare with here.
        bounds = "".join(f", {name}={zeros(draw(parameter_shape(shape, wrong=False)))}"
                         for name in ("minval", "maxval") if draw(st.booleans()))
        return f"jax.random.uniform(key, {shape!r}{bounds})"
    if api == "randint":
        return f"jax.random.randint(key, {shape!r}, {zeros(draw(parameter_shape(shape)), 'jnp.int32')}, 9)"
    if api in ("bernoulli", "gamma", "poisson"):
        param = zeros(draw(parameter_shape(shape)) if given_shape else draw(shapes))
        return f"jax.random.{api}(key, {param}" + (f", {shape!r})" if given_shape else ")")
    if api in ("truncated_normal", "beta"):
        first, second = (zeros(draw(parameter_shape(shape)) if given_shape else draw(shapes)) for _ in range(2))
        return f"jax.random.{api}(key, {first}, {second}" + (f", {shape!r})" if given_shape else ")")
    if api == "categorical":
        logits = draw(st.lists(st.integers(1, 3), min_size=0, max_size=3).map(tuple))
        axis = draw(st.integers(-3, 2))
        options = f", axis={axis}"
        if given_shape and logits:
            batch = logits[:axis % len(logits)] + logits[axis % len(logits) + 1:] if -len(logits) <= axis < len(
                logits) else logits
            prefix = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
            options += f", shape={prefix + draw(parameter_shape(batch))!r}"
            if draw(st.booleans()):
                options += ", replace=False"
        return f"jax.random.categorical(key, {zeros(logits)}{options})"
    if api == "permutation":
        x = str(draw(st.integers(1, 5))) if draw(st.booleans()) else zeros(draw(shapes))
        return f"jax.random.permutation(key, {x}, axis={draw(st.integers(-2, 2))})"
    if api == "choice":
        rank = draw(st.integers(0, 2))
        if rank == 0:
            a, population = str(draw(st.integers(0, 5))), None
        else:
            dims = tuple(draw(st.integers(1, 4)) for _ in range(rank))
            a, population = zeros(dims), dims
        axis = draw(st.integers(-1, 1)) if population else 0
        draws = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
        options = f", {draws!r}, replace={draw(st.booleans())}"
        if draw(st.booleans()):
            size = population[axis % len(population)] if population and -len(population) <= axis < len(
                population) else int(a) if not population else 1
            options += f", p=jnp.ones(({size + draw(st.sampled_from((0, 0, 0, 1)))},)) / {max(size, 1)}"
        return f"jax.random.choice(key, {a}{options}, axis={axis})"
    if api == "split":
        num = draw(st.sampled_from(("", ", 3", ", 1", ", (2, 3)", ", (0,)")))
        return f"jax.random.split(key{num})"
    # A batch of typed keys is not told apart from a raw key of unknown dtype: one typed key only.
    return "jax.random.key_data(jax.random.fold_in(jax.random.key(0), 1))"


@st.composite
def more_jax_random_calls(draw: st.DrawFn) -> str:
    """The distributions beyond the common ones: vectors (multivariate_normal, dirichlet), points
    and matrices (ball, orthogonal), and samplers with parameters or a shape only."""
    api = draw(st.sampled_from(("multivariate_normal", "dirichlet", "ball", "orthogonal", "lognormal",
                                "geometric", "binomial", "pareto", "rayleigh", "wald", "triangular", "maxwell",
                                "generalized_normal")))
    shape = draw(shapes)
    given_shape = draw(st.booleans())
    option = f", shape={shape!r}" if given_shape else ""
    if api == "multivariate_normal":
        n = draw(st.integers(1, 3))
        batch = draw(parameter_shape(shape)) if given_shape else draw(shapes)
        mean = (*batch, n) if draw(st.integers(0, 6)) else draw(shapes)
        cov_batch = draw(parameter_shape(shape)) if given_shape else draw(parameter_shape(batch))
        cov = (*cov_batch, n, n) if draw(st.integers(0, 6)) else (*cov_batch, n, draw(st.integers(1, 3)))
        return f"jax.random.multivariate_normal(key, {zeros(mean)}, {zeros(cov)}{option})"
    if api == "dirichlet":
        k = draw(st.integers(1, 3))
        batch = draw(parameter_shape(shape)) if given_shape else draw(shapes)
        alpha = (*batch, k) if draw(st.integers(0, 6)) else ()
        return f"jax.random.dirichlet(key, {zeros(alpha)}{option})"
    if api == "ball":
        return f"jax.random.ball(key, {draw(st.integers(1, 3))}{option})"
    if api == "orthogonal":
        m = f", m={draw(st.integers(1, 3))}" if draw(st.booleans()) else ""
        return f"jax.random.orthogonal(key, {draw(st.integers(1, 3))}{option}{m})"
    if api in ("maxwell", "generalized_normal"):
        return f"jax.random.{api}(key{', 2.0' if api == 'generalized_normal' else ''}{option})"
    count = {"binomial": 2, "triangular": 3}.get(api, 1)
    if api == "lognormal" and draw(st.booleans()):
        count = 0  # sigma's default
    params = "".join(f", {zeros(draw(parameter_shape(shape)) if given_shape else draw(shapes))}"
                     for _ in range(count))
    return f"jax.random.{api}(key{params}{option})"


@settings(max_examples=100, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(more_jax_random_calls())
def test_more_jax_random_agrees_with_jax(call: str) -> None:
    agree(f"import jax\nimport jax.numpy as jnp\nkey = jax.random.key(0)\nout = {call}\n", CODES | {"SC104"})


@settings(max_examples=100, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(jax_random_calls(), st.sampled_from(("jax.random.PRNGKey(0)", "jax.random.key(1)")))
def test_jax_random_agrees_with_jax(call: str, key: str) -> None:
    agree(f"import jax\nimport jax.numpy as jnp\nkey = {key}\nout = {call}\n", CODES)


@st.composite
def numpy_random_calls(draw: st.DrawFn) -> str:
    size = draw(shapes)
    owner = draw(st.sampled_from(("rng", "np.random", "legacy")))
    params = {"normal": ("loc", "scale"), "uniform": ("low", "high"), "exponential": ("scale",)}
    api = draw(st.sampled_from(("normal", "uniform", "exponential", "standard_normal", "random", "integers",
                                "randn", "rand")))
    if api in ("randn", "rand"):
        return f"{owner if owner != 'rng' else 'np.random'}.{api}({', '.join(map(str, size))})"
    if api == "integers":
        name = "integers" if owner == "rng" else "randint"
        low = f"np.zeros({draw(parameter_shape(size))!r}, np.int64)" if draw(st.booleans()) else "0"
        return f"{owner}.{name}({low}, 9, size={size!r})" if draw(st.booleans()) else f"{owner}.{name}({low}, 9)"
    if api in ("standard_normal", "random"):
        dtype = ", dtype=np.float32" if owner == "rng" and draw(st.booleans()) else ""
        return f"{owner}.{api}({size!r}{dtype})" if draw(st.booleans()) else f"{owner}.{api}()"
    # Parameters that NumPy accepts as values (low below high, scales not negative): only shapes vary.
    fill = {"loc": "zeros", "low": "zeros"}
    args = [f"np.{fill.get(name, 'ones')}({draw(parameter_shape(size))!r})" if draw(st.booleans())
            else "0.0" if name in fill else "1.0" for name in params[api]]
    if draw(st.booleans()):
        args.append(f"size={size!r}")
    return f"{owner}.{api}({', '.join(args)})"


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(numpy_random_calls())
def test_numpy_generators_agree_with_numpy(call: str) -> None:
    agree(f"import numpy as np\nrng = np.random.default_rng(0)\nlegacy = np.random.RandomState(0)\nout = {call}\n",
          CODES)


@pytest.mark.parametrize("call", [
    # The trivially valid: no shape, size-1 dims, one key, one draw.
    "jax.random.normal(jax.random.PRNGKey(0))",
    "jax.random.uniform(jax.random.PRNGKey(0), (1,), minval=jnp.zeros((1,)))",
    "jax.random.bernoulli(jax.random.PRNGKey(0))",
    "jax.random.bernoulli(jax.random.PRNGKey(0), 0.3, (1, 1))",
    "jax.random.categorical(jax.random.PRNGKey(0), jnp.zeros((1,)))",
    "jax.random.choice(jax.random.PRNGKey(0), 1)",
    "jax.random.choice(jax.random.PRNGKey(0), 0, (0,))",
    "jax.random.permutation(jax.random.PRNGKey(0), 1)",
    "jax.random.split(jax.random.PRNGKey(0), 1)",
    "jax.random.fold_in(jax.random.PRNGKey(0), 3)",
    "jax.random.split(jax.random.fold_in(jax.random.key(0), 3))",
    "jax.random.wrap_key_data(jax.random.key_data(jax.random.key(0)))",
    "jax.random.randint(jax.random.PRNGKey(0), (), 0, 1)",
    "jax.random.truncated_normal(jax.random.PRNGKey(0), -1.0, 1.0)",
    "jax.random.rademacher(jax.random.PRNGKey(0), (2,))",
    "np.random.default_rng().normal()",
    "np.random.default_rng(0).standard_normal(1)",
    "np.random.randn()",
    "np.random.rand(1, 1)",
    # Found with random examples (make explore): without replacement, the shape ends with the
    # logits' batch itself (JAX asserts it); NumPy's parameters without a size must broadcast.
    "jax.random.categorical(jax.random.PRNGKey(0), jnp.zeros((1, 1)), axis=0, shape=(2,), replace=False)",
    "jax.random.categorical(jax.random.PRNGKey(0), jnp.zeros((3, 4)), axis=1, shape=(2, 3), replace=False)",
    "np.random.default_rng(0).normal(np.zeros((3,)), np.ones((2,)))",
    "np.random.default_rng(0).uniform(np.zeros((3, 1)), np.ones((2,)))",
])
def test_cases_agree(call: str) -> None:
    agree(f"import jax\nimport jax.numpy as jnp\nimport numpy as np\nout = {call}\n", CODES)


@pytest.mark.parametrize("key", ["jax.random.PRNGKey(0)", "jax.random.key(0)"])
def test_split_keys_unpack_into_single_keys(key: str) -> None:
    # The idiom of every training loop: the keys unpacked from split are single keys again.
    agree(f"import jax\nkey = {key}\nkey, sub = jax.random.split(key)\na, b, c = jax.random.split(sub, 3)\nout = c\n")
    agree(f"import jax\nkey, *rest = jax.random.split({key}, 4)\nout = jax.random.split(rest[2], (2, 3))\n")


@pytest.mark.parametrize("call", [
    "jax.random.choice(jax.random.PRNGKey(0), 5, 3)",
    "jax.random.choice(jax.random.PRNGKey(0), jnp.zeros((4,)), 0)",
])
def test_choice_takes_its_shape_as_a_sequence(call: str) -> None:
    agree(f"import jax\nimport jax.numpy as jnp\nout = {call}\n", frozenset({"SC107"}))


@pytest.mark.parametrize(("call", "fails"), [
    ("jax.random.uniform(jax.random.PRNGKey(0), minval=jnp.zeros(5), maxval=jnp.ones(5))", True),
    ("jax.random.uniform(jax.random.PRNGKey(0), (3, 1), minval=jnp.zeros(5))", True),
    ("jax.random.uniform(jax.random.PRNGKey(0), (3, 5), minval=jnp.zeros(5))", False),
    ("jax.random.uniform(jax.random.PRNGKey(0), (5,), maxval=jnp.ones((1,)))", False),
    ("jax.random.uniform(jax.random.PRNGKey(0), (), minval=jnp.zeros((1,)))", False),  # widened by 1s only
    ("jax.random.uniform(jax.random.PRNGKey(0), (3,), maxval=jnp.ones((2, 1)))", True),
])
def test_uniform_bounds_that_widen_the_shape_fail_when_run(call: str, fails: bool) -> None:
    # jax.eval_shape lets such bounds through (the abstract rule broadcasts them in); running the
    # draw compiles it, and JAX's verifier refuses the reshape: the oracle here is a real run.
    import jax
    import jax.numpy as jnp

    source = f"import jax\nimport jax.numpy as jnp\nout = {call}\n"
    codes = [d.code for d in analyze_source("t.py", source).diagnostics]
    assert codes == (["SC101"] if fails else []), codes
    if fails:
        with pytest.raises(ValueError, match="verifier"):
            eval(call, {"jax": jax, "jnp": jnp})
    else:
        eval(call, {"jax": jax, "jnp": jnp})
