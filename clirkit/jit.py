"""Compiled kernels (numba), where numba is installed: the one loader of clirkit's modules of kernels.

:mod:`clirkit.retrieval.kernels` (BM25 ranking), :mod:`clirkit.scs.kernels` (SCS training steps) and
:mod:`clirkit.boost.kernels` (boosting rounds) each have a numpy twin that gives the same bits. :func:`kernels`
imports such a module on its first use in a process, so numba and the module's cached machine code are loaded
then, once, and only in a process that calls a kernel (one that ranks with numpy or trains no SCS never imports
numba); :func:`call` runs one kernel and falls back to numpy when numba cannot compile it (:class:`Kernels` holds
a module's name and fallback for both); :func:`without_numba` turns a module's kernels off for the rest of the
process and says why, once. ``pip install 'clirkit[fast]'`` brings numba; the environment variable
``CLIRKIT_NUMBA=0`` keeps numpy.
"""

from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType
from typing import Any

_modules: dict[str, ModuleType | bool] = {}  # module name -> the module, or False: numpy from now on


def kernels(module: str, fallback: str) -> ModuleType | None:
    """The module of kernels ``module`` (``"clirkit.retrieval.kernels"``), imported on first use; None without numba,
    with ``CLIRKIT_NUMBA=0``, or once numba failed (``fallback`` says what numpy then does, for the message)."""
    if module not in _modules:
        _modules[module] = False
        if os.environ.get("CLIRKIT_NUMBA", "1") != "0":
            try:
                _modules[module] = importlib.import_module(module)
            except ImportError:
                pass
            except Exception as error:  # a numba that imports but fails (an incompatible numpy or llvmlite)
                without_numba(module, error, fallback)
    found = _modules[module]
    return found if isinstance(found, ModuleType) else None


def call(module: str, fallback: str, name: str, *args) -> tuple[bool, Any]:
    """``(True, kernel name(*args))`` of :func:`kernels` ``(module)``, or ``(False, None)`` when there is none or
    numba fails to compile it (said once: numpy then does the work, and every later call's, to the same bits).
    An error that is not numba's is raised."""
    compiled = kernels(module, fallback)
    if compiled is None:
        return False, None
    try:
        return True, getattr(compiled, name)(*args)
    except Exception as error:
        if not is_numba_error(error):
            raise
        without_numba(module, error, fallback)
        return False, None


class Kernels:
    """One module of kernels and what numpy does without it: :meth:`kernels` and :meth:`call` are
    :func:`kernels` and :func:`call` of that module, unless :attr:`off` (set by tests) keeps numpy."""

    def __init__(self, module: str, fallback: str) -> None:
        self.module, self.fallback, self.off = module, fallback, False

    def kernels(self) -> ModuleType | None:
        return None if self.off else kernels(self.module, self.fallback)

    def call(self, name: str, *args) -> tuple[bool, Any]:
        return (False, None) if self.off else call(self.module, self.fallback, name, *args)


def is_numba_error(error: BaseException) -> bool:
    """Whether ``error`` is numba's (it could not compile a kernel here), not the kernel's."""
    return type(error).__module__.startswith("numba")


def without_numba(module: str, error: BaseException, fallback: str) -> None:
    """numpy for ``module``'s work from now on, numba having failed with ``error``; one line on stderr."""
    _modules[module] = False
    message = " ".join(str(error).split())[:200]
    print(f"clirkit: numba failed ({type(error).__name__}: {message}); {fallback}", file=sys.stderr)
