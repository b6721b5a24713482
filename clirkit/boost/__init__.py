"""BoostCLIR: a boosted bilinear ranker over hashed bilingual n-gram pairs (SPEC §5).

- :mod:`clirkit.boost.tuples`: training tuples (q, d+, d-) sampled from graded qrels;
- :mod:`clirkit.boost.features`: n-gram vocabularies, binary matrices, MurmurHash3 pair buckets;
- :mod:`clirkit.boost.rounds`: RankBoost rounds with incremental W+/W- updates;
- :mod:`clirkit.boost.bagging`: bags trained through :mod:`clirkit.parallel` (loky, threading, dask) and averaged;
- :mod:`clirkit.boost.base`, :mod:`clirkit.boost.sweep`: boosting from a base ranker's scores, beta chosen on dev;
- :mod:`clirkit.boost.model`: the phrase table (save/load, ranking, re-ranking, display);
- :mod:`clirkit.boost.params`: the groups of the estimator's hyper-parameters (features, sampling, boosting,
  bagging);
- :mod:`clirkit.boost.ranker`: the estimator tying them together.
"""

from clirkit.boost.model import BoostModel
from clirkit.boost.params import Bagging, Boosting, PairFeatures, TupleSampling
from clirkit.boost.ranker import BoostRanker
from clirkit.boost.result import BoostResult
from clirkit.boost.rounds import PairBooster
from clirkit.boost.tuples import Tuples, make_tuples

__all__ = [
    "Bagging",
    "BoostModel",
    "BoostRanker",
    "BoostResult",
    "Boosting",
    "PairBooster",
    "PairFeatures",
    "TupleSampling",
    "Tuples",
    "make_tuples",
]
