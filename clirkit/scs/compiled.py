"""The compiled SCS kernels (:mod:`clirkit.scs.kernels`, numba) when numba is installed, else numpy.

The kernels make the same floating-point operations in the same order as the numpy and scipy code they
replace (:class:`~clirkit.scs.optim.Adam`'s steps, :class:`~clirkit.scs.encoding.Rows`' products, the
gradient's row sums), so a model trained either way is the same bits. Loaded by :mod:`clirkit.jit` (once per
process, on the first step); ``pip install 'clirkit[fast]'`` brings numba; the environment variable
``CLIRKIT_NUMBA=0`` keeps numpy.
"""

from __future__ import annotations

from clirkit import jit

COMPILED = jit.Kernels("clirkit.scs.kernels", "SCS trains with numpy, the same models")  # .off: numpy (tests)


def kernels():
    """:mod:`clirkit.scs.kernels`, or None without numba, with ``CLIRKIT_NUMBA=0`` or after numba failed.
    Imported once, on first use (:func:`clirkit.jit.kernels`)."""
    return COMPILED.kernels()


def call(name: str, *args) -> tuple[bool, object]:
    """``(True, kernels().name(*args))``, or ``(False, None)`` when there is no kernel or numba fails to compile
    it (said once; numpy then does the work, and every later call's, to the same bits)."""
    return COMPILED.call(name, *args)
