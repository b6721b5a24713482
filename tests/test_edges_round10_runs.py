"""Edge tests, round 10 (issue 40), findings 1, 5 and 6: Qrels(...) refuses grades that are not whole numbers,
Run(...) refuses a query's rows out of score order (and a NaN score), and write_run / write_qrels refuse what
read_run / read_qrels refuse, writing nothing."""

from __future__ import annotations

import numpy as np
import pytest

from clirkit.errors import ClirkitError
from clirkit.run import Qrels

# -- 1. Qrels(...) grades ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("grade", [0.5, 0.99, 2.7, np.nan, np.inf, -np.inf])
def test_qrels_refuses_a_grade_that_is_not_a_whole_number(grade):
    with pytest.raises(ClirkitError, match=r"^Qrels rels must be whole numbers \(grades\), got "):
        Qrels(np.array(["ABDI.1", "ABDI.1"]), np.array(["1Chr.6.44", "2Chr.29.12"]), np.array([1.0, grade]))


@pytest.mark.parametrize("grade", [1e20, -1e20, 2.0**63])
def test_qrels_refuses_a_whole_grade_beyond_int64(grade):
    with pytest.raises(ClirkitError, match=r"within int64 \(\|grade\| < 2\*\*63\), got "):
        Qrels(np.array(["ABDI.1"]), np.array(["1Chr.6.44"]), np.array([grade]))


def test_qrels_refuses_an_unsigned_grade_beyond_int64():
    with pytest.raises(ClirkitError, match="within int64"):
        Qrels(np.array(["ABDI.1"]), np.array(["1Chr.6.44"]), np.array([2**63], dtype=np.uint64))


def test_qrels_keeps_whole_floats_and_integers_exactly():
    floats = Qrels(["ABDI.1"] * 3, ["1Chr.6.44", "2Chr.29.12", "Ezra.8.28"], np.array([1.0, 0.0, -1.0]))
    assert floats.rels.dtype == np.int64 and floats.rels.tolist() == [1, 0, -1]
    big = Qrels(["ABDI.1"], ["1Chr.6.44"], np.array([2**62 + 1]))  # no trip through float64
    assert big.rels.tolist() == [2**62 + 1]
    assert Qrels(["ABDI.1"], ["1Chr.6.44"], [2]).rels.tolist() == [2]
