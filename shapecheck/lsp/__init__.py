"""`shapecheck lsp`: a language server on stdio (pygls, in the `lsp` extra).

Nothing here is imported by `shapecheck check`: pygls loads only when the server starts.
"""

from __future__ import annotations

import importlib.util
import os
import sys


def main() -> int:
    """Serve on stdin/stdout until the client exits (then the process ends, with 0 after a
    shutdown request and 1 without, as LSP asks); 2 when the `lsp` extra is missing."""
    missing = [name for name in ("pygls", "lsprotocol") if importlib.util.find_spec(name) is None]
    if missing:
        sys.stderr.write(f"shapecheck: error: the language server needs {' and '.join(missing)}; "
                         "install it with: pip install 'shapecheck[lsp]'\n")
        return 2
    from shapecheck.lsp.features import serve

    code = serve()
    # The client said exit: leave now, without waiting for the worker thread (its analysis
    # ended with the checker's process) or flushing the stdout pygls has closed.
    sys.stderr.flush()
    os._exit(code)
