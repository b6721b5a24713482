"""The experiment runner as the verbs that run experiment files call it (run, demo)."""

from __future__ import annotations


def run_resumable(exp, folder, *, quiet: bool):
    """:func:`~clirkit.experiment.run_experiment`; a Ctrl-C's line, and an error's, say where the work made so far
    is kept (when the runner keeps it: :meth:`~clirkit.experiment.store.Store.abandon`) for the next run into
    ``folder`` to resume from."""
    from clirkit.cli import note_on_interrupt
    from clirkit.errors import ClirkitError
    from clirkit.experiment import run_experiment
    from clirkit.experiment.store import staging

    try:
        return run_experiment(exp, folder, quiet=quiet)
    except KeyboardInterrupt:
        if staging(folder).is_dir():
            note_on_interrupt(f"the work done so far is kept in {staging(folder)}; the same command resumes it")
        raise
    except ClirkitError as exc:
        if not staging(folder).is_dir():
            raise
        raise ClirkitError(
            f"{exc} (the work done so far is kept in {staging(folder)}; the corrected run into {folder} resumes it)"
        ) from None


def collection_option(collection: str | None) -> str | None:
    """``--collection`` as the runner must read it: a folder named relative to the current folder made absolute
    (a relative collection an experiment file names is read beside the file); a bundled collection's name, or
    anything else, as given."""
    import os

    from clirkit import datasets

    if collection and collection not in datasets.names() and os.path.isdir(collection):
        return os.path.abspath(collection)
    return collection
