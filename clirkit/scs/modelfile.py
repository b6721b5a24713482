"""The SCS model's file: ``.npz`` arrays (both vocabularies and embedding tables) plus a JSON header (the
hyper-parameters, both analyzers' settings, the training history), written atomically without pickle
(:func:`write_model`) and read back with every value checked (:func:`read_model`)."""

from __future__ import annotations

import numpy as np

from clirkit.errors import ClirkitError
from clirkit.npzio import load_npz, save_npz
from clirkit.scs.encoding import TOO_LARGE, overflowing_rows

FORMAT_VERSION = 1
KIND = "scs-model"


def write_model(model, path) -> None:
    """Write the fitted :class:`~clirkit.scs.SCSModel` ``model`` to ``path`` (identical models, identical bytes)."""
    from clirkit.estimator import jsonable

    header = {
        "params": jsonable(model.flat_params()),  # by their flat names (the groups' parameters by their own)
        "query_analyzer": getattr(model, "query_analyzer_", None),
        "doc_analyzer": getattr(model, "doc_analyzer_", None),
        "history": getattr(model, "history_", []),
        "training_stats": getattr(model, "training_stats_", {}),
    }
    save_npz(
        path,
        KIND,
        FORMAT_VERSION,
        header,
        {
            "query_vocab": model.query_vocab_,
            "doc_vocab": model.doc_vocab_,
            "query_embeddings": model.query_embeddings_,
            "doc_embeddings": model.doc_embeddings_,
        },
        deflate=True,
    )


SIDES = (("source", "query"), ("target", "doc"))
"""Each language of an SCS model's ``params`` and the analyzer of that language."""


def check_languages(analyzer_langs: tuple[str, str], source_lang: str, target_lang: str) -> None:
    """ClirkitError when the languages of the query and document analyzers, ``analyzer_langs``, are not
    ``source_lang`` and ``target_lang``: a model's file records both, and :func:`read_model` refuses two."""
    for (side, analyzer), lang, own in zip(SIDES, analyzer_langs, (source_lang, target_lang)):
        if lang != own:
            raise ClirkitError(
                f"the {'query' if analyzer == 'query' else 'document'} analyzer is of {lang!r} but {side}_lang is "
                f"{own!r}: give SCSModel({side}_lang={lang!r})"
            )


def read_model(cls, path):
    """The model of class ``cls`` (:class:`~clirkit.scs.SCSModel`) saved at ``path``, every value checked.

    Header: ``params`` an object of every hyper-parameter of this class, each within its constraints
    (``eps`` a finite number >= 0, ``dim`` an integer >= 1, thresholds and MSE targets lists of
    finite numbers), both analyzers' settings (or null), of the languages ``source_lang`` and ``target_lang``,
    ``history`` a list of epoch records with a numeric ``loss``, ``training_stats`` an object. Arrays: both
    vocabularies strictly increasing strings, both embedding tables finite float64 of ``len(vocab) x dim``,
    no row's norm overflowing (:func:`~clirkit.scs.encoding.overflowing_rows`). Anything
    else raises ClirkitError ``FILE: corrupt SCS model: problem; train the model again with `clirkit scs-train```.
    """
    from clirkit.npzchecks import Corrupt, checking, require_analyzer, require_array, require_field
    from clirkit.npzio import show
    from clirkit.paramgroups import flat_names

    header, a = load_npz(
        path, KIND, (FORMAT_VERSION,), ("query_vocab", "doc_vocab", "query_embeddings", "doc_embeddings")
    )
    with checking(path, "SCS model", remedy=True):
        params = dict(require_field(header, "params", "object"))
        for old, new in (("query_lang", "source_lang"), ("doc_lang", "target_lang")):  # version-1 spelling
            if old in params and new in params:
                raise Corrupt(f"header params has both {old} and {new}")
            if old in params:
                params[new] = params.pop(old)
        unknown = sorted(set(params) - set(flat_names(cls)))
        if unknown:
            raise Corrupt(f"header params has an unknown hyper-parameter {show(unknown[0])}")
        missing = [name for name in flat_names(cls) if name not in params]  # a default would score otherwise
        if missing:
            raise Corrupt(f"header params.{missing[0]} is missing")
        header = {**header, "params": params}  # checked under the current names
        require_field(header, ("params", "dim"), "int", min=1)
        require_field(header, ("params", "eps"), "number", min=0)
        for name in ("thresholds", "mse_targets"):
            if (
                require_field(header, ("params", name), "list", items="number", nullable=name == "mse_targets")
                is not None
            ):
                params[name] = tuple(params[name])
        model = cls.from_flat(**params)
        try:
            model._validate(trained=True)  # the constraints every hyper-parameter declares
        except ClirkitError as exc:
            raise Corrupt(f"header params: {exc}") from None
        analyzers, langs = [], []
        for name in ("query_analyzer", "doc_analyzer"):  # null: trained on tokens
            settings = require_field(header, name, "object", nullable=True, default=None)
            if settings is not None:
                langs.append(require_analyzer(header, name).lang)
            analyzers.append(settings)
        if (analyzers[0] is None) != (analyzers[1] is None):
            raise Corrupt("query_analyzer and doc_analyzer must both be set, or both null (a model trained on tokens)")
        for (side, analyzer), lang in zip(SIDES, langs):  # which would analyze?
            if lang != params[f"{side}_lang"]:
                raise Corrupt(
                    f"header params.{side}_lang is {show(params[f'{side}_lang'])} but {analyzer}_analyzer.lang is "
                    f"{show(lang)}: the model records two {side} languages"
                )
        history = require_field(header, "history", "list", items="object", default=[])
        for i in range(len(history)):  # one record per epoch
            require_field(header, ("history", i, "loss"), "number")
        stats = require_field(header, "training_stats", "object", default={})
        vocab, E = {}, {}
        for side in ("query", "doc"):
            vocab[side] = require_array(a, f"{side}_vocab", "str", sorted=True, unique=True)
            stored = a.get(f"{side}_embeddings")
            if stored is not None and stored.dtype.kind == "f" and stored.dtype.itemsize != 8:  # read as float64, a
                # float32 table scores otherwise than the model written (clirkit writes float64)
                raise Corrupt(f"{side} embeddings must hold float64, got {stored.dtype}")
            E[side] = require_array(
                a,
                f"{side}_embeddings",
                "float",
                2,
                shape=(len(vocab[side]), model.shape.dim),
                dtype=np.float64,
                label=f"{side} embeddings",
            )
            too_large = overflowing_rows(E[side])
            if len(too_large):
                row = int(too_large[0])
                raise Corrupt(f"{side} embeddings row {row:,} (word {show(str(vocab[side][row]))}) is {TOO_LARGE}")
    model.query_vocab_, model.doc_vocab_ = vocab["query"], vocab["doc"]
    model.query_embeddings_, model.doc_embeddings_ = E["query"].copy(), E["doc"].copy()
    model.query_analyzer_, model.doc_analyzer_ = analyzers
    model.history_ = history
    model.training_stats_ = stats
    return model
