"""Ensembles against the libraries themselves: a module built under a map (`nnx.vmap` of a
function making a layer, its Rngs split by `nnx.split_rngs` or `rngs.fork`, or given an
axis_size; `eqx.filter_vmap` of one, over split keys) holds each parameter stacked along the
map's out_axes, and a map over it along that axis (an int, `nnx.StateAxes`, `eqx.if_array`)
or an `nnx.scan` over a stack of blocks calls one member at a time. Where the libraries
accept, the checker reports nothing and infers the result's shape; where they raise (another
count of members: SC102; another count of features: SC104; another `length`: SC102), it
reports it (`tests.differential.agree`)."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shapecheck.api import analyze_source
from tests.differential import agree, cases, check, shape_literal

pytest.importorskip("jax")
pytest.importorskip("flax.nnx")
pytest.importorskip("equinox")

CODES = frozenset({"SC102", "SC103", "SC104"})

NNX = """\
import jax
import jax.numpy as jnp
from flax import nnx


class Block(nnx.Module):
    def __init__(self, features: int, rngs: nnx.Rngs):
        self.linear = nnx.Linear(features, features, rngs=rngs)
        self.scale = nnx.Param(jnp.ones((features,)))

    def __call__(self, x):
        return nnx.relu(self.linear(x)) * self.scale


{make}
out = {use}
"""

EQX = """\
import jax
import jax.numpy as jnp
import equinox as eqx

{make}
out = {use}
"""

members = st.integers(1, 4)
sizes = st.integers(1, 5)


def _other(draw: st.DrawFn, size: int) -> int:
    """`size` most of the time, another size sometimes."""
    return size if draw(st.booleans()) or draw(st.booleans()) else draw(sizes)


def _nnx_ensemble(draw: st.DrawFn, layer: str, count: int, axis: int) -> str:
    """An nnx ensemble of `count` members stacked along `axis`: the three ways to give each its keys."""
    out_axes = f", out_axes={axis}" if axis or draw(st.booleans()) else ""
    way = draw(st.sampled_from(["split_rngs", "fork", "axis_size"]))
    if way == "split_rngs":
        decorator = f"@nnx.vmap(in_axes=(0,){out_axes})" if out_axes or draw(st.booleans()) else "@nnx.vmap"
        return f"@nnx.split_rngs(splits={count})\n{decorator}\ndef make(rngs):\n    return {layer}\n\n\n" \
               "ens = make(nnx.Rngs(0))"
    if way == "fork":
        return f"ens = nnx.vmap(lambda rngs: {layer}{out_axes})(nnx.Rngs(0).fork(split={count}))"
    return f"ens = nnx.vmap(lambda rngs: {layer}, in_axes=None, axis_size={count}{out_axes})(nnx.Rngs(0))"


@st.composite
def nnx_ensembles(draw: st.DrawFn) -> str:
    """An nnx ensemble of Linear, LayerNorm or Block layers, mapped along its stacked axis (an
    int or a StateAxes) with an input passed whole or mapped too."""
    count, features, out_features, axis = draw(members), draw(sizes), draw(sizes), draw(st.sampled_from([0, 0, 1]))
    layer = draw(st.sampled_from([f"nnx.Linear({features}, {out_features}, rngs=rngs)",
                                  f"nnx.LayerNorm({features}, rngs=rngs)", f"Block({features}, rngs)"]))
    entry = draw(st.sampled_from([str(axis), f"nnx.StateAxes({{...: {axis}}})", f"nnx.StateAxes({{nnx.Param: {axis}}})"]))
    batch = draw(st.lists(sizes, max_size=2))
    mapped = draw(st.booleans())
    shape = [_other(draw, count)] * mapped + batch + [_other(draw, features)]
    out_axes = draw(st.sampled_from(["", "", ", out_axes=1", ", out_axes=-1"]))
    use = f"nnx.vmap(lambda m, x: m(x), in_axes=({entry}, {0 if mapped else None}){out_axes})" \
          f"(ens, jnp.zeros({shape_literal(shape)}))"
    return NNX.format(make=_nnx_ensemble(draw, layer, count, axis), use=use)


@given(nnx_ensembles())
@cases(80)
def test_nnx_ensembles_agree_with_nnx(program: str) -> None:
    agree(program, CODES)


@st.composite
def nnx_stacks(draw: st.DrawFn) -> str:
    """`nnx.scan` over a stack of blocks a vmapped constructor built (a transformer's layers):
    the carry goes through each block in turn."""
    count, features = draw(members), draw(sizes)
    entry = draw(st.sampled_from(["0", "nnx.StateAxes({...: 0})", "nnx.StateAxes({nnx.Param: 0})"]))
    shape = shape_literal([*draw(st.lists(sizes, max_size=2)), _other(draw, features)])
    length = f", length={_other(draw, count)}" if draw(st.booleans()) else ""
    if draw(st.booleans()):
        use = f"nnx.scan(lambda x, m: m(x), in_axes=(nnx.Carry, {entry}), out_axes=nnx.Carry{length})" \
              f"(jnp.zeros({shape}), ens)"
    else:
        use = f"nnx.scan(lambda x, m: (m(x), x.sum()), in_axes=(nnx.Carry, {entry}), " \
              f"out_axes=(nnx.Carry, 0){length})(jnp.zeros({shape}), ens)[{draw(st.sampled_from([0, 1]))}]"
    return NNX.format(make=_nnx_ensemble(draw, f"Block({features}, rngs)", count, 0), use=use)


@given(nnx_stacks())
@cases(50)
def test_scans_over_a_stack_of_nnx_blocks_agree_with_nnx(program: str) -> None:
    agree(program, CODES)


@st.composite
def equinox_ensembles(draw: st.DrawFn) -> str:
    """An equinox ensemble of Linear, MLP or LayerNorm layers (over split keys, or one key and
    an axis_size), mapped along its stacked axis with an input passed whole or mapped too."""
    count, features, out_features, axis = draw(members), draw(sizes), draw(sizes), draw(st.sampled_from([0, 0, 1]))
    layer = draw(st.sampled_from([f"eqx.nn.Linear({features}, {out_features}, key=key)",
                                  f"eqx.nn.MLP({features}, {out_features}, 3, 1, key=key)",
                                  f"eqx.nn.LayerNorm({features})"]))
    out_axes = f"out_axes=eqx.if_array({axis})" if axis or draw(st.booleans()) else ""
    way = draw(st.sampled_from(["decorated", "lambda", "axis_size"]))
    keys = f"jax.random.split(jax.random.key(0), {count})"
    if way == "decorated":
        make = f"@eqx.filter_vmap({out_axes})\ndef make(key):\n    return {layer}\n\n\nens = make({keys})"
    elif way == "lambda":
        make = f"ens = eqx.filter_vmap(lambda key: {layer}{', ' + out_axes if out_axes else ''})({keys})"
    else:
        make = f"ens = eqx.filter_vmap(lambda key: {layer}, in_axes=None, axis_size={count}" \
               f"{', ' + out_axes if out_axes else ''})(jax.random.key(0))"
    mapped = draw(st.booleans())
    shape = [_other(draw, count)] * mapped + [_other(draw, features)]
    x_entry = draw(st.sampled_from(["0", "eqx.if_array(0)"])) if mapped else "None"
    in_axes = "" if mapped and axis == 0 and draw(st.booleans()) else f", in_axes=(eqx.if_array({axis}), {x_entry})"
    result_axes = draw(st.sampled_from(["", "", ", out_axes=1", ", out_axes=-1"]))
    use = f"eqx.filter_vmap(lambda m, x: m(x){in_axes}{result_axes})(ens, jnp.zeros({shape_literal(shape)}))"
    return EQX.format(make=make, use=use)


@given(equinox_ensembles())
@cases(80)
def test_equinox_ensembles_agree_with_equinox(program: str) -> None:
    agree(program, CODES)


TRIVIAL = {
    "an nnx ensemble of one": NNX.format(
        make="ens = nnx.vmap(lambda rngs: nnx.Linear(3, 2, rngs=rngs))(nnx.Rngs(0).fork(split=1))",
        use="nnx.vmap(lambda m, x: m(x), in_axes=(0, None))(ens, jnp.zeros((3,)))"),
    "an nnx ensemble of one, mapped with its input": NNX.format(
        make="@nnx.split_rngs(splits=1)\n@nnx.vmap\ndef make(rngs):\n    return nnx.Linear(3, 2, rngs=rngs)\n\n\n"
             "ens = make(nnx.Rngs(0))",
        use="nnx.vmap(lambda m, x: m(x))(ens, jnp.zeros((1, 3)))"),
    "an nnx stack of one block": NNX.format(
        make="ens = nnx.vmap(lambda rngs: Block(2, rngs))(nnx.Rngs(0).fork(split=1))",
        use="nnx.scan(lambda x, m: m(x), in_axes=(nnx.Carry, 0), out_axes=nnx.Carry)(jnp.zeros((2,)), ens)"),
    "an nnx ensemble the map returns with an array": NNX.format(
        make="ens, _ = nnx.vmap(lambda rngs: (nnx.Linear(3, 2, rngs=rngs), jnp.zeros(4)))(nnx.Rngs(0).fork(split=2))",
        use="nnx.vmap(lambda m, x: m(x), in_axes=(0, None))(ens, jnp.zeros((3,)))"),
    "an nnx ensemble of ensembles": NNX.format(
        make="@nnx.split_rngs(splits=(5, 2))\n@nnx.vmap\n@nnx.vmap\ndef make(rngs):\n"
             "    return nnx.Linear(3, 2, rngs=rngs)\n\n\nens = make(nnx.Rngs(0))",
        use="nnx.vmap(nnx.vmap(lambda m, x: m(x), in_axes=(0, None)), in_axes=(0, None))(ens, jnp.zeros((3,)))"),
    "an nnx ensemble of modules holding mapped arrays": NNX.format(
        make="class Weighted(nnx.Module):\n    def __init__(self, w):\n        self.w = nnx.Param(w)\n\n"
             "    def __call__(self, x):\n        return x @ self.w\n\n\n"
             "ens = nnx.vmap(lambda w: Weighted(w))(jnp.ones((4, 3, 2)))",
        use="nnx.vmap(lambda m, x: m(x) + x[:, :2], in_axes=(0, 0))(ens, jnp.ones((4, 5, 3)))"),
    "an equinox ensemble of modules holding mapped arrays": EQX.format(
        make="class Weighted(eqx.Module):\n    w: jax.Array\n\n    def __call__(self, x):\n        return x @ self.w\n\n\n"
             "ens = eqx.filter_vmap(lambda w: Weighted(w))(jnp.ones((4, 3, 2)))",
        use="eqx.filter_vmap(lambda m, x: m(x), in_axes=(eqx.if_array(0), None))(ens, jnp.ones((3,)))"),
    "an equinox ensemble of one": EQX.format(
        make="ens = eqx.filter_vmap(lambda key: eqx.nn.Linear(3, 2, key=key))(jax.random.split(jax.random.key(0), 1))",
        use="eqx.filter_vmap(lambda m, x: m(x), in_axes=(eqx.if_array(0), None))(ens, jnp.zeros((3,)))"),
    "an equinox ensemble the map returns with an array": EQX.format(
        make="ens, _ = eqx.filter_vmap(lambda key: (eqx.nn.Linear(3, 2, key=key), jnp.zeros(4)))("
             "jax.random.split(jax.random.key(0), 2))",
        use="eqx.filter_vmap(lambda m, x: m(x))(ens, jnp.zeros((2, 3)))"),
}


@pytest.mark.parametrize("name", sorted(TRIVIAL))
def test_trivial_ensembles_agree_with_the_libraries(name: str) -> None:
    """One member, one block, an ensemble returned beside an array, one stacked twice."""
    agree(TRIVIAL[name], CODES)


def test_the_examples_are_reported_where_the_member_is_called() -> None:
    """The two programs of the gap this closes: a member called on other features (SC104)."""
    nnx_program = """\
        import jax.numpy as jnp
        from flax import nnx
        @nnx.split_rngs(splits=4)
        @nnx.vmap(in_axes=(0,), out_axes=0)
        def make(rngs):
            return nnx.Linear(12, 1, rngs=rngs)
        ens = make(nnx.Rngs(0))
        out = nnx.vmap(lambda m, x: m(x), in_axes=(0, None))(ens, jnp.ones((32, 13)))
        """
    eqx_program = """\
        import jax, jax.numpy as jnp
        import equinox as eqx
        @eqx.filter_vmap
        def make(key):
            return eqx.nn.Linear(4, 2, key=key)
        ens = make(jax.random.split(jax.random.PRNGKey(0), 3))
        out = eqx.filter_vmap(lambda m, x: m(x), in_axes=(eqx.if_array(0), None))(ens, jnp.ones(5))
        """
    for program in (nnx_program, eqx_program):
        agree(program, frozenset({"SC104"}))
        assert check(program).codes == ("SC104",)


UNKNOWN = """\
import jax
import jax.numpy as jnp
import equinox as eqx
from flax import nnx

ens = nnx.vmap(lambda rngs: nnx.Linear(3, 2, rngs=rngs), out_axes=1)(nnx.Rngs(0).fork(split=4))
models = eqx.filter_vmap(lambda key: eqx.nn.Linear(3, 2, key=key))(jax.random.split(jax.random.key(0), 4))
a = nnx.vmap(lambda m, x: m(x), in_axes=(None, 0))(ens, jnp.ones((5, 3)))
b = nnx.vmap(lambda m, x: m(x), in_axes=(0, None))(ens, jnp.ones((3,)))
c = ens(jnp.ones((3,)))
d = ens.kernel
e = eqx.filter_vmap(lambda m, x: m(x), in_axes=(None, 0))(models, jnp.ones((4, 3)))
f = nnx.vmap(lambda m, x: m(x), in_axes=(nnx.StateAxes({nnx.Param: 0, ...: None}), None))(ens, jnp.ones((3,)))
h = nnx.vmap(lambda rngs: nnx.Linear(3, 2, rngs=rngs))(nnx.Rngs(0).fork(split={"params": 4}))
"""


def test_an_ensemble_used_otherwise_is_unknown_and_never_reported() -> None:
    """Mapped whole (in_axes None: each member sees the stacked arrays), along another axis
    than the one it is stacked on, called directly, its attributes, state mapped apart, and a
    a split whose keys are not read: JAX refuses most of these, the checker knows nothing of
    them, and says nothing."""
    result = analyze_source("t.py", UNKNOWN, keep_types=True)
    assert not result.diagnostics
    first = next(index for index, line in enumerate(UNKNOWN.splitlines(), 1) if line.startswith("a = "))
    known = {t.span.line - first for t in result.types if t.span.column == 4}
    assert known.isdisjoint(range(7)), known


def test_an_ensemble_s_trivial_maps_keep_their_members() -> None:
    """An ensemble with an input of the members' features passes; with none mapped (in_axes
    None for the input) the members alone set the map's size."""
    program = NNX.format(make="ens = nnx.vmap(lambda rngs: nnx.Linear(3, 2, rngs=rngs))(nnx.Rngs(0).fork(split=4))",
                         use="nnx.vmap(lambda m, x: m(x), in_axes=(0, None))(ens, jnp.zeros((7, 3)))")
    checked = check(program)
    assert checked.codes == () and checked.type is not None and checked.type.dims == (4, 7, 2)
    agree(textwrap.dedent(program), CODES)


def test_jax_vmap_over_an_ensemble_s_arrays_gives_each_member() -> None:
    """`jax.vmap` over an equinox ensemble (or its arrays, `eqx.filter(..., eqx.is_array)`) along
    its stacked axis: each member on the input, as equinox's own map does."""
    program = textwrap.dedent("""\
        import jax
        import jax.numpy as jnp
        import equinox as eqx

        models = eqx.filter_vmap(lambda key: eqx.nn.Linear(3, 2, key=key))(jax.random.split(jax.random.key(0), 4))
        out = jax.vmap(lambda p, x: p(x), in_axes=(0, None))(eqx.filter(models, eqx.is_array), jnp.ones((3,)))
        """)
    checked = check(program)
    assert checked.codes == () and checked.type is not None and checked.type.dims == (4, 2)
    agree(program, CODES)
    wrong = program.replace("jnp.ones((3,))", "jnp.ones((5,))")
    agree(wrong, frozenset({"SC104"}))
    assert check(wrong).codes == ("SC104",)
