"""Differentiation and abstract evaluation against JAX: `jax.jacfwd`, `jacrev`, `jacobian`,
`hessian`, `jvp`, `grad` and `eval_shape` over drawn functions (a matrix-vector product whose
sizes may not fit, a sum, an elementwise map, an outer product, a reshape, with or without an
auxiliary value) of drawn float arguments (rank 0 to 2, sizes 1 to 4), and jvp's tangents of
drawn shapes and counts. Where JAX accepts, the checker reports nothing and infers the shape
and dtype of `out`; where it raises, the checker reports it. Integer arguments are not drawn:
JAX refuses to differentiate them, which the checker leaves to JAX (unknown, not reported)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shapecheck.api import analyze_source
from tests.differential import agree, cases

pytest.importorskip("jax")

CASES = cases(150)
CODES = frozenset({"SC101", "SC103", "SC104", "SC105", "SC106"})

SIZES = st.integers(1, 4)
BODIES = {
    "matvec": "w @ v",
    "sum": "jnp.sum(v * 2.0)",
    "tanh": "jnp.tanh(v)",
    "outer": "jnp.outer(v, v)",
    "flat": "v.reshape(-1)",
}


def _tuple(items: list[int]) -> str:
    return "(" + "".join(f"{item}, " for item in items) + ")"


@st.composite
def autodiff_programs(draw: st.DrawFn) -> str:
    x = draw(st.lists(SIZES, max_size=2))
    w = [draw(SIZES), x[-1] if x and draw(st.booleans()) else draw(SIZES)]
    body = BODIES[draw(st.sampled_from(sorted(BODIES)))]
    aux = draw(st.booleans())
    returned = f"({body}, jnp.sum(v))" if aux else body
    lines = ["import jax", "import jax.numpy as jnp", "", f"x = jnp.zeros({_tuple(x)})",
             f"w = jnp.zeros({_tuple(w)})", "", f"def f(v):\n    return {returned}", ""]
    transform = draw(st.sampled_from(("jacfwd", "jacrev", "jacobian", "hessian", "jvp", "grad", "eval_shape")))
    if transform == "jvp":
        tangents = [draw(st.sampled_from((x, draw(st.lists(SIZES, max_size=2)))))
                    for _ in range(draw(st.sampled_from((1, 1, 1, 2))))]
        listed = "".join(f"jnp.zeros({_tuple(t)}), " for t in tangents)
        results = "y, dy, a" if aux else "y, dy"
        lines.append(f"{results} = jax.jvp(f, (x,), ({listed}){', has_aux=True' if aux else ''})")
        lines.append(f"out = {draw(st.sampled_from(('y', 'dy')))}")
    elif transform == "eval_shape":
        if aux:
            lines.append("y, a = jax.eval_shape(f, x)")
            lines.append("out = y")
        else:
            lines.append("out = jax.eval_shape(f, x)")
    else:
        option = ", has_aux=True" if aux else ""
        if transform == "grad" and aux:
            lines.append(f"g, a = jax.grad(f{option})(x)")
        elif transform == "grad":
            lines.append("g = jax.grad(f)(x)")
        elif aux:
            lines.append(f"g, a = jax.{transform}(f{option})(x)")
        else:
            lines.append(f"g = jax.{transform}(f)(x)")
        lines.append("out = g")
    return "\n".join(lines) + "\n"


@given(autodiff_programs())
@CASES
def test_autodiff_agrees_with_jax(program: str) -> None:
    agree(program, CODES)


H = "import jax\nimport jax.numpy as jnp\n\nx = jnp.zeros((3,))\nw = jnp.zeros((2, 3))\n"


@pytest.mark.parametrize("program", [
    H + "out = jax.jacfwd(lambda v: w @ v)(x)",  # (2, 3)
    H + "out = jax.hessian(lambda v: jnp.sum(v ** 2))(x)",  # (3, 3)
    H + "out = jax.jacrev(lambda v: jnp.outer(v, v))(x)",  # (3, 3, 3)
    H + "j, aux = jax.jacfwd(lambda v: (w @ v, v), has_aux=True)(x)\nout = aux",
    H + "out = jax.jacfwd(lambda v: w.T @ v)(x)",  # (3, 2) @ (3,): contracted 2 against 3
    H + "y, dy = jax.jvp(jnp.sin, (x,), (jnp.zeros((4,)),))\nout = dy",  # a tangent of another shape
    H + "y, dy = jax.jvp(jnp.sin, (x,), (x, x))\nout = dy",  # two tangents for one primal
    H + "y, dy = jax.jvp(lambda v: w @ v, (x,), (x,))\nout = dy",  # (2,)
    H + "out = jax.eval_shape(lambda v: w @ v, jax.ShapeDtypeStruct((3,), jnp.float32))",
    H + "out = jax.eval_shape(lambda v: v @ w, x)",
    H + "out = jax.vmap(jax.jacfwd(lambda v: w @ v))(jnp.zeros((5, 3)))",  # (5, 2, 3)
    H + "out = jnp.astype(w, jnp.int32)",
])
def test_fixed_programs(program: str) -> None:
    agree(program, CODES)


@pytest.mark.parametrize(("api", "imports", "call"), [
    ("jax.value_and_grad", "import jax", "jax.value_and_grad(loss)(w)"),
    ("jax.grad", "from jax import grad", "grad(loss)(w)"),
    ("equinox.filter_grad", "import equinox as eqx", "eqx.filter_grad(loss)(w)"),
    ("flax.nnx.value_and_grad", "from flax import nnx", "nnx.value_and_grad(loss)(w)"),
])
def test_a_non_scalar_loss_is_reported_under_the_name_of_the_api_called(api: str, imports: str, call: str) -> None:
    """jax's, equinox's and nnx's gradients share one rule; the message names the one the
    program called."""
    program = f"import jax.numpy as jnp\n{imports}\n\n\ndef loss(w):\n    return w * 2\n\n\nw = jnp.ones(3)\ng = {call}\n"
    found = [d for d in analyze_source("m.py", program).diagnostics if d.code == "SC103"]
    assert [d.span.line for d in found] == [10], found
    assert found[0].message.startswith(f"{api} differentiates a function with a scalar output"), found[0].message


Nest = int | tuple[str, list["Nest"]]


def _nest(draw: st.DrawFn, leaves: list[int], depth: int = 0) -> Nest:
    """`leaves` (their indices) in a drawn nesting of lists, tuples and string-keyed dicts (a
    container at the root: a leaf there would broadcast against the whole other tree)."""
    if len(leaves) == 1 and depth > 0 and (depth > 1 or draw(st.booleans())):
        return leaves[0]
    cut = draw(st.integers(1, len(leaves))) if len(leaves) > 1 else 1
    parts = [_nest(draw, leaves[:cut], depth + 1)] + ([_nest(draw, leaves[cut:], depth + 1)] if leaves[cut:] else [])
    return draw(st.sampled_from(("list", "tuple", "dict"))), parts


def _render(nest: Nest, leaf: list[str], kinds: st.DrawFn | None = None) -> str:
    """The nest as Python source, each container of its kind or (`kinds`) of a redrawn one."""
    if isinstance(nest, int):
        return leaf[nest]
    kind, parts = nest
    if kinds is not None:
        kind = kinds(st.sampled_from(("list", "tuple", "dict")))
    items = [_render(part, leaf, kinds) for part in parts]
    if kind == "dict":
        return "{" + ", ".join(f"'k{index}': {item}" for index, item in enumerate(items)) + "}"
    return f"({', '.join(items)},)" if kind == "tuple" else f"[{', '.join(items)}]"


@st.composite
def parameter_trees(draw: st.DrawFn) -> str:
    """A gradient over drawn nests of lists, tuples and dicts, mapped with the parameters by
    `jax.tree.map` (whose structures JAX compares, a list and a tuple differing), or with the
    same leaves in the same nest of redrawn containers."""
    count = draw(st.integers(1, 3))
    nest = _nest(draw, list(range(count)))
    params = _render(nest, [f"jnp.ones(({draw(SIZES)}, {draw(SIZES)}))" for _ in range(count)])
    other = _render(nest, [f"p{index}" for index in range(count)], draw)
    api = draw(st.sampled_from(("grad", "value_and_grad")))
    lines = ["import jax", "import jax.numpy as jnp", "", f"params = {params}",
             "p0, p1, p2, *_ = jax.tree.leaves(params) + [None, None]", "",
             "def loss(tree):", "    return sum(jnp.sum(leaf ** 2) for leaf in jax.tree.leaves(tree))", ""]
    lines.append("g = jax.grad(loss)(params)" if api == "grad" else "v, g = jax.value_and_grad(loss)(params)")
    against = draw(st.sampled_from(("params", "g", other)))
    lines.append(f"mapped = jax.tree.map(lambda a, b: a - 0.1 * b, {against}, g)")
    lines.append("out = jax.tree.leaves(mapped)[0]")
    return "\n".join(lines) + "\n"


@given(parameter_trees())
@CASES
def test_gradients_keep_their_parameters_structure(program: str) -> None:
    agree(program, CODES)


@st.composite
def pytree_jacobians(draw: st.DrawFn) -> str:
    """Jacobians and Hessians of functions from a drawn nest of parameters to a dict of arrays:
    each output leaf holds the parameters' structure (twice for the Hessian), and one leaf of
    it is used, in a product that may not fit."""
    count = draw(st.integers(1, 3))
    nest = _nest(draw, list(range(count)))
    shapes = [tuple(draw(st.lists(SIZES, max_size=2))) for _ in range(count)]
    params = _render(nest, [f"jnp.ones({_tuple(list(shape))})" for shape in shapes])
    transform = draw(st.sampled_from(("jacfwd", "jacrev", "jacobian", "hessian")))
    outputs = "{'s': jnp.sum(jnp.tanh(jax.tree.leaves(tree)[-1])), 'first': jax.tree.leaves(tree)[0] * 2.0}"
    lines = ["import jax", "import jax.numpy as jnp", "", f"params = {params}", "",
             "def f(tree):", f"    return {outputs}", "", f"jac = jax.{transform}(f)(params)",
             f"leaf = jax.tree.leaves(jac)[{draw(st.integers(0, count * (count if transform == 'hessian' else 1) * 2 - 1))}]"]
    if draw(st.booleans()):
        lines.append(f"out = leaf @ jnp.ones(({draw(SIZES)},))")
    else:
        lines.append("out = leaf")
    return "\n".join(lines) + "\n"


@given(pytree_jacobians())
@CASES
def test_pytree_jacobians_agree_with_jax(program: str) -> None:
    agree(program, CODES)


@pytest.mark.parametrize("body", [
    # jax.vjp: the pullback takes a cotangent shaped as the output, gives one per primal.
    "y, f = jax.vjp(lambda x: W @ x, jnp.ones(6))\nout = f(jnp.ones(4))[0]",
    "y, f = jax.vjp(lambda x: W @ x, jnp.ones(6))\nout = f(jnp.ones(6))[0]",
    "y, f = jax.vjp(lambda x, z: (x * 2, z), jnp.ones(6), jnp.ones(2))\nout = f((jnp.ones(6), jnp.ones(2)))[1]",
    "y, f = jax.vjp(lambda x, z: (x * 2, z), jnp.ones(6), jnp.ones(2))\nout = f((jnp.ones(6),))[0]",
    "y, f = jax.vjp(jnp.sum, jnp.ones(3))\nout = f(1.0)[0]",
    "y, f, aux = jax.vjp(lambda x: (W @ x, x), jnp.ones(6), has_aux=True)\nout = f(y)[0] + aux",
    # jax.linearize: the linear function takes a tangent per primal, shaped as it.
    "y, f = jax.linearize(jnp.sin, jnp.ones(6))\nout = f(jnp.ones(6)) + y",
    "y, f = jax.linearize(jnp.sin, jnp.ones(6))\nout = f(jnp.ones(7))",
    "y, f = jax.linearize(lambda a, b: a @ b, jnp.ones((2, 3)), jnp.ones(3))\nout = f(jnp.ones((2, 3)), jnp.ones(3))",
])
def test_vjp_and_linearize_agree_with_jax(body: str) -> None:
    agree("import jax\nimport jax.numpy as jnp\nW = jnp.ones((4, 6))\n" + body + "\n", frozenset({"SC103"}))


# What a function differentiated with has_aux=True returns: a pair (a tuple or list of two), or
# what JAX refuses. Sizes leave out 2: jvp and jacfwd unpack an array of 2 rows into a pair.
AUX_FORMS = {
    "pair": "({body}, v)",
    "list": "[{body}, v]",
    "bare": "{body}",
    "single": "({body},)",
    "triple": "({body}, v, v)",
    "number": "1.0",
    "dict": "{{'y': {body}, 'aux': v}}",
}
AUX_CALLS = {
    "grad": "g, a = jax.grad(f, has_aux=True)(x)\nout = g",
    "value_and_grad": "(y, a), g = jax.value_and_grad(f, has_aux=True)(x)\nout = g",
    "vjp": "y, pullback, a = jax.vjp(f, x, has_aux=True)\nout = pullback(y)[0]",
    "jvp": "y, dy, a = jax.jvp(f, (x,), (x,), has_aux=True)\nout = dy",
    "jacrev": "j, a = jax.jacrev(f, has_aux=True)(x)\nout = j",
    "jacfwd": "j, a = jax.jacfwd(f, has_aux=True)(x)\nout = j",
    "hessian": "h, a = jax.hessian(f, has_aux=True)(x)\nout = h",
}


@st.composite
def aux_programs(draw: st.DrawFn) -> str:
    transform = draw(st.sampled_from(sorted(AUX_CALLS)))
    unpacks = transform in ("jvp", "jacfwd")
    # A dict of two keys unpacks into its keys: refused, but not for want of a pair (not reported).
    form = draw(st.sampled_from(["pair", "pair", *sorted(set(AUX_FORMS) - ({"dict"} if unpacks else set()))]))
    x = draw(st.lists(st.sampled_from((1, 3, 4)), max_size=2))
    body = BODIES[draw(st.sampled_from(sorted(set(BODIES) - {"matvec"})))]
    returned = AUX_FORMS[form].format(body=body)
    return "\n".join(["import jax", "import jax.numpy as jnp", "", f"x = jnp.zeros({_tuple(x)})", "",
                      f"def f(v):\n    return {returned}", "", AUX_CALLS[transform]]) + "\n"


@given(aux_programs())
@CASES
def test_aux_outputs_agree_with_jax(program: str) -> None:
    agree(program, frozenset({"SC103"}))


@pytest.mark.parametrize(("returned", "call", "reported"), [
    ("jnp.sum(v)", "jax.grad(f, has_aux=True)(x)", True),  # 'expected ... a two-element tuple'
    ("jnp.sum(v)", "jax.value_and_grad(f, has_aux=True)(x)", True),
    ("(jnp.sum(v), v, v)", "jax.grad(f, has_aux=True)(x)", True),
    ("(jnp.sum(v),)", "jax.vjp(f, x, has_aux=True)", True),
    ("jnp.sum(v)", "jax.jvp(f, (x,), (x,), has_aux=True)", True),  # 'iteration over a 0-d array'
    ("v", "jax.jvp(f, (x,), (x,), has_aux=True)", True),  # three rows: 'too many values to unpack'
    ("(jnp.sum(v), v)", "jax.grad(f, has_aux=True)(x)", False),
    ("[jnp.sum(v), v]", "jax.vjp(f, x, has_aux=True)", False),
    # Unknown: nothing is reported (what `g` returns is not followed).
    ("g(v)", "jax.grad(f, has_aux=True)(x)", False),
    # An array of two rows unpacks into two: refused where they depend on the input (a tracer
    # escapes), accepted eagerly where they do not. Not reported.
    ("jnp.ones((2, 3))", "jax.jvp(f, (x,), (x,), has_aux=True)", False),
    ("jnp.sum(v)", "jax.grad(f)(x)", False),  # no aux: no pair wanted
])
def test_aux_pairs(returned: str, call: str, reported: bool) -> None:
    program = (f"import jax\nimport jax.numpy as jnp\nfrom mod import g\n\nx = jnp.ones(3)\n\n\ndef f(v):\n"
               f"    return {returned}\n\n\nr = {call}\n")
    found = [(d.code, d.span.line) for d in analyze_source("m.py", program).diagnostics]
    assert found == ([("SC103", 12)] if reported else []), found


@pytest.mark.parametrize(("returned", "reported"), [
    ("jnp.sum(m(x))", True),  # 'iteration over a 0-d array'
    ("(jnp.sum(m(x)), 1.0, 2.0)", True),  # 'too many values to unpack (expected 2)'
    ("(jnp.sum(m(x)), 1.0)", False),
    ("jnp.sum(m(x), axis=0)", False),  # two rows, unpacked into a scalar loss and an aux: accepted
])
def test_nnx_gradients_unpack_the_aux_pair(returned: str, reported: bool) -> None:
    program = (f"import jax.numpy as jnp\nfrom flax import nnx\n\nm = nnx.Linear(3, 2, rngs=nnx.Rngs(0))\n"
               f"x = jnp.ones((4, 3))\n\n\ndef f(m):\n    return {returned}\n\n\nr = nnx.value_and_grad(f, has_aux=True)(m)\n")
    found = [(d.code, d.span.line) for d in analyze_source("m.py", program).diagnostics]
    assert found == ([("SC103", 12)] if reported else []), found
