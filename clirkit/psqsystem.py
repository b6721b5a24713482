"""Probabilistic structured queries as a system (SPEC §4): :class:`PSQ`, which translates the queries
(:class:`~clirkit.querypsq.QueryPSQ`) or the documents (:class:`~clirkit.docpsqsystem.DocPSQ`), the side chosen
from the resources at ``fit`` (:meth:`PSQ.side`: the one rule the verb and the experiment runner share), each side
with its own defaults."""

from __future__ import annotations

from numbers import Integral, Real
from typing import Sequence

from clirkit.bm25system import BM25_CONSTRAINTS, STOPWORDS_TOP, CrossLanguageBM25
from clirkit.constraints import Interval, StrOptions
from clirkit.errors import ClirkitError
from clirkit.estimator import DEPTH, Resources, takes_resources
from clirkit.psq import DEFAULT_LAMBDA
from clirkit.querypsq import (
    QUERY_SIDE_TABLE2,
    check_used,
    document_side_inputs,
    named_options,
    queries_only,
    query_side_inputs,
)
from clirkit.retrieval.bm25params import IDF, K1, K3, B
from clirkit.tablefit import TableMismatch, side_of

QUERY_SIDE_ONLY = ("mode", "renormalize_in_vocabulary", "target_stopwords_top", "source_stopwords_top")
"""PSQ's parameters that only :class:`~clirkit.querypsq.QueryPSQ` has."""
DOCUMENT_SIDE_ONLY = ("background",)
"""PSQ's parameters that only :class:`~clirkit.docpsqsystem.DocPSQ` has."""


class PSQ(CrossLanguageBM25):
    """Probabilistic structured queries: each query word -> p(e|f) over target words (interpolated with a
    second table if given, pruned), scored by BM25 with fractional tf and df (SPEC §4), or the documents
    translated into the queries' language. ``fit`` chooses the side (``translate_``, :meth:`side`) and fits the
    system of that side, ``system_`` (:class:`~clirkit.querypsq.QueryPSQ` or
    :class:`~clirkit.docpsqsystem.DocPSQ`, given the parameters that are not ``auto``: the others take that
    side's defaults), which then searches; its learned attributes (``index_``, ``table_``, ``mode_``, ...) are
    read through this object too. Use one of the two directly when the side is known.

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
            ``translate_``): ``documents`` when the resources can translate them
            (:meth:`~clirkit.estimator.Resources.translates_documents`: a reverse table or an index translated
            before given, or an experiment's IBM Model 1 on the parallel corpus and no second table); ``queries``
            otherwise (a ``table``: a dictionary or a table file for the queries, a second table). Translating
            the documents, with its defaults, was better on dev on all 14 collections measured
            (baselines/README.md, "PSQ over translated documents"). With ``documents``, ``fit`` reads the
            resources' ``reverse_table`` (interpolated with a ``reverse_table2`` if given, both from the
            documents' language, e.g. a corpus's table and a dictionary read the other way), or an index
            translated before (:class:`~clirkit.docpsq.ProjectedIndex`, made with the same pruning) and no
            table; the Pirkola and bag modes, renormalize_in_vocabulary and the corpus stoplists are query-side
            only, and so is the resources' ``table2`` (an experiment's ``table2`` translates the queries; with a
            reverse table given too, it is an error, not dropped).
        scoring: ``bm25``, ``lm`` (the smoothed query likelihood of the reference, :mod:`clirkit.retrieval.lm`) or
            ``auto`` (the default): ``lm`` translating the documents, ``bm25`` translating the queries.
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
        "target_stopwords": [None, StrOptions({"snowball", "none"}), list, tuple, set, frozenset],
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
    fit_call = "fit(Resources(index=..., table=... or reverse_table=...))"

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

    def fit(self, resources: Resources) -> "PSQ":
        """Choose the side (:meth:`side`) and fit its system, ``system_``, to ``resources``
        (:class:`~clirkit.estimator.Resources`): the target index and the table p(e|f) (interpolated with
        ``table2`` if given) translating the queries; the reverse table(s) or an index translated before translating
        the documents (``index_``: the translated index). Returns self."""
        takes_resources(self, resources)
        self.check_params()
        self.translate_ = self.side(resources)
        system = self.on_side(self.translate_)
        # a second table translating the documents: an experiment's table2 file (read from the documents' language
        # as its table is), not a query side's table2 given in Python
        if self.translate_ == "documents" and resources.record("table2") is not None:
            if resources.option("table2") in (None, "ibm1"):
                raise ClirkitError(QUERY_SIDE_TABLE2)
        try:
            system.fit(resources)
        except TableMismatch as exc:  # a table to translate the documents, and a parameter of the queries' side
            chose = self.query_side_only() if self.translate == "auto" else []
            if not chose or side_of(resources.index(), resources.table(), None) != "documents":
                raise
            named, lang = named_options(chose), resources.index().analyzer.lang
            raise type(exc)(
                f"{exc}: the table is from the documents' language, one to translate them (reverse_table=...), "
                f"and {queries_only(named, len(chose))}: give a table "
                f"into {lang!r} as table=..., or this one as reverse_table=... without {named}"
            ) from None
        self.system_ = system
        return self

    def check_inputs(self, resources: Resources) -> None:
        """Its table files translate the way the side it translates needs (an experiment's): into the documents'
        language for the queries, from it for the documents; the message names the parameters that chose the
        queries (:meth:`query_side_only`, with ``translate = "auto"``)."""
        side = self.side(resources)
        chose = self.query_side_only() if self.translate == "auto" else []
        resources.check_table_files(reverse=side == "documents", query_side=chose)

    def side(self, resources: Resources) -> str:
        """The side ``fit(resources)`` translates, ``queries`` or ``documents``: ``translate``, or for ``auto`` the
        queries when a parameter only they have is set (:meth:`query_side_only`), else the documents when the
        :class:`~clirkit.estimator.Resources` can translate them
        (:meth:`~clirkit.estimator.Resources.translates_documents`: a reverse table or an index translated before
        given, or the experiment runner's IBM Model 1 on the collection's parallel corpus and no second table).
        Anything but Resources is a ClirkitError saying what it takes, as ``fit``'s."""
        takes_resources(self, resources)
        if self.translate != "auto":
            return self.translate
        if self.query_side_only():
            return "queries"
        return "documents" if resources.translates_documents() else "queries"

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

    def on_side(self, side: str):
        """The unfitted system of ``side`` with this object's parameters: those left ``auto`` take the side's
        defaults; a parameter the side does not have is an error when set."""
        from clirkit.docpsqsystem import DocPSQ
        from clirkit.querypsq import QueryPSQ

        params = {k: v for k, v in self.get_params().items() if not (isinstance(v, str) and v == "auto")}
        params.pop("translate", None)
        params["decompound"] = self.decompound  # "auto" is a value of the systems' own
        if side == "documents":
            query_side = self.query_side_only()
            if query_side:
                raise ClirkitError(
                    f"{named_options(query_side)}: for translate = queries only (--translate queries; translate = "
                    f"documents searches the translated documents as a monolingual index)"
                )
            return DocPSQ(**{k: v for k, v in params.items() if k not in QUERY_SIDE_ONLY})
        if self.background != "collection":
            raise ClirkitError(
                f"background = {self.background!r}: a model of query-language words, for translate = "
                f"documents; translated queries are smoothed with the collection's"
            )
        if self.mode == "auto":
            params["mode"] = "auto"
        return QueryPSQ(**{k: v for k, v in params.items() if k not in DOCUMENT_SIDE_ONLY})

    def __getattr__(self, name: str):
        """A learned attribute (``index_``, ``table_``, ``mode_``, ...) of the fitted side's system."""
        system = self.__dict__.get("system_")
        if system is None or not name.endswith("_") or name.startswith("__"):
            raise AttributeError(name)
        return getattr(system, name)

    def check_options(self, options) -> None:
        """``lam`` set without a ``table2`` key does nothing on either side (nor a parameter its scoring, when
        given, leaves unused): refused when the experiment file is read."""
        check_used(self, second_table="table2" in options)

    def _more_inputs(self, resources: Resources) -> tuple:  # those of the side's system
        inputs = document_side_inputs if self.side(resources) == "documents" else query_side_inputs
        return inputs(resources)

    def query_tokens(self, topics, *, quiet: bool = True) -> list[list[str]]:
        self._check_fitted()
        return self.system_.query_tokens(topics, quiet=quiet)

    def structured_from_tokens(self, qids: Sequence[str], tokens: Sequence[Sequence[str]], *, quiet: bool = True):
        self._check_fitted()
        return self.system_.structured_from_tokens(qids, tokens, quiet=quiet)

    def search_structured(self, queries, *, depth: int = DEPTH, excluded=None, tag: str | None = None, quiet=True):
        self._check_fitted()
        return self.system_.search_structured(
            queries, depth=depth, excluded=excluded, tag=tag or self.default_tag, quiet=quiet
        )

    def search_structured_blocks(self, queries, *, depth: int = DEPTH, tag: str | None = None, quiet: bool = True):
        self._check_fitted()
        return self.system_.search_structured_blocks(queries, depth=depth, tag=tag or self.default_tag, quiet=quiet)
