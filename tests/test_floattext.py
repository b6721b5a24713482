"""clirkit.formats.floattext: many floats written as Python's repr writes each (the oracle), by pyarrow's cast
where it agrees and by repr elsewhere."""

import numpy as np
import pytest

from clirkit.formats import floattext


def _texts(values: np.ndarray) -> list[str]:
    starts, lengths, chars = floattext.repr_parts(values)
    return [chars[s : s + n].tobytes().decode("ascii") for s, n in zip(starts.tolist(), lengths.tolist())]


def _edges() -> np.ndarray:
    edges = np.array([floattext.ARROW_LOW, floattext.ARROW_HIGH, 1e16, 1e15, 0.5, 1.0, 2.0**53])
    return np.concatenate([edges, np.nextafter(edges, 0), np.nextafter(edges, np.inf)])


def _values(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    spread = 10.0 ** rng.uniform(-8, 20, 20_000) * rng.choice([-1.0, 1.0], 20_000)
    short = rng.integers(1, 10**4, 5_000) * 10.0 ** rng.integers(-8, 12, 5_000)  # few digits: 0.0025, 120.5
    special = [0.0, -0.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1e22, 123456789.0, -3.0]
    return np.concatenate([spread, np.round(spread[:2_000]), short, special, _edges(), -_edges()])


@pytest.mark.parametrize("seed", [0, 1])
def test_every_value_is_written_as_repr_writes_it(seed):
    values = _values(seed)
    assert _texts(values) == [repr(v) for v in values.tolist()]


def test_the_matrix_holds_each_repr_padded_with_zeros_and_a_tie_repeats_its_row():
    values = np.array([12.25, 12.25, 3.0, 1e-05, 1e-05, 0.1, 7.123456789012345])
    matrix = floattext.repr_matrix(values)
    assert matrix.dtype == np.uint8 and matrix.shape == (7, len("7.123456789012345"))
    assert [row[row != 0].tobytes().decode() for row in matrix] == [repr(v) for v in values.tolist()]


def test_values_in_pyarrows_range_are_cast_by_pyarrow_not_by_repr(monkeypatch):
    def no_repr(values):
        raise AssertionError(f"repr asked for {values[:3]}")

    monkeypatch.setattr(floattext, "_by_repr", no_repr)
    values = np.random.default_rng(2).uniform(1e-3, 1e3, 1000)
    assert _texts(values) == [repr(v) for v in values.tolist()]


def test_a_pyarrow_that_writes_a_probe_otherwise_casts_nothing(monkeypatch):
    def seventeen_digits(values):  # '0.10000000000000001' where repr writes '0.1'
        texts = [f"{v:.17g}".encode() for v in values.tolist()]
        offsets = np.cumsum([0] + [len(t) for t in texts])
        return offsets, np.frombuffer(b"".join(texts), dtype=np.uint8)

    floattext.arrow_agrees.cache_clear()
    monkeypatch.setattr(floattext, "_by_arrow", seventeen_digits)
    try:
        assert not floattext.arrow_agrees()
        values = _values(3)
        assert _texts(values) == [repr(v) for v in values.tolist()]
    finally:
        floattext.arrow_agrees.cache_clear()
    monkeypatch.undo()
    assert floattext.arrow_agrees()  # the installed pyarrow writes every probe as repr does
