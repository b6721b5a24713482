"""The text of ``clirkit run --keys``: every key of an experiment file with what it takes, or a system kind's keys
with their defaults (:func:`keys_text`)."""

from __future__ import annotations

from clirkit.errors import ClirkitError
from clirkit.experiment.kinds import KINDS, keys_of, system_class
from clirkit.experiment.spec import KEYS


def keys_text(kind: str | None = None) -> str:
    """Every key of an experiment file with what it takes (``clirkit run --keys``), or the keys of a system of
    ``kind`` (or ``fusion``) with their defaults."""
    import textwrap

    if kind is not None:
        if kind != "fusion" and kind not in KINDS:
            raise ClirkitError(f"--keys: no system kind {kind!r} (kinds: {', '.join(KINDS)}, or fusion)")
        cls = system_class(kind)
        from clirkit.paramgroups import flat_defaults

        defaults = flat_defaults(cls)
        lines = [
            f"[{'fusions' if kind == 'fusion' else 'systems'}.NAME] of kind {kind} ({cls.__module__}."
            f"{cls.__name__}; its docstring says what each parameter does):"
        ]
        shapes = {str: "a string", bool: "true or false", int: "an integer"}
        lines += [f"  {k:<25} {what} ({shapes[kind_of]})" for k, (kind_of, what) in cls.file_keys.items()]
        named = (
            "the names of systems"
            if kind == "fusion"
            else "the name of a system declared before it, or of a fusion of such systems"
        )
        lines += [f"  {k:<25} {named}" for k in cls.system_keys]
        from clirkit.estimator import Resources

        set_by_run = cls.params_from(Resources(), {})
        lines += [
            f"  {k:<25} default {defaults[k]!r}"
            + (" (an experiment sets it: collection's languages, seed, progress, jobs)" if k in set_by_run else "")
            for k in keys_of(cls)
            if k not in cls.file_keys and k not in cls.system_keys
        ]
        return "\n".join(lines)
    out = [
        'Experiment-file keys (README, "Experiment-file keys"); clirkit run --keys KIND lists a system '
        "kind's keys with their defaults."
    ]
    for table, keys in KEYS.items():
        out += ["", "top level:" if not table else f"[{table}]:"]
        for key, what in keys.items():
            out += textwrap.wrap(what, 116, initial_indent=f"  {key:<15} ", subsequent_indent=" " * 18)
        if table == "systems.NAME":
            for name in KINDS:
                out += textwrap.wrap(
                    ", ".join(keys_of(system_class(name))),
                    116,
                    initial_indent=f"  kind {name + ':':<10} ",
                    subsequent_indent=" " * 18,
                )
    return "\n".join(out)
