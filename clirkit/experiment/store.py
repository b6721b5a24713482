"""The output folder of an experiment, replaced as a whole: each artifact beside a ``.json`` record of what
made it, and no moment at which the folder holds a mix of two runs.

A run writes into a staging folder beside the output, ``.NAME.partial`` (``NAME``: the output folder's name).
An artifact whose record is unchanged is taken from the staging folder (what an interrupted run had made) or
from the output folder (the previous run's, hard-linked: artifacts are never written in place, so the link
cannot change under the previous folder). When the report is written, the staging folder and the output
folder are exchanged in one atomic rename (``renameat2(RENAME_EXCHANGE)``; where the system has none, two
renames with Ctrl-C and SIGTERM held off between them, and a leftover ``.NAME.old`` is put back by the next
run), then the previous folder is renamed ``.NAME.old`` (Ctrl-C still held off) and removed; a Ctrl-C during its
removal leaves the new output whole, no staging folder, and what is left of the old one for the next run to
remove. So a rerun interrupted at any moment leaves the previous results
whole and readable, and the next run resumes from what the interrupted one made. The output folder ends up
holding exactly what this run made: runs of systems no longer in the file are gone, and so is what the interrupted
run made that the resuming one neither reused nor made (:meth:`Store.prune`, before the switch). The staging folder
of an interrupted run holds ``.owner`` (the process id: two runs never write one folder at once); one without it is
what a switch left of the previous output, removed by the next run. A run that stops on an error before its work
recorded an artifact (at a check: a wrong key or file, found after the ``[collection]`` files were read; or in a
system's fit or search before any table, index, model or run was recorded) leaves no staging folder it
created (:meth:`Store.abandon`). One that stops on an error after its work recorded an artifact keeps the staging
folder with what it made, for the corrected run to resume from; so does an interrupted run (Ctrl-C, SIGTERM),
whenever it stops (unless the folder holds nothing but ``.owner``); and a staging folder found at the start (an
interrupted run's) is always kept for the next one.

A folder holding anything an experiment does not write (``-o .`` by mistake) is refused, not replaced.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path

from clirkit.errors import ClirkitError
from clirkit.fileio import signals_held

OWNER = ".owner"  # in the staging folder: the id of the process writing it
WRITTEN = {
    "table.npz",
    "table.npz.json",
    "table.reverse.npz",
    "table.reverse.npz.json",
    "index.npz",
    "index.npz.json",
    "models",
    "runs",
    "report.md",
    "results.txt",
    "collection",
    "collection.json",
}  # and *.png: what an experiment folder holds


def _file_on_the_way(target: Path) -> Path | None:
    """The nearest of ``target``'s parents that exists, if it is not a folder (``-o FILE/x``); else None."""
    for parent in target.parents:
        if parent.exists():
            return None if parent.is_dir() else parent
    return None


def _is_ours(name: str) -> bool:
    return name in WRITTEN or name.endswith(".png") or _is_temporary(name)


def _strange_inside(target: Path) -> str | None:
    """What is wrong inside an experiment's output folder ``target`` (its first problem, said after the folder's
    name), or None: in ``runs/`` and ``models/`` an entry no run wrote (``runs/my-own.run``: neither an artifact
    with its record ``X.json`` beside it, nor a record, a JSON object, whose artifact was removed to save room), and
    in ``collection/`` a file its ``manifest.json`` does not name (every file when it has none), or a manifest that
    cannot be read."""
    for sub in ("runs", "models"):
        folder = target / sub
        names = set(os.listdir(folder)) if folder.is_dir() else set()
        for name in sorted(names):
            if _is_temporary(name) or name + ".json" in names or (name.endswith(".json") and _a_record(folder / name)):
                continue
            return f"holds '{sub}/{name}', which is not an experiment's output (no record {name}.json beside it)"
    folder = target / "collection"
    if folder.is_dir():
        listed = _collection_files(folder) if (folder / "manifest.json").exists() else set()
        if listed is None:
            return "holds 'collection/' whose manifest.json cannot be read (remove the folder, or give a new one)"
        extra = sorted(n for n in set(os.listdir(folder)) - listed if not _is_temporary(n))
        if extra:
            return f"holds 'collection/{extra[0]}', which is not an experiment's output"
    return None


def _a_record(path: Path) -> bool:
    """Whether ``path`` holds a JSON object (the record of an artifact removed since)."""
    try:
        return isinstance(json.loads(path.read_text(encoding="utf-8")), dict)
    except (OSError, ValueError):
        return False


def _collection_files(folder: Path) -> set[str] | None:
    """The names of the files a collection folder's ``manifest.json`` names, with the manifest and
    ``sources.json``; None when its manifest cannot be read."""
    try:
        files = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return None

    def leaves(value) -> list[str]:
        if isinstance(value, str):
            return [value]
        values = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
        return [name for v in values for name in leaves(v)]

    return {"manifest.json", "sources.json", *leaves(files)}


def _is_temporary(name: str) -> bool:
    return name.startswith(".") and name.endswith(".tmp")


def file_name(name: str) -> str:
    """A run or model name as a file name: lowercase, ``+`` as ``_``, runs of other unsafe characters as one
    ``-`` (``"DT+PSQ(Borda)"`` -> ``dt_psq-borda``)."""
    import re

    safe = re.sub(r"[^a-z0-9_.+-]+", "-", name.lower()).replace("+", "_").strip("-")
    return safe or "run"


def staging(target) -> Path:
    """The staging folder of the output folder ``target``: ``.NAME.partial`` beside it (ClirkitError for a
    target with no name of its own: ``.``, ``..``, ``/``)."""
    target = Path(target)
    if target.name in ("", ".", ".."):
        raise ClirkitError(f"{target}: give a folder name for the output (e.g. -o results)")
    return target.with_name(f".{target.name}.partial")


class Store:
    """The output folder ``target`` of one run, made in its staging folder (:attr:`folder`) and switched in
    by :meth:`commit` (see the module docstring). ``ours(name)`` says which names a folder it may replace holds
    (``what`` it is, for the message), ``check_inside`` whether an experiment's subfolders are looked into too
    (:func:`_strange_inside`); ``resume=False`` starts from an empty staging folder."""

    def __init__(
        self,
        target: Path,
        *,
        ours=_is_ours,
        what: str = "an experiment's output",
        resume: bool = True,
        check_inside: bool = True,
    ) -> None:
        from clirkit.fileio import _alive

        self.target = Path(target)
        name = self.target.name
        self.folder = staging(self.target)
        self.old = self.target.with_name(f".{name}.old")
        if self.target.exists() and not self.target.is_dir():
            raise ClirkitError(f"{target}: exists and is not a folder; give a folder for the output")
        self._recover()
        created = not self.folder.exists()
        if self.target.is_dir():
            strange = sorted(n for n in os.listdir(self.target) if not ours(n))
            problem = f"holds {strange[0]!r}, which is not {what}" if strange else None
            if problem is None and check_inside:
                problem = _strange_inside(self.target)
            if problem is not None:
                raise ClirkitError(
                    f"{target}: {problem}; the folder would be replaced as a whole: give a new or empty folder "
                    f"(or one holding {what})"
                )
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a file on the way, no permission, a read-only place
            blocking = _file_on_the_way(self.target)
            if blocking is not None:
                raise ClirkitError(
                    f"{target}: {blocking} is not a folder (it is a file): give an output path inside a folder"
                ) from None
            raise ClirkitError(f"{target}: cannot make the output folder ({exc.strerror or exc})") from None
        owner = self.folder / OWNER
        with contextlib.suppress(OSError, ValueError):
            pid = int(owner.read_text(encoding="ascii"))
            if pid != os.getpid() and _alive(pid):
                raise ClirkitError(
                    f"{target}: another clirkit run (process {pid}) is writing this folder; wait "
                    f"for it, or give another folder"
                )
        if (not resume or not owner.exists()) and any(self.folder.iterdir()):  # no owner: a switch's leftover
            shutil.rmtree(self.folder)
            self.folder.mkdir()
            created = True
        self.created = created  # made by this run: it holds nothing an interrupted run made (see abandon)
        self.made = 0  # the artifacts this run recorded (remember): work a failed run keeps for the next one
        self.used: set[str] = set()  # the names (relative to the folder) this run reused, made or wrote: see prune
        owner.write_text(str(os.getpid()), encoding="ascii")

    def check_outside(self, shown: str, path: str | os.PathLike[str]) -> None:
        """ClirkitError ``<shown> is inside the output folder ...`` when the input ``path`` lies in the output
        folder or its staging folder: replacing the folder would delete it."""
        resolved = Path(path).resolve()
        for top in (self.target.resolve(), self.folder.resolve()):
            if resolved == top or top in resolved.parents:
                raise ClirkitError(
                    f"{shown} is inside the output folder {self.target}, which is replaced as a whole: copy it "
                    "out, or write to another folder"
                )

    def _recover(self) -> None:
        """Put back the previous folder a switch by two renames left as ``.NAME.old`` (killed between them), or
        remove it if the switch was done."""
        if self.old.is_dir():
            if self.target.exists():
                shutil.rmtree(self.old, ignore_errors=True)
            else:
                os.rename(self.old, self.target)

    def fresh(self, path: Path, record: dict) -> bool:
        """True if ``path`` (in :attr:`folder`) was made from ``record``, by this run, an interrupted one, or the
        previous one in the output folder (then linked in)."""
        if _made_from(path, record):
            self.wrote(path, _meta(path))
            return True
        previous = self.target / path.relative_to(self.folder)
        if not _made_from(previous, record):
            return False
        self.wrote(path, _meta(path))
        path.parent.mkdir(parents=True, exist_ok=True)
        for source, copy in ((previous, path), (_meta(previous), _meta(path))):
            if copy.is_dir():
                shutil.rmtree(copy)
            copy.unlink(missing_ok=True)
            if source.is_dir():
                shutil.copytree(source, copy, copy_function=_link)
            else:
                _link(source, copy)
        return True

    def remember(self, path: Path, record: dict) -> None:
        """Write the record of what made ``path``."""
        from clirkit.fileio import atomic_writer

        with atomic_writer(_meta(path)) as out:
            out.write(json.dumps(record, indent=1, sort_keys=True) + "\n")
        self.made += 1
        self.wrote(path, _meta(path))

    def wrote(self, *paths: Path) -> None:
        """Note that this run wrote ``paths`` (in :attr:`folder`: a report, a figure) or reused them, so that
        :meth:`prune` keeps them."""
        self.used.update(path.relative_to(self.folder).as_posix() for path in paths)

    def prune(self) -> None:
        """Remove from the staging folder what this run neither reused nor made nor wrote (:attr:`used`): what an
        interrupted run made that this one does not (a run ``keep_runs`` no longer keeps, a system no longer in
        the file, a figure of one), so that the folder holds what a fresh run of the same file writes. A folder
        it empties is removed."""
        for top in sorted(os.listdir(self.folder)):
            path = self.folder / top
            if top in self.used or top == OWNER:
                continue
            if path.is_dir() and not path.is_symlink():
                for name in sorted(os.listdir(path)):
                    if f"{top}/{name}" not in self.used:
                        _remove(path / name)
                if not any(path.iterdir()):
                    path.rmdir()
            else:
                path.unlink()

    def commit(self, *, prune: bool = False) -> Path:
        """Switch the staging folder in as the output folder (one atomic exchange), remove the previous one;
        returns the output folder. ``prune``: first remove what this run did not use (:meth:`prune`)."""
        (self.folder / OWNER).unlink(missing_ok=True)
        if prune:
            self.prune()
        shutil.rmtree(self.old, ignore_errors=True)  # (the start removed any: what a failed removal left)
        with signals_held():
            if not self.target.exists():
                os.rename(self.folder, self.target)
                return self.target
            if _exchange(self.folder, self.target):  # the previous output, now under the staging name: moved out
                os.rename(self.folder, self.old)  # of its way, so a Ctrl-C while it is removed leaves no .partial
            else:
                os.rename(self.target, self.old)
                os.rename(self.folder, self.target)
        shutil.rmtree(self.old, ignore_errors=True)
        return self.target

    def abandon(self, *, checks_failed: bool = False) -> None:
        """After a failed or interrupted run: keep what it made for the next one, or remove the staging folder
        if it made nothing. ``checks_failed``: the run stopped on an error before its work recorded an artifact
        (at a check: a key, a file, a split the experiment needs; or in a system's fit or search before any), which
        the user corrects before running again: a staging folder this run created is then removed with what the
        checks made in it (the ``[collection]`` files read into ``collection/``), so no ``.NAME.partial`` of the
        failed run is left; one found at the start, an interrupted run's, is kept, with what that run made, for
        the next run to resume from."""
        if checks_failed and self.created:
            shutil.rmtree(self.folder, ignore_errors=True)
            return
        with contextlib.suppress(OSError):
            if [p.name for p in self.folder.iterdir()] == [OWNER]:
                (self.folder / OWNER).unlink()
                self.folder.rmdir()


def _remove(path: Path) -> None:
    """Remove the file or folder ``path``."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


def _meta(path: Path) -> Path:
    return path.with_name(path.name + ".json")


def _made_from(path: Path, record: dict) -> bool:
    meta = _meta(path)
    if not (path.exists() and meta.exists()):
        return False
    try:
        return json.loads(meta.read_text(encoding="utf-8")) == json.loads(json.dumps(record))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return False


def _link(source, target) -> None:
    """A hard link (a copy where the file system has none)."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one atomic rename (Linux ``renameat2``); False where that is not available."""
    import ctypes

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    at_cwd, exchange = -100, 2
    return renameat2(at_cwd, os.fsencode(a), at_cwd, os.fsencode(b), exchange) == 0
