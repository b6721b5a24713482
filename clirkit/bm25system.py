"""The base of the BM25 systems (:class:`~clirkit.systems.BM25Search`, :class:`~clirkit.systems.DT`,
:class:`~clirkit.psqsystem.PSQ`): BM25's parameters and their constraints, the topics' texts -> query tokens ->
structured queries -> run path they share, and the cross-language base that binds a target index and a
translation table and analyzes the queries as the table's source side."""

from __future__ import annotations

import functools
import inspect
from numbers import Integral, Real
from typing import Any, Mapping, Sequence

from clirkit.constraints import Interval, StrOptions
from clirkit.errors import ClirkitError
from clirkit.estimator import DEPTH, Resources, System
from clirkit.retrieval.bm25params import IDF, IDF_VARIANTS, K1, K3, PRECISIONS, RANGES, B
from clirkit.searchoptions import as_excluded, drop_excluded, search_depth
from clirkit.tablefit import (
    check_languages,
    corpus_stopterms,
    query_analyzer,
    words_for_index,
)

STOPWORDS_TOP = 0  # default size of the corpus-derived stoplists (source terms, target index terms): off


def _bm25_range(name: str) -> list:
    """The constraint of BM25 parameter ``name`` from its range in :data:`clirkit.retrieval.bm25params.RANGES` (stated
    there once): at least its low bound, at most its high one (if any), None if the range allows it."""
    low, high, none = RANGES[name]
    interval = Interval(Real, low, high, closed="left" if high is None else "both")
    return [None, interval] if none else [interval]


SCORING_CONSTRAINTS = {  # BM25's own parameters: every system of this module has them
    "k1": _bm25_range("k1"),
    "b": _bm25_range("b"),
    "k3": _bm25_range("k3"),
    "idf": [StrOptions(set(IDF_VARIANTS))],
    "precision": [StrOptions(set(PRECISIONS))],
}
BM25_CONSTRAINTS = {  # and the query analysis of DT and PSQ
    **SCORING_CONSTRAINTS,
    "source_lang": [None, str],
    "source_stopwords": [None, StrOptions({"snowball", "none"}), list, tuple, set, frozenset],
    "source_stopwords_top": [Interval(Integral, 0, None, closed="left")],
    "decompound": [StrOptions({"auto", "table", "none"})],
}


def listed_stopwords(value):
    """A stopword parameter's list: None for ``"none"`` (an experiment file's way to say no list: TOML has no
    null), else the value (``"snowball"``, a list of words, or None)."""
    return None if isinstance(value, str) and value == "none" else value


def check_stopword_lists(params: Mapping[str, Any]) -> None:
    """ClirkitError naming the key for a ``source_stopwords`` or ``target_stopwords`` list of ``params`` that the
    analyzer would refuse at fit (an entry not a str, or of two tokens: :class:`~clirkit.analysis.Analyzer`'s own
    check, made here), or that says nothing: no word, or an empty one (a stopword file without a word is refused
    too). The check of every system's ``check_params``, so a call from Python and an experiment file say the same."""
    from clirkit.analysis import Analyzer

    for key in ("source_stopwords", "target_stopwords"):
        words = params.get(key)
        if not isinstance(words, (list, tuple, set, frozenset)):
            continue  # None, "none", "snowball" (or a type the constraints refused)
        if not words:
            raise ClirkitError(f'{key}: an empty list: list the words, or give "none" for no list')
        try:
            Analyzer(stopwords=words)
        except ClirkitError as exc:
            raise ClirkitError(f"{key}: {str(exc).removeprefix('stopwords: ')}") from None
        for word in words:
            if not word.strip():
                raise ClirkitError(f"{key}: {word!r} is empty: a stopword is one token")


class BM25System(System):
    """What every system of this module shares: BM25's parameters (those of :class:`BM25Search`), and the topics'
    texts -> query tokens (:meth:`query_tokens`) -> structured queries over the index (:meth:`structured_from_tokens`)
    -> the BM25 run (``bm25_``, set by ``fit``)."""

    fit_call = "fit(Resources(index=...))"  # what fit takes: said to a call of anything else, and before fit
    bm25_: Any  # learned by fit: the scorer (annotated only: not there before fit)

    def __init__(
        self, *, k1: float = K1, b: float = B, k3: float | None = K3, idf: str = IDF, precision: str = "float64"
    ) -> None:
        self.k1 = k1
        self.b = b
        self.k3 = k3
        self.idf = idf
        self.precision = precision

    def __init_subclass__(cls, **kwargs) -> None:
        """A subclass that takes its parent's parameters (:class:`~clirkit.systems.DT`,
        :class:`~clirkit.systems.BM25Search`) gets an ``__init__`` of its own name (:func:`_named_init`), so that an
        argument it does not take is refused naming the class called, not the parent that lists the parameters."""
        super().__init_subclass__(**kwargs)
        if "__init__" not in cls.__dict__:
            cls.__init__ = _named_init(inspect.unwrap(cls.__init__), cls.__name__)  # type: ignore[method-assign]

    def query_tokens(self, topics: Mapping[str, str], *, quiet: bool = True) -> list[list[str]]:
        """The topics' texts tokenized as the system analyzes queries, in topic order."""
        raise NotImplementedError  # pragma: no cover

    def structured_from_tokens(self, qids: Sequence[str], tokens: Sequence[Sequence[str]], *, quiet: bool = True):
        """Tokenized queries (:meth:`query_tokens`) as :class:`~clirkit.retrieval.query.StructuredQueries` over the
        index vocabulary (what is said of them on stderr, unless ``quiet``)."""
        raise NotImplementedError  # pragma: no cover

    def structured_queries(self, topics: Mapping[str, str], *, quiet: bool = True):
        """The topics as :class:`~clirkit.retrieval.query.StructuredQueries` over the index vocabulary."""
        return self.structured_from_tokens(list(topics), self.query_tokens(topics, quiet=quiet), quiet=quiet)

    def search(
        self,
        topics: Mapping[str, str],
        *,
        depth: int = DEPTH,
        excluded: Mapping[str, set[str]] | None = None,
        tag: str | None = None,
        quiet: bool = True,
    ):
        """The BM25 run of the structured queries of ``topics`` (see :meth:`System.search`)."""
        self._check_fitted()
        queries = self.structured_queries(topics, quiet=quiet)
        return self.search_structured(queries, depth=depth, excluded=excluded, tag=tag, quiet=quiet)

    def search_structured(
        self,
        queries,
        *,
        depth: int = DEPTH,
        excluded: Mapping[str, set[str]] | None = None,
        tag: str | None = None,
        quiet: bool = True,
    ):
        """:meth:`search` of queries already structured (by :meth:`structured_queries`): the top ``depth`` documents
        of each once its ``excluded`` ones are left out."""
        self._check_fitted()
        excluded = as_excluded(excluded, queries.qids)
        run = self.bm25_.search(queries, depth=search_depth(depth, excluded), quiet=quiet, tag=tag or self.default_tag)
        return drop_excluded(run, excluded, depth)

    def search_structured_blocks(self, queries, *, depth: int = DEPTH, tag: str | None = None, quiet: bool = True):
        """:meth:`search_structured`'s run (no document excluded) as the runs of blocks of consecutive queries, in
        order, each given as soon as it is searched: several over a sharded index searched by threads, so that
        the caller writes one block while the next is searched
        (:meth:`~clirkit.retrieval.shardsearch.ShardedBM25.search_blocks`); otherwise one run."""
        self._check_fitted()
        return self.bm25_.search_blocks(queries, depth=depth, quiet=quiet, tag=tag or self.default_tag)

    def _check_fitted(self) -> None:
        if not hasattr(self, "bm25_"):
            raise ClirkitError(f"{type(self).__name__} is not fitted: call {self.fit_call} first")


def _named_init(init, name: str):
    """``init``, an ``__init__`` of keyword-only parameters, as class ``name``'s: the same signature (what
    ``get_params`` reads), and a TypeError naming ``name`` and the parameters for a positional argument or a keyword
    it does not take: ``DT() got an unexpected keyword argument 'foo'; DT takes k1, b, ... (by name)``."""
    names = [p for p in inspect.signature(init).parameters if p != "self"]

    @functools.wraps(init)
    def __init__(self, *args, **params) -> None:
        unknown = [k for k in params if k not in names]
        if args or unknown:
            what = f"positional argument {args[0]!r}" if args else f"keyword argument {unknown[0]!r}"
            raise TypeError(f"{name}() got an unexpected {what}; {name} takes {', '.join(names)} (by name)")
        init(self, **params)

    __init__.__qualname__ = f"{name}.__init__"
    return __init__


class CrossLanguageBM25(BM25System):
    """What DT and PSQ share: BM25 parameters, the query analyzer and the translation table."""

    fit_call = "fit(Resources(index=..., table=...))"
    table_: Any  # learned by fit: the table the queries are translated by (None: an index translated before)

    def __init__(
        self,
        *,
        k1: float = K1,
        b: float = B,
        k3: float | None = K3,
        idf: str = IDF,
        precision: str = "float64",
        source_lang: str | None = None,
        source_stopwords: Sequence[str] | None = None,
        source_stopwords_top: int = STOPWORDS_TOP,
        decompound: str = "auto",
    ) -> None:
        super().__init__(k1=k1, b=b, k3=k3, idf=idf, precision=precision)
        self.source_lang = source_lang
        self.source_stopwords = source_stopwords
        self.source_stopwords_top = source_stopwords_top
        self.decompound = decompound

    file_keys = {
        "table": (str, 'a table or dictionary file, or "ibm1"'),  # ibm1: IBM Model 1 on the parallel corpus
        "table_format": (str, "the format of the table files (as ttable convert --format)"),
        "score_column": (
            int,
            "which score of a Moses phrase table is the translation probability, "
            "counted from 1 (default 3, p(target given source); as ttable convert "
            "--score-column)",
        ),
    }

    def check_params(self) -> None:
        """The constraints, and the stopword lists' words (:func:`check_stopword_lists`)."""
        super().check_params()
        check_stopword_lists(self.get_params(deep=False))

    def inputs(self, resources: Resources) -> dict:
        """The index and the table(s) it is bound to."""
        return {
            k: v
            for k, v in (
                ("index", resources.record("index")),
                ("table", resources.record("table")),
                *self._more_inputs(resources),
            )
            if v is not None
        }

    def _more_inputs(self, resources: Resources) -> tuple:
        return ()

    def check_inputs(self, resources: Resources) -> None:
        """Its table files translate from the queries' language into the documents' (an experiment's)."""
        resources.check_table_files(reverse=False)

    def _bind(self, index, table, quiet: bool):
        """Bind to ``index`` and the query-side ``table``; returns the table as it meets the index
        (:func:`~clirkit.tablefit.words_for_index`)."""
        self.check_params()
        check_languages(table, index, self.source_lang)
        table = words_for_index(table, index, "target", other_lang=self.source_lang, quiet=quiet)
        self.__dict__.pop("splitter_", None)  # made from the new table when first needed (_tokenize)
        self.index_ = index
        stopwords = listed_stopwords(self.source_stopwords)
        self.analyzer_ = query_analyzer(table, lang=self.source_lang, stopwords=stopwords, quiet=quiet)
        self.stopterms_ = corpus_stopterms(table, self.source_stopwords_top, quiet=quiet)
        self.bm25_ = index.bm25(k1=self.k1, b=self.b, k3=self.k3, idf=self.idf, precision=self.precision)
        return table

    def query_tokens(self, topics: Mapping[str, str], *, quiet: bool = True) -> list[list[str]]:
        """The topics' texts tokenized by the query analyzer, less the corpus stoplist, in topic order.

        A text that the stopwords and the stoplist leave empty but that has terms without them is tokenized
        without them (the count of such queries is said on stderr, unless ``quiet``)."""
        from clirkit.progress import say

        texts = list(topics.values())
        tokens = self._tokenize(texts, quiet=quiet)
        if self.stopterms_:
            tokens = [[t for t in ts if t not in self.stopterms_] for ts in tokens]
        emptied = [i for i, ts in enumerate(tokens) if not ts]
        if emptied and (self.analyzer_.stopwords or self.stopterms_):
            bare = self.analyzer_.without_stopwords().tokenize_many([texts[i] for i in emptied])
            refilled = [i for i, ts in zip(emptied, bare) if ts]
            for i, ts in zip(emptied, bare):
                tokens[i] = ts
            if refilled:
                say(
                    f"{len(refilled)} of {len(texts)} queries had only stopwords: searched with all their terms",
                    quiet=quiet,
                )
        return tokens

    def _tokenize(self, texts: Sequence[str], *, quiet: bool) -> list[list[str]]:
        """The query analyzer's terms of ``texts``, compound words split as ``decompound`` says."""
        from clirkit.decompound import split_texts, table_splitter
        from clirkit.translation.phrases import tokenize_with_phrases

        if not hasattr(self, "splitter_"):  # made once, from the table the fit bound (PSQ's prepared table)
            self.splitter_ = table_splitter(self.decompound, self.table_.source_vocab.tolist(), self.analyzer_)
        if self.splitter_ is None:
            words = () if self.table_ is None else self.table_.source_vocab  # (an index translated before: none)
            return tokenize_with_phrases(self.analyzer_, texts, words, quiet=quiet)
        return split_texts(self.analyzer_, self.splitter_, texts, quiet=quiet)
