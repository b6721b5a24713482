"""The boosting loop (SPEC §5): rounds of choose, step and update on a
:class:`~clirkit.boost.rounds.PairBooster`, with early stopping on the dev MAP; the rounds kept are those up to
the best dev score (:class:`~clirkit.boost.result.BoostResult`)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable

import numpy as np

from clirkit.boost.result import BoostResult
from clirkit.progress import progress, say

if TYPE_CHECKING:
    from clirkit.boost.rounds import PairBooster


def boost(
    booster: "PairBooster",
    rounds: int,
    *,
    evaluate: Callable[[np.ndarray, np.ndarray, np.ndarray], float] | None = None,
    eval_every: int = 50,
    patience: int = 0,
    quiet: bool = False,
    desc: str = "boosting",
) -> BoostResult:
    """Boost ``booster`` for up to ``rounds`` rounds: each round chooses the bucket of largest gain, its step, and
    updates the tuple weights and statistics (:class:`~clirkit.boost.rounds.PairBooster`).

    ``evaluate(src_ids, tgt_ids, weights)`` scores the model made of the
    pairs chosen so far (repeated pairs listed once per round) and returns
    its dev MAP; it is called every ``eval_every`` rounds and after the last
    round. With ``patience > 0`` training stops after that many evaluations
    without improvement. The result keeps the rounds up to the best score.
    """
    buckets, alphas, ptr, src_l, tgt_l, losses = [], [], [0], [], [], []
    eval_rounds, eval_scores = [], []
    best, best_round, since_best = -np.inf, 0, 0
    start = time.perf_counter()

    def do_eval(t):
        nonlocal best, best_round, since_best
        src = np.concatenate(src_l) if src_l else np.zeros(0, np.int64)
        tgt = np.concatenate(tgt_l) if tgt_l else np.zeros(0, np.int64)
        wts = np.repeat(np.asarray(alphas), np.diff(ptr))
        score = float(evaluate(src, tgt, wts))
        eval_rounds.append(t), eval_scores.append(score)
        say(f"{desc}: round {t}: dev MAP {score:.4f}", quiet=quiet)
        if score > best:
            best, best_round, since_best = score, t, 0
        else:
            since_best += 1

    t = 0
    for t in progress(range(1, rounds + 1), desc=desc, total=rounds, quiet=quiet, unit="round"):
        k, alpha, gain = booster.choose()
        if gain <= 1e-15 or alpha == 0.0:
            break
        rows, x = booster.tuples_with(k)
        booster.update(rows, x, alpha)
        if not np.isfinite(booster.loss):  # the step overflowed the tuple weights: its round and any after are NaN
            say(  # said under --quiet too: the model has fewer rounds than asked for
                f"{desc}: stopped before round {t}: its step ({alpha:.3g}) overflowed the tuple weights (buckets "
                f"of too many pairs: more hash bits)"
            )
            break
        i, j = booster.pairs_of(k)
        buckets.append(booster.bucket_id(k)), alphas.append(alpha), losses.append(booster.loss)
        src_l.append(i), tgt_l.append(j), ptr.append(ptr[-1] + len(i))
        if evaluate is not None and eval_every > 0 and t % eval_every == 0:
            do_eval(t)
            if patience and since_best >= patience:
                break
    elapsed = time.perf_counter() - start
    done = len(buckets)
    if evaluate is not None and (not eval_rounds or eval_rounds[-1] != done):
        do_eval(done)
    if evaluate is None:
        best_round = done
    result = BoostResult(
        np.asarray(buckets, dtype=np.int64),
        np.asarray(alphas, dtype=np.float64),
        np.asarray(ptr, dtype=np.int64),
        np.concatenate(src_l).astype(np.int64) if src_l else np.zeros(0, np.int64),
        np.concatenate(tgt_l).astype(np.int64) if tgt_l else np.zeros(0, np.int64),
        np.asarray(losses, dtype=np.float64),
        np.asarray(eval_rounds, dtype=np.int64),
        np.asarray(eval_scores, dtype=np.float64),
        int(best_round),
        booster.n,
        booster.n_pairs,
        booster.n_buckets,
        elapsed / max(done, 1),
    )
    if booster.dropped is not None:  # what the budget of buckets (max_buckets) left out
        result.info["dropped"] = booster.dropped.record()
    return result
