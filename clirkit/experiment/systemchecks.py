"""The checks of one ``[systems.NAME]`` or ``[fusions.NAME]`` table of an experiment file, made when the file is read
(:mod:`clirkit.experiment.spec` reads the file): its keys (those of its class,
:func:`~clirkit.experiment.kinds.keys_of`), the types of its file keys, the systems it names, the files its parameters
name (relative to the experiment file, :data:`~clirkit.experiment.kinds.FILE_PARAMS`) and its parameters' values (the
constraints its class declares)."""

from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from clirkit.errors import ClirkitError, cut_repr
from clirkit.experiment.kinds import FILE_PARAMS, KINDS, keys_of, system_class
from clirkit.paramgroups import from_flat


def relative(given: str, source: str | None) -> str:
    """The path ``given`` in the experiment file ``source``, relative to the file's folder (as given when it is
    absolute, or when there is no file: an experiment given as a dict)."""
    path = Path(given)
    if not path.is_absolute() and source:
        path = Path(source).parent / path
    return str(path)


def reversed_table_hint(given: str, made: tuple[str, str], ibm1: bool, query_side: Sequence[str]) -> str:
    """What to do with a table file ``given`` that translates ``made`` (source, target), from the documents'
    language, where a system reads one into it: ``ibm1`` (a ``table2`` beside IBM Model 1): docpsq reads it as the
    second table of IBM Model 1 trained the other way; ``query_side``, the keys of a psq system that only
    translating the queries reads (``mode``, ...) and that chose the queries: remove them to translate the documents
    with it; else docpsq translates the documents with it."""
    if ibm1:
        return ' (kind = "docpsq" reads it as the second table of IBM Model 1 trained the other way)'
    if query_side:
        from clirkit.querypsq import queries_only

        keys = " and ".join(query_side)
        return (
            f" ({queries_only(keys, len(query_side))}, which reads a "
            f"table from {made[1]} into {made[0]}: give one, or remove {keys} to translate the documents with this one)"
        )
    return (
        f' (kind = "docpsq" translates the documents with a table from {made[0]} into {made[1]}, given as its own '
        f'table = "{given}")'
    )


def param_files(cls, params: Mapping[str, Any], source: str | None) -> dict[str, tuple[str, str]]:
    """``{parameter: (value given, path)}`` of the parameters of ``params`` (a system of class ``cls``) that name a
    file (:data:`~clirkit.experiment.kinds.FILE_PARAMS`: a string other than the parameter's words), each path
    relative to the experiment file ``source``."""
    from clirkit.paramgroups import flat_names

    names = flat_names(cls)
    return {
        key: (value, relative(value, source))
        for key, (words, _) in FILE_PARAMS.items()
        if key in names and isinstance(value := params.get(key), str) and value not in words
    }


def check_param_files(files: Mapping[str, tuple[str, str]]) -> None:
    """ClirkitError naming the parameter and the path as written when a file :func:`param_files` found is not
    there, or is a folder."""
    for key, (given, path) in files.items():
        words, what = FILE_PARAMS[key]
        if os.path.isdir(path):
            raise ClirkitError(f"{key}: {given}: is a folder, expected {what}")
        if not os.path.isfile(path):
            raise ClirkitError(
                f"{key}: {given}: no such file (paths are relative to the experiment file; or one of: "
                f"{', '.join(words)})"
            )


def check_table_format(key: str, value) -> None:
    """ClirkitError unless ``value``, the ``key`` of an experiment file (a system's ``table_format``, ``[table]``'s
    ``format``), is a table format :func:`~clirkit.translation.load_table` reads."""
    from clirkit.translation.tableio import FORMATS

    if value is not None and value not in FORMATS:
        raise ClirkitError(
            f"{key} must be one of {', '.join(FORMATS)} (as ttable convert --format), got {cut_repr(value)}"
        )


def check_keys(where: str, spec: Mapping[str, Any], allowed: list[str], whose: str, owners=None) -> None:
    """ClirkitError ``where: unknown key 'x' (did you mean 'y'?; <whose> keys: ...)`` for a key of ``spec`` not
    in ``allowed``; ``owners(key)`` names the kinds that have it."""
    for key in spec:
        if key in allowed:
            continue
        others = owners(key) if owners else []
        close = difflib.get_close_matches(key, allowed, n=1)
        hint = (
            f"it belongs to a {' or '.join(others)} system"
            if others
            else f"did you mean {close[0]!r}?"
            if close
            else ""
        )
        raise ClirkitError(
            f"{where}: unknown key {key!r} ({hint + '; ' if hint else ''}{whose} keys: {', '.join(allowed)})"
        )


def _check_file_keys(where: str, cls, spec: Mapping[str, Any]) -> None:
    """The types of the file keys of a system of class ``cls`` (a path is not empty) and a ``table_format``."""
    for key, (kind_of_value, what) in cls.file_keys.items():
        value = spec.get(key)
        if value is not None and not (
            isinstance(value, kind_of_value) and (kind_of_value is bool or not isinstance(value, bool))
        ):
            shape = {
                str: "a string",
                bool: "true or false (a TOML boolean, without quotes)",
                int: "an integer >= 1",
            }.get(kind_of_value, kind_of_value.__name__)
            raise ClirkitError(f"{where}: {key} must be {shape} ({what}), got {cut_repr(value)}")
        if kind_of_value is int and isinstance(value, int) and value < 1:
            raise ClirkitError(f"{where}: {key} must be an integer >= 1 ({what}), got {value!r}")
        if kind_of_value is str and isinstance(value, str) and not value.strip():
            raise ClirkitError(f"{where}: {key} must be a path, not empty ({what})")
    try:
        check_table_format("table_format", spec.get("table_format"))
    except ClirkitError as exc:
        raise ClirkitError(f"{where}: {exc}") from None


def check_system(
    where: str,
    spec: Mapping[str, Any],
    before: list[str],
    fusions: Sequence[str] = (),
    source: str | None = None,
    dev: bool | None = None,
) -> None:
    """The kind of a ``[systems.NAME]`` table, its keys (those of its class: :func:`keys_of`), the types of its
    file keys, the systems it names (``before``: the systems declared before it, or ``fusions``: the fusions
    of those systems; a system's key names one), the files its parameters name (relative to the experiment file
    ``source``) and its parameters' values (the constraints its class declares), before anything runs (``dev``:
    whether the collection has a dev split, None when it is not known before the collection is read)."""
    kind = spec.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        raise ClirkitError(f"{where}: kind must be one of {', '.join(KINDS)}, got {kind!r}")
    cls = system_class(kind)
    check_keys(
        where,
        spec,
        ["kind", *keys_of(cls)],
        f"a {kind} system's",
        lambda key: [k for k in KINDS if k != kind and key in keys_of(system_class(k))],
    )
    _check_file_keys(where, cls, spec)
    for key in cls.system_keys:
        if key not in spec:
            continue
        name = spec[key]
        if not isinstance(name, str):  # a fusion's systems are a list ([fusions.NAME]); a system names one
            raise ClirkitError(
                f"{where}: {key} must be a string (the name of a system declared before it, or of a fusion of "
                f"such systems: one name), got {cut_repr(name)}"
            )
        if name not in before and name not in fusions:
            raise ClirkitError(
                f"{where}: {key} {name!r} must be a system declared before it (or a fusion of such systems)"
            )
    from clirkit.constraints import InvalidParameterError

    params = {
        k: tuple(v) if isinstance(v, list) else v
        for k, v in spec.items()
        if k != "kind" and k not in cls.file_keys and k not in cls.system_keys
    }
    try:
        files = param_files(cls, params, source)
        check_param_files(files)
        system = from_flat(cls, {**params, **{k: path for k, (_, path) in files.items()}})
        _check_booleans(cls, params)
        system.check_params()
        system.check_options({k: spec[k] for k in (*cls.file_keys, *cls.system_keys) if k in spec})
        _check_lam_written(spec, cls)
        _check_boost_written(spec, kind, dev)
        _check_loss_written(spec, kind)
    except InvalidParameterError as exc:  # a list shown as written, not as the tuple it became
        written = spec.get(exc.parameter)
        shown = exc.showing(written) if isinstance(written, list) and tuple(written) == exc.value else exc
        raise ClirkitError(f"{where}: {shown}") from None
    except ClirkitError as exc:
        raise ClirkitError(f"{where}: {exc}") from None


def _check_booleans(cls, params: Mapping[str, Any]) -> None:
    """InvalidParameterError for a TOML boolean given to a parameter of ``cls`` that takes a number (``rounds =
    true``, ``max_buckets = true``): scikit-learn's constraints take True as the integer 1."""
    from clirkit.constraints import validate
    from clirkit.paramgroups import flat_constraints

    booleans = {k: v for k, v in params.items() if isinstance(v, bool)}
    validate(flat_constraints(cls), booleans, cls.__name__, bools_as_ints=False)


def _check_lam_written(spec: Mapping[str, Any], cls) -> None:
    """ClirkitError when ``lam`` is written without ``table2`` in a system of class ``cls`` that takes both: the
    weight of a second table means nothing without one, even at its default (the system's own check,
    :meth:`check_options`, sees only values set away from the defaults)."""
    if "lam" in spec and "table2" in cls.file_keys and "table2" not in spec:
        from clirkit.querypsq import LAM_WITHOUT_TABLE2

        raise ClirkitError(LAM_WITHOUT_TABLE2)


def _check_boost_written(spec: Mapping[str, Any], kind: str, dev: bool | None = None) -> None:
    """ClirkitError for a key of a boost system written that its other keys leave unused, even at its default
    (``parallel_weight`` without ``parallel_tuples``, ``significance`` without ``base``:
    :func:`~clirkit.boost.ranker.check_unused_keys`; the ranker's own check sees only values set away from the
    defaults), and for ``eval_every`` written, even at its default, beyond ``rounds`` (as ``clirkit boost-train``
    refuses ``--eval-every`` beyond ``--rounds``: :func:`~clirkit.boost.unused.check_eval_every`), unless the
    collection has no dev split (``dev`` False: the key is then refused as unused when the collection is read,
    with what to do about it; where that is not known yet, either refusal will come)."""
    if kind == "boost":
        from clirkit.boost.unused import check_eval_every, check_unused_keys
        from clirkit.paramgroups import flat_defaults

        check_unused_keys([key for key in spec if key != "kind"], spec)
        if "eval_every" in spec and dev is not False:
            rounds = spec.get("rounds", flat_defaults(system_class(kind))["rounds"])
            check_eval_every(rounds, spec["eval_every"], dev=True)


def _check_loss_written(spec: Mapping[str, Any], kind: str) -> None:
    """ClirkitError for a key of an SCS system written that its loss leaves unused, even at its default (``margin``
    with the default sosl loss: :func:`~clirkit.scs.params.unused_by_loss`; the model's own check,
    :meth:`~clirkit.scs.model.SCSModel.check_params`, sees only values set away from the defaults)."""
    if kind != "scs":
        return
    from clirkit.paramgroups import flat_defaults
    from clirkit.scs.params import READ_BY, unused_by_loss

    loss = spec.get("loss", flat_defaults(system_class(kind))["loss"])
    for name, why in unused_by_loss(loss, [key for key in READ_BY if key in spec])[:1]:
        raise ClirkitError(f"{name}: {why}")


def check_fusion(spec: Mapping[str, Any], where: str) -> None:
    """The types and values of a fusion's ``step``, ``weights``, ``method``, ``measure`` and ``transform``, and no
    key written that the fusion would not read (``step`` with the weights given, ``transform`` with Borda, ...:
    :func:`~clirkit.fusion.system.unused_params`) (``where``: the file and the fusion, for the message)."""
    import math

    from clirkit.fusion import METHODS, TRANSFORMS

    def number(value) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)

    n = len(spec["systems"])
    step = spec.get("step", 0.1)
    if not number(step) or not 0 < step <= 1:
        raise ClirkitError(f"{where}: step must be a number in (0, 1] (e.g. step = 0.1), got {cut_repr(step)}")
    weights = spec.get("weights")
    if weights is not None and not (isinstance(weights, list) and len(weights) == n and all(map(number, weights))):
        raise ClirkitError(
            f"{where}: weights must list {n} finite numbers, one per system (or be left out to tune them "
            f"on dev), got {cut_repr(weights)}"
        )
    method = spec.get("method", "interpolation")
    if not isinstance(method, str) or method not in METHODS:
        names = " or ".join(f'"{m}"' for m in METHODS)
        raise ClirkitError(f"{where}: method must be {names}, got {cut_repr(method)}")
    from clirkit.fusion.system import unused_params

    written = [k for k in ("step", "measure", "transform") if k in spec]  # written, even at its default
    for name, why in unused_params(method, weights is not None, written)[:1]:
        raise ClirkitError(f"{where}: {why}: remove {name}")
    measure = spec.get("measure", "AP")
    if not isinstance(measure, str):
        raise ClirkitError(f'{where}: measure must be a measure name (e.g. measure = "AP"), got {cut_repr(measure)}')
    from clirkit.measures import DEFAULT_DEPTH, beyond_depth, parse_measures

    try:
        deep = beyond_depth(parse_measures([measure]), DEFAULT_DEPTH)
    except ClirkitError as exc:
        raise ClirkitError(f"{where}: measure: {exc}") from None
    if deep is not None:  # (the weights are tuned on dev runs cut at the evaluation's default depth)
        raise ClirkitError(
            f"{where}: measure: {deep.label} reads ranks beyond {DEFAULT_DEPTH}, the depth the weights are tuned "
            f"at: give a cutoff of at most {DEFAULT_DEPTH} (e.g. {deep.kind}@{DEFAULT_DEPTH})"
        )
    allowed = ("auto", *TRANSFORMS)
    transform = spec.get("transform", "auto")
    if not (
        transform in allowed
        if isinstance(transform, str)
        else isinstance(transform, list)
        and len(transform) == n
        and all(isinstance(t, str) and t in allowed for t in transform)
    ):
        raise ClirkitError(
            f"{where}: transform must be one of {', '.join(map(repr, allowed))} or a list of {n} of "
            f"them (one per system), got {cut_repr(transform)}"
        )
    from clirkit.constraints import InvalidParameterError
    from clirkit.fusion.system import Fusion

    try:  # the fusion's own check of its values for n systems (weights >= 0 and summing to 1, a step dividing 1)
        Fusion(method=method, weights=weights, step=step, measure=measure, transform=transform).check_runs(n)
    except InvalidParameterError as exc:
        raise ClirkitError(f"{where}: {exc.worded(exc.parameter)}") from None
    except ClirkitError as exc:
        raise ClirkitError(f"{where}: {exc}") from None
