"""`jax.flatten_util.ravel_pytree`, haiku's `hk.BatchApply`, and `jnp.array` of arrays inside a
map, against JAX itself (`tests.differential.agree`: JAX traces each program under
`jax.eval_shape`, the checker reads the same text).

ravel_pytree: drawn trees of leaves of drawn shapes and dtypes (Python numbers among them);
`flat` is used, or `unravel` is given `flat`, an array of another length, of another dtype, a
0-d one, or a batch of flats under `jax.vmap`. JAX refuses another length (lax.split's
ValueError, SC107), a 0-d array (SC106) and, where the leaves' dtypes differ, another dtype (a
TypeError, SC301). BatchApply: drawn argument shapes, num_dims and functions (haiku layers and
the program's own), whose outputs haiku reshapes back (SC105 where the sizes differ; SC106
where no argument has num_dims dims). jnp.array and jnp.asarray of lists of per-example arrays
under jax.vmap: stacked, and mapped as their items are.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.differential import agree, cases, check, shape_literal

pytest.importorskip("jax")

RAVEL = """\
import jax
import jax.numpy as jnp
from jax.flatten_util import ravel_pytree

flat, unravel = ravel_pytree({tree})
out = {use}
"""

sizes = st.integers(1, 4)
DTYPES = ("jnp.float32", "jnp.bfloat16", "jnp.int32")


@st.composite
def leaves(draw: st.DrawFn) -> str:
    """An array of drawn shape (0-d and size-1 dims among them) and dtype, or a Python number."""
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return draw(st.sampled_from(["1.0", "2"]))
    dims = draw(st.lists(st.integers(0, 4) if kind == 1 else sizes, max_size=3))
    return f"jnp.zeros({shape_literal(dims)}, {draw(st.sampled_from(DTYPES))})"


@st.composite
def trees(draw: st.DrawFn, depth: int = 0) -> Any:
    """A pytree as nested Python: a leaf (its source), a tuple, a list, a dict, or None (no leaves)."""
    kind = draw(st.integers(0, 4)) if depth < 2 else 0
    if kind == 0:
        return draw(leaves())
    if kind == 4:
        return None
    items = draw(st.lists(trees(depth + 1), max_size=3))
    if kind == 1:
        return tuple(items)
    if kind == 2:
        return list(items)
    return dict(zip("cab", items, strict=False))


def source(tree: Any) -> str:
    if isinstance(tree, tuple):
        return "(" + "".join(f"{source(item)}, " for item in tree) + ")"
    if isinstance(tree, list):
        return "[" + ", ".join(source(item) for item in tree) + "]"
    if isinstance(tree, dict):
        return "{" + ", ".join(f"{key!r}: {source(item)}" for key, item in tree.items()) + "}"
    return str(tree)


def paths(tree: Any) -> list[str]:
    """Each leaf's index expression (`["a"][0]`), in JAX's order: a dict's keys sorted."""
    if isinstance(tree, tuple | list):
        return [f"[{index}]{path}" for index, item in enumerate(tree) for path in paths(item)]
    if isinstance(tree, dict):
        return [f"[{key!r}]{path}" for key in sorted(tree) for path in paths(tree[key])]
    return [] if tree is None else [""]


@st.composite
def ravel_programs(draw: st.DrawFn) -> str:
    tree = draw(trees())
    found = paths(tree)
    leaf = draw(st.sampled_from(found)) if found else None
    uses = ["flat", "flat + jnp.zeros(3)"]  # the second refused unless the leaves hold 3 elements (or 1)
    if leaf is not None:
        dtype = draw(st.sampled_from(DTYPES))
        uses += [f"unravel(flat){leaf}", f"unravel(flat + 0){leaf}",  # a leaf's shape back, flat weak or not
                 f"unravel(jnp.zeros(flat.shape[0] + {draw(st.sampled_from([-1, 1]))})){leaf}",  # refused
                 f"unravel(flat.astype({dtype})){leaf}"]  # another dtype: refused where the leaves' differ
    return RAVEL.format(tree=source(tree), use=draw(st.sampled_from(uses)))


@given(ravel_programs())
@cases(120)
def test_ravel_pytree_agrees_with_jax(program: str) -> None:
    agree(program, frozenset({"SC101", "SC107", "SC301"}))


@pytest.mark.parametrize(("tree", "use"), [
    ('{"w": jnp.zeros((4, 16)), "b": jnp.zeros(16)}', "flat + jnp.zeros(3)"),  # (80,) and (3,): SC101
    ('{"w": jnp.zeros((4, 16)), "b": jnp.zeros(16)}', "flat + jnp.zeros(80)"),
    ('{"w": jnp.zeros((4, 16)), "b": jnp.zeros(16)}', 'unravel(flat)["w"]'),
    ('{"w": jnp.zeros((4, 16)), "b": jnp.zeros(16)}', 'unravel(jnp.zeros(79))["w"]'),  # SC107
    ('{"w": jnp.zeros((4, 16)), "b": jnp.zeros(16)}', 'unravel(jnp.zeros(()))["w"]'),  # SC106
    ('{"w": jnp.zeros((4, 16)), "b": jnp.zeros(16)}', 'unravel(jnp.zeros(80, jnp.int32))["w"]'),  # one dtype: any
    ("(jnp.zeros(3, jnp.bfloat16), jnp.zeros(2))", "unravel(jnp.zeros(5, jnp.bfloat16))[0]"),  # two: SC301
    ("(jnp.zeros(3, jnp.bfloat16), jnp.zeros(2))", "unravel(flat)[0]"),  # each leaf's own dtype back
    ("(jnp.zeros(3, jnp.bfloat16), 1.0)", "flat"),  # a Python float counts as float32: not weakly
    ("[1.0, 2]", "flat"),
    ("{}", "flat"),  # no leaves: float32 (0,)
    ("None", "flat"),
    ("[]", "jnp.zeros(2) + (unravel(jnp.zeros(7)) or 1)"),  # no leaves: unravel takes anything
    ("(jnp.zeros((1, 1)), jnp.zeros(()), jnp.zeros((0, 3)))", "flat"),  # size-1 and empty dims
    ("(jnp.zeros((1, 1)), jnp.zeros(()))", "unravel(flat)[0]"),
    ("jnp.zeros(())", "unravel(flat)"),  # one 0-d leaf
])
def test_trivial_trees_agree_with_jax(tree: str, use: str) -> None:
    agree(RAVEL.format(tree=tree, use=use), frozenset({"SC101", "SC106", "SC107", "SC301"}))


def test_the_brief_program_is_reported() -> None:
    checked = check(RAVEL.format(tree='{"w": jnp.zeros((4, 16)), "b": jnp.zeros(16)}', use="flat + jnp.zeros(3)"))
    assert checked.codes == ("SC101",)


@pytest.mark.parametrize("program", [
    # The leaves' mapped axis is flat's.
    "out = jax.vmap(lambda x: ravel_pytree((x, x * 2))[0])(jnp.zeros((8, 3)))",
    # A batch of flats unravels to a batch of trees.
    'flat, unravel = ravel_pytree({"a": jnp.zeros((2, 3)), "b": [jnp.zeros(()), jnp.ones((1, 1))]})\n'
    'out = jax.vmap(unravel)(jnp.zeros((5, 8)))["a"]',
    'flat, unravel = ravel_pytree({"a": jnp.zeros((2, 3))})\nout = jax.vmap(unravel)(jnp.zeros((5, 7)))["a"]',
])
def test_ravel_pytree_under_vmap_agrees_with_jax(program: str) -> None:
    agree("import jax\nimport jax.numpy as jnp\nfrom jax.flatten_util import ravel_pytree\n" + program,
          frozenset({"SC107"}))


def test_a_model_s_parameters_unravel_to_what_apply_reads_back() -> None:
    """`ravel_pytree(params)`: its length is not known (the checker may not know every
    parameter), but unravel gives the parameters back, which apply checks."""
    agree("""\
import jax
import jax.numpy as jnp
import haiku as hk
from jax.flatten_util import ravel_pytree

net = hk.without_apply_rng(hk.transform(lambda x: hk.Linear(4)(x)))
params = net.init(jax.random.key(0), jnp.ones((2, 3)))
flat, unravel = ravel_pytree(params)
out = net.apply(unravel(flat), jnp.ones((2, 5)))
""", frozenset({"SC103"}))


BATCH_APPLY = """\
import jax
import jax.numpy as jnp
import haiku as hk

def forward({params}):
    return hk.BatchApply({function}{num_dims})({args})

net = hk.without_apply_rng(hk.transform(forward))
params = net.init(jax.random.key(0), {inputs})
out = net.apply(params, {inputs})
"""

FUNCTIONS = (
    "hk.Linear(3)", "hk.nets.MLP([2, 3])", "lambda a, *rest: a", "lambda a, *rest: a.sum(-1)",
    "lambda a, *rest: a.sum()", "lambda a, *rest: a.T", "lambda a, *rest: a.reshape(-1)",
    "lambda a, *rest: (a, a[:1])[1]", "lambda a, *rest: {'y': jax.nn.relu(a)}['y']",
    "lambda a, *rest: a + rest[0] if rest else a",
)


@st.composite
def batch_apply_programs(draw: st.DrawFn) -> str:
    """BatchApply of a drawn function over one or two arguments of drawn shapes, num_dims 1 to 3
    (given or haiku's 2); the second argument of fewer dims, or of other leading ones."""
    function = draw(st.sampled_from(FUNCTIONS))
    count = draw(st.sampled_from([None, 1, 2, 3]))
    first = draw(st.lists(sizes, min_size=1, max_size=4))
    shapes = [first]
    if function.startswith("lambda") and draw(st.booleans()):  # haiku's layers take one argument
        second = list(first) if draw(st.booleans()) else draw(st.lists(sizes, min_size=1, max_size=4))
        shapes.append(second)
    names = ["x", "y"][:len(shapes)]
    return BATCH_APPLY.format(
        params=", ".join(names), function=function,
        num_dims="" if count is None else draw(st.sampled_from([f", {count}", f", num_dims={count}"])),
        args=", ".join(names), inputs=", ".join(f"jnp.ones({shape_literal(s)})" for s in shapes))


@given(batch_apply_programs())
@cases(120)
def test_batch_apply_agrees_with_haiku(program: str) -> None:
    agree(program, frozenset({"SC101", "SC104", "SC105", "SC106", "SC107"}))


@pytest.mark.parametrize(("function", "num_dims", "args", "inputs"), [
    ("hk.Linear(8)", "", "x", "(4, 10, 3)"),
    ("hk.Linear(8)", ", num_dims=1", "x", "(4, 10, 3)"),  # num_dims=1: nothing merged, nothing split
    ("hk.Linear(1)", "", "x", "(1, 1, 1)"),  # size-1 dims
    ("hk.Linear(8)", ", num_dims=3", "x", "(4, 10, 3)"),  # (8,) split into (4, 10, 3): SC105
    ("hk.Linear(8)", "", "x", "(3,)"),  # no argument of 2 dims: SC106
    ("lambda a: a.sum()", "", "x", "(1, 1, 3)"),  # a 0-d output into (1, 1)
    ("lambda a: a.sum()", "", "x", "(4, 10, 3)"),  # a 0-d output into (4, 10): SC105
    ("lambda a, b: a * b", "", "x, b=x", "(4, 10, 3)"),  # keywords are merged too
    ("lambda a, s: a * s", "", "x, 2.0", "(4, 10, 3)"),  # a Python number passes as it is
    ("lambda a: a[0] + a[1]", "", "[x, x]", "(4, 10, 3)"),  # a list's leaves
    ("hk.Sequential([hk.Linear(5), jax.nn.relu])", "", "x", "(2, 3, 4, 7)"),
])
def test_trivial_batch_applies_agree_with_haiku(function: str, num_dims: str, args: str, inputs: str) -> None:
    agree(BATCH_APPLY.format(params="x", function=function, num_dims=num_dims, args=args,
                             inputs=f"jnp.ones({inputs})"), frozenset({"SC105", "SC106"}))


def test_the_first_argument_of_num_dims_dims_gives_the_output_s_leading_dims() -> None:
    """The keywords come after the positional arguments, in sorted order: `a` before `z`."""
    agree(BATCH_APPLY.format(params="x, y", function="lambda z, a: z", num_dims="", args="z=x, a=y",
                             inputs="jnp.ones((4, 10, 3)), jnp.ones((2, 5, 3))"), frozenset({"SC105"}))


@pytest.mark.parametrize(("init", "applied"), [("(2, 3, 4)", "(5, 7, 4)"), ("(2, 3, 4)", "(2, 3, 5)")])
def test_a_module_of_the_program_s_own_is_applied_and_its_parameters_checked(init: str, applied: str) -> None:
    """Its parameters are made for the merged input: other leading dims apply, another feature
    size is haiku's ValueError at apply (SC103)."""
    agree(f"""\
import jax
import jax.numpy as jnp
import haiku as hk

class Block(hk.Module):
    def __call__(self, x):
        w = hk.get_parameter("w", [x.shape[-1], 6], init=jnp.zeros)
        return jax.nn.relu(x @ w)

net = hk.without_apply_rng(hk.transform(lambda x: jax.vmap(hk.BatchApply(Block()))(x)))
params = net.init(jax.random.key(0), jnp.ones((1, *{init})))
out = net.apply(params, jnp.ones((1, *{applied})))
""", frozenset({"SC103"}))


def test_the_brief_batch_apply_is_reported() -> None:
    checked = check("""\
import jax
import jax.numpy as jnp
import haiku as hk

def f(x):
    y = hk.BatchApply(hk.Linear(8))(x)
    return y + jnp.ones(3)

net = hk.transform(f)
out = net.init(jax.random.key(0), jnp.ones((4, 10, 3)))
""")
    assert checked.codes == ("SC101",)


STACKED = """\
import jax
import jax.numpy as jnp

out = jax.vmap({function}{in_axes})({args})
"""


@pytest.mark.parametrize(("function", "in_axes", "args"), [
    ("lambda x: jnp.zeros(3) + jnp.array([x, x])", "", "jnp.zeros(8)"),  # (3,) + (2,): SC101
    ("lambda x: jnp.zeros(2) + jnp.array([x, x])", "", "jnp.zeros(8)"),
    ("lambda x: jnp.asarray([x, x])", "", "jnp.zeros(8)"),
    ("lambda x: jnp.asarray((x, x), dtype=jnp.int32)", "", "jnp.zeros(8)"),
    ("lambda x: jnp.array([x])", "", "jnp.zeros(8)"),  # one item
    ("lambda x: jnp.array([x, x])", "", "jnp.zeros((8, 1))"),  # size-1 rows
    ("lambda x: jnp.array([[x, x], [x, 0.0]])", "", "jnp.zeros(8)"),  # nested, a Python number among them
    ("lambda x: jnp.array([[x, x], jnp.zeros(2)])", "", "jnp.zeros(8)"),  # a row mapped, a row not
    ("lambda x: jnp.array([x, 1.0, 2])", "", "jnp.zeros(8, jnp.int32)"),
    ("lambda x: jnp.array([x, 1.0])", "", "jnp.zeros(8, jnp.bfloat16)"),
    ("lambda x: jnp.array([x, x], ndmin=3)", "", "jnp.zeros(8)"),
    ("lambda x, y: jnp.array([x, y])", ", in_axes=(0, None)", "jnp.zeros(8), jnp.zeros(())"),
    ("jax.vmap(lambda x: jnp.array([x, x]))", "", "jnp.zeros((3, 8))"),  # a map inside a map
    ("lambda x: jnp.array([x, x[:2]])", "", "jnp.zeros((8, 5))"),  # rows that do not stack: SC101
])
def test_arrays_of_mapped_arrays_agree_with_jax(function: str, in_axes: str, args: str) -> None:
    agree(STACKED.format(function=function, in_axes=in_axes, args=args), frozenset({"SC101"}))


def test_an_array_of_per_example_scalars_is_reported_as_jnp_stack_is() -> None:
    for build in ("jnp.array([x, x])", "jnp.stack([x, x])"):
        checked = check(f"""\
import jax
import jax.numpy as jnp

def get_obs(x):
    obs = {build}
    return jnp.zeros(3) + obs

out = jax.vmap(get_obs)(jnp.zeros(8))
""")
        assert checked.codes == ("SC101",), build
