"""Writing a collection variant as a folder of standard files plus ``manifest.json``.

Layout of one variant folder (text files gzip-compressed with mtime 0, so the
same content gives the same bytes; builds kept in the local cache are written
without compression and without the ``.gz``)::

    manifest.json            name, variant, languages, splits, file names, counts
    documents.tsv.gz         docid TAB text
    parallel.tsv.gz          id TAB source TAB target   (source = query language)
    queries.<split>.tsv.gz   qid TAB text
    qrels.<split>.txt.gz     TREC: qid 0 docid grade
    excluded.<split>.txt.gz  (optional) qid 0 docid 0: pairs to remove from runs before evaluation

For ``documents`` or ``parallel`` the manifest may name another variant's
file (``"../standard/documents.tsv.gz"``) or give
``{"subset_of": "../standard/documents.tsv.gz", "books": [...]}``: the lines
of another variant's file whose OSIS id lies in one of ``books`` (the reader
derives that file once, under the cache folder), so the bundled collection
does not store the same verses twice.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from clirkit.datasets.collection import FORMAT, MANIFEST, VERSION
from clirkit.errors import counted
from clirkit.fileio import atomic_writer
from clirkit.run import Qrels


@dataclass
class VariantData:
    """Everything one collection variant holds, in memory, before writing."""

    name: str
    variant: str
    source_lang: str
    target_lang: str
    description: str
    docids: list[str]
    doc_texts: list[str]
    pair_ids: list[str]
    pair_sources: list[str]
    pair_targets: list[str]
    queries: dict[str, dict[str, str]]  # split -> {qid: text}
    qrels: dict[str, Qrels]  # split -> judgments
    excluded: dict[str, Qrels] | None = None  # split -> pairs removed from runs
    extra_counts: dict[str, object] = field(default_factory=dict)
    # "documents"/"parallel" -> a path relative to the folder (another variant's identical file), or
    # {"subset_of": relative path, "books": [...]} (the lines of that file whose id's book is listed):
    # not written; the manifest records the reference instead
    subsets: dict[str, object] = field(default_factory=dict)

    def counts(self) -> dict[str, object]:
        """Documents, parallel pairs, and per split: queries and judgments per grade."""
        out: dict[str, object] = {"documents": len(self.docids), "parallel_pairs": len(self.pair_ids)}
        for split in self.queries:
            q = self.qrels[split]
            grades, n = np.unique(q.rels, return_counts=True)
            out[split] = {
                "queries": len(self.queries[split]),
                "qrels": {str(g): int(c) for g, c in zip(grades.tolist(), n.tolist())},
            }
            if self.excluded is not None:
                out[split]["excluded"] = len(self.excluded[split])
        out.update(self.extra_counts)
        return out


def write_variant(data: VariantData, folder: str | Path, *, compress: bool = True) -> dict[str, object]:
    """Write ``data`` into ``folder`` (created if needed); returns the manifest written.

    ``compress=False`` writes the same files without ``.gz`` (faster; for the local cache).
    """
    from clirkit.datasets.parallel import write_parallel
    from clirkit.formats import write_documents, write_qrels, write_queries

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    splits = list(data.queries)
    gz = ".gz" if compress else ""
    files: dict[str, object] = {
        "documents": f"documents.tsv{gz}",
        "parallel": f"parallel.tsv{gz}",
        "queries": {s: f"queries.{s}.tsv{gz}" for s in splits},
        "qrels": {s: f"qrels.{s}.txt{gz}" for s in splits},
    }
    if "documents" in data.subsets:
        files["documents"] = data.subsets["documents"]
    else:
        write_documents(data.docids, data.doc_texts, folder / files["documents"])
    if "parallel" in data.subsets:
        files["parallel"] = data.subsets["parallel"]
    else:
        write_parallel(data.pair_ids, data.pair_sources, data.pair_targets, folder / files["parallel"])
    for s in splits:
        write_queries(data.queries[s], folder / files["queries"][s])
        write_qrels(data.qrels[s], folder / files["qrels"][s])
    if data.excluded is not None:
        files["excluded"] = {s: f"excluded.{s}.txt{gz}" for s in splits}
        for s in splits:
            write_qrels(data.excluded[s], folder / files["excluded"][s])
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "name": data.name,
        "variant": data.variant,
        "source_lang": data.source_lang,
        "target_lang": data.target_lang,
        "description": data.description,
        "splits": splits,
        "files": files,
        "counts": data.counts(),
    }
    with atomic_writer(folder / MANIFEST) as out:
        out.write(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    return manifest


def describe_counts(variant: str, counts: dict) -> str:
    """The counts of one variant as the text block the docs quote, e.g.::

    standard: documents 31,084; parallel pairs 31,077
      test 1,280 queries; grade 2: 16,024; grade 1: 32,089
    """
    lines = [f"{variant}: documents {counts['documents']:,}; parallel pairs {counts['parallel_pairs']:,}"]
    for split, c in counts.items():
        if not (isinstance(c, dict) and "queries" in c):
            continue
        grades = "; ".join(f"grade {g}: {n:,}" for g, n in sorted(c["qrels"].items(), reverse=True))
        extra = f"; excluded {c['excluded']:,}" if "excluded" in c else ""
        lines.append(f"  {split} {counted(c['queries'], 'query', 'queries')}; {grades}{extra}")
    return "\n".join(lines)
