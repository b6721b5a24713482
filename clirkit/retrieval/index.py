"""The sparse index: vocabulary, term x document counts, df and document lengths.

Documents are stored in docid order and terms in lexicographic order, so the
same documents give the same index (and the same file bytes) whatever order
they came in. Building streams the documents in chunks: token strings are
mapped to integer ids chunk by chunk, so memory holds ids, not strings.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from numbers import Integral
from typing import ClassVar, Iterable, Iterator, Sequence

import numpy as np
import scipy.sparse as sp

from clirkit.analysis import Analyzer
from clirkit.errors import ClirkitError, cut_repr, located, quoted, repeated_id
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
from clirkit.retrieval.tokenlists import check_token_lists, given_analyzer
from clirkit.run import ID_RULE, first_bad_id
from clirkit.sortedunique import sorted_unique

FORMAT_VERSION = 1
_CHUNK_DOCS = 20_000
TASK_DOCS = 2_000  # documents a tokenizing worker is sent at a time by build
_CHECK_POSTINGS = 1 << 23
_NGRAM = re.compile(r"[^\s]+(?: [^\s]+)*")  # a term: words without whitespace, joined by single spaces


@dataclass
class Index:
    """A document collection analyzed into counts.

    Attributes:
        docids: document ids, str array (n_docs,), sorted ascending.
        terms: vocabulary, str array (n_terms,), sorted ascending.
        tf: CSR matrix (n_terms x n_docs) of term counts (int32), sorted indices.
        doc_lengths: float64 (n_docs,): tokens per document after analysis.
        analyzer: the analyzer that made the terms (apply it to queries too).

    An index opened by ``load(path, mmap=True)`` checks each term's postings when a search first reads
    them (:meth:`check_rows`); any other index was checked whole.
    """

    docids: np.ndarray
    terms: np.ndarray
    tf: sp.csr_matrix
    doc_lengths: np.ndarray
    analyzer: Analyzer
    _vocabulary: dict | None = field(default=None, repr=False, compare=False)
    _unchecked: np.ndarray | None = field(default=None, repr=False, compare=False)  # bool per term, mmap opens
    _source: str | None = field(default=None, repr=False, compare=False)  # the file, for their errors
    sharded: ClassVar[bool] = False  # a ShardedIndex (clirkit.retrieval.shards) says True
    translated: ClassVar[bool] = False  # documents translated into the queries' language: a ProjectedIndex says True

    @property
    def n_docs(self) -> int:
        return len(self.docids)

    @property
    def n_terms(self) -> int:
        return len(self.terms)

    @property
    def df(self) -> np.ndarray:
        """Document frequency of each term (int64, n_terms)."""
        return np.diff(self.tf.indptr).astype(np.int64)

    @property
    def n_shards(self) -> int:
        """1: an index in one file (a :class:`~clirkit.retrieval.shards.ShardedIndex` has its own)."""
        return 1

    @property
    def own_lengths(self) -> np.ndarray:
        """Tokens per document in its own language (an index translated by document-side PSQ keeps them apart
        from its expected lengths, ``doc_lengths``): what the query likelihood divides by."""
        return self.doc_lengths

    @property
    def avgdl(self) -> float:
        """Mean document length in tokens."""
        return float(self.doc_lengths.mean()) if self.n_docs else 0.0

    @property
    def vocabulary(self) -> dict[str, int]:
        """Term -> row id."""
        if self._vocabulary is None:
            self._vocabulary = {t: i for i, t in enumerate(self.terms.tolist())}
        return self._vocabulary

    @property
    def lazy(self) -> bool:
        """Whether the postings are checked when first read (an index opened memory-mapped)."""
        return self._unchecked is not None

    def check_rows(self, terms: np.ndarray) -> None:
        """Check the postings of ``terms`` (term ids) before a search reads them, once per term: column
        numbers in range and increasing, counts >= 1. ClirkitError ``FILE: corrupt index: problem``. A no-op
        for an index checked whole."""
        if self._unchecked is None or len(terms) == 0:
            return
        terms = sorted_unique(np.asarray(terms, dtype=np.int64))
        todo = terms[self._unchecked[terms]]
        if len(todo):
            with checking(self._source or "index", "index", remedy=True):
                check_csr_rows(self.tf, todo, ("tf_data", "tf_indices"), min=1)
            self._unchecked[todo] = False

    def bm25(self, **params):
        """BM25 with ``params`` over this index (:class:`~clirkit.retrieval.bm25.BM25`; a sharded index has the same
        call: :func:`clirkit.retrieval.indexkinds.bm25`)."""
        from clirkit.retrieval.indexkinds import bm25

        return bm25(self, **params)

    def most_frequent_terms(self, n: int) -> list[str]:
        """The ``n`` most frequent terms (:func:`most_frequent_terms`; a sharded index has the same call)."""
        return most_frequent_terms(self, n)

    def stats(self) -> dict:
        """Counts describing the index (for headers and messages)."""
        return {
            "n_docs": self.n_docs,
            "n_terms": self.n_terms,
            "n_postings": int(self.tf.nnz),
            "n_tokens": int(self.doc_lengths.sum()),
            "avgdl": self.avgdl,
        }

    # building ---------------------------------------------------------------------------------

    @classmethod
    def build(
        cls,
        documents: Iterable[tuple[str, str]] | Iterable[tuple[int, str, str]],
        analyzer: Analyzer,
        *,
        quiet: bool = True,
        jobs: int = 1,
        source: str | None = None,
    ) -> "Index":
        """Index ``(docid, text)`` pairs, tokenized by ``analyzer`` in chunks (``jobs`` processes, tokenizing
        the next chunks while this one adds a chunk's tokens). A docid is a str or a whole number (made a str, as
        :func:`~clirkit.topicforms.as_topics` makes a qid: the documents are sorted by their ids as str); a
        text is a str. ClirkitError naming the document for anything else (a float id, a text None), and for a
        record that is no such pair.

        With ``source`` (the name of the file they were read from), ``documents`` are ``(lineno, docid,
        text)`` records and a repeated docid is the error ``SOURCE:LINE: document id X appears twice (first
        at line N): give each document its own id, ...``, LINE being the second occurrence; without it, the error
        gives the documents' positions.
        """
        chunks = document_chunks(documents, located=source is not None, size=TASK_DOCS if jobs != 1 else _CHUNK_DOCS)
        tokenized = (
            (lines, ids, tokens) for (lines, ids, _), tokens in analyzer.tokenize_stream(chunks, _texts, jobs=jobs)
        )
        return cls.from_tokenized(tokenized, analyzer, source=source, quiet=quiet)

    @classmethod
    def from_tokenized(
        cls,
        chunks: Iterable[tuple[Sequence[int] | None, Sequence[str], Sequence[Sequence[str]]]],
        analyzer: Analyzer,
        *,
        source: str | None = None,
        quiet: bool = True,
    ) -> "Index":
        """Index chunks of ``(line numbers or None, docids, token lists)`` made by ``analyzer`` (see
        :meth:`build`: ``source`` names the file the line numbers are of)."""
        from clirkit.progress import counter

        builder = _Builder(source)
        with counter("indexing", quiet=quiet, unit=" documents") as bar:
            lines: list[int] = []
            ids: list[str] = []
            tokens: list[Sequence[str]] = []
            for more_lines, more_ids, more_tokens in chunks:
                lines.extend(more_lines or ())
                ids.extend(more_ids)
                tokens.extend(more_tokens)
                if len(ids) >= _CHUNK_DOCS:  # the counts are kept in blocks of that many documents
                    builder.add(ids, tokens, lines=lines if source is not None else None)
                    bar.update(len(ids))
                    lines, ids, tokens = [], [], []
            if ids:
                builder.add(ids, tokens, lines=lines if source is not None else None)
                bar.update(len(ids))
        return builder.finish(analyzer)

    @classmethod
    def from_tokens(
        cls, docids: Sequence[str], token_lists: Iterable[Sequence[str]], analyzer: Analyzer | None = None
    ) -> "Index":
        """Index documents that are already lists of terms (``analyzer`` is recorded, not applied). A term is a
        non-empty str without whitespace, or words joined by single spaces (clirkit's spelling of an n-gram,
        :func:`clirkit.analysis.ngrams`); ClirkitError for a document given as a str, None or a dict (not a list of
        its terms), for ``token_lists`` that is no list, for any other term (empty, with a tab or a newline, not a
        str), and for an ``analyzer`` that is no :class:`~clirkit.analysis.Analyzer` (None: English's)."""
        analyzer = Analyzer("en") if analyzer is None else given_analyzer(analyzer, "Index.from_tokens")
        if isinstance(docids, str) or isinstance(token_lists, str):
            raise ClirkitError("Index.from_tokens takes a list of docids and a list of token lists, not a str")
        if not isinstance(docids, (Sequence, np.ndarray)):  # a generator, a Series: read once
            if not isinstance(docids, Iterable):
                raise ClirkitError(f"Index.from_tokens takes a list of docids, not a {type(docids).__name__}")
            docids = list(docids)
        if not isinstance(token_lists, Iterable):
            raise ClirkitError(
                f"Index.from_tokens takes a list of token lists (one per document), got {cut_repr(token_lists)}"
            )
        builder = _Builder()
        token_lists = list(token_lists) if not isinstance(token_lists, list) else token_lists
        if len(token_lists) != len(docids):
            raise ClirkitError(f"{len(docids)} docids but {len(token_lists)} token lists")
        check_token_lists(token_lists, "Index.from_tokens")
        for start in range(0, len(docids), _CHUNK_DOCS):
            builder.add(list(docids[start : start + _CHUNK_DOCS]), token_lists[start : start + _CHUNK_DOCS])
        _check_terms(list(builder.vocabulary))
        return builder.finish(analyzer)

    # files ------------------------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the index as one ``.npz`` with a JSON header (atomic). Written over a sharded index's manifest,
        it replaces that index whole: the shards are removed once the new file is in place."""
        from clirkit.retrieval.shardfiles import replacing_shards

        with replacing_shards(path):
            self._write(path)

    def _write(self, path: str | os.PathLike[str]) -> None:
        """Write the index's file at ``path`` (atomic), leaving anything beside it alone (a shard's write)."""
        header = {"analyzer": self.analyzer.to_dict(), "stats": self.stats()}
        save_npz(
            path,
            "index",
            FORMAT_VERSION,
            header,
            {
                "docids": self.docids,
                "terms": self.terms,
                "doc_lengths": self.doc_lengths,
                "tf_data": self.tf.data,
                "tf_indices": self.tf.indices,
                "tf_indptr": self.tf.indptr,
            },
        )

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, mmap: bool = False) -> "Index":
        """Read an index written by :meth:`save`, checking every value before use.

        With ``mmap`` the arrays are read-only memory maps of the file (:func:`clirkit.npzio.load_npz`) and
        the open reads only what grows with the documents and terms, not the postings: each term's postings
        are checked when a search first reads them (:meth:`check_rows`), and the document lengths are not
        recounted from the postings. What search does not touch stays on disk.

        The header's analyzer settings; docids and terms: strings, strictly increasing (sorted, no
        repeats); the counts: a canonical CSR matrix (terms x documents) of integers >= 1;
        doc_lengths: finite numbers, one per document, each the sum of the document's counts. A
        tampered or damaged file raises ClirkitError ``FILE: corrupt index: problem``.
        """
        required = ("docids", "terms", "doc_lengths", "tf_data", "tf_indices", "tf_indptr")
        header, a = load_npz(path, "index", (FORMAT_VERSION,), required, mmap=mmap)
        with checking(path, "index", remedy=True):
            analyzer = require_analyzer(header, "analyzer")
            require_field(header, "stats", "object", default=None)
            docids = require_array(a, "docids", "str", sorted=True, unique=True)
            terms = require_array(a, "terms", "str", sorted=True, unique=True)
            _aligned(a, docids, terms)
            doc_lengths = require_array(a, "doc_lengths", "number", shape=(len(docids),), min=0, dtype=np.float64)
            lazy = mmap and stored_as(a, "tf_data", np.int32) and stored_as(a, "tf_indices", np.int32)
            tf = require_csr(
                a,
                ("tf_data", "tf_indices", "tf_indptr"),
                (len(terms), len(docids)),
                "int",
                min=1,
                dtype=np.int32,
                entries=not lazy,
            )
            if lazy:
                return cls(
                    docids,
                    terms,
                    tf,
                    doc_lengths,
                    analyzer,
                    _unchecked=np.ones(len(terms), dtype=bool),
                    _source=str(path),
                )
            counted = np.zeros(len(docids))
            for lo in range(0, tf.nnz, _CHECK_POSTINGS):  # in slices: no float copy of every count
                hi = lo + _CHECK_POSTINGS
                counted += np.bincount(tf.indices[lo:hi], weights=tf.data[lo:hi], minlength=len(docids))
            off = np.flatnonzero(counted != doc_lengths)
            if len(off):  # a document's length is the sum of its counts
                j = int(off[0])
                raise Corrupt(
                    f"doc_lengths has {doc_lengths[j]:g} at {j} but document {str(docids[j])!r} "
                    f"counts {counted[j]:g} tokens"
                )
        return cls(docids, terms, tf, doc_lengths, analyzer)


def _aligned(arrays: dict, docids: np.ndarray, terms: np.ndarray) -> None:
    """Check that the index's arrays hold one entry per document (doc_lengths) and per term (tf_indptr, plus
    one), saying which array disagrees with which, before their own checks would name one of them only."""
    if not len(docids):
        raise Corrupt("docids is empty: an index holds at least one document")
    bad = first_bad_id(docids)
    if bad is not None:  # an index built before build checked them: a run could not name the document
        raise Corrupt(f"docids holds {quoted(str(docids[bad[0]]), 50)}, which {bad[1]}")
    for name, n, per in (
        ("doc_lengths", len(docids), "docids holds {n} document ids but doc_lengths {got} lengths (one per document)"),
        ("tf_indptr", len(terms) + 1, "terms holds {m} terms but tf_indptr {got} row starts (one per term, plus one)"),
    ):
        arr = arrays[name]
        if arr.ndim == 1 and len(arr) != n:
            raise Corrupt(per.format(n=len(docids), m=len(terms), got=len(arr)) + ": one of them was cut or edited")


def _check_terms(terms: list) -> None:
    """ClirkitError for the first of ``terms`` (an index's, in the order met) that is not a term: not a str, empty,
    or with whitespace other than single spaces between words (an n-gram's, :data:`_NGRAM`)."""
    for term in terms:
        if not isinstance(term, str):
            raise ClirkitError(f"Index.from_tokens: the term {term!r} ({type(term).__name__}) is not a str")
    bad = next((t for t in terms if not _NGRAM.fullmatch(t)), None)
    if bad is not None:
        problem = "an empty term" if not bad else f"the term {quoted(bad, 50)}, which has {_spacing(bad)}"
        raise ClirkitError(
            f"Index.from_tokens: {problem}; a term is a non-empty str without whitespace, or words joined by "
            f"single spaces (an n-gram)"
        )


def _spacing(term: str) -> str:
    """What is wrong with the whitespace of ``term`` (not an n-gram of :data:`_NGRAM`)."""
    if term != term.strip(" "):
        return "a space at an end"
    if "  " in term:
        return "two spaces in a row"
    return "whitespace other than a space"


def _texts(chunk: tuple) -> list[str]:
    """The texts of a chunk of :func:`document_chunks`."""
    return chunk[2]


def document_chunks(
    documents, *, located: bool = False, size: int = _CHUNK_DOCS
) -> Iterator[tuple[list[int] | None, list[str], list[str]]]:
    """``(line numbers or None, ids, texts)`` chunks of ``size`` ``(docid, text)`` pairs, or of ``(lineno,
    docid, text)`` records (``located``). ClirkitError naming the document for a record of another shape and for a
    text that is not a str (the ids are checked as they are added: :meth:`_Builder.add`)."""
    lines: list[int] = []
    ids: list[str] = []
    texts: list[str] = []
    for n, record in enumerate(documents, 1):
        try:
            if isinstance(record, (str, bytes)):  # not a pair, though "ab" unpacks as one
                raise ValueError
            if located:
                lineno, docid, text = record
            else:
                docid, text = record
        except (TypeError, ValueError):
            raise _odd_record(record, n, located) from None
        if located:
            lines.append(lineno)
        if not isinstance(text, str):
            raise ClirkitError(
                f"document {docid!r} (document {n} in input order): its text is a {type(text).__name__}, not a str"
            )
        ids.append(docid)
        texts.append(text)
        if len(ids) == size:
            yield (lines if located else None), ids, texts
            lines, ids, texts = [], [], []
    if ids:
        yield (lines if located else None), ids, texts


def located_documents(documents) -> Iterator[tuple[int, str, str]]:
    """``(lineno, docid, text)`` records of ``documents``: such records, or ``(docid, text)`` pairs numbered from 1
    by their place (either as :meth:`Index.build` takes them), each docid a str (a whole number in decimal), for a
    reader that needs every document's place and id (:meth:`~clirkit.retrieval.shards.ShardedIndex.build`).
    ClirkitError naming the document for a record of another shape or an id that is no str nor whole number."""
    for n, record in enumerate(documents, 1):
        size = len(record) if isinstance(record, (tuple, list)) else 0
        if size not in (2, 3):
            shape = f"a {type(record).__name__}" + (f" of length {size}" if size else "")
            raise ClirkitError(
                f"document {n} (in input order) is {shape}: give (docid, text) pairs or (lineno, docid, text) records"
            )
        lineno, docid, text = (n, *record) if size == 2 else record
        yield lineno, docid if type(docid) is str else _Builder()._docid(docid, n - 1), text


def _odd_record(record, n: int, located: bool) -> ClirkitError:
    """The error of document ``n`` (in input order) given as ``record``, not a ``(docid, text)`` pair (``located``:
    a ``(lineno, docid, text)`` record)."""
    shape = f"a {type(record).__name__}"
    if hasattr(record, "__len__"):
        shape += f" of length {len(record)}"
    wanted = "(lineno, docid, text) records (source= given)" if located else "(docid, text) pairs"
    more = "" if located else "; (lineno, docid, text) records need source=, the file they were read from"
    return ClirkitError(f"document {n} (in input order) is {shape}: Index.build takes {wanted}{more}")


class _Builder:
    """Accumulates documents chunk by chunk as (doc x term) count blocks; ``source``: the file the
    documents come from, whose line numbers :meth:`add` receives (for error messages)."""

    def __init__(self, source: str | None = None) -> None:
        self.source = source
        self.vocabulary: dict[str, int] = {}
        self.docids: list[str] = []
        self.lines: list[int] = []
        self.blocks: list[sp.csr_matrix] = []
        self.lengths: list[np.ndarray] = []

    def add(self, docids: list[str], token_lists: Sequence[Sequence[str]], lines: Sequence[int] | None = None) -> None:
        """Add documents ``docids`` of terms ``token_lists`` (``lines``: where they are in :attr:`source`); a docid
        that is a whole number is made a str, anything else not a str is a ClirkitError naming the document."""
        if not all(type(d) is str for d in docids):
            docids = [self._docid(d, i) for i, d in enumerate(docids)]
        vocab = self.vocabulary
        lengths = np.fromiter((len(toks) for toks in token_lists), dtype=np.int64, count=len(token_lists))
        ids = np.fromiter(
            (vocab.setdefault(t, len(vocab)) for toks in token_lists for t in toks),
            dtype=np.int32,
            count=int(lengths.sum()),
        )
        indptr = np.concatenate(([0], np.cumsum(lengths)))
        block = sp.csr_matrix(
            (np.ones(len(ids), dtype=np.int32), ids, indptr), shape=(len(token_lists), max(len(vocab), 1))
        )
        block.sum_duplicates()
        self.blocks.append(block)
        self.lengths.append(lengths)
        self.docids.extend(docids)
        if lines is not None:
            self.lines.extend(lines)

    def finish(self, analyzer: Analyzer) -> Index:
        """The index of the documents added: documents sorted by docid, terms sorted, the term x document
        counts built without a copy of the postings beyond the two an O(postings) transpose needs (each
        block is freed as it is joined; term ids are renumbered in place of a column permutation)."""
        if not self.docids:
            raise ClirkitError("no documents to index: give at least one document")
        n_terms, n_docs = len(self.vocabulary), len(self.docids)
        docids = np.asarray(self.docids)
        self._check_ids(docids)
        doc_order = np.argsort(docids, kind="stable")
        sorted_ids = docids[doc_order]
        dup = np.flatnonzero(sorted_ids[1:] == sorted_ids[:-1]) + 1
        if len(dup):
            self._repeated(doc_order, dup)
        terms = np.asarray(list(self.vocabulary), dtype=str) if n_terms else np.zeros(0, dtype="<U1")
        term_order = np.argsort(terms, kind="stable")
        term_rank = np.empty(n_terms, dtype=np.int32)
        term_rank[term_order] = np.arange(n_terms, dtype=np.int32)
        by_doc = self._joined(term_rank, n_docs, n_terms)
        if (doc_order != np.arange(n_docs)).any():
            by_doc = by_doc[doc_order]
        # CSC of the documents x terms matrix = CSR of terms x documents; its conversion walks the documents
        # in order, so each term's documents come out sorted
        by_term = by_doc.tocsc()
        del by_doc
        tf = sp.csr_matrix((by_term.data, by_term.indices, by_term.indptr), shape=(n_terms, n_docs), copy=False)
        del by_term
        tf.sort_indices()  # a check only: already sorted
        lengths = np.concatenate(self.lengths)[doc_order].astype(np.float64)
        return Index(sorted_ids, terms[term_order], tf, lengths, analyzer)

    def _joined(self, term_rank: np.ndarray, n_docs: int, n_terms: int) -> sp.csr_matrix:
        """The blocks as one documents x terms CSR matrix (int32 counts) with term ids ``term_rank``,
        in input order; each block is dropped once copied."""
        nnz = sum(block.nnz for block in self.blocks)
        counts = np.empty(nnz, dtype=np.int32)
        columns = np.empty(nnz, dtype=np.int32)
        indptr = np.zeros(n_docs + 1, dtype=np.int64)
        at = row = 0
        self.blocks.reverse()
        while self.blocks:
            block = self.blocks.pop()
            counts[at : at + block.nnz] = block.data
            columns[at : at + block.nnz] = term_rank[block.indices]
            indptr[row + 1 : row + 1 + block.shape[0]] = at + block.indptr[1:]
            at, row = at + block.nnz, row + block.shape[0]
        if nnz < 2**31:
            indptr = indptr.astype(np.int32)
        return sp.csr_matrix((counts, columns, indptr), shape=(n_docs, n_terms), copy=False)

    def _docid(self, docid, i: int) -> str:
        """The ``i``-th docid of the documents being added as a str: a str, a whole number in decimal; ClirkitError
        naming the document for anything else (a float, None)."""
        if isinstance(docid, str):
            return str(docid)
        if isinstance(docid, Integral) and not isinstance(docid, (bool, np.bool_)):
            return str(int(docid))
        given = (
            f"has no id ({docid!r})"
            if docid is None or (isinstance(docid, float) and docid != docid)
            else f"has the id {docid!r}, a {type(docid).__name__}"
        )
        raise ClirkitError(
            f"document {len(self.docids) + i + 1} (in input order) {given}: give each document a str id "
            f"(or a whole number)"
        )

    def _check_ids(self, docids: np.ndarray) -> None:
        """ClirkitError for the first of ``docids`` (in input order) that no reader accepts, so that no run or
        qrels file could name it: empty, with whitespace or NUL, or too long (:func:`first_bad_id`)."""
        bad = first_bad_id(docids)
        if bad is None:
            return
        at, problem = bad
        problem = f"document id {quoted(str(docids[at]), 50)} {problem}"
        if self.source is not None and len(self.lines) == len(self.docids):
            raise located(self.source, self.lines[at], problem)
        raise ClirkitError(
            f"{problem} (document {at + 1} in input order): give each document an id a run can name ({ID_RULE})"
        )

    def _repeated(self, doc_order: np.ndarray, dup: np.ndarray) -> None:
        """Raise the error of a repeated docid: the earliest repeat in input order, and the docid's first place
        (``dup``: positions in ``doc_order``, a stable sort by docid, whose docid equals the previous one's)."""
        at = int(dup[np.argmin(doc_order[dup])])
        second, first = int(doc_order[at]), int(doc_order[at - 1])
        docid = str(self.docids[second])
        if self.source is not None and len(self.lines) == len(self.docids):
            raise repeated_id(self.source, self.lines[second], "document id", docid, self.lines[first], "document")
        raise ClirkitError(
            f"document id {docid!r} appears more than once (documents {first + 1} and {second + 1} "
            f"in input order): give each document its own id, or remove the repeated document"
        )


def drop_terms(index: Index, terms: Sequence[str]) -> Index:
    """A copy of ``index`` without ``terms``: their postings are removed, document
    lengths shrink accordingly, and the analyzer learns them as stopwords."""
    vocab = index.vocabulary
    drop = np.asarray(sorted({vocab[t] for t in terms if t in vocab}), dtype=np.int64)
    keep = np.delete(np.arange(index.n_terms), drop)  # (np.setdiff1d hashes: clirkit.sortedunique)
    removed = np.asarray(index.tf[drop].sum(axis=0)).ravel() if len(drop) else 0
    analyzer = Analyzer.from_dict(
        {**index.analyzer.to_dict(), "stopwords": sorted(set(index.analyzer.stopwords) | set(terms))}
    )
    tf = index.tf[keep].tocsr()
    return Index(index.docids, index.terms[keep], tf, index.doc_lengths - removed, analyzer)


def most_frequent_terms(index: Index, n: int) -> list[str]:
    """The ``n`` terms with the highest collection frequency (ties by term): a corpus-derived stoplist.
    Reads every count (checked first if the index was opened memory-mapped), not the document numbers.
    ClirkitError for an ``n`` that is not a whole number >= 0."""
    check_terms_wanted(n)
    tf = index.tf
    if index.lazy and tf.nnz and tf.data.min() < 1:
        raise ClirkitError(f"{index._source}: corrupt index: tf_data has a value below the minimum 1")
    rows = np.flatnonzero(np.diff(tf.indptr) > 0)
    cf = np.zeros(index.n_terms, dtype=np.int64)
    cf[rows] = np.add.reduceat(tf.data, tf.indptr[rows], dtype=np.int64)
    order = np.lexsort((np.arange(index.n_terms), -cf))[:n]
    return index.terms[order].tolist()


def check_terms_wanted(n) -> None:
    """ClirkitError unless ``n``, the number of terms :func:`most_frequent_terms` is asked for, is a whole number
    >= 0 (a negative one would slice off the last terms)."""
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, Integral) or n < 0:
        raise ClirkitError(f"most_frequent_terms: n must be a whole number >= 0, got {n!r}")
