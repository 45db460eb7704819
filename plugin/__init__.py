"""The mypy plugin: shapecheck's diagnostics inside mypy, with `plugins = shapecheck.plugin`.

What it does:
- `f32[(5, 7), {'batch': 20}]` and the other annotations of the language are valid types that
  mean `jax.Array` (Any where jax is not installed), through the type-analyze hook
  (`annotations`); mypy checks the values exactly as strictly as any `jax.Array`.
- Each checked file is analysed by the shared engine (`shapecheck.engine.Engine.analyze`) over
  its text, with mypy's module graph as the source of imported project modules, and the
  diagnostics are reported as mypy errors with codes `shape-<rule name>` (`codes`).

How errors get reported (mypy has no per-file plugin hook): the first plugin hook that runs
while mypy is processing a file reports that file's diagnostics into mypy's `Errors` object,
reached through the hook's api (`reporting`); the file's path is remembered so it is reported
exactly once per build. The hooks that can fire are listed in `hooks`: annotations and
`x = jnp...(...)` assignments during semantic analysis (which covers unannotated functions,
whose bodies mypy never type-checks), and calls, methods and attributes of jax, numpy and
the project during type checking. Reporting is deferred while mypy runs an inference attempt
under an error watcher, which would discard it. Since the diagnostics are ordinary mypy
errors of that file, `# type: ignore[code]` applies, `warn_unused_ignores` sees them, and
mypy's incremental cache stores and replays them for unchanged modules;
`report_config_data` (plugin version and options) invalidates the cache when either changes.

Valid named-axis code is valid to mypy (`named_axes`, `restored`, and the `jax-stubs` partial
stub package for the removed `jax.experimental.maps`). Shape results depend on the texts of
imported project modules, which mypy's own types do not show: `freshness` stamps each project
module with its text's hash, so mypy's cache and dmypy re-check importers after an edit, and
the reporter re-reports whatever dmypy dropped.

On a build with enough project text and a core to spare, the analyses run in a worker process
(`prefetch`, `worker`) while mypy checks the modules they import; a result from it is used only
where it is exactly what an analysis in mypy's process would give, so the output is the same.

A file with shapecheck findings but none of those constructs (no annotation of the
language, no assignment from jax/numpy, no checked call into them) is not reported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the analysis worker (`worker`) runs inside this package and imports no mypy
    from mypy.plugin import Plugin


def plugin(version: str) -> type[Plugin]:
    """mypy's entry point: the plugin class for any mypy version (it uses the 1.x+ hook API)."""
    from shapecheck.plugin.main import ShapecheckPlugin

    return ShapecheckPlugin
