"""Reading text files line by line (gz and stdin transparently) and atomic writes.

Every reader in clirkit goes through :func:`iter_lines`, so undecodable bytes
are reported with the file and line, and every writer goes through
:func:`atomic_writer`, so a failed run never leaves a half-written output;
within :func:`written_together`, a command's outputs appear together or not at all.
"""

from __future__ import annotations

import contextlib
import contextvars
import gzip
import io
import os
import signal
import sys
import tempfile
import threading
import zlib
from pathlib import Path
from typing import IO, Iterator

from clirkit.errors import ClirkitError, ClirkitTypeError, LineAfterCR, located


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def file_digest(path: str | os.PathLike[str]) -> str:
    """The first 16 hex digits of the SHA-256 of a file's bytes (read in 1 MiB blocks)."""
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def repeated_file(paths) -> tuple[int, int] | None:
    """``(i, j)``, the positions (from 0) of the first file of ``paths`` given again at ``j`` (the same file
    however its path is written; ``-``, standard input, compared as written), or None when all differ."""
    seen: dict[str, int] = {}
    for j, path in enumerate(paths):
        i = seen.setdefault(os.path.realpath(path) if path != "-" else path, j)
        if i != j:
            return i, j
    return None


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether the paths ``a`` and ``b`` name one file: :func:`os.path.samefile` when both exist (a symlink, a hard
    link, ``./``), else their normalized real paths; ``-`` (standard input or output) is no file."""
    if str(a) == "-" or str(b) == "-":
        return False
    if os.path.exists(a) and os.path.exists(b):
        with contextlib.suppress(OSError):
            return os.path.samefile(a, b)
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def check_outputs(outputs: dict, inputs: dict | None = None) -> None:
    """The check of a verb's output files, before it reads or writes anything: ``outputs`` and ``inputs`` map an
    option (``-o``, ``--queries``) to its path, a list of paths, or None (not given). ClirkitError, one line naming
    the options, when an output is empty, cannot be written (its folder is missing or not writable, it is a
    folder), names the file of an input (however its path is written: that input would be lost) or of another
    output. ``-`` and files that are not regular (``/dev/null``, a FIFO: written in place) are not compared."""
    given_inputs = [(option, path) for option, value in (inputs or {}).items() for path in _paths(value)]
    seen: list[tuple[str, str]] = []
    for option, path in ((o, p) for o, value in outputs.items() for p in _paths(value)):
        if not str(path).strip():
            raise ClirkitError(f"{option} must be a file name, got {str(path)!r}")
        if str(path) == "-":
            continue
        target = check_output_folder(path)
        if target.is_dir():
            raise ClirkitError(f"{path}: is a folder; give a file name to write ({option})")
        if target.exists() and not target.is_file():
            continue
        parent = target.parent if str(target.parent) else Path(".")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise ClirkitError(f"{path}: cannot write in {parent} (permission denied): write elsewhere ({option})")
        for other, given in given_inputs:
            if same_file(path, given):
                shown = f"{other} {given}" if str(given) == str(path) else f"{other} {given} (the same file)"
                raise ClirkitError(
                    f"{option} {path} is also {shown}: writing it would replace that input; write elsewhere"
                )
        for other, written in seen:
            if same_file(path, written):
                raise ClirkitError(f"{option} {path} is also {other} {written}: give the two outputs two names")
        seen.append((option, path))


def _paths(value) -> list:
    """The paths an option's value holds: none for None, each of a list, else the value."""
    if value is None:
        return []
    return [p for p in value if p is not None] if isinstance(value, (list, tuple)) else [value]


def display_name(path: str | os.PathLike[str]) -> str:
    """The name used for ``path`` in messages and in what is written of it (``<stdin>`` for ``-``): the bytes of
    a name that are not UTF-8 (which Python keeps as lone surrogates, and no UTF-8 text can hold) as ``\\xNN``."""
    text = str(path)
    if text == "-":
        return "<stdin>"
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate that stands for no byte (given from Python)
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


class _Prefixed(io.RawIOBase):
    """A stream that gives back ``head`` (bytes already read) and then the rest of ``rest``: how a pipe, which
    cannot seek, is read from its start after its first bytes were looked at."""

    def __init__(self, head: bytes, rest: IO[bytes]) -> None:
        self._head = head
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        return self._rest.readinto(buffer)


def _decompressed(raw: IO[bytes]) -> Iterator[IO[bytes]]:
    """``raw`` read from its start, gunzipped if its first two bytes are gzip's magic number; a pipe or a FIFO
    (which cannot seek back) as well as a file."""
    head = raw.read(2)
    if raw.seekable():
        raw.seek(-len(head), io.SEEK_CUR)
        stream: IO[bytes] = raw
    else:
        stream = io.BufferedReader(_Prefixed(head, raw), buffer_size=1 << 16)
    if head == b"\x1f\x8b":
        with gzip.GzipFile(fileobj=stream) as gz:
            yield io.BufferedReader(gz, buffer_size=1 << 20)  # 2-3x faster line iteration
    else:
        yield stream


def check_path(path) -> None:
    """ClirkitTypeError unless ``path`` is a path (a str or an ``os.PathLike``): an int would be taken for a file
    descriptor by ``open`` and ``os.stat``, and reading it would close the caller's (``read_run(1)``, stdout)."""
    if not isinstance(path, (str, os.PathLike)):
        raise ClirkitTypeError(f"expected a file's path (a str or os.PathLike), got {type(path).__name__} {path!r}")


@contextlib.contextmanager
def open_binary(path: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    """Open ``path`` for reading bytes; ``-`` is stdin; a gzip stream (``.gz`` or not, a pipe as well as a
    file) is decompressed."""
    check_path(path)
    if str(path) == "-":
        yield from _decompressed(sys.stdin.buffer)
        return
    p = Path(path)
    if not p.exists():
        raise ClirkitError(f"{p}: no such file: check the path")
    if p.is_dir():
        raise ClirkitError(
            f"{p}: is a directory, expected a file: check the path (a folder was given where a file is expected)"
        )
    with open(p, "rb") as raw:
        yield from _decompressed(raw)


TO_UTF8 = "; convert the file to UTF-8 (from Latin-1: `iconv -f latin1 -t utf-8 FILE > NEW`)"
"""What to do about a text file that is not UTF-8, ending the messages that say so."""
FROM_UTF16 = "; convert it to UTF-8: `iconv -f utf-16 -t utf-8 FILE > NEW`"
"""What to do about a UTF-16 text file, ending the messages that say so."""
NUL_BYTES = "NUL bytes: not a UTF-8 text file (is it a binary file?); check the path"
"""The problem of a text file holding NUL bytes (a binary file given where text is expected)."""
GZIP_ERRORS = (EOFError, gzip.BadGzipFile, zlib.error)  # what a truncated or damaged gzip stream raises


def damaged_gzip(name: object, lineno: int | None, exc: BaseException, what: str = "") -> ClirkitError:
    """The error for a gzip stream that breaks at line ``lineno`` of the file ``name`` (None: the file as a whole),
    ``exc`` being what the decompressor raised (one of :data:`GZIP_ERRORS`): named so, with what to do; ``what``:
    the part of the file that cannot be read (``the dictionary body``)."""
    problem = " ".join(str(exc).split()) or type(exc).__name__
    return located(
        name,
        lineno,
        f"cannot read{' ' + what if what else ''}: damaged gzip file ({problem}); get the "
        f"file again, or decompress what is left with `gzip -dc` and use that",
    )


def looks_utf16(head: bytes, first: bool) -> bool:
    """Whether bytes read from a line on look like UTF-16 text: a byte-order mark opening the file (``first``)
    followed by text that decodes (nearly all of it printable), or NUL bytes in every other byte (the high bytes of
    Latin letters: at least 3 in 4 of them) and none in the others."""
    body = head.replace(b"\r", b"").replace(b"\n", b"")
    if first and body[:2] in (b"\xff\xfe", b"\xfe\xff"):
        tail = head[2:]  # with its line ends: they are half of a UTF-16 character
        codec = "utf-16-le" if body[:2] == b"\xff\xfe" else "utf-16-be"
        text = tail[: len(tail) - len(tail) % 2].decode(codec, errors="replace")
        return sum(c.isprintable() or c in "\t\r\n" for c in text) >= 0.95 * len(text)
    for parity in (0, 1):
        units = head[parity::2]
        if len(units) >= 2 and units.count(0) >= 0.75 * len(units) and 0 not in head[1 - parity :: 2]:
            return True
    return False


def undecodable(head: bytes, start: int, first: bool) -> str:
    """What is wrong with a line that is not UTF-8 (``head``: its bytes and maybe some that follow; ``start``: its
    first bad byte; ``first``: the file's first line) and what to do: UTF-16 (convert it), NUL bytes (a binary
    file?), or another encoding (convert it)."""
    if looks_utf16(head, first):
        return f"the file is UTF-16, not UTF-8 (a byte-order mark or NUL bytes between the letters){FROM_UTF16}"
    if b"\0" in head:
        return NUL_BYTES
    return f"invalid UTF-8 (byte {start + 1} of the line){TO_UTF8}"


def _more(fh: IO[bytes], raw: bytes) -> bytes:
    """``raw`` and up to 4 KiB that follow it in ``fh`` (what can be read): a longer look at a bad line."""
    try:
        return raw + fh.read(4096)
    except (*GZIP_ERRORS, OSError):
        return raw


def iter_lines(path: str | os.PathLike[str], *, skip_blank: bool = True) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for each line of a UTF-8 text file.

    Line numbers start at 1. Lines end with LF, CRLF or a lone CR (old Mac files: every CR
    ends a line, as editors show them), which are removed. Blank lines are skipped unless
    ``skip_blank`` is False. Invalid UTF-8 or a corrupt gzip stream (truncated or damaged)
    raises ``ClirkitError("file:line: ...")``.
    """
    name = display_name(path)
    lineno = physical = first_cr = 0  # lines ended at LF, CRLF or CR; at LF (as most editors number them); CR
    with open_binary(path) as fh:
        try:
            for raw in fh:
                physical += 1
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise located(name, lineno + 1, undecodable(_more(fh, raw), exc.start, lineno == 0)) from None
                if lineno == 0 and "\0" in text and looks_utf16(raw, False):  # UTF-16 of ASCII text is valid UTF-8
                    raise located(name, 1, undecodable(raw, 0, False))
                text = text.rstrip("\r\n")
                if not first_cr and "\r" in text and (raw.endswith(b"\n") or physical > 1):  # not an old Mac file
                    first_cr = physical
                for k, part in enumerate(text.split("\r") if "\r" in text else (text,)):
                    lineno += 1
                    if lineno == 1 and part.startswith("\ufeff"):
                        part = part[1:]
                    if skip_blank and not part.strip():
                        continue
                    yield (LineAfterCR(lineno, physical, first_cr, k > 0) if first_cr else lineno), part
        except GZIP_ERRORS as exc:  # raised by the gzip stream only
            raise damaged_gzip(name, lineno + 1, exc) from None
        except OSError as exc:
            raise located(name, lineno + 1, f"cannot read: {exc}") from None


def read_once(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names a pipe (``<(...)``, a FIFO) or a device, which can be read only once (stdin, ``-``,
    is told by its name)."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def plain_number(text) -> bool:
    """Whether a number's text is written as file writers and trec_eval write numbers: ASCII, without ``_``
    (Python's ``int`` and ``float`` also read ``'١٢'``, ``'０.５'`` and ``'1_000'``)."""
    return str(text).isascii() and "_" not in str(text)


def file_float(text: str) -> float:
    """``float(text)`` for a number field of a file, written plainly (:func:`plain_number`); ValueError otherwise,
    as ``float``'s."""
    if not plain_number(text):
        raise ValueError(f"not a number as files write them: {text!r}")
    return float(text)


def _remove_stale_temporaries(folder: Path, name: str) -> None:
    """Remove ``.NAME.PID.xxxx.tmp`` files left in ``folder`` by writes of ``name`` whose process is gone
    (killed before it could clean up); those of running processes are left alone."""
    for entry in os.scandir(folder):
        if entry.name.endswith(".tmp") and left_by_gone_process(entry.name, f".{name}.", "."):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)


def left_by_gone_process(name: str, prefix: str, sep: str) -> bool:
    """Whether the file or folder ``name``, named ``prefix`` + the PID of the process that made it + ``sep`` + ...,
    was left by a process that is gone (killed before it could remove it); False for any other name, and for a
    running process's."""
    if not name.startswith(prefix):
        return False
    pid = name[len(prefix) :].split(sep, 1)[0]
    return pid.isdigit() and not _alive(int(pid))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def check_output_folder(path: str | os.PathLike[str]) -> Path:
    """The file ``path`` will be written as (through a symlink), after checking that its folder exists and is a
    folder (ClirkitError ``PATH: the folder F does not exist``): verbs check it before their work."""
    target = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.exists():
        raise ClirkitError(f"{path}: the folder {parent} does not exist (create it, or write elsewhere)")
    if not parent.is_dir():
        raise ClirkitError(f"{path}: {parent} is not a folder (it is a file): give an output path inside a folder")
    return target


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str], *, binary: bool = False, compresslevel: int = 9) -> Iterator[IO]:
    """Open a temporary file beside ``path``; rename it onto ``path`` on success.

    ``-`` writes to stdout. A name ending in ``.gz`` is gzip-compressed at ``compresslevel`` (1-9, with a
    zero mtime, so identical content gives identical bytes). On an exception
    the temporary file is removed and ``path`` is left untouched. Within
    :func:`written_together`, the rename waits for the end of its block.
    """
    if str(path) == "-":
        if binary:
            yield sys.stdout.buffer
        else:
            yield sys.stdout
        sys.stdout.flush()
        return
    target = check_output_folder(path)
    parent = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise ClirkitError(f"{path}: is a folder; give a file name to write")
    if target.exists() and not target.is_file():  # a device or FIFO (/dev/null, a pipe): written in place
        try:
            text_mode = {"mode": "w", "encoding": "utf-8", "newline": "\n"}
            with open(target, **({"mode": "wb"} if binary else text_mode)) as fh, _encodable(path):
                yield fh
        except OSError as exc:
            raise ClirkitError(f"{path}: cannot write ({exc.strerror})") from None
        return
    try:
        _remove_stale_temporaries(parent, target.name)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=parent)
    except OSError as exc:
        raise ClirkitError(f"{path}: cannot write in {parent} ({exc.strerror})") from None
    try:
        os.chmod(tmp, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as raw:
            with contextlib.ExitStack() as stack:
                sink: IO[bytes] = raw
                if target.name.endswith(".gz"):
                    sink = stack.enter_context(
                        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=compresslevel)
                    )
                if binary:
                    yield sink
                else:
                    text = io.TextIOWrapper(sink, encoding="utf-8", newline="\n")
                    with _encodable(path):
                        yield text
                        text.flush()
                    text.detach()
        pending = _PENDING.get()
        if pending is None:
            os.replace(tmp, target)
        else:  # renamed with the other outputs by written_together
            pending.append((tmp, target))
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def _encodable(path: str | os.PathLike[str]) -> Iterator[None]:
    """ClirkitError instead of the UnicodeEncodeError of text that UTF-8 cannot hold (a lone surrogate: a file
    name's undecodable byte, an id given from Python) written to ``path``."""
    try:
        yield
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end] if isinstance(exc.object, str) else ""
        raise ClirkitError(
            f"{display_name(path)}: cannot write text holding {bad.encode('utf-8', 'backslashreplace').decode()} "
            f"(a lone surrogate, which UTF-8 cannot hold: an undecodable byte of a file name, or a bad string)"
        ) from None


_PENDING: contextvars.ContextVar[list[tuple[str, Path]] | None] = contextvars.ContextVar("pending", default=None)
"""The ``(temporary, target)`` files written within :func:`written_together`, renamed when it ends."""


@contextlib.contextmanager
def written_together() -> Iterator[None]:
    """Within it, the files :func:`atomic_writer` writes (``-`` and devices aside, written as they come) are kept
    under their temporary names, and renamed onto their paths one after the other when the block ends without an
    error: a command's outputs all appear, or none does (on an error or a Ctrl-C their temporary files are removed,
    and the files at the paths are left as they were; a Ctrl-C or SIGTERM during the renames waits until they are
    done, :func:`signals_held`). Nested, the outermost block renames them. Only the writes of the same thread (the
    same :mod:`contextvars` context) are deferred: an :func:`atomic_writer` in a worker thread renames its file as
    it closes."""
    if _PENDING.get() is not None:
        yield
        return
    pending: list[tuple[str, Path]] = []
    token = _PENDING.set(pending)
    try:
        yield
    except BaseException:
        _remove_temporaries(pending)
        raise
    finally:
        _PENDING.reset(token)
    with signals_held():  # a Ctrl-C between two renames would leave the first file alone
        for done, (tmp, target) in enumerate(pending):
            try:
                os.replace(tmp, target)
            except BaseException as exc:
                _remove_temporaries(pending[done:])
                if isinstance(exc, OSError):  # beside the file: its folder's rights changed meanwhile
                    written = "".join(f"; {path} is written" for _, path in pending[:done])
                    raise ClirkitError(f"{target}: cannot write ({exc.strerror}){written}") from None
                raise


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM delivered after the block, not inside it (in the main thread; elsewhere, or where
    signals cannot be blocked, as they come): for renames that must all happen or none."""
    held = {signal.SIGINT, signal.SIGTERM}
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, held)


def _remove_temporaries(pending: list[tuple[str, Path]]) -> None:
    for tmp, _ in pending:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
