"""PSQ translating the queries (SPEC §4), as a system: :class:`QueryPSQ`. Each query word becomes p(e|f) over
the index's terms (:func:`clirkit.psq.psq_queries`), scored by BM25 with fractional tf and df, or by the smoothed
query likelihood of :mod:`clirkit.retrieval.lm`. Its defaults are the query side's, chosen across collection kinds
(:data:`clirkit.psq.SIDE_DEFAULTS`, baselines/README.md); :class:`clirkit.docpsqsystem.DocPSQ` translates the
documents instead, and :class:`clirkit.psqsystem.PSQ` chooses between the two."""

from __future__ import annotations

from numbers import Integral, Real
from typing import Sequence

from clirkit.bm25system import BM25_CONSTRAINTS, STOPWORDS_TOP, CrossLanguageBM25, listed_stopwords
from clirkit.constraints import Interval, StrOptions
from clirkit.errors import ClirkitError
from clirkit.estimator import Resources, takes_resources
from clirkit.psq import DEFAULT_CUMULATIVE, DEFAULT_LAMBDA, DEFAULT_MIN_PROB
from clirkit.retrieval.bm25params import IDF, K1, K3, B
from clirkit.secondtable import check_second_query_words, check_second_table
from clirkit.tablefit import (
    SecondTableMismatch,
    TableMismatch,
    as_table,
    check_direction,
    check_languages,
    query_analyzer,
    stopword_terms,
    words_for_index,
)

PRUNING_CONSTRAINTS = {  # the table's interpolation and pruning: both sides of PSQ have them
    "lam": [Interval(Real, 0, 1, closed="both")],
    "min_prob": [Interval(Real, 0, 1, closed="left")],
    "cumulative": [Interval(Real, 0, 1, closed="right")],
    "max_options": [None, Interval(Integral, 1, None, closed="left")],
    "target_stopwords": [None, StrOptions({"snowball", "none"}), list, tuple, set, frozenset],
    "unknown": [StrOptions({"pass", "drop"})],
    "scoring": [StrOptions({"bm25", "lm"})],
    "alpha": [Interval(Real, 0, 1, closed="neither")],
}


def _changed(system, *keys: str) -> list[str]:
    """The parameters of ``keys`` that ``system`` has set away from its class's defaults."""
    import inspect

    defaults = {k: p.default for k, p in inspect.signature(type(system)).parameters.items()}
    return [k for k in keys if k in defaults and getattr(system, k) != defaults[k]]


def named_options(keys) -> str:
    """PSQ's parameters ``keys`` with their command-line options: ``lam (--lambda), mode (--mode)``."""
    return ", ".join(f"{k} ({'--lambda' if k == 'lam' else '--' + k.replace('_', '-')})" for k in keys)


def queries_only(named: str, count: int) -> str:
    """``named`` (``count`` options, parameters or keys, already joined) said to apply to translating the queries
    only: the words of every message about a table for the documents given with them."""
    return f"{named} appl{'y' if count > 1 else 'ies'} to translating the queries only"


_UNUSED_BY_LM = "BM25's, unused by scoring = 'lm' (--scoring lm): leave them out, or score by bm25"
_UNUSED_BY_BM25 = "the language model's, unused by scoring = 'bm25': leave them out, or score by lm"


def unused_by_scoring(system) -> list[str]:
    """Why parameters of PSQ ``system`` set away from their defaults do nothing under its scoring: BM25's (k1, b,
    k3, idf) under ``lm``, the language model's (alpha, background) under ``bm25``; none while the scoring is not
    chosen yet (``auto``). Each reason names the parameters and their command-line options."""
    if system.scoring == "lm":
        bm25 = _changed(system, "k1", "b", "k3", "idf")
        if not bm25:
            return []
        return [f"{named_options(bm25)}: {_UNUSED_BY_LM}"]
    model = _changed(system, "alpha", "background") if system.scoring == "bm25" else []
    return [f"{named_options(model)}: {_UNUSED_BY_BM25}"] if model else []


LAM_WITHOUT_TABLE2 = "lam (--lambda): the weight of a second table (table2, --table2), and there is none"
"""Why ``lam`` does nothing without a second table (:func:`check_used`, and the experiment file's check of a
``lam`` key written without ``table2``, even at its default)."""


def check_used(system, *, second_table: bool | None = None) -> None:
    """ClirkitError when a parameter of PSQ ``system`` set away from its default does nothing: under its scoring
    (:func:`unused_by_scoring`), or ``lam`` without a second table (``second_table``: False when there is none,
    True when one is given or an index was translated before through two, None when not known yet)."""
    reasons = unused_by_scoring(system)
    if second_table is False and _changed(system, "lam"):
        reasons.append(LAM_WITHOUT_TABLE2)
    if reasons:
        raise ClirkitError("; ".join(reasons))


def query_side_inputs(resources: Resources) -> tuple:
    """What PSQ translating the queries reads beyond the index and the table: the second table."""
    return (("table2", resources.record("table2")),)


def document_side_inputs(resources: Resources) -> tuple:
    """What PSQ translating the documents reads beyond the index and the table: the second table, and the reverse
    table trained on the parallel corpus unless its system names a table file of its own."""
    if resources.option("table") not in (None, "ibm1"):
        return query_side_inputs(resources)
    return (*query_side_inputs(resources), ("reverse_table", resources.reverse_record()))


QUERY_SIDE_TABLE2 = (
    "table2: the resources' second table is the query side's (interpolated with the table into the documents' "
    "language); translating the documents, give the two reverse tables as Resources(reverse_table=..., "
    "reverse_table2=...), or translate = 'queries'"
)
"""The error of a query side's second table given to PSQ translating the documents."""


TABLE2_KEY = {
    "table2": (
        str,
        'a second table interpolated with the first (lam * table + (1 - lam) * table2): a file, or "ibm1"',
    ),
}


class QueryPSQ(CrossLanguageBM25):
    """PSQ translating the queries: each query word -> p(e|f) over the index's terms (the table interpolated with
    a second one if given, then pruned), scored by BM25 with fractional tf and df (SPEC §4).

    Args:
        k1, b, k3, idf, precision, source_lang, source_stopwords, source_stopwords_top, decompound: as :class:`DT`.
        lam: weight of the table when interpolating with a second one (0.5: IBM Model 1 and a dictionary
            weighed equally, chosen across collection kinds over 0.6; baselines/README.md).
        min_prob: L, drop options with p < L (a row whose every option is below L keeps its most probable ones);
            0.1, chosen across collection kinds (baselines/README.md): it drops the long tail that IBM Model 1
            spreads over frequent words, which inflates a content word's expected df.
        cumulative: C, keep the most probable options until their sum reaches C (1 keeps all); 0.95.
        max_options: M, at most M options per word (None: no limit, the default).
        target_stopwords: target terms dropped from the options (besides the index analyzer's stopwords), or
            ``"snowball"``: the Snowball list of the index's language, as the index's analyzer makes its terms
            (stemmed): IBM Model 1 gives function words mass in every row, and this drops them from the options
            without touching the queries or the documents.
        target_stopwords_top: also drop the N most frequent index terms from the options. A query whose every
            translation the target stoplists drop is translated without them (the number of such queries is said
            on stderr), never silently emptied.
        renormalize_in_vocabulary: rescale each word's in-index options to sum 1 (Ivory).
        unknown: a query word absent from the table: ``pass`` (matches itself, p = 1) or ``drop``.
        mode: ``psq`` (weights p(e|f)), ``pirkola`` (a word's translations are synonyms: tf summed over them, df
            of the set, whatever p), ``all`` (every translation its own query term: the naive dictionary
            baseline), or ``auto`` (the default): ``pirkola`` for a dictionary alone (its p are not learned:
            ``table.params["model"] == "dictionary"`` and no second table), ``psq`` otherwise; the mode used is
            ``mode_``. See :func:`clirkit.psq.psq_queries`.
        scoring: ``bm25`` (the default) or ``lm``: the smoothed query likelihood (:mod:`clirkit.retrieval.lm`), its
            background the searched index's term frequencies.
        alpha: the background model's weight in ``lm`` scoring (0.1, the reference's).
    """

    _parameter_constraints = {
        **BM25_CONSTRAINTS,
        **PRUNING_CONSTRAINTS,
        "target_stopwords_top": [Interval(Integral, 0, None, closed="left")],
        "renormalize_in_vocabulary": ["boolean"],
        "mode": [StrOptions({"auto", "psq", "pirkola", "all"})],
    }
    default_tag = "PSQ"
    file_keys = {**CrossLanguageBM25.file_keys, **TABLE2_KEY}

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
        min_prob: float = DEFAULT_MIN_PROB,
        cumulative: float = DEFAULT_CUMULATIVE,
        max_options: int | None = None,
        target_stopwords: Sequence[str] | None = None,
        target_stopwords_top: int = STOPWORDS_TOP,
        renormalize_in_vocabulary: bool = False,
        unknown: str = "pass",
        mode: str = "auto",
        decompound: str = "auto",
        scoring: str = "bm25",
        alpha: float = 0.1,
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
        self.scoring = scoring
        self.alpha = alpha

    def fit(self, resources: Resources) -> "QueryPSQ":
        """Bind to the target index of ``resources`` (:class:`~clirkit.estimator.Resources`) and its table p(e|f)
        (interpolated with its ``table2`` if given); the table is interpolated and pruned once (``table_``; the
        mode used is ``mode_``); returns self."""
        from functools import partial

        from clirkit.psq import prepare_table

        quiet = takes_resources(self, resources).quiet
        index = resources.index()  # (an index: a path given is opened by Resources)
        check_second_table(resources.table(), resources.table("table2"))
        table = as_table(resources.table(), index=index)
        table2 = as_table(resources.table("table2"), optional=True, index=index)
        table = self._bind(index, table, quiet)
        check_used(self, second_table=table2 is not None)
        if table2 is not None:  # its errors name it, not the first table
            try:
                check_direction(table2, index, second=True)
                check_languages(table2, index, self.source_lang)  # (its target words must be the index's terms)
                table2 = words_for_index(table2, index, "target", queries=self.analyzer_, quiet=quiet)
            except TableMismatch as exc:
                raise SecondTableMismatch(str(exc)) from None
            check_second_query_words(query_analyzer(table2, lang=self.analyzer_.lang), self.analyzer_)
        listed = stopword_terms(listed_stopwords(self.target_stopwords), index.analyzer)
        frequent = index.most_frequent_terms(self.target_stopwords_top)
        stopwords = set(index.analyzer.stopwords) | set(listed) | set(frequent)
        prepare = partial(
            prepare_table,
            table,
            table2,
            lam=self.lam,
            min_prob=self.min_prob,
            cumulative=self.cumulative if self.cumulative < 1 else None,
            max_options=self.max_options,
        )
        try:
            self.table_ = prepare(target_stopwords=stopwords)
            # a query whose every translation the target stoplists drop is translated without them (psq_queries)
            self.unfiltered_ = prepare(target_stopwords=index.analyzer.stopwords) if listed or frequent else None
        except ValueError as exc:
            raise ClirkitError(str(exc)) from None
        dictionary = table.params.get("model") == "dictionary" and table2 is None
        self.mode_ = self.mode if self.mode != "auto" else ("pirkola" if dictionary else "psq")
        if self.scoring == "lm":  # smoothed by the collection's term frequencies (the index's language)
            from clirkit.docpsq import background

            p_bg = background("collection", index)
            self.bm25_ = index.bm25(weighting="lm", background=p_bg, alpha=self.alpha, precision=self.precision)
        return self

    def check_params(self) -> None:
        """The constraints, and no parameter its scoring leaves unused (:func:`unused_by_scoring`)."""
        super().check_params()
        check_used(self)

    def check_options(self, options) -> None:
        """``lam`` set without a ``table2`` key does nothing: refused when the experiment file is read."""
        check_used(self, second_table="table2" in options)

    def _more_inputs(self, resources: Resources) -> tuple:
        return query_side_inputs(resources)

    def structured_from_tokens(self, qids: Sequence[str], tokens: Sequence[Sequence[str]], *, quiet: bool = True):
        from clirkit.psq import psq_queries

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
