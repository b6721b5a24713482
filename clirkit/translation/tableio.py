"""Reading and writing translation tables and bilingual dictionaries.

Formats (``format=`` names):

- ``moses``: text lines ``e f p`` giving p(e|f), Moses' ``lex.e2f`` layout (whitespace separated,
  exactly 3 fields, 0 <= p <= 1, each (f, e) pair once); ``.gz`` accepted.
- ``npz``: clirkit's compact form: the CSR arrays and both vocabularies, with a JSON header
  (kind ``translation-table``, format version, vocabulary sizes, the parameters that made it).
- ``pairs``: a dictionary, one ``source target`` pair per line (tab separated if the line has a
  tab, otherwise whitespace separated; exactly 2 fields).
- ``muse``: a MUSE dictionary as distributed in hunalign form, one ``TARGET @ SOURCE`` pair per
  line (the *reversed* order: in ``es-en.dict``, ``that @ que`` means Spanish "que" -> English "that").
- ``freedict``: a dictd dictionary, the ``.index`` file (``headword TAB offset TAB length``, numbers
  in dictd's base64) beside its ``.dict.dz`` (or ``.dict``); each entry's lines after the headword line
  are senses (``1. a, b``) whose comma- or semicolon-separated items are the translations;
  ``(...)``, ``[...]`` and ``<...>`` labels and quoted example lines are removed.

A dictionary becomes a table with uniform p(e|f) = 1/n(f) over the n(f) distinct translations of f.
Dictionaries are word tables: an entry whose source or target has several words is dropped (their
number is kept in ``params["n_multiword_dropped"]``), and both sides are lowercased unless
``lowercase=False`` (clirkit's analyzers lowercase by default).
"""
from __future__ import annotations

import gzip
import math
import os
import re
from pathlib import Path
from typing import Iterable

import numpy as np
import scipy.sparse as sp

from clirkit.errors import ClirkitError, located
from clirkit.fileio import atomic_writer, display_name, iter_lines
from clirkit.translation.table import TranslationTable

KIND = "translation-table"
FORMAT_VERSION = 1
FORMATS = ("auto", "moses", "npz", "pairs", "muse", "freedict")
_ZIP_MAGIC = b"PK\x03\x04"


# ----------------------------------------------------------------------------------------------
# format detection

def detect_format(path: str | os.PathLike[str]) -> str:
    """Guess a table file's format: ``npz`` (zip bytes), ``freedict`` (``.index``), ``muse``
    (``.dict``), otherwise ``moses``. Plain pair dictionaries must be named with ``pairs``."""
    p = str(path)
    if p != "-" and os.path.isfile(p):
        with open(p, "rb") as fh:
            if fh.read(4) == _ZIP_MAGIC:
                return "npz"
    if p.endswith(".npz"):
        return "npz"
    if p.endswith(".index"):
        return "freedict"
    if p.endswith(".dict") or p.endswith(".dict.gz"):
        return "muse"
    return "moses"


def load_table(path: str | os.PathLike[str], format: str = "auto", *,
               lowercase: bool = True) -> TranslationTable:
    """Load a table or dictionary in any of the :data:`FORMATS` (``lowercase`` applies to
    dictionaries only)."""
    if format not in FORMATS:
        raise ClirkitError(f"unknown table format {format!r} (choose from {', '.join(FORMATS)})")
    if format == "auto":
        format = detect_format(path)
    if format == "npz":
        return load_npz_table(path)
    if format == "moses":
        return load_moses(path)
    if format == "pairs":
        return load_pairs(path, lowercase=lowercase)
    if format == "muse":
        return load_muse(path, lowercase=lowercase)
    return load_freedict(path, lowercase=lowercase)


def save_table(table: TranslationTable, path: str | os.PathLike[str], format: str = "auto") -> None:
    """Write ``table`` as ``npz`` (``format="npz"`` or a name ending in ``.npz``) or ``moses``."""
    if format == "auto":
        format = "npz" if str(path).endswith(".npz") else "moses"
    if format == "npz":
        save_npz_table(table, path)
    elif format == "moses":
        save_moses(table, path)
    else:
        raise ClirkitError(f"cannot write tables in format {format!r} (choose npz or moses)")


# ----------------------------------------------------------------------------------------------
# npz

def save_npz_table(table: TranslationTable, path: str | os.PathLike[str]) -> None:
    """Write the compact form (CSR arrays + vocabularies + JSON header), atomically."""
    from clirkit.npzio import save_npz

    header = {"n_source": table.n_source, "n_target": table.n_target, "nnz": table.nnz,
              "params": table.params}
    p = table.probs
    save_npz(path, KIND, FORMAT_VERSION, header, {
        "source_vocab": table.source_vocab, "target_vocab": table.target_vocab,
        "indptr": p.indptr.astype(np.int64), "indices": p.indices.astype(np.int32 if table.n_target < 2**31
                                                                           else np.int64),
        "data": p.data.astype(np.float64)})


def load_npz_table(path: str | os.PathLike[str]) -> TranslationTable:
    """Read a table written by :func:`save_npz_table`, checking version, shapes and values."""
    from clirkit.npzio import load_npz

    header, a = load_npz(path, KIND, (FORMAT_VERSION,),
                         ("source_vocab", "target_vocab", "indptr", "indices", "data"))
    n_src, n_tgt = len(a["source_vocab"]), len(a["target_vocab"])
    indptr, indices, data = a["indptr"], a["indices"], a["data"]

    def bad(problem: str) -> ClirkitError:
        return ClirkitError(f"{path}: corrupt translation table: {problem}")

    if (header.get("n_source"), header.get("n_target")) != (n_src, n_tgt):
        raise bad(f"header says {header.get('n_source')} x {header.get('n_target')} words, "
                  f"the vocabularies hold {n_src} x {n_tgt}")
    if a["source_vocab"].dtype.kind != "U" or a["target_vocab"].dtype.kind != "U":
        raise bad("vocabularies are not string arrays")
    if indptr.ndim != 1 or len(indptr) != n_src + 1 or indptr[0] != 0 or np.any(np.diff(indptr) < 0):
        raise bad("row pointer array does not match the source vocabulary")
    if len(indices) != indptr[-1] or len(data) != indptr[-1] or header.get("nnz") != len(data):
        raise bad("entry arrays do not match the row pointers")
    if len(indices) and (indices.min() < 0 or indices.max() >= n_tgt):
        raise bad("a target id is outside the target vocabulary")
    if not np.all(np.isfinite(data)) or np.any(data < 0) or np.any(data > 1 + 1e-9):
        raise bad("a probability is not in [0, 1]")
    probs = sp.csr_matrix((data, indices, indptr), shape=(n_src, n_tgt))
    return TranslationTable(a["source_vocab"], a["target_vocab"], probs, header.get("params") or {})


# ----------------------------------------------------------------------------------------------
# Moses lex.e2f

def save_moses(table: TranslationTable, path: str | os.PathLike[str]) -> None:
    """Write ``e f p`` lines (source words in vocabulary order, then target words); p is
    printed with ``repr`` so that reading it back gives the same float64."""
    for vocab, side in ((table.source_vocab, "source"), (table.target_vocab, "target")):
        spaced = [w for w in vocab.tolist() if not w or any(c.isspace() for c in w)]
        if spaced:
            raise ClirkitError(f"{path}: cannot write {side} word {spaced[0]!r} in the Moses format "
                               f"(words must be non-empty and without spaces); save as .npz")
    p = table.probs
    rows = np.repeat(np.arange(table.n_source), np.diff(p.indptr))
    src = table.source_vocab.tolist()
    tgt = table.target_vocab.tolist()
    with atomic_writer(path) as out:
        for r, c, v in zip(rows.tolist(), p.indices.tolist(), p.data.tolist()):
            out.write(f"{tgt[c]} {src[r]} {v!r}\n")


def load_moses(path: str | os.PathLike[str]) -> TranslationTable:
    """Read Moses ``e f p`` lines (p = p(e|f)); bad lines raise ``ClirkitError`` with file:line."""
    name = display_name(path)
    sources, targets, probs, linenos = [], [], [], []
    for lineno, line in iter_lines(path):
        fields = line.split()
        if len(fields) != 3:
            raise located(name, lineno, f"expected 3 fields 'e f p', got {len(fields)}")
        try:
            p = float(fields[2])
        except ValueError:
            raise located(name, lineno, f"probability {fields[2]!r} is not a number") from None
        if not (math.isfinite(p) and 0.0 <= p <= 1.0):
            raise located(name, lineno, f"probability {fields[2]} is not in [0, 1]")
        targets.append(fields[0])
        sources.append(fields[1])
        probs.append(p)
        linenos.append(lineno)
    if not probs:
        raise ClirkitError(f"{name}: empty translation table")
    src_vocab, src_ids = np.unique(np.asarray(sources, dtype=str), return_inverse=True)
    tgt_vocab, tgt_ids = np.unique(np.asarray(targets, dtype=str), return_inverse=True)
    src_ids, tgt_ids = src_ids.ravel().astype(np.int64), tgt_ids.ravel().astype(np.int64)
    keys = src_ids * len(tgt_vocab) + tgt_ids
    order = np.argsort(keys, kind="stable")              # equal keys stay in line order
    sorted_keys = keys[order]
    starts = np.concatenate([[True], sorted_keys[1:] != sorted_keys[:-1]])
    if not starts.all():
        group_first = order[np.maximum.accumulate(np.where(starts, np.arange(len(order)), 0))]
        repeat_pos = np.flatnonzero(~starts)
        k = repeat_pos[np.argmin(order[repeat_pos])]      # the earliest line that repeats a pair
        i, j = int(order[k]), int(group_first[k])
        raise located(name, linenos[i], f"pair {targets[i]} {sources[i]} repeats line {linenos[j]}")
    matrix = sp.csr_matrix((np.asarray(probs, dtype=np.float64), (src_ids, tgt_ids)),
                           shape=(len(src_vocab), len(tgt_vocab)))
    return TranslationTable(src_vocab, tgt_vocab, matrix, {"model": "moses", "file": name})


# ----------------------------------------------------------------------------------------------
# dictionaries

def uniform_table(pairs: Iterable[tuple[str, str]], params: dict, *, lowercase: bool = True) -> TranslationTable:
    """p(e|f) = 1 / (number of distinct translations of f) over (f, e) pairs; multi-word
    entries are dropped and counted."""
    sources, targets = [], []
    multiword = 0
    for f, e in pairs:
        if lowercase:
            f, e = f.lower(), e.lower()
        if len(f.split()) != 1 or len(e.split()) != 1:
            multiword += 1
            continue
        sources.append(f)
        targets.append(e)
    params = {**params, "uniform": True, "lowercase": lowercase, "n_multiword_dropped": multiword}
    if not sources:
        return TranslationTable(np.array([], dtype=str), np.array([], dtype=str),
                                sp.csr_matrix((0, 0)), params)
    table = TranslationTable.from_triples(sources, targets, np.ones(len(sources)), params)
    table.probs.data[:] = 1.0          # duplicate pairs were summed; count each pair once
    table.params["n_pairs"] = table.nnz
    return table.normalized()


def load_pairs(path: str | os.PathLike[str], *, lowercase: bool = True) -> TranslationTable:
    """A dictionary of ``source target`` lines (tab- or whitespace-separated)."""
    name = display_name(path)

    def pairs():
        for lineno, line in iter_lines(path):
            fields = [x.strip() for x in line.split("\t")] if "\t" in line else line.split()
            if len(fields) != 2 or not all(fields):
                raise located(name, lineno, f"expected 2 fields 'source target', got {len(fields)}")
            yield fields[0], fields[1]

    return _nonempty(name, uniform_table(pairs(), {"model": "dictionary", "format": "pairs", "file": name},
                                         lowercase=lowercase))


def load_muse(path: str | os.PathLike[str], *, lowercase: bool = True) -> TranslationTable:
    """A MUSE dictionary in hunalign form: ``TARGET @ SOURCE`` per line."""
    name = display_name(path)

    def pairs():
        for lineno, line in iter_lines(path):
            fields = [x.strip() for x in line.split(" @ ")]
            if len(fields) != 2 or not all(fields):
                raise located(name, lineno, "expected 'target @ source' (MUSE hunalign form)")
            yield fields[1], fields[0]

    return _nonempty(name, uniform_table(pairs(), {"model": "dictionary", "format": "muse", "file": name},
                                         lowercase=lowercase))


_B64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}
_LABELS = re.compile(r"\([^)]*\)|\[[^\]]*\]|<[^>]*>")
_SENSE_NUMBER = re.compile(r"^\d+\.\s*")


def _dictd_number(text: str) -> int:
    value = 0
    for ch in text:
        value = value * 64 + _B64[ch]
    return value


def freedict_entries(index_path: str | os.PathLike[str]) -> Iterable[tuple[str, list[str]]]:
    """Yield ``(headword, translations)`` for each entry of a dictd dictionary (metadata
    entries ``00database...`` skipped). ``index_path`` names the ``.index`` file."""
    name = display_name(index_path)
    base = str(index_path)[: -len(".index")] if str(index_path).endswith(".index") else str(index_path)
    for candidate in (base + ".dict.dz", base + ".dict"):
        if os.path.isfile(candidate):
            dict_path = candidate
            break
    else:
        raise ClirkitError(f"{name}: no {Path(base).name}.dict.dz or .dict beside the index")
    try:
        with open(dict_path, "rb") as fh:
            raw = fh.read()
        body = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise ClirkitError(f"{dict_path}: cannot read the dictionary body: {exc}") from None
    for lineno, line in iter_lines(index_path):
        fields = line.split("\t")
        if len(fields) != 3:
            raise located(name, lineno, f"expected 3 tab-separated fields 'headword offset length', "
                                        f"got {len(fields)}")
        headword, offset, length = fields
        try:
            start, size = _dictd_number(offset), _dictd_number(length)
        except KeyError:
            raise located(name, lineno, "offset or length is not dictd base64") from None
        if start + size > len(body):
            raise located(name, lineno, f"entry runs past the end of {Path(dict_path).name}")
        if headword.startswith("00database") or headword.startswith("00-database"):
            continue
        try:
            entry = body[start:start + size].decode("utf-8")
        except UnicodeDecodeError:
            raise located(name, lineno, "entry is not valid UTF-8") from None
        yield headword, _entry_translations(entry)


def _entry_translations(entry: str) -> list[str]:
    out = []
    for sense in entry.split("\n")[1:]:
        sense = sense.strip()
        if sense.startswith('"'):
            continue                                      # quoted example phrase in the source language
        sense = _LABELS.sub(" ", _SENSE_NUMBER.sub("", sense))
        for item in re.split(r"[,;]", sense):
            item = " ".join(item.split())
            if item:
                out.append(item)
    return out


def load_freedict(index_path: str | os.PathLike[str], *, lowercase: bool = True) -> TranslationTable:
    """A FreeDict (dictd) dictionary: headword -> its translations, uniform p."""
    name = display_name(index_path)
    pairs = ((h, t) for h, translations in freedict_entries(index_path) for t in translations)
    return _nonempty(name, uniform_table(pairs, {"model": "dictionary", "format": "freedict", "file": name},
                                         lowercase=lowercase))


def _nonempty(name: str, table: TranslationTable) -> TranslationTable:
    if table.nnz == 0:
        raise ClirkitError(f"{name}: no single-word translation pairs in this dictionary")
    return table
