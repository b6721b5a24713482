"""The compiled SCS kernels (:mod:`clirkit.scs.kernels`, numba) when numba is installed, else numpy.

The kernels make the same floating-point operations in the same order as the numpy and scipy code they
replace (:class:`~clirkit.scs.optim.Adam`'s steps, :class:`~clirkit.scs.encoding.Rows`' products, the
gradient's row sums), so a model trained either way is the same bits. ``pip install 'clirkit[fast]'``
brings numba; the environment variable ``CLIRKIT_NUMBA=0`` keeps numpy.
"""
from __future__ import annotations

import os

_kernels = None  # clirkit.scs.kernels once imported, False without numba


def kernels():
    """:mod:`clirkit.scs.kernels`, or None without numba, with ``CLIRKIT_NUMBA=0`` or after numba failed.
    Imported once, on first use."""
    global _kernels
    if _kernels is None:
        _kernels = False
        if os.environ.get("CLIRKIT_NUMBA", "1") != "0":
            try:
                from clirkit.scs import kernels as compiled
            except ImportError:
                pass
            except Exception as error:  # a numba that imports but fails (an incompatible numpy or llvmlite)
                _without_numba(error)
            else:
                _kernels = compiled
    return _kernels or None


def call(name: str, *args) -> tuple[bool, object]:
    """``(True, kernels().name(*args))``, or ``(False, None)`` when there is no kernel or numba fails to compile
    it (said once; numpy then does the work, and every later call's, to the same bits)."""
    compiled = kernels()
    if compiled is None:
        return False, None
    try:
        return True, getattr(compiled, name)(*args)
    except Exception as error:
        if not type(error).__module__.startswith("numba"):
            raise
        _without_numba(error)
        return False, None


def _without_numba(error: BaseException) -> None:
    """numpy from now on, numba having failed with ``error``; say so once on stderr."""
    global _kernels
    import sys

    _kernels = False
    message = " ".join(str(error).split())[:200]
    print(f"clirkit: numba failed ({type(error).__name__}: {message}); SCS trains with numpy, the same models",
          file=sys.stderr)
