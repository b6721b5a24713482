"""PSQ translating the documents (the reference implementation's way), as a system: :class:`DocPSQ`. The index is
translated at ``fit`` through the reverse table p(query word | document word) (:mod:`clirkit.docpsq`) and searched
as a monolingual index of the queries' language, by the smoothed query likelihood of :mod:`clirkit.retrieval.lm` or
BM25. Its defaults are the document side's (:data:`clirkit.psq.SIDE_DEFAULTS`): the reference's loose pruning with its
language model, which together were best on dev on all 14 collections measured (baselines/README.md, "PSQ over
translated documents")."""

from __future__ import annotations

from typing import Sequence

from clirkit.bm25system import BM25_CONSTRAINTS, CrossLanguageBM25, listed_stopwords
from clirkit.errors import ClirkitError
from clirkit.estimator import Resources, takes_resources
from clirkit.psq import DEFAULT_LAMBDA, DOCUMENTS_CUMULATIVE, DOCUMENTS_MAX_OPTIONS, DOCUMENTS_MIN_PROB
from clirkit.querypsq import PRUNING_CONSTRAINTS, QUERY_SIDE_TABLE2, check_used, document_side_inputs
from clirkit.retrieval.bm25params import IDF, K1, K3, B
from clirkit.secondtable import check_second_table
from clirkit.tablefit import as_table, query_analyzer


class DocPSQ(CrossLanguageBM25):
    """PSQ over translated documents: the index translated through the reverse table p(query word | document
    word) (interpolated with a second reverse table if given), pruned, and searched as a monolingual index.

    Args:
        k1, b, k3, idf, precision, source_lang, source_stopwords, decompound: as :class:`DT` (the query analyzer
            is the translated index's: the queries' language).
        lam: weight of the reverse table when interpolating with a second one (0.5).
        min_prob, cumulative, max_options: the pruning of each document word's options, as
            :class:`~clirkit.querypsq.QueryPSQ`'s but the reference's loose defaults: L = 1e-4, C = 0.99, at most 64.
        target_stopwords: query-language words dropped from the options, or ``"snowball"`` (that language's list).
        unknown: a document word absent from the table: ``pass`` (kept as itself, p = 1) or ``drop``.
        scoring: ``lm`` (the default: the smoothed query likelihood of the reference, :mod:`clirkit.retrieval.lm`) or
            ``bm25``.
        alpha: the background model's weight in ``lm`` scoring (0.1, the reference's).
        background: the background model of ``lm`` scoring: ``collection`` (the translated index's expected term
            frequencies), ``parallel`` (the query-language side of the parallel corpus, ``fit(resources)``) or a
            term-count file (``COUNT TOKEN`` lines, as the reference's ``eng.cnt``).

    The query side's Pirkola and bag modes, renormalize_in_vocabulary and the corpus stoplists have no meaning
    here (the queries are not translated): this class does not take them.
    """

    _parameter_constraints = {**BM25_CONSTRAINTS, **PRUNING_CONSTRAINTS, "background": [str]}
    _parameter_constraints.pop("source_stopwords_top")
    default_tag = "DocPSQ"
    fit_call = "fit(Resources(index=..., reverse_table=...))"
    file_keys = {
        **CrossLanguageBM25.file_keys,
        "table": (
            str,
            "a table from the documents' language into the queries' (a file, or \"ibm1\": IBM Model 1 trained "
            "that way on the parallel corpus, the default)",
        ),
        "table2": (str, "a second table from the documents' language, interpolated with the first (lam)"),
    }

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
        lam: float = DEFAULT_LAMBDA,
        min_prob: float = DOCUMENTS_MIN_PROB,
        cumulative: float = DOCUMENTS_CUMULATIVE,
        max_options: int | None = DOCUMENTS_MAX_OPTIONS,
        target_stopwords: Sequence[str] | None = None,
        unknown: str = "pass",
        decompound: str = "auto",
        scoring: str = "lm",
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
            decompound=decompound,
        )
        self.lam = lam
        self.min_prob = min_prob
        self.cumulative = cumulative
        self.max_options = max_options
        self.target_stopwords = target_stopwords
        self.unknown = unknown
        self.scoring = scoring
        self.alpha = alpha
        self.background = background

    def fit(self, resources: Resources) -> "DocPSQ":
        """Translate the index of ``resources`` (:class:`~clirkit.estimator.Resources`) through its
        :meth:`~clirkit.estimator.Resources.reverse_table` (interpolated with its ``reverse_table2``, also from the
        documents' language; an experiment's docpsq system: its ``table`` and ``table2`` files read that way), or
        take an index translated before (:class:`~clirkit.docpsq.ProjectedIndex`, made with the same pruning) and no
        table. Sets ``index_`` (the translated index) and the scorer; background = parallel reads the query-language
        side of :meth:`~clirkit.estimator.Resources.parallel`. Returns self."""
        from clirkit.decompound import table_splitter
        from clirkit.docpsq import queries_view, through_two_tables, translated

        quiet = takes_resources(self, resources).quiet
        table, table2 = resources.reverse_file("table"), resources.reverse_file("table2")
        if table2 is None and resources.record("table2") is not None:
            raise ClirkitError(QUERY_SIDE_TABLE2)
        table2 = table2 if table2 is not None else resources.table("reverse2")
        background_texts = resources.parallel()[0] if self.background == "parallel" else None
        table = table if table is not None else resources.reverse_table()
        index = resources.index()  # (an index: a path given is opened by Resources)
        check_second_table(table, table2, ("reverse_table", "reverse_table2"))
        table, table2 = as_table(table, optional=True, index=index), as_table(table2, optional=True, index=index)
        self.check_params()
        check_used(self, second_table=table2 is not None or through_two_tables(index))
        self.__dict__.pop("splitter_", None)
        self.index_ = translated(
            index,
            table,
            lang=self.source_lang,
            min_prob=self.min_prob,
            cumulative=self.cumulative if self.cumulative < 1 else None,
            max_options=self.max_options,
            target_stopwords=listed_stopwords(self.target_stopwords),
            unknown=self.unknown,
            quiet=quiet,
            table2=table2,
            lam=self.lam,
        )
        self.table_, self.mode_, self.stopterms_ = table, "psq", frozenset()
        stopwords = listed_stopwords(self.source_stopwords)
        self.analyzer_ = query_analyzer(queries_view(self.index_), stopwords=stopwords, quiet=quiet)
        self.splitter_ = table_splitter(self.decompound, self.index_.terms.tolist(), self.analyzer_)
        self.bm25_ = (
            self._language_model(background_texts)
            if self.scoring == "lm"
            else self.index_.bm25(k1=self.k1, b=self.b, k3=self.k3, idf=self.idf, precision=self.precision)
        )
        return self

    def _language_model(self, texts):
        """The smoothed query likelihood over the translated index, smoothed by ``background``."""
        from clirkit.docpsq import background

        p_bg = background(self.background, self.index_, texts=texts)
        return self.index_.bm25(weighting="lm", background=p_bg, alpha=self.alpha, precision=self.precision)

    def check_inputs(self, resources: Resources) -> None:
        """Its table files translate from the documents' language into the queries' (an experiment's)."""
        resources.check_table_files(reverse=True)

    def check_params(self) -> None:
        """The constraints, no parameter its scoring leaves unused (:func:`~clirkit.querypsq.check_used`),
        and a background file that is there."""
        import os

        super().check_params()
        check_used(self)
        if self.background not in ("collection", "parallel") and not os.path.isfile(self.background):
            raise ClirkitError(
                f"background: {self.background}: no such file (collection, parallel, or a COUNT TOKEN file)"
            )

    def check_options(self, options) -> None:
        """``lam`` set without a ``table2`` key does nothing, and the second table is a file (IBM Model 1 trained
        the other way is the first): refused when the experiment file is read."""
        if options.get("table2") == "ibm1":
            raise ClirkitError(
                "table2 = \"ibm1\": a docpsq system's second table is a file from the documents' language into the "
                "queries' (IBM Model 1 trained that way is its table, the default)"
            )
        check_used(self, second_table="table2" in options)

    def _more_inputs(self, resources: Resources) -> tuple:
        return document_side_inputs(resources)

    def structured_from_tokens(self, qids: Sequence[str], tokens: Sequence[Sequence[str]], *, quiet: bool = True):
        from clirkit.retrieval.query import StructuredQueries

        return StructuredQueries.from_tokens(list(qids), tokens, self.index_.vocabulary)
