"""BM25's parameters, stated once: their defaults (:data:`K1`, :data:`B`, ...), ranges (:data:`RANGES`) and checks
(:func:`check_settings`), and the idf variants (:func:`idf`). BM25, the sharded search and the systems read them."""

from __future__ import annotations

import numpy as np

from clirkit.errors import ClirkitError

IDF_VARIANTS = ("lucene", "rsj", "bm25okapi")
PRECISIONS = ("float64", "float32")
# The defaults of BM25's parameters, stated once: BM25, the sharded search and the systems read them.
K1 = 1.2  # term frequency saturation (cclir, Sokolov 2013)
B = 0.75  # document length normalization
K3 = None  # query tf saturation: None keeps the raw query tf
IDF = "lucene"  # never negative
EPSILON = 0.25  # rank-bm25's floor factor for negative idfs (bm25okapi)
PRECISION = "float64"
# parameter -> (low, high, None allowed): the ranges DT and PSQ declare as scikit-learn constraints
RANGES = {"k1": (0.0, None, False), "b": (0.0, 1.0, False), "k3": (0.0, None, True), "epsilon": (0.0, None, False)}


def idf(
    df: np.ndarray,
    n_docs: int,
    variant: str = IDF,
    *,
    okapi_epsilon: float = EPSILON,
    okapi_mean_idf: float | None = None,
) -> np.ndarray:
    """Inverse document frequency of (possibly fractional) document frequencies.

    ``rsj`` = ln((N-df+0.5)/(df+0.5)) (negative for df > N/2); ``lucene`` =
    ln(1 + (N-df+0.5)/(df+0.5)); ``bm25okapi`` = rank-bm25's BM25Okapi: rsj, with
    negative values replaced by ``okapi_epsilon`` times ``okapi_mean_idf`` (the
    mean rsj idf over the collection's vocabulary).
    """
    df = np.asarray(df, dtype=np.float64)
    ratio = (n_docs - df + 0.5) / (df + 0.5)
    if variant == "lucene":
        return np.log1p(ratio)
    raw = np.log(ratio)
    if variant == "rsj":
        return raw
    if variant == "bm25okapi":
        if okapi_mean_idf is None:
            raise ValueError("bm25okapi idf needs the collection's mean idf")
        return np.where(raw < 0, okapi_epsilon * okapi_mean_idf, raw)
    raise ClirkitError(f"unknown idf variant {variant!r}; choose one of {', '.join(IDF_VARIANTS)}")


def describe_range(name: str) -> str:
    """The allowed values of BM25 parameter ``name`` in scikit-learn's words ("a float in the range [0.0, inf)")."""
    low, high, none = RANGES[name]
    text = f"a float in the range [{low!r}, {'inf)' if high is None else repr(high) + ']'}"
    return f"None or {text}" if none else text


def check_params(**params) -> None:
    """:class:`~clirkit.constraints.InvalidParameterError` unless each BM25 parameter given (k1, b, k3, epsilon) is
    a finite number in its range ("The 'k1' parameter of BM25 must be ... Got nan instead (out of range)."; the
    command line names the option)."""
    import math
    from numbers import Real

    from clirkit.constraints import InvalidParameterError

    for name, value in params.items():
        low, high, none = RANGES[name]
        if value is None and none:
            continue
        ok = (
            isinstance(value, Real)
            and not isinstance(value, bool)
            and math.isfinite(value)
            and float(value) >= low
            and (high is None or float(value) <= high)
        )
        if not ok:
            shown = repr(float(value)) if isinstance(value, Real) and not isinstance(value, bool) else repr(value)
            raise InvalidParameterError(
                name, "BM25", describe_range(name), value, got=f". Got {shown} instead (out of range)."
            )


def check_settings(*, k1: float, b: float, k3: float | None, idf: str, epsilon: float, precision: str) -> None:
    """ClirkitError unless ``idf`` is one of :data:`IDF_VARIANTS`, ``precision`` one of :data:`PRECISIONS` and
    the numbers are in their ranges (:func:`check_params`): every setting of a BM25 search."""
    if idf not in IDF_VARIANTS:
        raise ClirkitError(f"unknown idf variant {idf!r}; choose one of {', '.join(IDF_VARIANTS)}")
    if precision not in PRECISIONS:
        raise ClirkitError(f"unknown precision {precision!r}; choose one of {', '.join(PRECISIONS)}")
    check_params(k1=k1, b=b, k3=k3, epsilon=epsilon)
