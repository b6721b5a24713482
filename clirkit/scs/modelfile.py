"""The SCS model's file: ``.npz`` arrays (both vocabularies and embedding tables) plus a JSON header (the
hyper-parameters, both analyzers' settings, the training history), written atomically without pickle
(:func:`write_model`) and read back with every value checked (:func:`read_model`)."""

from __future__ import annotations

import numpy as np

from clirkit.errors import ClirkitError
from clirkit.npzio import load_npz, save_npz

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


def read_model(cls, path):
    """The model of class ``cls`` (:class:`~clirkit.scs.SCSModel`) saved at ``path``, every value checked.

    Header: ``params`` an object of this class's hyper-parameters, each within its constraints
    (``eps`` a finite number >= 0, ``dim`` an integer >= 1, thresholds and MSE targets lists of
    finite numbers), both analyzers' settings (or null), ``history`` a list of epoch records
    with a numeric ``loss``, ``training_stats`` an object. Arrays: both vocabularies strictly
    increasing strings, both embedding tables finite float64 of ``len(vocab) x dim``. Anything
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
        header = {**header, "params": params}  # checked under the current names
        require_field(header, ("params", "dim"), "int", min=1, default=None)
        require_field(header, ("params", "eps"), "number", min=0, default=None)
        for name in ("thresholds", "mse_targets"):
            if (
                require_field(
                    header, ("params", name), "list", items="number", nullable=name == "mse_targets", default=None
                )
                is not None
            ):
                params[name] = tuple(params[name])
        model = cls.from_flat(**params)
        try:
            model._validate(trained=True)  # the constraints every hyper-parameter declares
        except ClirkitError as exc:
            raise Corrupt(f"header params: {exc}") from None
        analyzers = []
        for name in ("query_analyzer", "doc_analyzer"):  # null: trained on tokens
            settings = require_field(header, name, "object", nullable=True, default=None)
            if settings is not None:
                require_analyzer(header, name)
            analyzers.append(settings)
        if (analyzers[0] is None) != (analyzers[1] is None):
            raise Corrupt("query_analyzer and doc_analyzer must both be set, or both null (a model trained on tokens)")
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
    model.query_vocab_, model.doc_vocab_ = vocab["query"], vocab["doc"]
    model.query_embeddings_, model.doc_embeddings_ = E["query"].copy(), E["doc"].copy()
    model.query_analyzer_, model.doc_analyzer_ = analyzers
    model.history_ = history
    model.training_stats_ = stats
    return model
