"""The libraries' maps and scans of functions against the libraries themselves: `nnx.vmap`,
`eqx.filter_vmap` and `hk.vmap` (inside a transform), called or as decorators, and `nnx.scan`.

Each drawn map takes one to three arrays (and now and then a Python number or a module),
mapped along drawn axes or passed whole, of one size or not, its in_axes written in each
library's forms (an int, a tuple, a list, `eqx.if_array`, a dict by name), with or without
out_axes, axis_size and axis_name, arguments passed by keyword and parameters with defaults;
its body adds, multiplies or contracts them. Each drawn scan has a carry (first, second, or
all of `in_axes=nnx.Carry`) that its body keeps or changes in shape or dtype, arguments scanned
along drawn axes or passed whole, a drawn `length`, and out_axes that return the carry, the
stacked outputs, or both in either order. The checker must report exactly what the libraries
refuse and infer the shape and dtype of the rest (`tests.differential.agree`).
"""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.differential import agree, cases, check, shape_literal

pytest.importorskip("jax")
pytest.importorskip("flax.nnx")
pytest.importorskip("equinox")
pytest.importorskip("haiku")

CODES = frozenset({"SC002", "SC101", "SC102", "SC103", "SC104", "SC106", "SC202"})
NAMES = ("a", "b", "c")
sizes = st.integers(1, 4)
dtypes = st.sampled_from(["jnp.float32", "jnp.float32", "jnp.bfloat16", "jnp.int32"])


def _member(draw: st.DrawFn) -> list[int]:
    """What one member of the map sees of every argument, most of the time (now and then a
    scalar)."""
    return draw(st.lists(sizes, min_size=0 if draw(st.integers(0, 5)) == 0 else 1, max_size=2))


def _near(draw: st.DrawFn, dims: list[int]) -> list[int]:
    """`dims` most of the time; else with a dim changed, dropped or added."""
    choice = draw(st.integers(0, 7))
    if choice == 0 and dims:
        index = draw(st.integers(0, len(dims) - 1))
        return [*dims[:index], draw(sizes), *dims[index + 1:]]
    if choice == 1 and dims:
        return dims[1:]
    if choice == 2:
        return [draw(st.sampled_from([1, 2])), *dims]
    return list(dims)


def _mapped(draw: st.DrawFn, member: list[int], axis: int | None, size: int) -> list[int]:
    """An argument's shape: one member's, with the map's axis (of `size` mostly) at `axis`."""
    dims = _near(draw, member)
    if axis is None:
        return dims
    place = axis if axis >= 0 else len(dims) + 1 + axis
    if 0 <= place <= len(dims):
        dims.insert(place, size if draw(st.integers(0, 4)) else draw(sizes))
    return dims


def _body(draw: st.DrawFn, count: int, named: bool) -> str:
    """What the mapped function computes from its `count` parameters."""
    names = NAMES[:count]
    kinds = ["sum", "sum", "product", "reduce"] + (["matmul"] if count > 1 else []) + (["psum"] if named else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "sum":
        return " + ".join(names) if count > 1 else "a * 2"
    if kind == "product":
        return " * ".join(names) if count > 1 else "jnp.tanh(a)"
    if kind == "reduce":
        return f"({' + '.join(names)}).sum(-1)"
    if kind == "matmul":
        return "a @ b"
    return f"jax.lax.psum({' + '.join(names)}, 'i')"


def _entry(draw: st.DrawFn, extra: list[str]) -> str:
    return draw(st.sampled_from(["0", "0", "0", "1", "-1", "None", *extra]))


def _axis_of(entry: str) -> int | None:
    """The axis an in_axes entry maps an array along."""
    if entry.startswith("eqx.if_array("):
        return int(entry[len("eqx.if_array("):-1])
    return None if entry == "None" else int(entry)


def _definition(api: str, options: str, params: str, body: str, decorated: bool, indent: str = "") -> str:
    """`f`, the mapped function: a lambda mapped by a call, or a def under the decorator."""
    if decorated:
        decorator = f"@{api}({options})" if options else f"@{api}"
        return textwrap.indent(f"{decorator}\ndef f({params}):\n    return {body}\n", indent)
    return f"{indent}f = {api}(lambda {params}: {body}{', ' + options if options else ''})\n"


def _options(draw: st.DrawFn, in_axes: str | None, size: int, named: bool, out: bool = True) -> list[str]:
    options = [f"in_axes={in_axes}"] if in_axes is not None else []
    if out:
        options += draw(st.sampled_from([[], [], [], ["out_axes=1"], ["out_axes=-1"], ["out_axes=None"]]))
    if draw(st.integers(0, 4)) == 0:
        options.append(f"axis_size={size if draw(st.integers(0, 3)) else draw(sizes)}")
    if named:
        options.append("axis_name='i'")
    return options


def _in_axes(draw: st.DrawFn, count: int, extra: list[str], form: str | None = None) -> tuple[str | None, list[str]]:
    """in_axes as written (None: not given) and each argument's entry: as `form` says (default,
    int, tuple or list), or one of those drawn."""
    form = form or draw(st.sampled_from(["default", "int", "tuple", "tuple", "tuple", "list"]))
    if form == "default":
        return None, ["0"] * count
    if form == "int":
        entry = _entry(draw, [])
        return entry, [entry] * count
    entries = [_entry(draw, extra) for _ in range(count)]
    if form == "list":
        return f"[{', '.join(entries)}]", entries
    return f"({', '.join(entries)}{',' if count == 1 else ''})", entries


NNX_VMAP = """\
import jax
import jax.numpy as jnp
from flax import nnx

{definition}
out = f({arguments})
"""


@st.composite
def nnx_vmaps(draw: st.DrawFn) -> str:
    """`nnx.vmap` of a function of arrays: nnx binds keywords and defaults to positions, so a
    default parameter is mapped too, and a list in_axes is refused."""
    count, size, named = draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(0, 5)) == 0
    in_axes, entries = _in_axes(draw, count, [])
    member = _member(draw)
    shapes = [_mapped(draw, member, _axis_of(entry), size) for entry in entries]
    params = ", ".join(NAMES[:count])
    if draw(st.integers(0, 5)) == 0:
        params += ", scale=2.0"  # a default: an argument nnx maps as in_axes says
    body = _body(draw, count, named)
    options = ", ".join(_options(draw, in_axes, size, named))
    arguments = [f"jnp.zeros({shape_literal(shape)}, {draw(dtypes)})" for shape in shapes]
    if count > 1 and draw(st.integers(0, 3)) == 0:
        arguments[-1] = f"{NAMES[count - 1]}={arguments[-1]}"
    return NNX_VMAP.format(definition=_definition("nnx.vmap", options, params, body, draw(st.booleans())),
                           arguments=", ".join(arguments))


NNX_MODULE_VMAP = """\
import jax
import jax.numpy as jnp
from flax import nnx

model = nnx.Linear({features}, {out_features}, rngs=nnx.Rngs(0))
out = nnx.vmap(lambda m, x: m(x), in_axes=(None, {axis}))(model, jnp.zeros({shape}))
"""


@st.composite
def nnx_module_vmaps(draw: st.DrawFn) -> str:
    """A module broadcast to every member (in_axes None), its input mapped."""
    features = draw(sizes)
    axis = draw(st.sampled_from([0, 1]))
    shape = _mapped(draw, [*draw(st.lists(sizes, max_size=1)), features], axis, draw(sizes))
    return NNX_MODULE_VMAP.format(features=features, out_features=draw(sizes), axis=axis,
                                  shape=shape_literal(shape))


@given(nnx_vmaps())
@cases(60)
def test_nnx_vmaps_agree_with_nnx(program: str) -> None:
    agree(program, CODES)


@given(nnx_module_vmaps())
@cases(20)
def test_nnx_vmaps_of_a_broadcast_module_agree_with_nnx(program: str) -> None:
    agree(program, CODES)


EQX_VMAP = """\
import jax
import jax.numpy as jnp
import equinox as eqx

{definition}
out = f({arguments})
"""


@st.composite
def equinox_vmaps(draw: st.DrawFn) -> str:
    """`eqx.filter_vmap`: arrays mapped over axis 0 by default and Python numbers passed whole;
    in_axes as ints, `eqx.if_array`, a tuple, a dict by parameter name (a list is refused); no
    keyword arguments (refused)."""
    count, size, named = draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(0, 5)) == 0
    form = draw(st.sampled_from(["default", "default", "tuple", "tuple", "dict", "if_array", "list"]))
    entries = ["eqx.if_array(0)"] * count
    in_axes: str | None = None
    if form == "if_array":
        entries = [f"eqx.if_array({draw(st.sampled_from([0, 1]))})"] * count
        in_axes = entries[0]
    elif form in ("tuple", "list"):
        in_axes, entries = _in_axes(draw, count, ["eqx.if_array(0)", "eqx.if_array(1)"], form)
    elif form == "dict":
        name = draw(st.sampled_from((*NAMES[:count], "d")))
        entry = draw(st.sampled_from(["0", "1", "None"]))
        in_axes = f"{{'{name}': {entry}}}"
        entries = [entry if n == name else "eqx.if_array(0)" for n in NAMES[:count]]
    member = _member(draw)
    body = _body(draw, count, named)
    arguments: list[str] = []
    for index, entry in enumerate(entries):
        # (`x @ 2.0` is not checked: a Python number in a contraction is unknown.)
        if index > 0 and entry.startswith("eqx.") and "@" not in body and draw(st.integers(0, 5)) == 0:
            arguments.append("2.0")  # not an array: passed whole
            continue
        arguments.append(f"jnp.zeros({shape_literal(_mapped(draw, member, _axis_of(entry), size))}, "
                         f"{draw(dtypes)})")
    if count > 1 and draw(st.integers(0, 9)) == 0:
        arguments[-1] = f"{NAMES[count - 1]}={arguments[-1]}"
    options = ", ".join(_options(draw, in_axes, size, named))
    definition = _definition("eqx.filter_vmap", options, ", ".join(NAMES[:count]), body, draw(st.booleans()))
    return EQX_VMAP.format(definition=definition, arguments=", ".join(arguments))


EQX_MODULE_VMAP = """\
import jax
import jax.numpy as jnp
import equinox as eqx

model = eqx.nn.Linear({features}, {out_features}, key=jax.random.key(0))
out = eqx.filter_vmap(lambda m, x: m(x), in_axes=(None, {axis}))(model, jnp.zeros({shape}))
"""


@st.composite
def equinox_module_vmaps(draw: st.DrawFn) -> str:
    """An equinox layer (one example at a time) broadcast to every member, its input mapped,
    each member's of its features or others. (A member of rank 2 is not drawn: `Linear`'s
    bias added to its `(out_features, n)` product is not checked.)"""
    features = draw(sizes)
    axis = draw(st.sampled_from(["0", "eqx.if_array(0)", "1"]))
    member = [features if draw(st.integers(0, 2)) else draw(sizes)]
    shape = member.copy()
    shape.insert(min(_axis_of(axis) or 0, 1), draw(sizes))
    return EQX_MODULE_VMAP.format(features=features, out_features=draw(sizes), axis=axis, shape=shape_literal(shape))


@given(equinox_vmaps())
@cases(60)
def test_equinox_filter_vmaps_agree_with_equinox(program: str) -> None:
    agree(program, CODES)


@given(equinox_module_vmaps())
@cases(20)
def test_equinox_filter_vmaps_of_a_broadcast_layer_agree_with_equinox(program: str) -> None:
    agree(program, CODES)


HAIKU_VMAP = """\
import functools

import haiku as hk
import jax
import jax.numpy as jnp


def forward({params}):
{definition}    return f({params})


model = hk.without_apply_rng(hk.transform(forward))
{arrays}
out = model.apply(model.init(jax.random.key(0), {init}), {params})
"""


@st.composite
def haiku_vmaps(draw: st.DrawFn) -> str:
    """`hk.vmap` inside a transform (`split_rng=False`), its body with a `hk.Linear` or not; init
    on the arguments or on others (the Linear's parameters are one member's)."""
    count, size, named = draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(0, 5)) == 0
    in_axes, entries = _in_axes(draw, count, [])
    member = _member(draw)
    shapes = [_mapped(draw, member, _axis_of(entry), size) for entry in entries]
    body = _body(draw, count, named)
    if draw(st.integers(0, 2)) == 0:
        body = f"hk.Linear({draw(sizes)})({body})"
    options = ", ".join([*_options(draw, in_axes, size, named), "split_rng=False"])
    params = ", ".join(NAMES[:count])
    if draw(st.booleans()):
        definition = _definition("hk.vmap", options, params, body, False, "    ")
    else:
        definition = _definition("functools.partial", f"hk.vmap, {options}", params, body, True, "    ")
    arrays = "\n".join(f"{name} = jnp.zeros({shape_literal(shape)})"
                       for name, shape in zip(NAMES, shapes, strict=False))
    init = [name if draw(st.integers(0, 3)) else f"jnp.zeros({shape_literal(_near(draw, shape))})"
            for name, shape in zip(NAMES, shapes, strict=False)]
    return HAIKU_VMAP.format(params=params, definition=definition, arrays=arrays, init=", ".join(init))


@given(haiku_vmaps())
@cases(50)
def test_haiku_vmaps_agree_with_haiku(program: str) -> None:
    agree(program, CODES)


NNX_SCAN = """\
import jax
import jax.numpy as jnp
from flax import nnx

{definition}
out = f({arguments}){pick}
"""


@st.composite
def nnx_scans(draw: st.DrawFn) -> str:
    """`nnx.scan` over a function of a carry and arguments scanned along drawn axes (or passed
    whole), its body keeping the carry or changing it (`c @ w` to other features, a wider
    dtype), its outputs stacked along drawn axes."""
    batch = draw(st.lists(sizes, max_size=1))
    features, steps = draw(sizes), draw(st.integers(1, 3))
    carry_dtype = draw(st.sampled_from(["jnp.float32", "jnp.float32", "jnp.bfloat16"]))
    carry = f"jnp.zeros({shape_literal([*batch, features])}, {carry_dtype})"
    if draw(st.integers(0, 7)) == 0:
        carry, batch = "0.0", []  # a Python number: a weakly typed carry
    whole_carry = draw(st.integers(0, 5)) == 0
    kind = "whole" if whole_carry else draw(st.sampled_from(["add", "add", "matmul", "broadcast"]))
    arguments: list[str] = []
    entries: list[str] = []
    params: list[str] = []
    if kind == "whole":
        body, returned_y = "c * 2", "c.sum()"
    else:
        axis = draw(st.sampled_from([0, 0, 1, -1]))
        step = [features, draw(st.sampled_from([features, features, draw(sizes)]))] if kind == "matmul" \
            else _near(draw, [*batch, features])
        xs = list(step)
        place = axis if axis >= 0 else len(xs) + 1 + axis
        if 0 <= place <= len(xs):
            xs.insert(place, steps)
        arguments.append(f"jnp.zeros({shape_literal(xs)}, {draw(dtypes)})")
        entries.append(str(axis))
        params.append("x")
        body = {"add": "c + x", "matmul": "c @ x", "broadcast": "c * w + x"}[kind]
        returned_y = "x"
        if kind == "broadcast":
            arguments.append(f"jnp.zeros({shape_literal(_near(draw, [features]))})")
            entries.append("None")
            params.append("w")
        if draw(st.integers(0, 4)) == 0:  # another scanned argument, of its own length or not
            other = steps if draw(st.integers(0, 3)) else draw(st.integers(1, 3))
            arguments.append(f"jnp.zeros({shape_literal([other])})")
            entries.append("0")
            params.append("y")
            body, returned_y = f"{body} + y.sum()", "y"
    carry_first = draw(st.booleans())
    if kind == "whole":
        in_axes, params = "nnx.Carry", ["c"]
    elif carry_first:
        in_axes, params = f"(nnx.Carry, {', '.join(entries)})", ["c", *params]
    else:
        in_axes, params = f"({', '.join(entries)}, nnx.Carry)", [*params, "c"]
    arguments = [carry, *arguments] if kind == "whole" or carry_first else [*arguments, carry]
    out_form = draw(st.sampled_from(["carry", "pair", "pair", "swapped", "default"]))
    out_axis = draw(st.sampled_from([0, 0, 1, -1]))
    options = [] if in_axes == "(nnx.Carry, 0)" and draw(st.booleans()) else [f"in_axes={in_axes}"]
    if out_form == "carry":
        options.append("out_axes=nnx.Carry")
        returned, pick = body, ""
    elif out_form == "swapped":
        options.append(f"out_axes=({out_axis}, nnx.Carry)")
        returned, pick = f"{returned_y}, {body}", draw(st.sampled_from(["[0]", "[1]"]))
    else:
        if out_form == "pair" or out_axis != 0:
            options.append(f"out_axes=(nnx.Carry, {out_axis})")
        returned, pick = f"{body}, {returned_y}", draw(st.sampled_from(["[0]", "[1]"]))
    if kind == "whole" or draw(st.integers(0, 4)) == 0:
        options.append(f"length={steps if draw(st.integers(0, 3)) else draw(st.integers(0, 3))}")
    option_text = ", ".join(options)
    if draw(st.booleans()):
        decorator = f"@nnx.scan({option_text})" if option_text else "@nnx.scan"
        definition = f"{decorator}\ndef f({', '.join(params)}):\n    return {returned}\n"
    else:
        scanned = f"lambda {', '.join(params)}: ({returned})"
        definition = f"f = nnx.scan({', '.join([scanned, *options])})\n"
    return NNX_SCAN.format(definition=definition, arguments=", ".join(arguments), pick=pick)


@given(nnx_scans())
@cases(80)
def test_nnx_scans_agree_with_nnx(program: str) -> None:
    agree(program, CODES)


HAIKU_MAP = """\
import haiku as hk

f = lambda x: hk.vmap({body}, split_rng=False)(x)
model = hk.without_apply_rng(hk.transform(f))
x = jnp.ones({shape})
out = model.apply(model.init(jax.random.key(0), x), x)"""

TRIVIAL = {
    "nnx.vmap of one member":
        "from flax import nnx\n\nout = nnx.vmap(lambda a, b: a * b)(jnp.ones((1, 3)), jnp.ones((1, 3)))",
    "nnx.vmap of no members":
        "from flax import nnx\n\nout = nnx.vmap(lambda a, b: a * b)(jnp.ones((0, 3)), jnp.ones((0, 3)))",
    "nnx.vmap by axis_size alone":
        "from flax import nnx\n\nout = nnx.vmap(lambda a: a, in_axes=None, axis_size=1)(jnp.ones(()))",
    "filter_vmap of one member":
        "import equinox as eqx\n\nout = eqx.filter_vmap(lambda a, b: a * b)(jnp.ones((1, 1)), 1.0)",
    "filter_vmap of no members":
        "import equinox as eqx\n\nout = eqx.filter_vmap(lambda a: a)(jnp.ones((0, 2)))",
    "filter_vmap by axis_size alone":
        "import equinox as eqx\n\nout = eqx.filter_vmap(lambda a: a, in_axes=None, axis_size=1)(jnp.ones(()))",
    "filter_pmap over the devices":
        "import equinox as eqx\n\nout = eqx.filter_pmap(lambda a, b: a * b, axis_name='d')(jnp.ones((8, 2)), 2.0)",
    "filter_pmap of one device":
        "import equinox as eqx\n\nout = eqx.filter_pmap(lambda a: jax.lax.pmean(a, 'd'), axis_name='d')(jnp.ones((1, 3)))",
    "hk.vmap of one member": HAIKU_MAP.format(body="lambda x: hk.Linear(1)(x)", shape="(1, 1)"),
    "hk.vmap of no members": HAIKU_MAP.format(body="lambda x: x * 2", shape="(0, 2)"),
    "nnx.scan of one step":
        "from flax import nnx\n\nout = nnx.scan(lambda c, x: (c + x, x))(jnp.ones((1,)), jnp.ones((1, 1)))[1]",
    "nnx.scan of no steps":
        "from flax import nnx\n\nout = nnx.scan(lambda c, x: (c + x, x))(jnp.ones((2,)), jnp.ones((0, 2)))[1]",
    "nnx.scan of no steps by length":
        "from flax import nnx\n\n"
        "out = nnx.scan(lambda c: c * 2, in_axes=nnx.Carry, out_axes=nnx.Carry, length=0)(jnp.ones(()))",
    "nnx.scan of a carry alone":
        "from flax import nnx\n\n"
        "out = nnx.scan(lambda c: (c, c), in_axes=nnx.Carry, out_axes=(nnx.Carry, 0), length=1)(jnp.ones((1,)))[1]",
}


@pytest.mark.parametrize("name", sorted(TRIVIAL))
def test_trivial_cases_agree_with_the_libraries(name: str) -> None:
    """One member, none, one step, none: accepted by the libraries, inferred by the checker."""
    agree(f"import jax\nimport jax.numpy as jnp\n{TRIVIAL[name]}\n", CODES)


ENSEMBLE = """\
import jax
import jax.numpy as jnp
import equinox as eqx

models = eqx.filter_vmap(lambda k: eqx.nn.Linear(3, 4, key=k))(jax.random.split(jax.random.key(0), 5))
out = eqx.filter_vmap(lambda m, x: m(x))(models, jnp.zeros({shape}))
"""


@pytest.mark.parametrize("shape", ["(5, 3)", "(4, 3)", "(5, 2)"])
def test_an_ensemble_of_equinox_layers_agrees_with_equinox(shape: str) -> None:
    """The mapped layers hold stacked arrays; mapped again, each member is called on its own
    slice: another count of members (SC102) or of features (SC104) is refused."""
    agree(ENSEMBLE.format(shape=shape), frozenset({"SC102", "SC104"}))


def _made(scan: str, arguments: str, pick: str = "") -> str:
    """A program that makes `nnx.scan(scan)` and calls it."""
    return f"from flax import nnx\n\nf = nnx.scan({scan})\nout = f({arguments}){pick}"


REFUSED = {
    "nnx.scan's carry in in_axes only":
        _made("lambda c, x: c + x, in_axes=(nnx.Carry, 0), out_axes=0", "jnp.ones((2,)), jnp.ones((3, 2))"),
    "nnx.scan's carry in out_axes only":
        _made("lambda x: (x, x), in_axes=0, out_axes=(nnx.Carry, 0)", "jnp.ones((3, 2))", "[1]"),
    "nnx.scan's two carries":
        _made("lambda c, d: (c, d), in_axes=(nnx.Carry, nnx.Carry), out_axes=nnx.Carry",
              "jnp.ones((2,)), jnp.ones((2,))", "[0]"),
    "nnx.scan's nested carry":
        _made("lambda c, x: (c, x), in_axes=((nnx.Carry, 0), 0), out_axes=(nnx.Carry, 0)",
              "(jnp.ones((2,)), jnp.ones((2,))), jnp.ones((3,))", "[1]"),
    "nnx.scan's out_axes None":
        _made("lambda c, x: (c, x), out_axes=(nnx.Carry, None)", "jnp.ones((2,)), jnp.ones((3, 2))", "[1]"),
    "nnx.scan's in_axes=Carry of two arguments":
        _made("lambda c, x: c, in_axes=nnx.Carry, out_axes=nnx.Carry, length=2", "jnp.ones((2,)), jnp.ones((2,))"),
    "nnx.scan with nothing to scan":
        _made("lambda c, w: (c @ w, c), in_axes=(nnx.Carry, None)", "jnp.ones((3,)), jnp.ones((3, 3))", "[1]"),
    "nnx.scan's body returns no pair": _made("lambda c, x: c + x", "jnp.ones((2,)), jnp.ones((3, 2))"),
    "nnx.scan's body returns three": _made("lambda c, x: (c, x, x)", "jnp.ones((2,)), jnp.ones((3, 2))", "[1]"),
    "nnx.scan's in_axes one short of a default":
        _made("lambda c, x, w=1.0: (c * w, x)", "jnp.ones((2,)), jnp.ones((3, 2))", "[1]"),
    "nnx.vmap's default mapped":
        "from flax import nnx\n\ndef f(a, scale=2.0):\n    return a * scale\n\nout = nnx.vmap(f)(jnp.ones((4, 3)))",
    "filter_pmap's sizes that disagree":
        "import equinox as eqx\n\nout = eqx.filter_pmap(lambda a, b: a + b)(jnp.ones((8, 3)), jnp.ones((4, 3)))",
    "filter_pmap's collective over a name it does not bind":
        "import equinox as eqx\n\nout = eqx.filter_pmap(lambda a: jax.lax.psum(a, 'devices'), axis_name='device')("
        "jnp.ones((8, 3)))",
    "filter_vmap's dict entry no argument has":
        "import equinox as eqx\n\nout = eqx.filter_vmap(lambda a: a, in_axes={'b': 0})(jnp.ones((4, 3)))",
    "hk.vmap's keyword argument":
        "import haiku as hk\n\nf = lambda a, b: hk.vmap(lambda a, b: a + b, split_rng=False)(a, b=b)\n"
        "model = hk.without_apply_rng(hk.transform(f))\na = jnp.ones((2, 3))\n"
        "out = model.apply(model.init(jax.random.key(0), a, a), a, a)",
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_what_the_libraries_refuse_of_their_transforms_is_reported(name: str) -> None:
    """The refusals the drawn programs meet rarely or never: the axes nnx refuses when a scan is
    made, a scan with no length, a body of the wrong arity, the arguments each library binds."""
    program = f"import jax\nimport jax.numpy as jnp\n{REFUSED[name]}\n"
    assert check(program).codes
    agree(program, CODES)
