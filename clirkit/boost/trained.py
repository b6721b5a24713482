"""The hyper-parameters a saved boost model records (``params.hyper_params``: what it was trained with), checked
against the ranker's constraints and the header's own settings, and the ranker they make: one check for
:meth:`BoostRanker.load <clirkit.boost.ranker.BoostRanker.load>` and the command line (``boost-rank``,
``boost-show``), which load a model through it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from clirkit.errors import ClirkitError
from clirkit.npzchecks import Corrupt, checking

if TYPE_CHECKING:
    from clirkit.boost.model import BoostModel
    from clirkit.boost.ranker import BoostRanker


def unrecorded(ranker: BoostRanker, *, budget_used: bool = False) -> set[str]:
    """The flat names of the hyper-parameters a model does not record (what
    :func:`~clirkit.boost.training.trained_params` leaves out): ``base`` (a system, given again at load), the
    runtime ones (how it runs, not what it learns) and, unless the budget of buckets left something out
    (``budget_used``), ``max_buckets``."""
    return {"base", *ranker.runtime_params, *(() if budget_used else ("max_buckets",))}


def as_trained(ranker: BoostRanker, model: BoostModel, given: Mapping, path) -> BoostRanker:
    """``ranker`` (made of the keywords ``given`` to :meth:`BoostRanker.load`) with the hyper-parameters that
    ``model`` (read from ``path``) records by their flat names (none: a model written before they were recorded,
    whose ranker keeps ``given`` and the defaults; once any is, every one but ``base``, ``max_buckets`` and the
    runtime ones must be). ClirkitError ``PATH: corrupt boost model: problem`` for a recorded one that is unknown,
    missing, out of its constraints, or other than the header's own setting of it
    (:func:`check_header`); ClirkitError for a recorded one given another value."""
    trained = model.params.get("hyper_params")
    if trained is None:
        return ranker
    own = ranker.flat_params()
    named = {k for key in given for k in (ranker.groups[key]._get_param_names() if key in ranker.groups else [key])}
    with checking(path, "boost model", remedy=True):
        if not isinstance(trained, Mapping):
            raise Corrupt("header params.hyper_params is not an object")
        values = {k: tuple(v) if isinstance(v, list) else v for k, v in trained.items()}
        optional = unrecorded(ranker)
        missing = [k for k in own if k not in values and k not in optional]  # a default would stand for it
        if missing:
            raise Corrupt(f"header params.hyper_params.{missing[0]} is missing")
        try:
            loaded = type(ranker).from_flat(**{**{k: own[k] for k in named if k not in values}, **values})
            loaded.check_params()
        except (TypeError, ClirkitError) as exc:
            raise Corrupt(f"params.hyper_params: {str(exc).rstrip('.')}") from None
        check_header(model, values)
    kept = loaded.flat_params()
    for key in sorted(named & values.keys()):
        if not (own[key] is kept[key] or own[key] == kept[key]):
            raise ClirkitError(
                f"{path}: the model was trained with {key}={kept[key]!r}, not {own[key]!r}: leave {key} out of "
                "load (the model's own is taken)"
            )
    return loaded


def check_header(model: BoostModel, trained: Mapping) -> None:
    """Raise :class:`~clirkit.npzchecks.Corrupt` for a setting the header holds twice, at its top level (read when
    ranking) and in the recorded hyper-parameters ``trained``, with two values: ``ngram``, and ``doc_weighting``
    and ``beta`` when recorded (None: chosen by the training, the top level's is the one chosen)."""
    pairs = [("ngram", model.ngram, trained.get("ngram", model.ngram))]
    for key, value in (("doc_weighting", model.doc_weighting), ("beta", model.beta)):
        if trained.get(key) is not None:
            pairs.append((key, value, trained[key]))
    for key, top, recorded in pairs:
        if top != recorded:
            raise Corrupt(f"header {key} {top!r} but params.hyper_params.{key} {recorded!r}")
