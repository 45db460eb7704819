"""Names JAX removed that named-axis code still uses: `jax.lax.pdot`, put back for mypy.

A plugin cannot add a module attribute through a type hook, but it sees each module's tree when
mypy asks for its extra dependencies, before semantic analysis. There the plugin appends
`from shapecheck.restored_jax_lax import pdot as pdot` to `jax.lax`'s imports (the technique
NumPy's own mypy plugin used), so `lax.pdot` and `from jax.lax import pdot` get the runtime's
signature and are cached with `jax.lax` like any import. `restored_jax_lax` is a stub that
declares only those signatures (`shapecheck.runtime.lax` runs them): importing the runtime had
mypy analyse some 70 of shapecheck's modules (12,000 lines) in every project that imports
`jax.lax`. The removed module
`jax.experimental.maps` cannot be made this way (mypy looks modules up on disk before any
hook); it is a stub in the partial `jax-stubs` package shipped beside the plugin.
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import ImportFrom, MypyFile

from shapecheck.plugin.dependencies import PRIORITY

# module -> (the module that defines the names now, the names)
RESTORED: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    "jax.lax": ("shapecheck.restored_jax_lax", ("pdot",)),
}


def restore_names(file: MypyFile) -> list[tuple[int, str, int]]:
    """Add the removed names to `file` when it is one of the modules they were removed from.

    Returns the extra dependency the added import needs. A tree whose statements are not
    loaded yet (mypy's native parser defers them for some files) cannot take the import; it is
    left as it is rather than half-patched.
    """
    found = RESTORED.get(file.fullname)
    if found is None or not file.defs:
        return []
    source, names = found
    if any(isinstance(node, ImportFrom) and node.id == source for node in file.imports):
        return [(PRIORITY, source, 1)]
    statement = ImportFrom(source, 0, [(name, name) for name in names])
    statement.is_top_level = True
    statement.set_line(1)
    file.imports.append(statement)
    file.defs.append(statement)
    return [(PRIORITY, source, 1)]
