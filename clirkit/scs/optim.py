"""Adam (Kingma & Ba 2015) for embedding tables with row-sparse gradients."""
from __future__ import annotations

import numpy as np


class Adam:
    """Adam over named 2-d parameter arrays, updated in place.

    A gradient arrives as ``(rows, values)``: the rows of the table it touches
    and their gradient (other rows have gradient 0). ``lazy=False`` is the
    textbook (dense) Adam: every row's moments decay every step and every row
    moves. ``lazy=True`` updates only the touched rows' moments and values
    (TensorFlow's LazyAdam), much cheaper for large vocabularies.
    """

    def __init__(self, lr: float = 0.01, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8,
                 lazy: bool = False) -> None:
        self.lr, self.beta1, self.beta2, self.eps, self.lazy = lr, beta1, beta2, eps, lazy
        self.t = 0
        self._m: dict[str, np.ndarray] = {}
        self._v: dict[str, np.ndarray] = {}
        self._buf: dict[str, np.ndarray] = {}

    def step(self, params: dict[str, np.ndarray], grads: dict[str, tuple[np.ndarray, np.ndarray]]) -> None:
        """One update of every parameter named in ``grads`` (``name -> (rows, values)``)."""
        self.t += 1
        b1, b2 = self.beta1, self.beta2
        lr_t = self.lr * np.sqrt(1.0 - b2 ** self.t) / (1.0 - b1 ** self.t)
        for name, (rows, g) in grads.items():
            p = params[name]
            if name not in self._m:
                self._m[name] = np.zeros_like(p)
                self._v[name] = np.zeros_like(p)
            m, v = self._m[name], self._v[name]
            if self.lazy:
                m[rows] = b1 * m[rows] + (1.0 - b1) * g
                v[rows] = b2 * v[rows] + (1.0 - b2) * g * g
                p[rows] -= lr_t * m[rows] / (np.sqrt(v[rows]) + self.eps)
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
