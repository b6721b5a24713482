"""The systems: every way clirkit makes a run, with one set of defaults each (DESIGN.md, "Systems and
experiments").

- :class:`BM25Search`: BM25 with the queries untranslated, analyzed as the index (``clirkit search``);
- :class:`DT`: each query word -> its most probable translation, then BM25 (SPEC §3);
- :class:`PSQ` (:mod:`clirkit.psqsystem`): each query word -> p(e|f) over target words, BM25 with fractional
  tf/df (SPEC §4), or the documents translated into the queries' language: it chooses the side at ``fit`` and
  fits :class:`QueryPSQ` or :class:`DocPSQ`, the two sides as systems of their own, each with its defaults;
- :class:`Boost` (:class:`clirkit.boost.BoostRanker`): the boosted bilinear ranker, standalone or
  boosted from a base system (SPEC §5);
- :class:`SCS` (:class:`clirkit.scs.SCSModel`): the smooth-cosine neural model;
- :class:`Fusion`: interpolation (weights tuned on dev) or Borda of systems' runs (SPEC §6);
- :class:`RunFile` (:mod:`clirkit.runsystem`): a run made elsewhere (a Run, a DataFrame, a run file) as a system, e.g.
  a boosted ranker's base or a fusion's member.

DT and PSQ learn nothing themselves: ``fit(Resources(index=..., table=...))`` (``fit(resources)``, the one call
every system takes: :class:`clirkit.estimator.Resources`) binds them to a target index and a translation table
(:func:`clirkit.translation.train_table` learns one). The query analyzer is the
table's source-side analyzer (Snowball stemming by default, no stopword list: :class:`clirkit.analysis.Analyzer`).
Two corpus-frequency stoplists are options, off by default: ``source_stopwords_top`` drops the N most
frequent source terms of the table's training corpus from the queries (recorded in the table), and PSQ's
``target_stopwords_top`` drops the N most frequent index terms from the translation options. They were on
(N = 100) until measured across collection kinds: on the Bible they remove content words (tierra, rey,
israel), on short sentences the words that identify a sentence, on a small index every term
(``baselines/README.md``, "Defaults across collections"). A query whose every term a stoplist removes is
searched with all its terms (the number of such queries is said on stderr), never silently emptied.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from clirkit.bm25system import (  # noqa: F401 - STOPWORDS_TOP is read from here too
    BM25_CONSTRAINTS,
    SCORING_CONSTRAINTS,
    STOPWORDS_TOP,
    BM25System,
    CrossLanguageBM25,
)
from clirkit.docpsqsystem import DocPSQ
from clirkit.estimator import Resources, System, takes_resources
from clirkit.fusion.system import Fusion
from clirkit.psqsystem import PSQ
from clirkit.querypsq import QueryPSQ
from clirkit.runsystem import RunFile
from clirkit.tablefit import (  # noqa: F401 - query_analyzer, corpus_stopterms, side_of, ... are used from here too
    TableMismatch,
    as_table,
    check_index_side,
    check_languages,
    corpus_stopterms,
    describe_terms,
    query_analyzer,
    side_by_words,
    side_of,
    snowball_terms,
    table_language,
)

# Boost and SCS are given by the module's __getattr__ (imported on first use)
__all__ = [
    "BM25Search",
    "DT",
    "PSQ",
    "QueryPSQ",
    "DocPSQ",
    "Boost",  # noqa: F822
    "SCS",  # noqa: F822
    "Fusion",
    "RunFile",
    "Resources",
    "System",
    "query_analyzer",
]


class BM25Search(BM25System):
    """BM25 over the index with the queries as they are: analyzed by the index's own analyzer, untranslated (the
    system of ``clirkit search``). Over a target-language index it is the floor of a CLIR experiment (the words
    queries and documents share: names, numbers, cognates); over an index in the queries' language, monolingual
    retrieval.

    Args:
        k1, b, k3, idf, precision: BM25 (:class:`~clirkit.retrieval.bm25.BM25`), with its defaults.
    """

    _parameter_constraints = dict(SCORING_CONSTRAINTS)
    default_tag = "BM25"

    def fit(self, resources: Resources) -> "BM25Search":
        """Bind to the index of ``resources`` (:class:`~clirkit.estimator.Resources`: an Index or a
        :class:`~clirkit.retrieval.shards.ShardedIndex`); its analyzer becomes the query analyzer (``analyzer_``);
        returns self."""
        index = takes_resources(self, resources).index()  # (an index: a path given is opened by Resources)
        self.check_params()
        self.index_, self.analyzer_ = index, index.analyzer
        self.bm25_ = index.bm25(k1=self.k1, b=self.b, k3=self.k3, idf=self.idf, precision=self.precision)
        return self

    def inputs(self, resources: Resources) -> dict:
        """The index it is bound to."""
        record = resources.record("index")
        return {} if record is None else {"index": record}

    def query_tokens(self, topics: Mapping[str, str], *, quiet: bool = True) -> list[list[str]]:
        """The topics' texts tokenized by the index's analyzer, in topic order."""
        return self.analyzer_.tokenize_many(list(topics.values()), quiet=quiet)

    def structured_from_tokens(self, qids: Sequence[str], tokens: Sequence[Sequence[str]], *, quiet: bool = True):
        from clirkit.retrieval.query import StructuredQueries

        return StructuredQueries.from_tokens(list(qids), tokens, self.index_.vocabulary)


class DT(CrossLanguageBM25):
    """Direct translation: each query word -> its most probable target word in the table (a word with
    no translation passes through unchanged), then BM25 over the target index (SPEC §3).

    Args:
        k1, b, k3, idf, precision: BM25 (:class:`~clirkit.retrieval.bm25.BM25`).
        source_lang: the query language (None: the table's source analyzer).
        source_stopwords: extra source words to drop, or ``"snowball"`` (the Snowball list of the query language).
        source_stopwords_top: drop the N most frequent source words of the table's corpus.
        decompound: ``table``: a query word the table lacks is split into compound parts whose stems it has
            (:func:`clirkit.decompound.table_splitter`); ``auto`` (the default): so for German queries, chosen
            across collections (baselines/README.md: better with every resource on every German collection);
            ``none``: never.
    """

    _parameter_constraints = dict(BM25_CONSTRAINTS)
    default_tag = "DT"

    def fit(self, resources: Resources) -> "DT":
        """Bind to the target index of ``resources`` (:class:`~clirkit.estimator.Resources`: an Index or a
        :class:`~clirkit.retrieval.shards.ShardedIndex`) and its translation table p(e|f); returns self."""
        from clirkit.progress import say

        quiet = takes_resources(self, resources).quiet
        index = resources.index()
        table = as_table(resources.table(), index=index)
        self.table_ = table = self._bind(index, table, quiet)
        if table.params.get("model") == "dictionary":
            say(
                "note: DT keeps one translation of each query word; over a dictionary alone PSQ (clirkit psq, "
                "Pirkola's synonym sets) was better on 10 of 10 collections (baselines/README.md)",
                quiet=quiet,
            )
        return self

    def structured_from_tokens(self, qids: Sequence[str], tokens: Sequence[Sequence[str]], *, quiet: bool = True):
        from clirkit.dt import dt_queries

        return dt_queries(list(qids), tokens, self.table_, self.index_.vocabulary, frequency=self.index_.df)


def __getattr__(name: str):
    # Boost and SCS live in their packages; imported on first use so `import clirkit.systems` stays light
    if name == "Boost":
        from clirkit.boost import BoostRanker

        return BoostRanker
    if name == "SCS":
        from clirkit.scs import SCSModel

        return SCSModel
    raise AttributeError(f"module 'clirkit.systems' has no attribute {name!r}")
