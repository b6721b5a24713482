"""PSQ over translated documents: the index projected at index time into the query language (the way of the
reference PSQ implementation, ``fast-psq``; Yang et al., SIGIR 2024), then searched as a monolingual one.

With a reverse table p(e|f), e a query-language word and f a document-language word (pruned by the rules of
query-side PSQ, :func:`clirkit.psq.prepare_table`), a document's expected count of e is

    tf~(e, d) = sum_f p(e|f) tf(f, d)

one sparse product for the whole collection (query-language terms x documents = P^T tf, P the table's rows
re-indexed to the index's terms). A document word the table does not know passes through as itself with
p = 1 (names, numbers), or is dropped (``unknown="drop"``), as a query word is on the query side. The result
is a :class:`ProjectedIndex`: an :class:`~clirkit.retrieval.index.Index` whose counts are fractional, whose terms are
query-language terms (its analyzer is the table's target-side analyzer, the one queries go through) and whose
document lengths are the projected ones (the sum of each document's expected counts), with the documents'
own lengths kept for the language model (:mod:`clirkit.retrieval.lm`). BM25 (:class:`~clirkit.retrieval.bm25.BM25`)
serves it as it serves any index: a query is one-to-one, a sparse row sum over precomputed posting weights.

A projected index is saved as its own npz kind (``projected-index``), memory-mappable like an index, with the
table's parameters (its pruning) in the header, so a search can check it was made as the system asks.

Sharded (:class:`ShardedProjectedIndex`, a manifest of kind ``sharded-projected-index`` beside projected-index
shards, written as :mod:`clirkit.retrieval.shards` writes a sharded index): a sharded document index is translated
shard by shard through the same pruned table (:func:`project_shards`), or a projected index split (``split``). A
document's expected counts do not depend on the other documents, so the shards are the split projected index's, file for
file; the manifest holds the collection's vocabulary, df, avgdl and collection frequencies (summed in document
order, as :func:`background` sums them unsharded), so BM25 and the language model rank as over one file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Mapping, Sequence, cast

import numpy as np
import scipy.sparse as sp

from clirkit.docphrases import PHRASE_COUNT, table_phrases, with_phrases
from clirkit.errors import ClirkitError, counted
from clirkit.fileio import display_name
from clirkit.npzchecks import (
    Corrupt,
    check_csr_rows,
    checking,
    require_analyzer,
    require_array,
    require_csr,
    require_field,
    stored_as,
)
from clirkit.npzio import load_npz, save_npz
from clirkit.retrieval.index import Index, _aligned
from clirkit.retrieval.shards import PROJECTED_KIND, ShardedIndex, _narrow
from clirkit.sortedunique import sorted_unique
from clirkit.termcounts import count_terms, read_counts  # noqa: F401  (read_counts: here too)
from clirkit.translation.phrases import phrase_rows
from clirkit.translation.table import NULL, TranslationTable

KIND = "projected-index"
FORMAT_VERSION = 1
UNKNOWN = ("pass", "drop")


@dataclass
class ProjectedIndex(Index):
    """An index of documents translated into the query language (module docstring).

    Attributes (beside :class:`~clirkit.retrieval.index.Index`'s, whose ``tf`` holds float64 expected counts and whose
    ``doc_lengths`` are their sums per document):
        source_lengths: float64 (n_docs,): tokens per document in its own language, before translation.
        translation: how it was made: ``table`` (the pruned table's parameters), ``unknown``,
            ``source_analyzer`` (the documents' analysis) and ``source_stats`` (the document index's counts).
    """

    source_lengths: np.ndarray | None = None
    translation: dict = field(default_factory=dict)
    translated = True  # documents translated into the queries' language (clirkit.tablefit.side_of)

    @property
    def own_lengths(self) -> np.ndarray:
        return self.doc_lengths if self.source_lengths is None else self.source_lengths

    def check_rows(self, terms: np.ndarray) -> None:
        """:meth:`Index.check_rows` for expected counts: values > 0, not >= 1."""
        if self._unchecked is None or len(terms) == 0:
            return
        terms = sorted_unique(np.asarray(terms, dtype=np.int64))
        todo = terms[self._unchecked[terms]]
        if len(todo):
            with checking(self._source or "index", KIND, remedy=True):
                check_csr_rows(self.tf, todo, ("tf_data", "tf_indices"), min=np.finfo(np.float64).tiny)
            self._unchecked[todo] = False

    def _write(self, path: str | os.PathLike[str]) -> None:
        header = {"analyzer": self.analyzer.to_dict(), "stats": self.stats(), "translation": self.translation}
        save_npz(
            path,
            KIND,
            FORMAT_VERSION,
            header,
            {
                "docids": self.docids,
                "terms": self.terms,
                "doc_lengths": self.doc_lengths,
                "source_lengths": self.own_lengths,
                "tf_data": self.tf.data,
                "tf_indices": self.tf.indices,
                "tf_indptr": self.tf.indptr,
            },
        )

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, mmap: bool = False) -> "ProjectedIndex":
        """Read a projected index written by :meth:`save`, checked as :meth:`Index.load` checks an index (the
        counts: positive numbers; each document length the sum of its counts, to 1e-9 relative)."""
        required = ("docids", "terms", "doc_lengths", "source_lengths", "tf_data", "tf_indices", "tf_indptr")
        header, a = load_npz(path, KIND, (FORMAT_VERSION,), required, mmap=mmap)
        with checking(path, KIND, remedy=True):
            analyzer = require_analyzer(header, "analyzer")
            translation = require_field(header, "translation", "object")
            docids = require_array(a, "docids", "str", sorted=True, unique=True)
            terms = require_array(a, "terms", "str", sorted=True, unique=True)
            _aligned(a, docids, terms)
            n = (len(docids),)
            doc_lengths = require_array(a, "doc_lengths", "number", shape=n, min=0, dtype=np.float64)
            source_lengths = require_array(a, "source_lengths", "number", shape=n, min=0, dtype=np.float64)
            _check_source_lengths(header, source_lengths)
            lazy = mmap and stored_as(a, "tf_data", np.float64) and stored_as(a, "tf_indices", np.int32)
            tf = require_csr(
                a,
                ("tf_data", "tf_indices", "tf_indptr"),
                (len(terms), len(docids)),
                "number",
                min=np.finfo(np.float64).tiny,
                dtype=np.float64,
                entries=not lazy,
            )
            made = dict(translation=translation, source_lengths=source_lengths)
            if lazy:
                return cls(
                    docids,
                    terms,
                    tf,
                    doc_lengths,
                    analyzer,
                    _unchecked=np.ones(len(terms), dtype=bool),
                    _source=str(path),
                    **made,
                )
            counted = np.bincount(tf.indices, weights=tf.data, minlength=len(docids))
            off = np.flatnonzero(~np.isclose(counted, doc_lengths, rtol=1e-9, atol=0))
            if len(off):
                j = int(off[0])
                raise Corrupt(
                    f"doc_lengths has {doc_lengths[j]:g} at {j} but document {str(docids[j])!r} "
                    f"counts {counted[j]:g} expected tokens"
                )
        return cls(docids, terms, tf, doc_lengths, analyzer, **made)


def _check_source_lengths(header: Mapping, lengths: np.ndarray) -> None:
    """Check a projected index's ``source_lengths`` (raises :class:`Corrupt`): whole numbers of tokens, summing to
    the ``n_tokens`` of the document index it was translated from (``translation.source_stats``); a shard holds
    some of its documents: at most that many tokens."""
    whole = np.floor(lengths) != lengths
    if whole.any():
        j = int(np.argmax(whole))
        raise Corrupt(
            f"source_lengths has {float(lengths[j])!r} at {j}: a document's own length is a whole number of tokens"
        )
    stats = ("translation", "source_stats")
    n_docs = require_field(header, (*stats, "n_docs"), "int", min=len(lengths), default=None)
    n_tokens = require_field(header, (*stats, "n_tokens"), "int", min=0, default=None)
    if n_tokens is None:  # an index translated before the source index's counts were recorded
        return
    total = int(lengths.sum())
    if total > n_tokens or (n_docs == len(lengths) and total != n_tokens):
        raise Corrupt(
            f"source_lengths sums to {total} but the header's translation.source_stats.n_tokens is {n_tokens}"
            + ("" if n_docs == len(lengths) else f" (of {n_docs} documents, {len(lengths)} in this shard)")
        )


@dataclass(eq=False)
class ShardedProjectedIndex(ShardedIndex):
    """A projected index in shards (module docstring): a :class:`~clirkit.retrieval.shards.ShardedIndex` whose shards
    are :class:`ProjectedIndex` es and whose ``cf`` are float64 expected counts, with the ``translation`` record
    of :class:`ProjectedIndex`. Searched by :class:`~clirkit.retrieval.shardsearch.ShardedBM25` or
    :class:`~clirkit.retrieval.shardsearch.ShardedQueryLikelihood` (the documents' own lengths are in the shards)."""

    translation: dict = field(default_factory=dict)

    translated = True  # documents translated into the queries' language (clirkit.tablefit.side_of)
    kind = PROJECTED_KIND
    shard_type = ProjectedIndex
    remedy = "translate the documents again with `clirkit psq --save-index`"

    @classmethod
    def split(
        cls, index: Index, shards: int | None = None, *, starts: Sequence[int] | None = None
    ) -> "ShardedProjectedIndex":
        """:meth:`ShardedIndex.split` of a projected index (``index``: a :class:`ProjectedIndex`)."""
        if index.sharded:
            raise ClirkitError("only a translated index in one file can be split into shards")
        split = super().split(index, shards, starts=starts)
        return cls._of(cast(list[ProjectedIndex], split.shards), cast(ProjectedIndex, index).translation)

    @classmethod
    def _cut(cls, index: Index, lo: int, hi: int, rows: np.ndarray, tf) -> ProjectedIndex:
        index = cast(ProjectedIndex, index)
        return ProjectedIndex(
            _narrow(index.docids[lo:hi]),
            _narrow(index.terms[rows]),
            tf,
            index.doc_lengths[lo:hi],
            index.analyzer,
            source_lengths=index.own_lengths[lo:hi],
            translation=index.translation,
        )

    @classmethod
    def _of(cls, parts: Sequence[ProjectedIndex], translation: dict) -> "ShardedProjectedIndex":
        """The sharded index of projected ``parts`` (in docid order) with the collection's ``translation``."""
        from clirkit.retrieval.shards import _Summary

        made = cls._merged(
            [_Summary.of(p) for p in parts], parts[0].analyzer, shards=list(parts), translation=translation
        )
        made.cf = ordered_cf(made.terms, parts)
        return cast(ShardedProjectedIndex, made)

    def _more_header(self) -> dict:
        return {"translation": self.translation}

    @classmethod
    def _more_fields(cls, header: Mapping) -> dict:
        """The ``translation`` record; the documents' own tokens, as its shards record them (each checked when its
        shard is opened), must sum to the ``n_tokens`` of the index translated (``translation.source_stats``)."""
        translation = require_field(header, "translation", "object")
        n_tokens = require_field(header, ("translation", "source_stats", "n_tokens"), "int", min=0, default=None)
        held = [record.get("source_tokens") for record in header["shards"]]
        if n_tokens is not None and None not in held and sum(held) != n_tokens:
            raise Corrupt(
                f"the shards record {sum(held)} tokens of the documents in their own language, the header's "
                f"translation.source_stats.n_tokens {n_tokens}"
            )
        return {"translation": translation}


def ordered_cf(terms: np.ndarray, parts: Sequence[Index]) -> np.ndarray:
    """Each of ``terms``' collection frequency over the documents of ``parts`` (indexes of increasing docid
    ranges, their terms among ``terms``), summed one document after the other as :func:`cf` sums one index, so
    the shards give the sums of the index in one file to the last bit."""
    total = np.zeros(len(terms), dtype=np.float64)
    for part in parts:
        part.check_rows(np.arange(part.n_terms))
        rows = np.searchsorted(terms, part.terms)
        # the sum so far as a first column: the row sums go on from it, in document order
        start = sp.csr_matrix(total[rows][:, None])
        total[rows] = sp.hstack([start, part.tf], format="csr") @ np.ones(part.n_docs + 1)
    return total


def cf(index: Index) -> np.ndarray:
    """Each term's collection frequency (float64), summed one document after the other (a shard goes on from
    the sums of the shards before it: :func:`ordered_cf`). A memory-mapped index's counts, every one read here,
    are checked first (:meth:`Index.check_rows`: ClirkitError naming the file)."""
    index.check_rows(np.arange(index.n_terms))
    return index.tf @ np.ones(index.n_docs)


def project(index: Index, table: TranslationTable, *, unknown: str = "pass", analyzer=None) -> ProjectedIndex:
    """``index`` translated through ``table`` p(e|f) (f: the index's terms, e: query-language terms; prune it
    first: :func:`clirkit.psq.prepare_table`) into a :class:`ProjectedIndex` of expected counts.

    ``unknown``: a term of the index the table does not know passes through as itself with p = 1 (``pass``),
    or is dropped (``drop``); a term the table knows but whose every option was pruned is dropped. The new
    index's terms are the query-language terms with a count in some document, sorted; ``analyzer`` (default:
    :func:`table_query_analyzer`) is the analysis of its terms, the one queries go through.
    """
    if unknown not in UNKNOWN:
        raise ValueError(f"unknown must be 'pass' or 'drop', got {unknown!r}")
    if index.sharded:
        raise ClirkitError("project translates an index in one file: translate a sharded index with project_shards")
    row_of = table.source_index
    rows = np.fromiter(
        (row_of.get(t, -1) if t != NULL else -1 for t in index.terms.tolist()), dtype=np.int64, count=index.n_terms
    )
    phrase_rows, members = table_phrases(table.source_vocab, index.terms)
    tf = with_phrases(index.tf, members) if members else index.tf  # the phrases' rows after the terms'
    rows = np.concatenate([rows, phrase_rows])
    known = rows >= 0
    passing = np.flatnonzero(~known) if unknown == "pass" else np.zeros(0, dtype=np.int64)
    out_terms = sorted_unique(np.concatenate((table.target_vocab, index.terms[passing])))
    options = table.probs[np.where(known, rows, 0)]
    options = sp.csr_matrix(sp.diags(known.astype(np.float64)) @ options)
    # both vocabularies are sorted, so the re-indexed columns stay sorted within each row
    options = sp.csr_matrix(
        (options.data, np.searchsorted(out_terms, table.target_vocab)[options.indices], options.indptr),
        shape=(len(rows), len(out_terms)),
    )
    passed = sp.csr_matrix(
        (np.ones(len(passing)), (passing, np.searchsorted(out_terms, index.terms[passing]))), shape=options.shape
    )
    options = (options + passed).tocsr()
    # every index term occurs in a document, so the terms with a count are the columns the options use: kept
    # before the product, which then needs no copy to drop empty rows (a phrase may be in none: below)
    used = sorted_unique(options.indices)
    options = sp.csr_matrix(
        (options.data, np.searchsorted(used, options.indices), options.indptr), shape=(len(rows), len(used))
    )
    # one product: scipy allocates its bound of the entries but writes (and so holds) only the entries made
    expected = (
        options.T.tocsr() @ sp.csr_matrix((tf.data.astype(np.float64), tf.indices, tf.indptr), shape=tf.shape)
    ).tocsr()
    expected.sort_indices()
    if members:  # the translations of a phrase in no document are in none
        held = np.flatnonzero(np.diff(expected.indptr))
        expected, used = expected[held], used[held]
    # each document's expected tokens: its counts times their rows' mass (no pass over the expected counts,
    # whose bincount would copy their indices to int64)
    lengths = tf.T @ np.asarray(options.sum(axis=1)).ravel()
    return ProjectedIndex(
        index.docids,
        out_terms[used],
        expected,
        lengths,
        analyzer if analyzer is not None else table_query_analyzer(table),
        source_lengths=np.asarray(index.doc_lengths, dtype=np.float64),
        translation=_translation(table, unknown, index),
    )


def project_shards(
    index: ShardedIndex, table: TranslationTable, *, unknown: str = "pass", analyzer=None, quiet: bool = True
) -> ShardedProjectedIndex:
    """The sharded document ``index`` translated shard by shard through ``table`` (as :func:`project`), into a
    :class:`ShardedProjectedIndex` of as many shards, held in memory (``save`` writes it): the shards of the
    index :func:`project` makes of the same documents in one file, and the same statistics."""
    from clirkit.progress import say

    made = analyzer if analyzer is not None else table_query_analyzer(table)
    translation, parts = _translation(table, unknown, index), []
    for i in range(index.n_shards):
        part = project(index.shard(i), table, unknown=unknown, analyzer=made)
        part.terms, part.translation = _narrow(part.terms), translation  # the collection's record, as split
        parts.append(part)
        say(f"translated shard {i + 1} of {index.n_shards}: {counted(part.n_docs, 'document')}", quiet=quiet)
    return ShardedProjectedIndex._of(parts, translation)


def _translation(table: TranslationTable, unknown: str, index: Index | ShardedIndex) -> dict:
    """The ``translation`` record of a projected index (:class:`ProjectedIndex`); when the table has phrases, how
    they were counted (:mod:`clirkit.docphrases`)."""
    made = {
        "table": table.params,
        "unknown": unknown,
        "source_analyzer": index.analyzer.to_dict(),
        "source_stats": index.stats(),
    }
    if len(phrase_rows(table.source_vocab)):
        made["phrases"] = PHRASE_COUNT
    return made


def through_two_tables(index) -> bool:
    """Whether ``index`` was translated before through two tables interpolated (``lam`` weighed them)."""
    return bool(index.translated and "interpolation" in index.translation.get("table", {}))


def reversed_view(table: TranslationTable) -> SimpleNamespace:
    """An object whose ``params`` are ``table``'s with the two sides swapped (source <-> target): what the
    query-side helpers of :mod:`clirkit.systems` read (``query_analyzer``, ``table_language``) see a reverse
    table's query-language side as its source side."""
    swap = {"source": "target", "target": "source"}
    params = {}
    for key, value in table.params.items():
        side, _, rest = key.partition("_")
        params[f"{swap[side]}_{rest}" if side in swap and rest in ("lang", "analyzer") else key] = value
    return SimpleNamespace(params=params)


def queries_view(index: ProjectedIndex) -> SimpleNamespace:
    """What :func:`clirkit.systems.query_analyzer` reads of a table, for the queries of ``index``: its analyzer
    as the source side."""
    return SimpleNamespace(params={"source_analyzer": index.analyzer.to_dict(), "source_lang": index.analyzer.lang})


def translated(
    index: Index | ShardedIndex,
    table: TranslationTable | None,
    *,
    lang: str | None = None,
    min_prob: float,
    cumulative: float | None,
    max_options: int | None,
    target_stopwords=None,
    unknown: str = "pass",
    quiet: bool = True,
    table2: TranslationTable | None = None,
    lam: float = 0.5,
) -> ProjectedIndex | ShardedProjectedIndex:
    """``index`` translated into the query language ``lang`` through the reverse ``table`` (interpolated with a
    second reverse table ``table2`` if given, weight ``lam`` on ``table``: e.g. a corpus's table and a
    dictionary read the other way), pruned as :func:`clirkit.psq.prepare_table` prunes (``target_stopwords``:
    query-language words, or ``"snowball"``; the query analyzer's stopwords are always dropped), then projected
    (:func:`project`; a sharded index shard by shard, :func:`project_shards`); or, with no table, ``index`` itself
    when it is a :class:`ProjectedIndex` or a :class:`ShardedProjectedIndex` made with these settings
    (:func:`check_projection`)."""
    from clirkit.psq import prepare_table
    from clirkit.secondtable import check_second_query_words
    from clirkit.tablefit import (
        SecondTableMismatch,
        TableMismatch,
        stopword_terms,
        words_for_index,
    )

    if index.translated:
        if table is not None or table2 is not None:
            raise ClirkitError(
                "the index is already translated into the queries' language: give no table, or the "
                "index of the documents in their own language"
            )
        analyzer = index.analyzer
    elif table is None:
        raise ClirkitError(
            "translate = documents needs the table from the documents' language into the queries' "
            "(or an index translated before)"
        )
    else:
        check_reverse(table, cast(Index, index), lang)
        table = words_for_index(table, index, "source", other_lang=lang, quiet=quiet)
        analyzer = table_query_analyzer(table, lang)
        if table2 is not None:
            try:
                check_reverse(table2, cast(Index, index), lang)
                table2 = words_for_index(table2, index, "source", queries=analyzer, quiet=quiet)
                second = table_query_analyzer(table2, lang)
            except TableMismatch as exc:
                raise SecondTableMismatch(str(exc)) from None
            check_second_query_words(second, analyzer)
    if lang is not None and lang != analyzer.lang:
        raise ClirkitError(
            f"the queries are in {lang!r} (source_lang) but the index is translated into {analyzer.lang!r}"
        )
    listed = stopword_terms(target_stopwords, analyzer)
    stopwords = set(analyzer.stopwords) | set(listed)
    if index.translated:
        made = cast("ProjectedIndex | ShardedProjectedIndex", index)
        check_projection(
            made,
            {
                "min_prob": min_prob,
                "cumulative": cumulative,
                "max_options": max_options,
                "n_target_stopwords": len(stopwords),
                "renormalized": True,
            },
            unknown,
            lam,
        )
        return made
    assert table is not None  # (an index translated before returned above)
    try:
        pruned = prepare_table(
            table,
            table2,
            lam=lam,
            min_prob=min_prob,
            cumulative=cumulative,
            max_options=max_options,
            target_stopwords=stopwords,
        )
    except ValueError as exc:
        raise ClirkitError(str(exc)) from None
    _say_phrases_counted(pruned, quiet)
    if index.sharded:
        return project_shards(cast(ShardedIndex, index), pruned, unknown=unknown, analyzer=analyzer, quiet=quiet)
    return project(cast(Index, index), pruned, unknown=unknown, analyzer=analyzer)


def _say_phrases_counted(table: TranslationTable, quiet: bool) -> None:
    """Say on stderr (unless ``quiet``) how many of the table's source words are phrases and how the documents,
    whose word order an index does not keep, hold them (:mod:`clirkit.docphrases`)."""
    from clirkit.progress import say
    from clirkit.translation.phrases import phrase_set

    phrases, _ = phrase_set(table.source_vocab)
    if phrases:
        say(
            f"{len(phrases):,} of the table's {table.n_source:,} source words are phrases of several terms: a "
            f"document holds one as often as its rarest term (an index keeps no word order)",
            quiet=quiet,
        )


def table_query_analyzer(table: TranslationTable, lang: str | None = None):
    """The analyzer of queries searching documents translated by ``table``: its target-side analyzer
    (:func:`clirkit.systems.query_analyzer` of the swapped sides)."""
    from clirkit.tablefit import query_analyzer

    return query_analyzer(reversed_view(table), lang=lang)


def check_reverse(table: TranslationTable, index: Index, query_lang: str | None = None) -> None:
    """ClirkitError unless ``table`` translates from the index's language and analysis into ``query_lang``
    (when known): a table in the query-side direction (from the queries' language into the documents') is
    named as such, with what to do."""
    from clirkit.tablefit import TableMismatch, check_index_side, side_by_words, table_language

    source, target, docs = table_language(table, "source"), table_language(table, "target"), index.analyzer.lang
    if source is not None and source != docs:
        turned = (
            " (the queries' direction: give the table trained the other way, from the documents' language)"
            if target == docs
            else ""
        )
        raise TableMismatch(
            f"translate = documents needs a table from the documents' language ({docs!r}) into the "
            f"queries'; this one translates {source!r} -> {target!r}{turned}"
        )
    if source is None and target is None and side_by_words(index, table) == "queries":
        raise TableMismatch(
            "the table's target words are the index's terms, not its source words: it translates "
            "into the documents' language (the queries' direction); give the table trained the "
            "other way, from the documents' language, or translate the queries with this one"
        )
    if query_lang is not None and target is not None and target != query_lang:
        raise TableMismatch(
            f"the queries are in {query_lang!r} (source_lang) but the table translates the documents into {target!r}"
        )
    check_index_side(table, "source", index, "document-language words")


def check_projection(
    index: ProjectedIndex | ShardedProjectedIndex, pruning: Mapping, unknown: str, lam: float | None = None
) -> None:
    """ClirkitError unless the projected ``index`` was made with ``pruning`` (the keys of the ``pruning`` record
    of :func:`clirkit.translation.prune`) and ``unknown``, and, when it was translated through two tables
    interpolated, with the weight ``lam`` on the first: a search must not silently use other settings than the
    ones it was given."""
    table = index.translation.get("table", {})
    made = dict(table.get("pruning") or {})
    made["unknown"] = index.translation.get("unknown")
    wanted = {**pruning, "unknown": unknown}
    interpolation = table.get("interpolation")
    if isinstance(interpolation, dict) and lam is not None:
        made["lambda"], wanted["lambda"] = interpolation.get("lambda"), float(lam)
    differ = [k for k in sorted(wanted) if made.get(k) != wanted[k]]
    if differ:
        shown = ", ".join(f"{k} {made.get(k)!r} (asked: {wanted[k]!r})" for k in differ)
        raise ClirkitError(
            f"the index was translated with other settings: {shown}: give the same ones, or translate "
            f"the document index again (with its table)"
        )


# background models of the language-model scoring ------------------------------------------------------


def background(spec: str, index: Index | ShardedIndex, *, texts: Sequence[str] | None = None) -> np.ndarray:
    """p_bg(t) for each term t of ``index`` (float64, > 0), the background of the language-model scoring.

    ``spec``: ``collection``: the index's own term frequencies, cf(t) / sum cf (of a projected index, the
    expected counts; of a sharded index, the collection's, from its manifest); ``parallel``: the query-language
    ``texts`` (the parallel corpus's query side), analyzed by the index's analyzer; otherwise a term-count file
    (:func:`read_counts`). From texts or a file, p_bg(t) = (1 + c(t)) / (1 + N), N every counted token, as the
    reference computes it (so a term the counts lack is not impossible)."""
    if spec == "collection":
        total_cf = cast(ShardedIndex, index).cf.astype(np.float64) if index.sharded else cf(cast(Index, index))
        return total_cf / total_cf.sum() if total_cf.sum() > 0 else np.ones(index.n_terms)
    if spec == "parallel":
        if texts is None:
            raise ClirkitError(
                "background = 'parallel' needs the parallel corpus (fit on resources that have one), "
                "or give a term-count file"
            )
        tokens = index.analyzer.tokenize_many(list(texts))
        counts, total = count_terms(tokens), sum(len(t) for t in tokens)
    else:
        if not os.path.isfile(spec):
            raise ClirkitError(f"background: {spec}: no such file (collection, parallel, or a COUNT TOKEN file)")
        counts, total = read_counts(spec, index.analyzer)
    c = np.fromiter((counts.get(t, 0) for t in index.terms.tolist()), dtype=np.float64, count=index.n_terms)
    if index.n_terms and not c.any():  # every term 1 / (1 + N): the same background everywhere, no weighting
        where = "the parallel corpus's query side" if spec == "parallel" else display_name(spec)
        raise ClirkitError(
            f"{where}: none of its {len(counts):,} words (analyzed as {index.analyzer.lang}) is a word of the index "
            f"searched: the background is counted in the queries' language (a file of another language?)"
        )
    return (1.0 + c) / (1.0 + total)
