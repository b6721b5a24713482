"""Adam (Kingma & Ba 2015) for embedding tables with row-sparse gradients.

A step runs in one compiled pass over the rows it moves (:mod:`clirkit.scs.kernels`) when numba is installed,
else in numpy passes; both make the same floating-point operations in the same order, so they give the same
bits (:mod:`clirkit.scs.compiled`).
"""

from __future__ import annotations

import numpy as np

from clirkit.scs import compiled


class Adam:
    """Adam over named 2-d parameter arrays, updated in place.

    A gradient arrives as ``(rows, values)``: the rows of the table it touches
    and their gradient (other rows have gradient 0). ``lazy=False`` is the
    textbook (dense) Adam: every row's moments decay every step and every row
    moves. ``lazy=True`` updates only the touched rows' moments and values
    (TensorFlow's LazyAdam), much cheaper for large vocabularies.
    ``compiled=False`` takes the numpy passes even where numba is installed.
    """

    def __init__(
        self,
        lr: float = 0.01,
        beta1: float = 0.9,
        beta2: float = 0.999,
        eps: float = 1e-8,
        lazy: bool = False,
        compiled: bool = True,
    ) -> None:
        self.lr, self.beta1, self.beta2, self.eps, self.lazy = lr, beta1, beta2, eps, lazy
        self.compiled = compiled
        self.t = 0
        self._m: dict[str, np.ndarray] = {}
        self._v: dict[str, np.ndarray] = {}
        self._buf: dict[str, np.ndarray] = {}

    def step(self, params: dict[str, np.ndarray], grads: dict[str, tuple[np.ndarray, np.ndarray]]) -> None:
        """One update of every parameter named in ``grads`` (``name -> (rows, values)``)."""
        self.t += 1
        b1, b2 = self.beta1, self.beta2
        lr_t = self.lr * np.sqrt(1.0 - b2**self.t) / (1.0 - b1**self.t)
        for name, (rows, g) in grads.items():
            p = params[name]
            if name not in self._m:
                self._m[name] = np.zeros_like(p)
                self._v[name] = np.zeros_like(p)
            m, v = self._m[name], self._v[name]
            if (
                self.compiled
                and compiled.call(
                    "lazy_step" if self.lazy else "dense_step",
                    p,
                    m,
                    v,
                    np.asarray(rows, dtype=np.int64),
                    np.ascontiguousarray(g, dtype=np.float64),
                    b1,
                    b2,
                    1.0 - b1,
                    1.0 - b2,
                    float(lr_t),
                    self.eps,
                )[0]
            ):
                continue
            if self.lazy:
                # m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g g, p -= lr_t m / (sqrt(v) + eps), on the rows
                m_rows = m[rows]
                m_rows *= b1
                m_rows += (1.0 - b1) * g
                m[rows] = m_rows
                v_rows = v[rows]
                v_rows *= b2
                scratch = (1.0 - b2) * g
                scratch *= g
                v_rows += scratch
                v[rows] = v_rows
                np.sqrt(v_rows, out=scratch)
                scratch += self.eps
                m_rows *= lr_t
                m_rows /= scratch
                p[rows] -= m_rows
            else:
                m *= b1
                m[rows] += (1.0 - b1) * g
                v *= b2
                v[rows] += (1.0 - b2) * g * g
                step = self._buffer(name, p)
                np.sqrt(v, out=step)
                step += self.eps
                np.divide(m, step, out=step)
                step *= lr_t
                p -= step

    def _buffer(self, name: str, p: np.ndarray) -> np.ndarray:
        buf = self._buf.get(name)
        if buf is None:
            buf = self._buf[name] = np.empty_like(p)
        return buf
