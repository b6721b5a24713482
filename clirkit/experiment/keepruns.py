"""Which runs an experiment folder keeps: the patterns of ``keep_runs`` (``NAME.SPLIT``, as written or as
``fnmatch`` patterns), matched against the runs of the experiment's systems and fusions on its splits."""

from __future__ import annotations

from fnmatch import fnmatchcase

from clirkit.errors import ClirkitError


def matches_a_run(pattern: str, names, splits=("dev", "test")) -> bool:
    """Whether the ``keep_runs`` pattern matches a run ``NAME.SPLIT`` of these system or fusion ``names`` on these
    ``splits`` (:func:`keeps`)."""
    return any(keeps(pattern, f"{name}.{split}") for name in names for split in splits)


def keeps(pattern: str, run: str) -> bool:
    """Whether the ``keep_runs`` pattern names the run ``NAME.SPLIT``: as the run's name written as it is
    (``PSQ[2].test`` for a system named ``PSQ[2]``), else as an ``fnmatch`` pattern (case-sensitive: ``*.test``)."""
    return run == pattern or fnmatchcase(run, pattern)


def check_keep_runs(where: str, patterns, names, splits=("dev", "test")) -> None:
    """ClirkitError ``WHERE: keep_runs: PATTERN matches none of the runs (...)`` for a pattern that matches no run
    of the systems and fusions ``names`` on ``splits`` (:func:`matches_a_run`): a typo would silently keep none."""
    made = [f"{name}.{split}" for name in names for split in splits]
    for pattern in patterns:
        if not matches_a_run(pattern, names, splits):
            raise ClirkitError(
                f"{where}: keep_runs: {pattern!r} matches none of the runs "
                f"({', '.join(made[:6])}{', ...' if len(made) > 6 else ''}); give patterns of "
                f'NAME.SPLIT (e.g. "*.test")'
            )
