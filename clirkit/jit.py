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
import signal
import sys
import threading
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
                _hold_interrupts_while_compiling()
            except ImportError:
                pass
            except Exception as error:  # a numba that imports but fails (an incompatible numpy or llvmlite)
                if getattr(sys.modules.get("clirkit.cli"), "_interrupted", False):  # the command's Ctrl-C cut it
                    raise KeyboardInterrupt from None
                without_numba(module, error, fallback)
    found = _modules[module]
    return found if isinstance(found, ModuleType) else None


def call(module: str, fallback: str, name: str, *args) -> tuple[bool, Any]:
    """``(True, kernel name(*args))`` of :func:`kernels` ``(module)``, or ``(False, None)`` when there is none or
    numba fails to compile it (said once: numpy then does the work, and every later call's, to the same bits).
    An error that is not numba's is raised. The command's Ctrl-C is held during the call (:func:`held`)."""
    compiled = kernels(module, fallback)
    if compiled is None:
        return False, None
    HELD.enter()
    try:
        return True, getattr(compiled, name)(*args)
    except Exception as error:
        if not is_numba_error(error):
            raise
        without_numba(module, error, fallback)
        return False, None
    finally:
        HELD.exit()


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


def held(kernel):
    """``kernel`` (a compiled function) called with the command's Ctrl-C held until it returns (:data:`HELD`): a
    Ctrl-C raised while numba boxes its results (a tuple of arrays) left a tuple with empty slots, whose first
    use crashed the process (a segmentation fault on Ctrl-C in ``boost-train`` and ``search``). Held or not, a
    Ctrl-C acts only once the kernel returns: Python runs no handler while compiled code runs."""

    def call_held(*args):
        HELD.enter()
        try:
            return kernel(*args)
        finally:
            HELD.exit()

    return call_held


_holding = False  # the listener of _hold_interrupts_while_compiling is registered with numba


def _hold_interrupts_while_compiling() -> None:
    """Once numba is imported: while it holds its compiler lock in the main thread of the command (compiling a
    kernel, or loading its cached machine code), a Ctrl-C is held and raised when the lock is released. Raised
    inside, it can leave numba a half-made kernel whose call crashes the process (a segmentation fault on Ctrl-C
    during ``psq``). Outside the command (clirkit as a library) a Ctrl-C is raised where it lands."""
    global _holding
    if _holding:
        return
    from numba.core import event

    listener = type("InterruptsHeld", (_CompilerLockListener, event.Listener), {})  # numba checks the type
    event.register("numba:compiler_lock", listener())
    _holding = True


class _InterruptsHeld:
    """The command's Ctrl-C held from the first :meth:`enter` to the last :meth:`exit` (they nest) in the main
    thread: the command's handler (:func:`clirkit.cli._interrupt`) asks :meth:`holds` first, and the Ctrl-C it
    held is handed to the handler then in place when the last block ends. Nothing in another thread, or outside
    the command (another handler does not ask)."""

    def __init__(self) -> None:
        self.depth, self.arrived = 0, False
        self.main = threading.main_thread().ident

    def enter(self) -> None:
        if threading.get_ident() == self.main:
            self.depth += 1

    def exit(self) -> None:
        if threading.get_ident() != self.main or self.depth == 0:
            return
        self.depth -= 1
        if self.depth == 0 and self.arrived:  # released: the command's Ctrl-C, now
            self.arrived = False
            handler = signal.getsignal(signal.SIGINT)
            if callable(handler):
                handler(signal.SIGINT, None)

    def holds(self) -> bool:
        """Whether a Ctrl-C arriving now is held (a block is open): then it is remembered for :meth:`exit`."""
        if self.depth > 0:
            self.arrived = True
            return True
        return False


HELD = _InterruptsHeld()  # the one holder of the process: compiling (the compiler lock) and calls of kernels nest


class _CompilerLockListener:
    """A numba event listener: the command's Ctrl-C held (:data:`HELD`) while numba holds its compiler lock (it is
    re-entrant: from the first acquisition to the last release)."""

    def on_start(self, event) -> None:
        HELD.enter()

    def on_end(self, event) -> None:
        HELD.exit()
