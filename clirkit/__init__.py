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


def _is_the_command() -> bool:
    """Whether this process is the command: the console script ``clirkit``, ``python -m clirkit`` (whose package
    import sees ``-m`` as sys.argv[0]; sys.orig_argv names the module) or clirkit/__main__.py run as a file; not
    one of its worker processes, which import clirkit with the command's sys.argv (a Ctrl-C reaches them too)."""
    argv0 = _sys.argv[0] if _sys.argv else ""
    orig = getattr(_sys, "orig_argv", [])
    if _os.path.basename(argv0) == "clirkit" or argv0.endswith(_os.path.join("clirkit", "__main__.py")):
        return argv0 in orig  # a worker process (loky, spawn) is given its parent's sys.argv, not its orig_argv
    return argv0 == "-m" and any(a == "-m" and b == "clirkit" for a, b in zip(orig, orig[1:]))


# The command imports this module first: a Ctrl-C from here until clirkit.cli.main takes over is one line, not a
# traceback from an import. ``_signal`` (the signal module without its enums) is set up at once; a Ctrl-C that Python
# turns into KeyboardInterrupt before (its handler runs at the first call, ``_is_the_command()``) is the same line. A
# SIGINT ignored by the caller (a background job) stays ignored. Imported as a library, nothing changes.
try:
    if _is_the_command():
        import _signal

        try:
            if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
                _signal.signal(_signal.SIGINT, _interrupted_early)
        except ValueError:  # pragma: no cover (not the main thread: the caller's signals, as they are)
            pass
except KeyboardInterrupt:  # pragma: no cover (a subprocess test sends it)
    if _is_the_command():
        _interrupted_early(0, None)
    raise

from clirkit.errors import ClirkitError  # noqa: E402

__version__ = "0.2.0"
__all__ = ["ClirkitError", "__version__"]
