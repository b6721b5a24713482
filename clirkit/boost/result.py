"""What one boosting run learned (:class:`BoostResult`): the rounds' buckets, steps and pairs, the training
loss, the dev curve and the rounds kept."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class BoostResult:
    """What one boosting run learned.

    Attributes:
        buckets, alphas: the bucket chosen at round t = 1..R and its step (float64).
        pair_ptr: offsets (R + 1) into ``pair_src``/``pair_tgt``: the training pairs of each round's bucket.
        pair_src, pair_tgt: source and target n-gram ids (int64).
        loss: training loss sum_t D_t exp(-margin_t) / sum_t D_t after each round (R values).
        eval_rounds, eval_scores: rounds at which the dev set was scored, and its MAP.
        best_round: number of rounds kept (the best dev MAP; all rounds without a dev set).
        n_tuples, n_pairs, n_buckets: training tuples, distinct training pairs, non-empty buckets.
    """

    buckets: np.ndarray
    alphas: np.ndarray
    pair_ptr: np.ndarray
    pair_src: np.ndarray
    pair_tgt: np.ndarray
    loss: np.ndarray
    eval_rounds: np.ndarray
    eval_scores: np.ndarray
    best_round: int
    n_tuples: int = 0
    n_pairs: int = 0
    n_buckets: int = 0
    seconds_per_round: float = 0.0
    info: dict = field(default_factory=dict)

    def truncated(self, rounds: int) -> "BoostResult":
        """The same run cut after ``rounds`` rounds."""
        end = int(self.pair_ptr[rounds])
        return BoostResult(
            self.buckets[:rounds],
            self.alphas[:rounds],
            self.pair_ptr[: rounds + 1],
            self.pair_src[:end],
            self.pair_tgt[:end],
            self.loss[:rounds],
            self.eval_rounds,
            self.eval_scores,
            min(self.best_round, rounds),
            self.n_tuples,
            self.n_pairs,
            self.n_buckets,
            self.seconds_per_round,
            dict(self.info),
        )

    def entries(self, rounds: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(src, tgt, weight)`` of every pair of the first ``rounds`` rounds (repeats not summed)."""
        rounds = self.best_round if rounds is None else rounds
        end = int(self.pair_ptr[rounds])
        counts = np.diff(self.pair_ptr[: rounds + 1])
        return self.pair_src[:end], self.pair_tgt[:end], np.repeat(self.alphas[:rounds], counts)
