"""The Python API and experiment files at their edges (edge test 8): a bool is no number of a grouped parameter."""

from __future__ import annotations

import pytest

from clirkit.boost import BoostRanker
from clirkit.constraints import InvalidParameterError
from clirkit.scs import SCSModel

# ------------------------------------------------------------------ 12. a bool is no number


@pytest.mark.parametrize(
    "cls, params, said",
    [
        (BoostRanker, {"rounds": True}, "The 'rounds' parameter of BoostRanker must be an int in the range [1, inf)"),
        (SCSModel, {"dim": True}, "The 'dim' parameter of SCSModel must be an int in the range [1, inf)"),
        (SCSModel, {"lr": False}, "The 'lr' parameter of SCSModel must be a float in the range (0.0, 10.0]"),
    ],
)
def test_a_bool_given_to_a_grouped_number_is_refused_by_check_params(cls, params, said):
    with pytest.raises(InvalidParameterError) as err:
        cls.from_flat(**params).check_params()
    assert str(err.value) == f"{said}. Got {next(iter(params.values()))!r} instead."
