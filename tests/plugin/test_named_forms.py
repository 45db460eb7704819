"""Valid named-axis code type-checks with the plugin on, and mypy stays as strict elsewhere.

Without the plugin's signature hooks, shipped stubs and restored names, each line of NAMED is a
mypy error of its own (`arg-type` for a named `axis`, `import-not-found` for the removed
`jax.experimental.maps`, `attr-defined` for the removed `lax.pdot`).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

from shapecheck.plugin.restored import RESTORED

from .support import ROOT, cache_for, run_mypy, write_config

NAMED = '''\
import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
from jax import lax
from jax.experimental.maps import Mesh, xmap
from jax.lax import pdot

import shapecheck.runtime.lax as slax
import shapecheck.runtime.nn as snn
import shapecheck.runtime.numpy as snp
from shapecheck import f32
from shapecheck.runtime import xmap as runtime_xmap


def reductions(x: f32[(5,), {'batch': 3, 'k': 4}]) -> list[jax.Array]:
    return [
        jnp.sum(x, axis='batch'),
        jnp.max(x, axis=('k', 0)),
        jnp.mean(x, ('batch', 'k')),
        jnp.argmax(x, axis='k'),
        jnp.any(x > 0, axis=['k']),
        x.sum(axis='batch'),
        x.mean(axis=(0, 'k')),
        x.argmin(axis='k'),
        jax.nn.softmax(x, axis='k'),
        jax.nn.log_softmax(x, axis=('k',)),
        jax.nn.logsumexp(x, axis='k'),
        jsp.logsumexp(x, axis=('k', 0)),
        jax.nn.one_hot(jnp.arange(5), 4, axis='k'),
        snp.sum(x, axis='batch'),
        snn.one_hot(jnp.arange(5), 4, axis='k'),
    ]


def collectives(x: f32[(5,), {'k': 4}], y: f32[(5,), {'k': 4}]) -> list[jax.Array]:
    return [
        jnp.einsum('i{k},i{k}->i', x, y),
        lax.psum(x, 'k'),
        lax.pmean(x, ('k', 0)),
        lax.pmax(x, 'k'),
        lax.pmin(x, 'k'),
        lax.pdot(x, y, 'k'),
        pdot(x, y, 'k', pos_contract=((0,), (0,))),
        slax.pdot(x, y, 'k'),
        lax.all_gather(x, 'k'),
        lax.axis_index('k'),
        lax.ppermute(x, 'k', [(0, 1)]),
        lax.pshuffle(x, 'k', [1, 0]),
    ]


mapped = xmap(jnp.sin, in_axes=['i', ...], out_axes=['i', ...])
also = runtime_xmap(jnp.sin, in_axes=['i', ...], out_axes=['i', ...], axis_resources={'i': 'x'})
mesh_type: type[Mesh] = Mesh
'''


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def test_named_forms_are_valid_code(tmp_path: Path, plugin_cache: Path) -> None:
    path = write(tmp_path, "named_forms.py", NAMED)
    # jax.lax's collectives are untyped in JAX itself (`no-untyped-call` under --strict, with
    # names or ints alike): allowed in this module, every other strict check stays on. Set
    # for the module rather than globally, it keeps the --strict runs' cache of jax valid.
    config = write_config(tmp_path)
    config.write_text(config.read_text() + "[mypy-named_forms]\nallow_untyped_calls = True\n")
    run = run_mypy([path], config, plugin_cache, ["--strict"])
    assert run.errors("named_forms.py") == [], run.stdout


def test_without_the_plugin_they_are_foreign_errors(tmp_path: Path, plain_cache: Path) -> None:
    # The same file, the plugin off: what the plugin's hooks and names take away.
    path = write(tmp_path, "named_plain.py", NAMED)
    run = run_mypy([path], write_config(tmp_path, plugin=False), plain_cache, ["--strict"])
    codes = {code for _, code in run.mypy_errors("named_plain.py")}
    assert {"arg-type", "attr-defined"} <= codes, run.stdout


ORDINARY = """\
    import jax
    import jax.numpy as jnp
    from jax import lax

    def f(x: jax.Array, y: jax.Array) -> list[jax.Array]:
        return [
            jnp.sum(x, axis=1.5),
            jnp.sum(x, axis='b', keepdims='yes'),
            x.sum(axis=[1.0]),
            jnp.cumsum(x, axis='b'),
            jnp.take(x, jnp.arange(2), axis='b'),
            lax.pdot(x, y, 'k', pos_contract=3),
            jax.nn.one_hot(x, 'four', axis='k'),
        ]
    """


def test_ordinary_errors_still_appear(tmp_path: Path, plugin_cache: Path) -> None:
    # Only `axis` of the reductions that take names is widened, and only by names: a float axis,
    # a str where JAX wants a bool or an int, and `axis` of functions without named forms stay
    # mypy errors.
    path = write(tmp_path, "ordinary.py", ORDINARY)
    run = run_mypy([path], write_config(tmp_path), plugin_cache, ["--strict"])
    expected = {(line, "arg-type") for line in (7, 8, 10, 11, 12, 13)} | {(9, "list-item")}
    assert run.mypy_errors("ordinary.py") == expected, run.stdout


INSTALLED_STUBS = """\
    import jax
    import jax.experimental.pjit
    import jax.numpy as jnp
    from jax.experimental.maps import Mesh, ResourceEnv, mesh, thread_resources, xmap

    mapped = xmap(jnp.sin, in_axes=['i', ...], out_axes=['i', ...])
    mesh_type: type[Mesh] = Mesh
    total = jnp.sum(jnp.ones(3), axis=0)
    with mesh(jax.devices(), ('x',)):
        thread_resources.env = ResourceEnv(thread_resources.env.physical_mesh)
    thread_resources.restore()
    """


def test_the_installed_stub_package_is_partial(tmp_path: Path, plugin_cache: Path) -> None:
    # As installed: stubs/jax is `jax-stubs` in a folder on the path (no mypy_path to it). It
    # provides jax.experimental.maps; every other jax module still comes from jax itself.
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["package-dir"]["jax-stubs"] == "stubs/jax"
    assert {"jax-stubs", "jax-stubs.experimental"} <= set(config["packages"])
    assert (ROOT / "stubs" / "jax" / "py.typed").read_text().strip() == "partial"
    site = tmp_path / "site"
    site.mkdir()
    (site / "jax-stubs").symlink_to(ROOT / "stubs" / "jax", target_is_directory=True)
    ini = tmp_path / "mypy.ini"
    ini.write_text(f"[mypy]\nmypy_path = {ROOT}\nplugins = shapecheck.plugin\n")
    path = write(tmp_path, "installed_stubs.py", INSTALLED_STUBS)
    # A subprocess: mypy reads the folders of the path once per process. Verbose: mypy logs
    # every module it reads.
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ini),
         "--cache-dir", str(cache_for(plugin_cache)), "--show-error-codes", "--no-error-summary", "-v",
         str(path)],
        env={**os.environ, "PYTHONPATH": str(site)}, capture_output=True, text=True, timeout=600)
    assert (done.returncode, done.stdout) == (0, ""), done.stdout + done.stderr
    # The stub declares the removed module's names without importing their runtime, which would
    # have mypy analyse much of shapecheck in every project written for xmap.
    assert "jax.experimental.maps" in done.stderr and "shapecheck.runtime" not in done.stderr



def test_each_restored_name_has_its_runtime_signature() -> None:
    # mypy reads the restored names from a stub (importing the runtime would have it analyse
    # much of shapecheck in every project that imports jax.lax): the stub must say what the
    # runtime takes.
    runtimes = {"jax.lax": "shapecheck.runtime.lax"}  # where the restored names run
    assert runtimes.keys() == RESTORED.keys()
    for module, (source, names) in RESTORED.items():
        stub = ast.parse((ROOT / Path(*source.split("."))).with_suffix(".pyi").read_text())
        declared = {node.name: node for node in stub.body if isinstance(node, ast.FunctionDef)}
        assert sorted(declared) == sorted(names)
        runtime = importlib.import_module(runtimes[module])
        for name in names:
            assert _stubbed(declared[name]) == _parameters(inspect.signature(getattr(runtime, name))), name


def test_the_removed_modules_have_their_runtime_signatures() -> None:
    # The stubs of jax.experimental.maps and .pjit declare what `shapecheck run` gives those
    # modules rather than importing it (mypy would analyse the whole runtime in every project
    # written for xmap): each function as its runtime takes it, thread_resources with its
    # runtime's members.
    legacy = "shapecheck.runtime.legacy"
    stubs = {"maps": {"xmap": "shapecheck.runtime.xmap", "mesh": legacy, "ResourceEnv": legacy},
             "pjit": {"pjit": legacy, "with_sharding_constraint": legacy}}
    assert {path.stem for path in (ROOT / "stubs" / "jax" / "experimental").glob("*.pyi")} == set(stubs)
    for stem, runtimes in stubs.items():
        stub = ast.parse((ROOT / "stubs" / "jax" / "experimental" / f"{stem}.pyi").read_text())
        declared = {node.name: node for node in stub.body if isinstance(node, ast.FunctionDef)}
        assert sorted(declared) == sorted(runtimes), stem
        for name, module in runtimes.items():
            runtime = inspect.unwrap(getattr(importlib.import_module(module), name))
            assert _stubbed(declared[name]) == _parameters(inspect.signature(runtime)), name
        assert not [node for node in stub.body if isinstance(node, ast.ImportFrom)
                    and (node.module or "").startswith("shapecheck")], stem
    stub = ast.parse((ROOT / "stubs" / "jax" / "experimental" / "maps.pyi").read_text())
    stubbed = next(node for node in stub.body if isinstance(node, ast.ClassDef))
    kind = getattr(importlib.import_module(legacy), stubbed.name)
    assert isinstance(importlib.import_module(legacy).thread_resources, kind)
    members = {node.name for node in stubbed.body if isinstance(node, ast.FunctionDef)}
    assert members == {name for name in vars(kind) if not name.startswith("_")}


def _stubbed(node: ast.FunctionDef) -> list[tuple[str, str, str, bool]]:
    """Each parameter's name, kind, annotation and whether it has a default; then the return."""
    arguments = node.args
    kinds = ([inspect.Parameter.POSITIONAL_ONLY] * len(arguments.posonlyargs)
             + [inspect.Parameter.POSITIONAL_OR_KEYWORD] * len(arguments.args)
             + [inspect.Parameter.KEYWORD_ONLY] * len(arguments.kwonlyargs))
    listed = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    defaults = [False] * (len(arguments.posonlyargs) + len(arguments.args) - len(arguments.defaults))
    defaults += [True] * len(arguments.defaults) + [d is not None for d in arguments.kw_defaults]
    found = [(a.arg, str(kind), ast.unparse(a.annotation) if a.annotation else "", default)
             for a, kind, default in zip(listed, kinds, defaults, strict=True)]
    # `*args` after the positional ones, `**kwargs` last, as inspect lists them.
    if arguments.vararg is not None:
        found.insert(len(arguments.posonlyargs) + len(arguments.args),
                     _rest(arguments.vararg, inspect.Parameter.VAR_POSITIONAL))
    if arguments.kwarg is not None:
        found.append(_rest(arguments.kwarg, inspect.Parameter.VAR_KEYWORD))
    return [*found, ("return", "", ast.unparse(node.returns) if node.returns else "", False)]


def _rest(rest: ast.arg, kind: inspect._ParameterKind) -> tuple[str, str, str, bool]:
    return (rest.arg, str(kind), ast.unparse(rest.annotation) if rest.annotation else "", False)


def _parameters(signature: inspect.Signature) -> list[tuple[str, str, str, bool]]:
    # The runtime module postpones its annotations: each is the text the stub writes.
    found = [(p.name, str(p.kind), p.annotation if p.annotation is not p.empty else "", p.default is not p.empty)
             for p in signature.parameters.values()]
    returned = signature.return_annotation
    return [*found, ("return", "", returned if returned is not signature.empty else "", False)]
