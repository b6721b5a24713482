"""The ``clirkit`` command: one subcommand per user task.

Each verb lives in its own module of this package and exposes ``add_parser(subparsers)``, which
registers the verb and sets ``func`` to a function taking the parsed arguments and returning an exit
status. Only the module of the verb being run is imported (``clirkit --help`` lists the verbs from
:data:`~clirkit.cli.verbs.VERBS` without importing numpy). ``main`` turns
:class:`~clirkit.errors.ClirkitError` into ``clirkit: error: ...`` on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from clirkit.cli.verbs import VERBS


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser; only the verb named in ``argv`` (all verbs when ``argv`` is None) gets its options."""
    from clirkit import __version__
    from clirkit.cli.common import one_line_errors

    parser = argparse.ArgumentParser(
        prog="clirkit",
        description="Cross-language information retrieval: baselines, boosting, aggregation, evaluation.",
    )
    parser.add_argument("--version", action="version", version=f"clirkit {__version__}")
    one_line_errors(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    chosen = None if argv is None else next((a for a in argv if not a.startswith("-")), "")
    for verb, (module, summary) in VERBS.items():
        if chosen is None or verb == chosen:
            importlib.import_module(f"clirkit.cli.{module}").add_parser(sub)
        else:
            sub.add_parser(verb, help=summary)
    return parser


def _terminated(signum, frame):
    if _ended:  # the work is over: Python is exiting, where an exception would only be printed
        _exit_interrupted()
    if _held():
        return
    raise KeyboardInterrupt  # so writers remove their temporary files, as on Ctrl-C


def _held() -> bool:
    """Whether the signal arriving now is held, to be raised when numba's compiling or a compiled kernel's call
    ends (:data:`clirkit.jit.HELD`): raised inside, it could leave a half-made result that crashed the process."""
    held = getattr(sys.modules.get("clirkit.jit"), "HELD", None)
    return held is not None and held.holds()


_interrupted = False  # a Ctrl-C reached the command's handler (_interrupt)
_ended = False  # the command's work is over (main is returning or has returned): a Ctrl-C now only ends the process
_reported = False  # "clirkit: interrupted" was said
_interrupt_note = ""  # said on the same line after "clirkit: interrupted" (where partial work was kept)
_exit_status: int | None = None  # the status the command returned (None: not returned, or not the command)


def note_on_interrupt(note: str) -> None:
    """Say ``note`` on the one line a Ctrl-C of the running verb prints ("clirkit: interrupted; NOTE")."""
    global _interrupt_note
    _interrupt_note = note


def _interrupt(signum, frame):
    """The command's Ctrl-C: a KeyboardInterrupt, as Python's own handler raises, remembered, because an import
    of a compiled module that it interrupts may turn it into another error (numpy: "PyCapsule_Import could
    not import module"). Once the work is over (:func:`main` returning, the script exiting, atexit callbacks
    such as the workers' shutdown), status 130 at once instead (:func:`_exit_interrupted`); while numba compiles
    or a compiled kernel runs, when it ends (:func:`_held`)."""
    global _interrupted
    _interrupted = True
    if _ended:
        _exit_interrupted()
    if _held():
        return
    raise KeyboardInterrupt


def _exit_interrupted(status: int | None = None) -> None:
    """End the process with status 130 and at most one line on stderr ("clirkit: interrupted" unless said), or
    with ``status`` and no line (a command that ended)."""
    for stream in (sys.stdout, sys.stderr):  # what the finished work printed, as a normal exit would
        try:
            stream.flush()
        except BaseException:  # a closed pipe, a flush this signal interrupted
            pass
    if status is not None:
        os._exit(status)
    if not _reported:
        os.write(2, b"clirkit: interrupted\n")
    os._exit(130)


def _bars_closed() -> None:
    """Close the progress bars still on stderr (a Ctrl-C stopped their work), so that the line saying so starts a
    line of its own: a bar's last state has no line end."""
    tqdm = sys.modules.get("tqdm")
    for bar in list(getattr(getattr(tqdm, "tqdm", None), "_instances", ())):
        try:
            bar.close()
        except BaseException:  # (a bar another thread is closing)
            pass


def _stopped() -> int:
    """The status of a command that a Ctrl-C (or SIGTERM) stopped, after saying so once."""
    global _ended, _reported
    _ended = _command  # from here a second Ctrl-C ends the command at once, without a traceback
    _reported = True  # before the line: a Ctrl-C while printing it must not print a second one
    _bars_closed()
    print("clirkit: interrupted" + (f"; {_interrupt_note}" if _interrupt_note else ""), file=sys.stderr)
    return 130


def _end_as_interrupted() -> None:
    """At exit, after the callbacks registered later (the verb's imports: the workers' shutdown): an interrupted
    command ends here with status 130. Left to Python, ``python -m clirkit`` could end killed by its own SIGINT
    (status -2 to its parent): CPython does that at exit whenever a KeyboardInterrupt went through code a C
    extension ran with PyRun_String while it was imported (scipy's), however the interrupt was handled.

    A command that ended with a status (its threads joined, the other exit callbacks run) ends here too, with
    that status: what is left of Python's exit (tearing down numpy, scipy and the other modules, 0.05-0.3 s) has
    put the signal back to the default, so a Ctrl-C then killed the process by SIGINT instead of status 130."""
    if _reported:
        _exit_interrupted()
    if _exit_status is not None:
        _exit_interrupted(_exit_status)


_command = False  # main runs as the command (the script or python -m clirkit): it owns SIGINT to the end


def main(argv: list[str] | None = None) -> int:
    """The command: parse ``argv`` (default ``sys.argv[1:]``), run the verb, return the exit status.

    Run as the command (the ``clirkit`` script or ``python -m clirkit``, which set the early Ctrl-C handler of
    :mod:`clirkit` before importing this module), a Ctrl-C at any point gives status 130 and at most one line on
    stderr: during the work a KeyboardInterrupt (writers remove their temporary files), caught here; after it
    (the status set, Python exiting) the process ends at once with 130. Called from Python, SIGINT keeps its
    handler."""
    global _command, _ended, _interrupt_note, _exit_status
    import signal

    _interrupt_note = ""  # a note of an earlier command run in this process is not this one's

    # pyarrow (parsing run scores with many digits) hands memory back sooner with jemalloc; a choice made
    # for clirkit's own process only, before pyarrow is imported
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "jemalloc")

    try:
        if threading_is_main():
            from clirkit import _interrupted_early

            # a Ctrl-C that lands where Python can only ignore it is raised again (before the handler is set)
            sys.unraisablehook = _keeping_interrupts(sys.unraisablehook)
            import threading

            threading.excepthook = _quiet_after_interrupt(threading.excepthook)
            # from here a Ctrl-C is a KeyboardInterrupt, so writers remove their temporaries
            if signal.getsignal(signal.SIGINT) is _interrupted_early:
                import atexit

                _command, _ended = True, False
                signal.signal(signal.SIGINT, _interrupt)
                atexit.register(_end_as_interrupted)
            signal.signal(signal.SIGTERM, _terminated)
        argv = sys.argv[1:] if argv is None else list(argv)
        parser = build_parser(argv)
        args, unknown = _parsed(parser, argv)
        if unknown:  # said by the verb's own parser: "clirkit dt: error: ... (see clirkit dt --help)"
            _verb_parser(parser, args).error(f"unrecognized arguments: {' '.join(unknown)}")
        status = _call(args)
        status = _stopped() if _interrupted and _command else status  # a Ctrl-C some callback swallowed
        _exit_status = status if _command else None
        return status
    except KeyboardInterrupt:
        return _stopped()
    except Exception:
        if not _interrupted:
            raise
        return _stopped()
    finally:  # the status is set (or a SystemExit, a real bug's exception is on its way)
        _ended = _command


def _parsed(parser: argparse.ArgumentParser, argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """``parser.parse_known_args(argv)``; after ``--help`` or ``--version`` (written, status 0) the standard output
    flushed here, where a failure to write it is the one error line and status 2 (:mod:`clirkit.cli.stdout`)."""
    from clirkit.cli.stdout import StdoutLost, guarded_stdout

    if sys.stdout is None:  # closed (>&-): argparse writes the help to stderr
        return parser.parse_known_args(argv)
    try:
        with guarded_stdout():  # (argparse ignores an OSError of its own writes)
            try:
                return parser.parse_known_args(argv)
            except SystemExit as exc:
                if exc.code in (0, None):
                    sys.stdout.flush()
                raise
    except StdoutLost as lost:
        print(f"clirkit: error: {lost}", file=sys.stderr)
        raise SystemExit(2) from None


def _verb_parser(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the verb (and action, ``ttable convert``) that ``args`` were parsed by."""
    while True:
        sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
        chosen = getattr(args, sub.dest, None) if sub is not None else None
        if chosen not in (sub.choices if sub is not None else {}):
            return parser
        parser = sub.choices[chosen]


def _call(args) -> int:
    from clirkit.cli.stdout import guarded_stdout
    from clirkit.errors import ClirkitError

    try:
        output = getattr(args, "output", None)
        if isinstance(output, str) and output != "-":  # before the work, not after it
            from clirkit.fileio import check_output_folder

            check_output_folder(output)
        with guarded_stdout():
            status = _run_verb(args)
    except ClirkitError as exc:
        from clirkit.cli.params import option_message
        from clirkit.fileio import display_name

        message = " ".join(option_message(exc, args).split("\n"))  # (a name's undecodable bytes as \xNN)
        print(f"clirkit: error: {display_name(message)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    return int(status or 0)


def _run_verb(args):
    """The verb's function on ``args``; worker processes (any module's, through joblib) end with this one: with
    --jobs, or in a verb that tokenizes in workers whatever its --jobs (starts_workers)."""
    if getattr(args, "jobs", 1) != 1 or getattr(args, "starts_workers", False):
        from clirkit.parallel import workers_deaf_to_ctrl_c, workers_end_with_parent

        if _command:  # the command handles Ctrl-C for its workers: they start deaf to it
            import warnings

            workers_deaf_to_ctrl_c()
            warnings.filterwarnings("ignore", message=r".*tasks which were still being processed by the workers")
        with workers_end_with_parent():
            return args.func(args)
    return args.func(args)


def _keeping_interrupts(hook):
    """``sys.unraisablehook`` that raises a Ctrl-C again where it landed where Python can only ignore it (a
    finalizer, a callback of the import machinery, early in a run), so the run stops as it would anywhere else."""

    def handle(unraisable) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            _interrupt_after(sys._getframe(1))
            return
        hook(unraisable)

    handle.keeps_interrupts = True
    return hook if getattr(hook, "keeps_interrupts", False) else handle


def _interrupt_after(frame) -> None:
    """Raise KeyboardInterrupt in the main thread at the next line of ``frame`` (the code the lost Ctrl-C
    interrupted) or the next function call, whichever comes first, once outside the unraisable hook: anything
    raised inside the hook, as the signal handler would be run by ``signal.raise_signal``, is only printed.
    From another thread, the main thread is interrupted as by a signal."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        import _thread
        import signal

        _thread.interrupt_main(signal.SIGINT)
        return
    previous = sys.gettrace()

    def interrupt(traced, event, arg):
        frame.f_trace = None
        sys.settrace(previous)
        raise KeyboardInterrupt

    frame.f_trace = interrupt
    sys.settrace(interrupt)


def _quiet_after_interrupt(hook):
    """``threading.excepthook`` that prints nothing once the command was interrupted: an error in another thread
    then comes from the stopping (joblib's executor thread finding a work item the interrupted submission left
    half-made), and the command says its one line."""

    def handle(args) -> None:
        if not _interrupted:
            hook(args)

    handle.quiet_after_interrupt = True
    return hook if getattr(hook, "quiet_after_interrupt", False) else handle


def threading_is_main() -> bool:
    """Signal handlers can only be set from the main thread (not when main() runs in a worker thread)."""
    import threading

    return threading.current_thread() is threading.main_thread()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
