"""A test collection variant on disk: a folder of standard files described by ``manifest.json``.

The layout is the one :mod:`clirkit.datasets._store` writes. :class:`Collection`
reads the files lazily and keeps what it read in memory.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from functools import cached_property
from pathlib import Path

from clirkit.errors import ClirkitError, cut_repr, located
from clirkit.fileio import atomic_writer, file_digest, iter_lines, undecodable
from clirkit.run import Qrels

MANIFEST = "manifest.json"
FORMAT = "clirkit-collection"
REMAKE = "restore the folder's manifest.json, or make the folder again with `clirkit collection`"
"""What to do about a collection folder whose manifest cannot be read."""
VERSION = 1


def cache_dir() -> Path:
    """Where built or derived collection files are kept: ``$CLIRKIT_CACHE`` or ``~/.cache/clirkit``."""
    env = os.environ.get("CLIRKIT_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "clirkit"


def _derive_subset(source: Path, books: list[str], target: Path) -> None:
    """Write the lines of ``source`` whose id (first field, an OSIS id) is in one of ``books``."""
    keep = set(books)
    lines = [line for _, line in iter_lines(source) if line.split(".", 1)[0] in keep]
    target.parent.mkdir(parents=True, exist_ok=True)
    with atomic_writer(target) as out:
        out.write("".join(line + "\n" for line in lines))


def _check_manifest(path: Path, manifest: dict) -> None:
    """Raise ClirkitError ``PATH: manifest KEY must be ...`` for a manifest that does not hold what
    :class:`Collection` reads: the names and languages (strings), the splits (distinct strings), the
    counts (an object), the files (``documents`` and ``parallel``, and ``queries`` and ``qrels`` (and
    ``excluded``, if present) for every split, each a file name or ``{"subset_of": NAME, "books": [...]}``)."""

    def bad(key: str, expected: str) -> ClirkitError:
        value = manifest
        for k in key.split("."):
            value = value.get(k, None) if isinstance(value, dict) else None
        shown = json.dumps(value, ensure_ascii=True)
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        return ClirkitError(f"{path}: manifest {key} must be {expected}, got {shown}")

    def is_name(value: object) -> bool:  # also a folder name in the cache (derived files): no "/", no ".."
        return isinstance(value, str) and re.fullmatch(r"[\w.+-]+", value) is not None and value not in (".", "..")

    for key in ("name", "variant", "source_lang", "target_lang"):
        if not is_name(manifest.get(key)):
            raise bad(key, "a name (letters, digits, '.', '_', '+' or '-')")
    if not isinstance(manifest.get("description", ""), str):
        raise bad("description", "a string")
    splits = manifest.get("splits")
    if not (isinstance(splits, list) and splits and all(map(is_name, splits)) and len(set(splits)) == len(splits)):
        raise bad("splits", "a list of distinct split names (letters, digits, '.', '_', '+' or '-')")
    if not isinstance(manifest.get("counts"), dict):
        raise bad("counts", "an object")
    files = manifest.get("files")
    if not isinstance(files, dict):
        raise bad("files", "an object")

    def entry(key: str, value: object) -> None:
        if isinstance(value, str) and value and "\0" not in value:
            return
        if (
            isinstance(value, dict)
            and set(value) == {"subset_of", "books"}
            and isinstance(value["subset_of"], str)
            and value["subset_of"]
            and "\0" not in value["subset_of"]
            and isinstance(value["books"], list)
            and all(isinstance(b, str) for b in value["books"])
        ):
            return
        raise bad(key, 'a file name or {"subset_of": NAME, "books": [...]}')

    for kind in ("documents", "parallel"):
        entry(f"files.{kind}", files.get(kind))
    for kind in ("queries", "qrels", "excluded"):
        if kind == "excluded" and kind not in files:
            continue
        by_split = files.get(kind)
        if not (isinstance(by_split, dict) and all(s in by_split for s in splits)):
            raise bad(f"files.{kind}", f"an object naming a file for each split ({', '.join(splits)})")
        for s in splits:
            entry(f"files.{kind}.{s}", by_split[s])


class Collection:
    """One variant of a CLIR test collection.

    Attributes:
        name, variant: e.g. ``"nave-en-es"``, ``"standard"``.
        source_lang, target_lang: language codes of the queries and of the documents.
        splits: query splits, e.g. ``["train", "dev", "test"]``.
        counts: the counts recorded in the manifest when the files were built.
        description: one line on what the queries, documents and grades are.
    """

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        path = self.folder / MANIFEST
        if not path.is_file():
            raise ClirkitError(
                f"{path}: no such file; {self.folder} is not a clirkit collection folder: check the "
                f"path (a collection folder is made by `clirkit collection`)"
            )
        try:
            data = path.read_bytes()
            manifest = json.loads(data.decode("utf-8-sig"))
        except UnicodeDecodeError as exc:  # UTF-16, binary, Latin-1: said as the text readers say it
            line = data.count(b"\n", 0, exc.start) + 1
            start = data.rfind(b"\n", 0, exc.start) + 1
            raise located(
                path,
                line,
                f"not a valid manifest: {undecodable(data[start:], exc.start - start, line == 1)}; or {REMAKE}",
            ) from None
        except (ValueError, RecursionError, OSError) as exc:  # bad JSON, too deep, huge numbers
            raise ClirkitError(f"{path}: not a valid manifest ({' '.join(str(exc).split())[:200]}); {REMAKE}") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise ClirkitError(
                f"{path}: not a clirkit collection manifest (a JSON object whose format is "
                f"{FORMAT!r}): check the path, or {REMAKE}"
            )
        if not (manifest.get("version") == VERSION and type(manifest.get("version")) is int):
            raise ClirkitError(
                f"{path}: collection format version {cut_repr(manifest.get('version'))}, "
                f"this clirkit reads version {VERSION}; rebuild the collection"
            )
        _check_manifest(path, manifest)
        self._manifest = manifest
        self.name: str = manifest["name"]
        self.variant: str = manifest["variant"]
        self.source_lang: str = manifest["source_lang"]
        self.target_lang: str = manifest["target_lang"]
        self.splits: list[str] = list(manifest["splits"])
        self.counts: dict = manifest["counts"]
        self.description: str = manifest.get("description", "")
        self._queries: dict[str, dict[str, str]] = {}
        self._qrels: dict[str, Qrels] = {}
        self._excluded: dict[str, Qrels] = {}

    def __repr__(self) -> str:
        return f"Collection({self.name!r}, variant={self.variant!r}, folder={str(self.folder)!r})"

    # ------------------------------------------------------------------ files

    def _resolve(self, entry: object) -> Path:
        if isinstance(entry, str):
            return self.folder / entry
        if isinstance(entry, dict) and "subset_of" in entry:
            source = (self.folder / entry["subset_of"]).resolve()
            if not source.is_file():
                raise ClirkitError(
                    f"{source}: no such file, needed by {self.folder / MANIFEST}: the collection "
                    f"folder is incomplete; put the file back, or make the folder again"
                )
            # kept uncompressed: a local, quickly rebuilt copy
            target = (
                cache_dir()
                / "derived"
                / self.name
                / self.variant
                / file_digest(source)
                / Path(entry["subset_of"]).name.removesuffix(".gz")
            )
            if not target.is_file():
                _derive_subset(source, list(entry["books"]), target)
            return target
        raise ClirkitError(f"{self.folder / MANIFEST}: unreadable file entry {entry!r}")

    def file_states(self, *, contents: bool = False) -> dict[str, list]:
        """``{file: [size, mtime_ns]}`` of each file the manifest names (for a subset, the file it is taken from;
        a missing file is left out, reading it says so): what tells a folder edited since from the folder as it
        was, without reading the files. With ``contents``, ``[size, digest]`` (:func:`clirkit.fileio.file_digest`,
        the files read): the same for two folders written alike at different times."""
        from clirkit.fileio import file_digest

        states: dict[str, list] = {}

        def add(entry: object) -> None:
            if isinstance(entry, dict) and "subset_of" in entry:
                entry = entry["subset_of"]
            if isinstance(entry, str):
                with contextlib.suppress(OSError):
                    stat = os.stat(self.folder / entry)
                    when = file_digest(self.folder / entry) if contents else stat.st_mtime_ns
                    states[entry] = [stat.st_size, when]
            elif isinstance(entry, dict):
                for value in entry.values():
                    add(value)

        add(self._manifest["files"])
        return states

    def _named(self, path: object) -> Path:
        """``path``, a file the manifest names, if it is there; else what to do about the incomplete folder."""
        path = Path(str(path))
        if not path.is_file():
            raise ClirkitError(
                f"{path}: {'a folder' if path.is_dir() else 'no such file'}, named by "
                f"{self.folder / MANIFEST}: the collection folder is incomplete; put the file back, "
                f"or make the folder again with `clirkit collection`"
            )
        return path

    def _split_file(self, kind: str, split: str) -> Path:
        if split not in self.splits:
            raise ClirkitError(f"{self.name}: unknown split {split!r} (choose {', '.join(self.splits)})")
        return self._resolve(self._manifest["files"][kind][split])

    @cached_property
    def paths(self) -> dict[str, object]:
        """The underlying files: ``documents``, ``parallel`` (paths) and ``queries``, ``qrels``
        (and ``excluded`` if any) as ``{split: path}``."""
        files = self._manifest["files"]
        out: dict[str, object] = {
            "documents": self._resolve(files["documents"]),
            "parallel": self._resolve(files["parallel"]),
        }
        for kind in ("queries", "qrels", "excluded"):
            if kind in files:
                out[kind] = {s: self._split_file(kind, s) for s in self.splits}
        return out

    # ------------------------------------------------------------------ contents

    def queries(self, split: str = "test") -> dict[str, str]:
        """``{qid: text}`` of one split, in file order."""
        if split not in self._queries:
            from clirkit.formats import read_queries

            path = self._named(self._split_file("queries", split))
            self._queries[split] = read_queries(path, fmt="tsv")
            counts = self.counts.get(split)
            recorded = counts.get("queries") if isinstance(counts, dict) else None
            self._check_count(path, len(self._queries[split]), "queries", recorded)
        return self._queries[split]

    def qrels(self, split: str = "test") -> Qrels:
        """Graded judgments of one split's queries."""
        if split not in self._qrels:
            from clirkit.formats import read_qrels

            self._qrels[split] = read_qrels(self._named(self._split_file("qrels", split)))
        return self._qrels[split]

    def excluded(self, split: str = "test") -> dict[str, set[str]]:
        """``{qid: docids}`` to remove from a run before evaluating it (empty unless the variant has some,
        e.g. the translation mates in ``bible-verse-es-en`` variant ``topical``)."""
        if "excluded" not in self._manifest["files"]:
            if split not in self.splits:
                raise ClirkitError(f"{self.name}: unknown split {split!r} (choose {', '.join(self.splits)})")
            return {}
        if split not in self._excluded:
            from clirkit.formats import read_qrels

            self._excluded[split] = read_qrels(self._named(self._split_file("excluded", split)))
        pairs = self._excluded[split]
        out: dict[str, set[str]] = {}
        for q, d in zip(pairs.qids.tolist(), pairs.docids.tolist()):
            out.setdefault(q, set()).add(d)
        return out

    @cached_property
    def _documents(self) -> tuple[list[str], list[str]]:
        from clirkit.formats import read_documents

        path = self._named(self.paths["documents"])
        docids, texts = read_documents(path, fmt="tsv")
        self._check_count(path, len(docids), "documents", self.counts.get("documents"))
        return docids, texts

    def _check_count(self, path: Path, found: int, what: str, recorded: object) -> None:
        """ClirkitError when a file holds another number of ``what`` than the manifest's count ``recorded`` (the
        folder was edited after it was built; None: the manifest has no count)."""
        if type(recorded) is int and recorded != found:
            raise ClirkitError(
                f"{path}: {found} {what}, the manifest {self.folder / MANIFEST} says {recorded}: the folder was "
                f"edited after it was built; make it again with `clirkit collection`"
            )

    def documents(self) -> tuple[list[str], list[str]]:
        """``(docids, texts)`` of the searched documents, in file order."""
        docids, texts = self._documents
        return list(docids), list(texts)

    @cached_property
    def _parallel(self) -> tuple[list[str], list[str], list[str]]:
        from clirkit.datasets.parallel import read_parallel

        if not self.has_parallel():
            raise ClirkitError(
                f"{self.folder}: the collection has no parallel text (it was made without one): make a "
                f"translation table from other parallel text, or read a dictionary"
            )

        return read_parallel(self._named(self.paths["parallel"]))

    def parallel(self) -> tuple[list[str], list[str]]:
        """``(source_texts, target_texts)``: aligned pairs for translation tables, source = query language."""
        _, sources, targets = self._parallel
        return list(sources), list(targets)

    def has_parallel(self) -> bool:
        """Whether the collection holds parallel text (its manifest counts its pairs: a folder made by
        ``clirkit collection`` without ``--parallel`` has none)."""
        return self.counts.get("parallel_pairs") != 0

    def parallel_ids(self) -> list[str]:
        """The id of each parallel pair (same order as :meth:`parallel`)."""
        return list(self._parallel[0])
