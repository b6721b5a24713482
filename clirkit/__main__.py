"""``python -m clirkit``: the command, as the ``clirkit`` script runs it."""

import _signal  # the signal module without its enum classes: set up in no time, so the window before is short
import sys

from clirkit import _interrupted_early

# A Ctrl-C from here until clirkit.cli.main takes over is one line and status 130, not a traceback from an import
# (the package, imported by ``-m`` before this file, sees ``-m`` as sys.argv[0], not the command). An ignored SIGINT
# (a background job) stays ignored.
try:
    if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
        _signal.signal(_signal.SIGINT, _interrupted_early)
except ValueError:  # not the main thread (runpy from a thread): the caller's signals, as they are
    pass

from clirkit.cli import main  # noqa: E402

sys.exit(main())
