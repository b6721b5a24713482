"""A collection as the plain files the command-line verbs read (``clirkit datasets export NAME -o DIR``).

>>> from clirkit.datasets.export import export
>>> export("nave-en-es", "d")          # doctest: +SKIP
['docs.tsv', 'queries.train.tsv', ..., 'parallel.en.txt', 'parallel.es.txt', 'README.txt']

The folder holds ``docs.tsv`` (``docid TAB text``), ``queries.SPLIT.tsv`` (``qid TAB text``), ``SPLIT.qrels``
(TREC ``qid 0 docid grade``), ``parallel.SOURCE.txt`` and ``parallel.TARGET.txt`` (one sentence per line,
line i of one the translation of line i of the other; named ``parallel.source.txt`` and
``parallel.target.txt`` when both languages have the same code), ``excluded.SPLIT.qrels`` for a variant
that removes pairs from the runs before evaluation, and ``README.txt`` saying what each file is. The files are
written in a temporary folder beside the output and moved in place only when all are written, so an error or
a Ctrl-C leaves nothing half-written.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

from clirkit.errors import ClirkitError

README = "README.txt"


def check_output(folder: str | os.PathLike[str], *, force: bool = False) -> Path:
    """``folder`` as a Path (not ``-``), after checking that it can take the files: it does not exist, or is an empty
    folder, or (``force``) any folder; its parent exists. ClirkitError saying what to do otherwise."""
    if str(folder) == "-":  # elsewhere standard output: not a folder's name here
        raise ClirkitError("- is standard output, and a collection is a folder of files: give the folder's path")
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ClirkitError(f"{folder}: is a file, not a folder; give a folder to write the files into")
    if folder.is_dir() and any(folder.iterdir()) and not force:
        raise ClirkitError(
            f"{folder}: the folder is not empty; give a new or empty folder, or --force "
            f"(force=True) to write into it, replacing the files of the same names"
        )
    parent = folder.absolute().parent
    if not parent.is_dir():
        raise ClirkitError(f"{folder}: the folder {parent} does not exist (create it, or write elsewhere)")
    return folder


def export(
    name: str,
    folder: str | os.PathLike[str],
    *,
    variant: str | None = None,
    force: bool = False,
    shared: str | os.PathLike[str] | None = None,
    quiet: bool = False,
) -> list[str]:
    """Write collection ``name`` (a known name, a collection folder, or ``irds:ID``; see
    :func:`clirkit.datasets.load`) as plain files into ``folder``; returns the names of the files written.

    ``folder`` must be new or empty unless ``force`` (then files of the same names are replaced, others are
    left alone). Raises ClirkitError for an unknown collection or variant, or a folder that cannot take the
    files.
    """
    from clirkit import datasets
    from clirkit.progress import say

    folder = check_output(folder, force=force)
    collection = datasets.load(name, variant=variant, shared=shared)
    try:
        staging = Path(
            tempfile.mkdtemp(prefix=f".{folder.absolute().name}.", suffix=".tmp", dir=folder.absolute().parent)
        )
    except OSError as exc:  # a read-only or special place (/sys, a folder without the write right)
        raise ClirkitError(
            f"{folder}: cannot write in {folder.absolute().parent} ({exc.strerror}); give a folder you can write in"
        ) from None
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(staging, 0o777 & ~mask)  # a folder as mkdir makes it (mkdtemp: 0700)
        files, n_docs = _write_all(collection, staging)
        _move_in(staging, folder, files)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    queries = ", ".join(f"{len(collection.queries(s)):,} {s}" for s in collection.splits)
    say(
        f"datasets export: {collection.name} {collection.variant}: {n_docs:,} documents, queries {queries}, "
        f"{len(files)} files -> {folder}",
        quiet=quiet,
    )
    if not any(f.startswith("parallel.") for f in files):
        say(f"datasets export: {collection.name} has no parallel text: no parallel.*.txt written", quiet=quiet)
    return files


def parallel_names(source_lang: str, target_lang: str) -> tuple[str, str]:
    """The file names of the parallel text's two sides."""
    if source_lang == target_lang:
        return "parallel.source.txt", "parallel.target.txt"
    return f"parallel.{source_lang}.txt", f"parallel.{target_lang}.txt"


def _write_all(collection, folder: Path) -> tuple[list[str], int]:
    """Every file into ``folder`` (the staging folder): their names in README order, and the number of
    documents."""
    from clirkit.datasets.collection import Collection
    from clirkit.formats import write_documents, write_qrels, write_queries
    from clirkit.run import Qrels

    src, tgt = collection.source_lang, collection.target_lang
    lines = [
        f"{collection.name} (variant {collection.variant}): {collection.description}",
        f"Queries in {src}, documents in {tgt}. Written by `clirkit datasets export`; the tour in clirkit's "
        f"README runs on such files (its commands are written for nave-en-es, English -> Spanish).",
        "",
    ]
    entries: list[tuple[str, str]] = []

    docids, texts = collection.documents()
    write_documents(docids, texts, folder / "docs.tsv")
    entries.append(("docs.tsv", f"{len(docids):,} documents ({tgt}), 'docid TAB text' lines"))
    for split in collection.splits:
        queries = collection.queries(split)
        write_queries(queries, folder / f"queries.{split}.tsv")
        entries.append((f"queries.{split}.tsv", f"{len(queries):,} {split} queries ({src}), 'qid TAB text' lines"))
    for split in collection.splits:
        qrels = collection.qrels(split)
        write_qrels(qrels, folder / f"{split}.qrels")
        grades = ", ".join(map(str, sorted(set(qrels.rels.tolist()), reverse=True)))
        entries.append(
            (
                f"{split}.qrels",
                f"judgments of the {split} queries, TREC 'qid 0 docid grade' lines "
                f"({len(qrels.rels):,}; grades {grades})",
            )
        )
    for split in collection.splits:
        excluded = collection.excluded(split)
        if excluded:
            pairs = [(q, d) for q, ds in excluded.items() for d in sorted(ds)]
            write_qrels(
                Qrels(
                    np.asarray([q for q, _ in pairs]),
                    np.asarray([d for _, d in pairs]),
                    np.zeros(len(pairs), dtype=np.int64),
                ),
                folder / f"excluded.{split}.qrels",
            )
            entries.append(
                (
                    f"excluded.{split}.qrels",
                    f"({split}) 'qid 0 docid 0': pairs to remove from the runs before evaluating them",
                )
            )
    if isinstance(collection, Collection) and collection.has_parallel():  # (ir_datasets': none)
        sources, targets = collection.parallel()
        source_name, target_name = parallel_names(src, tgt)
        _write_lines(sources, folder / source_name)
        _write_lines(targets, folder / target_name)
        what = "source side" if src == tgt else src
        entries.append(
            (
                source_name,
                f"{len(sources):,} sentences ({what}) of the parallel text, one per line, "
                f"line i translated by line i of {target_name} (for clirkit ttable train)",
            )
        )
        entries.append(
            (target_name, f"their translations ({'target side' if src == tgt else tgt}), aligned line by line")
        )
    else:
        lines.append(
            "No parallel text: this collection has none (make a table from other parallel text or a dictionary)."
        )
        lines.append("")
    width = max(len(n) for n, _ in entries) + 2
    lines += [f"{n.ljust(width)}{what}" for n, what in entries]
    from clirkit.fileio import atomic_writer

    with atomic_writer(folder / README) as out:
        out.write("\n".join(lines) + "\n")
    return [n for n, _ in entries] + [README], len(docids)


def _write_lines(texts: list[str], path: Path) -> None:
    """One text per line; ClirkitError for a text holding a line break (it would shift the alignment)."""
    from clirkit.fileio import atomic_writer

    for i, text in enumerate(texts, 1):
        if "\n" in text or "\r" in text:
            raise ClirkitError(
                f"cannot write sentence {i} of the parallel text to {path.name}: it contains a line break"
            )
    with atomic_writer(path) as out:
        out.write("".join(text + "\n" for text in texts))


def _move_in(staging: Path, folder: Path, files: list[str]) -> None:
    """The staged files into ``folder``: the whole staging folder renamed when ``folder`` does not exist or is
    empty, else file by file (each replace atomic)."""
    if not folder.exists() or (folder.is_dir() and not any(folder.iterdir())):
        os.replace(staging, folder)
        return
    for name in files:
        os.replace(staging / name, folder / name)
