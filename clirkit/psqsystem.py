"""Probabilistic structured queries as a system (SPEC §4): :class:`PSQ`, translating the queries through p(e|f)
or the documents through the reverse table (:mod:`clirkit.docpsq`), scored by BM25 or the smoothed query
likelihood (:mod:`clirkit.lm`)."""

from __future__ import annotations

from numbers import Integral, Real
from typing import Sequence

from clirkit.bm25params import IDF, K1, K3, B
from clirkit.bm25system import BM25_CONSTRAINTS, STOPWORDS_TOP, CrossLanguageBM25
from clirkit.constraints import Interval, StrOptions
from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.psq import DEFAULT_LAMBDA, SIDE_DEFAULTS
from clirkit.tablefit import (
    query_analyzer,
    side_of,
    snowball_terms,
)


class PSQ(CrossLanguageBM25):
    """Probabilistic structured queries: each query word -> p(e|f) over target words (interpolated with a
    second table if given, pruned), scored by BM25 with fractional tf and df (SPEC §4).

    Args:
        k1, b, k3, idf, precision, source_lang, source_stopwords, source_stopwords_top, decompound: as :class:`DT`.
        lam: weight of the table when interpolating with a second one (0.5: IBM Model 1 and a dictionary
            weighed equally, chosen across collection kinds over 0.6; baselines/README.md).
        min_prob: L, drop options with p < L (a row whose every option is below L keeps its most probable
            ones). ``auto`` (the default): 0.1 translating the queries, chosen across collection kinds
            (baselines/README.md): it drops the long tail that IBM Model 1 spreads over frequent words, which
            inflates a content word's expected df; 1e-4 translating the documents (:data:`clirkit.psq.SIDE_DEFAULTS`).
        cumulative: C, keep the most probable options until their sum reaches C (1 keeps all); ``auto``: .95
            translating the queries, .99 the documents.
        max_options: M, at most M options per word (None: no limit); ``auto``: no limit translating the queries,
            64 the documents.
        target_stopwords: target terms dropped from the options (besides the index analyzer's stopwords), or
            ``"snowball"``: the Snowball list of the index's language, as the index's analyzer makes its terms
            (stemmed): IBM Model 1 gives function words mass in every row, and this drops them from the
            options without touching the queries or the documents.
        target_stopwords_top: also drop the N most frequent index terms from the options. A query whose every
            translation the target stoplists drop is translated without them (the number of such queries is said
            on stderr), never silently emptied.
        renormalize_in_vocabulary: rescale each word's in-index options to sum 1 (Ivory).
        unknown: a query word absent from the table: ``pass`` (matches itself, p = 1) or ``drop``.
        mode: ``psq`` (weights p(e|f)), ``pirkola`` (a word's translations are synonyms: tf summed over
            them, df of the set, whatever p), ``all`` (every translation its own query term: the naive
            dictionary baseline), or ``auto`` (the default): ``pirkola`` for a dictionary alone (its p are
            not learned: ``table.params["model"] == "dictionary"`` and no second table), ``psq`` otherwise;
            the mode used is ``mode_``. See :func:`clirkit.psq.psq_queries`.
        translate: ``queries`` (each query word -> p(e|f) over the index's terms), ``documents`` (the
            reference implementation's way, :mod:`clirkit.docpsq`: the index is translated at ``fit`` through
            the reverse table p(query word | document word), pruned by the same rules (min_prob, cumulative,
            max_options, target_stopwords: query-language words here), and searched as a monolingual index;
            ``unknown`` then applies to document words), or ``auto`` (the default; the side used is
            ``translate_``): ``documents`` when the table is learned from a parallel corpus the other way too
            (:meth:`~clirkit.estimator.Resources.translates_documents`: ``fit(resources)`` with IBM Model 1 on
            the parallel corpus and no second table, or a reverse table given), or when ``fit(index, table)``
            is given a table from the index's language (a reverse table) or an index translated before;
            ``queries`` otherwise (a dictionary or a table file for the queries, a second table). Translating
            the documents, with its defaults, was better on dev on all 14 collections measured
            (baselines/README.md, "PSQ over translated documents"). With ``documents``, ``fit`` takes the
            reverse table (interpolated with a second reverse table if given: ``fit(index, table, table2)``,
            both from the documents' language, e.g. a corpus's table and a dictionary read the other way), or an
            index translated before (:class:`~clirkit.docpsq.ProjectedIndex`, made with the same pruning) and no
            table; the Pirkola and bag modes, renormalize_in_vocabulary and the corpus stoplists are query-side
            only, and so is the resources' ``table2`` in ``fit(resources)`` (an experiment's ``table2`` translates
            the queries; with a reverse table given too, it is an error, not dropped).
        scoring: ``bm25``, ``lm`` (the smoothed query likelihood of the reference, :mod:`clirkit.lm`) or ``auto``
            (the default): ``lm`` translating the documents, ``bm25`` translating the queries.
        alpha: the background model's weight in ``lm`` scoring (0.1, the reference's).
        background: the background model of ``lm`` scoring: ``collection`` (the searched index's term
            frequencies), ``parallel`` (the query-language side of the parallel corpus, ``fit(resources)``) or a
            term-count file (``COUNT TOKEN`` lines, as the reference's ``eng.cnt``); the last two for
            translate = documents, whose index terms are query-language terms.
    """

    _parameter_constraints = {
        **BM25_CONSTRAINTS,
        "lam": [Interval(Real, 0, 1, closed="both")],
        "min_prob": [Interval(Real, 0, 1, closed="left"), StrOptions({"auto"})],
        "cumulative": [Interval(Real, 0, 1, closed="right"), StrOptions({"auto"})],
        "max_options": [None, Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "target_stopwords": [None, StrOptions({"snowball"}), list, tuple, set, frozenset],
        "target_stopwords_top": [Interval(Integral, 0, None, closed="left")],
        "renormalize_in_vocabulary": ["boolean"],
        "unknown": [StrOptions({"pass", "drop"})],
        "mode": [StrOptions({"auto", "psq", "pirkola", "all"})],
        "translate": [StrOptions({"auto", "queries", "documents"})],
        "scoring": [StrOptions({"auto", "bm25", "lm"})],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "background": [str],
    }
    default_tag = "PSQ"

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
        lam: float = DEFAULT_LAMBDA,
        min_prob: float | str = "auto",
        cumulative: float | str = "auto",
        max_options: int | str | None = "auto",
        target_stopwords: Sequence[str] | None = None,
        target_stopwords_top: int = STOPWORDS_TOP,
        renormalize_in_vocabulary: bool = False,
        unknown: str = "pass",
        mode: str = "auto",
        decompound: str = "auto",
        translate: str = "auto",
        scoring: str = "auto",
        alpha: float = 0.1,
        background: str = "collection",
    ) -> None:
        super().__init__(
            k1=k1,
            b=b,
            k3=k3,
            idf=idf,
            precision=precision,
            source_lang=source_lang,
            source_stopwords=source_stopwords,
            source_stopwords_top=source_stopwords_top,
            decompound=decompound,
        )
        self.lam = lam
        self.min_prob = min_prob
        self.cumulative = cumulative
        self.max_options = max_options
        self.target_stopwords = target_stopwords
        self.target_stopwords_top = target_stopwords_top
        self.renormalize_in_vocabulary = renormalize_in_vocabulary
        self.unknown = unknown
        self.mode = mode
        self.translate = translate
        self.scoring = scoring
        self.alpha = alpha
        self.background = background

    file_keys = {
        **CrossLanguageBM25.file_keys,
        "table2": (
            str,
            'a second table interpolated with the first (lam * table + (1 - lam) * table2): a file, or "ibm1"',
        ),
    }

    def fit(self, index, table=None, table2=None, *, quiet: bool = True, background_texts=None) -> "PSQ":
        """Bind to the target ``index`` and ``table`` p(e|f) (interpolated with ``table2`` if given), or to those
        of :class:`~clirkit.estimator.Resources`, interpolating and pruning the table once; sets ``table_``
        (the prepared table); returns self. With translate = documents, ``table`` is the reverse table (the
        resources' :meth:`~clirkit.estimator.Resources.reverse_table`) and ``index_`` the translated index;
        ``background_texts``: the query-language texts of background = parallel."""
        if isinstance(index, Resources):
            documents = self.side(index) == "documents"
            if documents and index.record("table2") is not None:
                raise ClirkitError(
                    "table2: the resources' second table is the query side's (interpolated with the "
                    "table into the documents' language); translating the documents, give the two "
                    "reverse tables to fit(index, reverse, reverse2), or translate = 'queries'"
                )
            texts = index.parallel()[0] if documents and self.background == "parallel" else None
            self.translate_ = "documents" if documents else "queries"
            return self._fit_side(
                index.index(),
                index.reverse_table() if documents else index.table(),
                None if documents else index.table("table2"),
                index.quiet,
                texts,
            )
        self.translate_ = self.side_given(index, table, table2)
        return self._fit_side(index, table, table2, quiet, background_texts)

    def side_given(self, index, table=None, table2=None) -> str:
        """The side ``fit(index, table, table2)`` translates: ``translate``, or for ``auto`` the queries when a
        query-side-only parameter is set (:meth:`query_side_only`), else the side the table's direction allows
        (:func:`~clirkit.tablefit.side_of`)."""
        if self.translate != "auto":
            return self.translate
        return "queries" if self.query_side_only() else side_of(index, table, table2)

    def side(self, resources: Resources) -> str:
        """The side ``fit(resources)`` translates: ``translate``, or for ``auto`` ``documents`` when the
        resources can translate the documents (:meth:`~clirkit.estimator.Resources.translates_documents`) and
        no query-side-only parameter is set (:meth:`query_side_only`)."""
        if self.translate != "auto":
            return self.translate
        return "documents" if not self.query_side_only() and resources.translates_documents() else "queries"

    def query_side_only(self) -> list[str]:
        """The parameters set away from their defaults that only translating the queries has (the Pirkola and
        bag modes, renormalize_in_vocabulary, the corpus stoplists): with ``translate = "auto"`` they choose
        the query side."""
        return [
            k
            for k, off in (
                ("mode", self.mode in ("auto", "psq")),
                ("renormalize_in_vocabulary", not self.renormalize_in_vocabulary),
                ("target_stopwords_top", not self.target_stopwords_top),
                ("source_stopwords_top", not self.source_stopwords_top),
            )
            if not off
        ]

    def _fit_side(self, index, table, table2, quiet: bool, background_texts) -> "PSQ":
        """fit on the side ``translate_`` says, with that side's pruning and scoring for those left ``auto``."""
        defaults = SIDE_DEFAULTS[self.translate_]
        for key in ("min_prob", "cumulative", "max_options", "scoring"):
            value = getattr(self, key)
            setattr(self, f"{key}_", defaults[key] if value == "auto" else value)
        if self.translate_ == "documents":
            return self._fit_documents(index, table, table2, quiet, background_texts)
        return self._fit_queries(index, table, table2, quiet)

    def _fit_queries(self, index, table, table2, quiet: bool) -> "PSQ":
        """fit with translate = queries: the table (interpolated with ``table2``) pruned once."""
        from functools import partial

        from clirkit.psq import prepare_table

        self._bind(index, table, quiet)
        listed = self.target_stopwords or ()
        if isinstance(listed, str):
            listed = snowball_terms(index.analyzer)
        frequent = index.most_frequent_terms(self.target_stopwords_top)
        stopwords = set(index.analyzer.stopwords) | set(listed) | set(frequent)
        prepare = partial(
            prepare_table,
            table,
            table2,
            lam=self.lam,
            min_prob=self.min_prob_,
            cumulative=self.cumulative_ if self.cumulative_ < 1 else None,
            max_options=self.max_options_,
        )
        try:
            self.table_ = prepare(target_stopwords=stopwords)
            # a query whose every translation the target stoplists drop is translated without them (psq_queries)
            self.unfiltered_ = prepare(target_stopwords=index.analyzer.stopwords) if listed or frequent else None
        except ValueError as exc:
            raise ClirkitError(str(exc)) from None
        dictionary = table.params.get("model") == "dictionary" and table2 is None
        self.mode_ = self.mode if self.mode != "auto" else ("pirkola" if dictionary else "psq")
        if self.scoring_ == "lm":
            self.bm25_ = self._language_model(index, None)
        return self

    def _fit_documents(self, index, table, table2, quiet: bool, texts) -> "PSQ":
        """fit with translate = documents: ``index`` translated through the reverse ``table`` (or translated
        before), searched monolingually."""
        from clirkit.decompound import table_splitter
        from clirkit.docpsq import queries_view, translated

        self.check_params()
        query_side = self.query_side_only()
        if query_side:
            raise ClirkitError(
                f"{', '.join(query_side)}: for translate = queries only (translate = documents "
                f"searches the translated documents as a monolingual index)"
            )
        self.__dict__.pop("splitter_", None)
        self.index_ = translated(
            index,
            table,
            lang=self.source_lang,
            min_prob=self.min_prob_,
            cumulative=self.cumulative_ if self.cumulative_ < 1 else None,
            max_options=self.max_options_,
            target_stopwords=self.target_stopwords,
            unknown=self.unknown,
            quiet=quiet,
            table2=table2,
            lam=self.lam,
        )
        self.table_, self.mode_, self.stopterms_ = table, "psq", frozenset()
        self.analyzer_ = query_analyzer(queries_view(self.index_), stopwords=self.source_stopwords, quiet=quiet)
        self.splitter_ = table_splitter(self.decompound, self.index_.terms.tolist(), self.analyzer_)
        self.bm25_ = (
            self._language_model(self.index_, texts)
            if self.scoring_ == "lm"
            else self.index_.bm25(k1=self.k1, b=self.b, k3=self.k3, idf=self.idf, precision=self.precision)
        )
        return self

    def _language_model(self, index, texts):
        """The smoothed query likelihood over ``index`` (the ``lm`` weighting of :mod:`clirkit.weightings`, by the
        scorer of the index's kind: :func:`clirkit.indexkinds.bm25`)."""
        from clirkit.docpsq import background

        if self.translate_ == "queries" and self.background != "collection":
            raise ClirkitError(
                f"background = {self.background!r}: a model of query-language words, for translate = "
                f"documents; translated queries are smoothed with the collection's"
            )
        p_bg = background(self.background, index, texts=texts)
        return index.bm25(weighting="lm", background=p_bg, alpha=self.alpha, precision=self.precision)

    def _more_inputs(self, resources: Resources) -> tuple:
        if self.side(resources) == "documents":
            return (("table2", resources.record("table2")), ("reverse_table", resources.reverse_record()))
        return (("table2", resources.record("table2")),)

    def structured_from_tokens(self, qids: Sequence[str], tokens: Sequence[Sequence[str]], *, quiet: bool = True):
        from clirkit.psq import psq_queries
        from clirkit.query import StructuredQueries

        if self.translate_ == "documents":  # the index is in the queries' language
            return StructuredQueries.from_tokens(list(qids), tokens, self.index_.vocabulary)
        return psq_queries(
            list(qids),
            tokens,
            self.table_,
            self.index_.vocabulary,
            renormalize_in_vocabulary=self.renormalize_in_vocabulary,
            unknown=self.unknown,
            mode=self.mode_,
            unfiltered=self.unfiltered_,
            quiet=quiet,
        )
