"""clirkit: classical cross-language information retrieval.

Importing the package is cheap: heavy modules (scipy, sacremoses, joblib) are
imported by the submodules that need them, not here.
"""
from __future__ import annotations

import os as _os
import sys as _sys


def _interrupted_early(signum, frame) -> None:  # pragma: no cover (a subprocess test sends it)
    """Ctrl-C before the command's ``main`` runs (its imports): one line and status 130, as later."""
    _os.write(2, b"clirkit: interrupted\n")
    _os._exit(130)


# The command (the console script ``clirkit`` or ``python -m clirkit``) imports this module first: a Ctrl-C from
# here until clirkit.cli.main takes over is one line, not a traceback from an import. Imported as a library, this
# changes nothing.
if _os.path.basename(_sys.argv[0] if _sys.argv else "") == "clirkit" or \
        (_sys.argv[0] if _sys.argv else "").endswith(_os.path.join("clirkit", "__main__.py")):
    import signal as _signal
    import threading as _threading

    if _threading.current_thread() is _threading.main_thread():
        _signal.signal(_signal.SIGINT, _interrupted_early)

from clirkit.errors import ClirkitError  # noqa: E402

__version__ = "0.2.0"
__all__ = ["ClirkitError", "__version__"]
