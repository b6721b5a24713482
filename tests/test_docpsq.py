"""PSQ over translated documents (clirkit.docpsq) and the smoothed query likelihood (clirkit.retrieval.lm): the projection
and its pruning by hand, LM scores against the query likelihood by hand, one-to-one tables giving monolingual
BM25 from either side, the projected index's file, the resources that train the reverse table, the runner and
the command."""

from __future__ import annotations

import math

import numpy as np
import pytest

from clirkit.analysis import Analyzer
from clirkit.cli import main
from clirkit.docpsq import ProjectedIndex, background, project, read_counts, translated
from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.psq import prepare_table
from clirkit.retrieval.bm25 import BM25
from clirkit.retrieval.lm import QueryLikelihood
from clirkit.retrieval.query import StructuredQueries
from clirkit.systems import DT, PSQ
from clirkit.translation import TranslationTable, interpolate, load_table, save_table

# Spanish -> English p(e|f), the reverse of a query-side table
REVERSE = TranslationTable.from_triples(
    ["luz", "luz", "luz", "dios", "dios", "la", "tinieblas"],
    ["light", "lamp", "fire", "god", "gods", "the", "darkness"],
    [0.6, 0.3, 0.1, 0.9, 0.1, 1.0, 1.0],
    params={"source_lang": "es", "target_lang": "en"},
)
IDENTITY = ["dios", "luz", "tinieblas", "aguas", "la", "y", "tierra"]  # es words -> English words one to one
ENGLISH = ["god", "light", "darkness", "waters", "the", "and", "earth"]
# King James Version, Genesis 1:1-8 and John 1:1, 1:5: the English of the fixture's verses (public domain)
GENESIS_EN = {
    "Gen.1.1": "In the beginning God created the heaven and the earth.",
    "Gen.1.2": "And the earth was without form, and void; and darkness was upon the face of the deep. And the Spirit "
    "of God moved upon the face of the waters.",
    "Gen.1.3": "And God said, Let there be light: and there was light.",
    "Gen.1.4": "And God saw the light, that it was good: and God divided the light from the darkness.",
    "Gen.1.5": "And God called the light Day, and the darkness he called Night. And the evening and the morning were "
    "the first day.",
    "Gen.1.6": "And God said, Let there be a firmament in the midst of the waters, and let it divide the waters from "
    "the waters.",
    "Gen.1.7": "And God made the firmament, and divided the waters which were under the firmament from the waters "
    "which were above the firmament: and it was so.",
    "Gen.1.8": "And God called the firmament Heaven. And the evening and the morning were the second day.",
    "John.1.1": "In the beginning was the Word, and the Word was with God, and the Word was God.",
    "John.1.5": "And the light shineth in darkness; and the darkness comprehended it not.",
}


def counts(index, docid: str) -> dict[str, float]:
    col = index.tf[:, int(np.searchsorted(index.docids, docid))].tocoo()
    return {str(index.terms[r]): float(v) for r, v in zip(col.row, col.data)}


def test_projection_by_hand_with_the_pruning_of_query_side_psq(index):
    # L .2 drops fire (.1) and gods (.1); C .95: light .6 then lamp (.6 before it) kept; rows renormalized
    pruned = prepare_table(REVERSE, min_prob=0.2, cumulative=0.95)
    projected = project(index, pruned)
    # Gen.1.3 "Y dijo Dios: Sea la luz: y fué la luz.": y 2, dijo, dios, sea, la 2, luz 2, fué
    assert counts(projected, "Gen.1.3") == pytest.approx(
        {
            "light": 2 * 0.6 / 0.9,
            "lamp": 2 * 0.3 / 0.9,
            "god": 1.0,
            "the": 2.0,
            "y": 2.0,
            "dijo": 1.0,
            "sea": 1.0,
            "fué": 1.0,
        }
    )  # words the table lacks pass through
    assert projected.doc_lengths[2] == pytest.approx(index.doc_lengths[2])  # rows sum to 1: every token kept
    assert projected.source_lengths.tolist() == index.doc_lengths.tolist()
    assert projected.analyzer.lang == "en" and list(projected.terms) == sorted(projected.terms)


def test_unknown_drop_and_pruned_stopwords_leave_only_translated_mass(index):
    pruned = prepare_table(REVERSE, min_prob=0.2, cumulative=0.95, target_stopwords=["the"])
    projected = project(index, pruned, unknown="drop")
    assert counts(projected, "Gen.1.3") == pytest.approx({"light": 2 * 0.6 / 0.9, "lamp": 2 * 0.3 / 0.9, "god": 1.0})
    assert projected.doc_lengths[2] == pytest.approx(3.0)  # luz 2 + dios 1: la emptied, the unknown words dropped
    assert projected.df[projected.vocabulary["light"]] == 4  # the verses holding luz


def test_cumulative_keeps_the_crossing_option_and_max_options_cuts_after_it(index):
    table = TranslationTable.from_triples(
        ["luz"] * 3, ["light", "lamp", "fire"], [0.5, 0.3, 0.2], params={"source_lang": "es", "target_lang": "en"}
    )
    keep = lambda **kw: set(project(index, prepare_table(table, **kw), unknown="drop").terms.tolist())  # noqa: E731
    assert keep(min_prob=0.0, cumulative=0.7) == {"light", "lamp"}  # .5 < .7, lamp crosses it: kept
    assert keep(min_prob=0.0, cumulative=0.95, max_options=1) == {"light"}


def test_lm_scores_are_the_query_likelihood_by_hand(index):
    alpha = 0.3
    lm = QueryLikelihood(index, background("collection", index), alpha=alpha)
    query = ["luz", "tinieblas", "luz"]
    run = lm.search(StructuredQueries.from_tokens(["q"], [query], index.vocabulary), depth=100)
    cf = {t: float(index.tf[i].sum()) for t, i in index.vocabulary.items()}
    total = sum(cf.values())
    for docid, score in zip(run.docids.tolist(), run.scores.tolist()):
        tf, length = counts(index, docid), index.doc_lengths[int(np.searchsorted(index.docids, docid))]
        # log P(q|d) with the mixture, less the part that does not depend on d: sum log(alpha p_bg)
        likelihood = sum(math.log((1 - alpha) * tf.get(t, 0) / length + alpha * cf[t] / total) for t in query)
        assert score == pytest.approx(likelihood - sum(math.log(alpha * cf[t] / total) for t in query))
    holding = {d for d in index.docids.tolist() if {"luz", "tinieblas"} & set(counts(index, d))}
    assert set(run.docids.tolist()) == holding


def test_lm_over_a_translated_query_mixes_the_options_by_hand(index):
    alpha = 0.1
    table = TranslationTable.from_triples(["light", "light"], ["luz", "día"], [0.75, 0.25])
    system = PSQ(scoring="lm", alpha=alpha, min_prob=0.0, source_lang="en").fit(Resources(index=index, table=table))
    run = system.search({"q": "light"})
    cf = {t: float(index.tf[i].sum()) for t, i in index.vocabulary.items()}
    total = sum(cf.values())
    p_bg = (0.75 * cf["luz"] + 0.25 * cf["día"]) / total
    for docid, score in zip(run.docids.tolist(), run.scores.tolist()):
        tf, length = counts(index, docid), index.doc_lengths[int(np.searchsorted(index.docids, docid))]
        p = (0.75 * tf.get("luz", 0) + 0.25 * tf.get("día", 0)) / length
        assert score == pytest.approx(math.log1p((1 - alpha) * p / (alpha * p_bg)))


def test_a_one_to_one_table_gives_monolingual_bm25_from_either_side(index):
    forward = TranslationTable.from_triples(ENGLISH, IDENTITY, [1.0] * 7)
    reverse = TranslationTable.from_triples(IDENTITY, ENGLISH, [1.0] * 7)
    english = {"q1": "light darkness", "q2": "god waters earth"}
    spanish = [["luz", "tinieblas"], ["dios", "aguas", "tierra"]]
    mono = BM25(index).search(StructuredQueries.from_tokens(["q1", "q2"], spanish, index.vocabulary), tag="PSQ")
    for side, given in (("queries", {"table": forward}), ("documents", {"reverse_table": reverse})):
        run = PSQ(translate=side, scoring="bm25", source_lang="en").fit(Resources(index=index, **given)).search(english)
        assert run.qids.tolist() == mono.qids.tolist() and run.docids.tolist() == mono.docids.tolist(), side
        np.testing.assert_allclose(run.scores, mono.scores, rtol=1e-12)


def test_the_projected_index_file_is_byte_identical_and_memory_mappable(index, tmp_path):
    projected = project(index, prepare_table(REVERSE, min_prob=0.2))
    projected.save(tmp_path / "a.npz")
    project(index, prepare_table(REVERSE, min_prob=0.2)).save(tmp_path / "b.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    for mmap in (False, True):
        loaded = ProjectedIndex.load(tmp_path / "a.npz", mmap=mmap)
        assert loaded.lazy is mmap and loaded.translation["unknown"] == "pass"
        queries = StructuredQueries.from_tokens(["q"], [["light", "god"]], loaded.vocabulary)
        assert BM25(loaded).search(queries).scores.tolist() == BM25(projected).search(queries).scores.tolist()


def test_an_edited_projected_index_is_refused_naming_the_command_that_makes_one(index, tmp_path, tamper):
    projected = project(index, prepare_table(REVERSE, min_prob=0.2))
    projected.save(tmp_path / "a.npz")
    negative = projected.tf.data.copy()
    negative[2] = -1.0
    remedy = "; translate the documents again with `clirkit psq --save-index`$"
    bad = tamper(tmp_path / "a.npz", tmp_path / "bad.npz", tf_data=negative)
    with pytest.raises(
        ClirkitError, match=rf"bad.npz: corrupt projected-index: tf_data has -1.0 at 2, which is not > 0{remedy}"
    ):
        ProjectedIndex.load(bad)
    lazy = ProjectedIndex.load(bad, mmap=True)  # the counts of a memory-mapped index: checked when first read
    with pytest.raises(ClirkitError, match=rf"tf_data of row \d+ has a value that is not > 0{remedy}"):
        lazy.check_rows(np.arange(lazy.n_terms))


def test_a_projected_index_whose_source_lengths_were_edited_is_refused(index, tmp_path, tamper):
    projected = project(index, prepare_table(REVERSE, min_prob=0.2))
    projected.save(tmp_path / "a.npz")
    assert projected.translation["source_stats"]["n_tokens"] == int(index.doc_lengths.sum())
    longer, half = projected.source_lengths.copy(), projected.source_lengths.copy()
    longer[0] *= 4
    half[1] += 0.5
    for lengths, problem in (
        (longer, r"source_lengths sums to \d+ but the header's translation.source_stats.n_tokens is \d+;"),
        (half, r"source_lengths has \d+\.5 at 1: a document's own length is a whole number of tokens;"),
    ):
        bad = tamper(tmp_path / "a.npz", tmp_path / "bad.npz", source_lengths=lengths)
        for mmap in (False, True):
            with pytest.raises(ClirkitError, match=rf"bad.npz: corrupt projected-index: {problem}"):
                ProjectedIndex.load(bad, mmap=mmap)


def test_a_projected_index_is_searched_only_with_the_settings_that_made_it(index):
    made = translated(index, REVERSE, min_prob=0.2, cumulative=0.95, max_options=None)
    searched = PSQ(translate="documents", min_prob=0.2, cumulative=0.95, max_options=None).fit(Resources(index=made))
    assert searched.search({"q": "light"}).docids.size == 4
    assert Resources(index=made).translates_documents()  # an index translated before is document-side data
    with pytest.raises(ClirkitError, match=r"translated with other settings: .*min_prob 0.2 \(asked: 0.0001\)"):
        PSQ().fit(Resources(index=made))  # auto: an index translated before is searched translating the documents


def test_a_table_in_the_queries_direction_is_refused_with_what_to_do(index):
    forward = TranslationTable.from_triples(
        ["light"], ["luz"], [1.0], params={"source_lang": "en", "target_lang": "es"}
    )
    with pytest.raises(ClirkitError, match="this one translates 'en' -> 'es' .the queries' direction"):
        PSQ(translate="documents").fit(Resources(index=index, reverse_table=forward))
    with pytest.raises(ClirkitError, match=r"mode \(--mode\): for translate = queries only \(--translate queries"):
        PSQ(translate="documents", mode="pirkola").fit(
            Resources(index=index, reverse_table=REVERSE, reverse_table2=REVERSE)
        )
    with pytest.raises(ClirkitError, match="background = 'x.cnt': a model of query-language words"):
        PSQ(scoring="lm", background="x.cnt").fit(Resources(index=index, table=forward))


def test_auto_translates_the_documents_given_a_table_from_the_index_language_with_their_defaults(index):
    forward = TranslationTable.from_triples(
        ["light", "darkness"], ["luz", "tinieblas"], [1.0, 1.0], params={"source_lang": "en", "target_lang": "es"}
    )
    psq = PSQ(source_lang="en").fit(Resources(index=index, reverse_table=REVERSE))
    assert type(psq.system_).__name__ == "DocPSQ"
    assert (psq.translate_, *settings(psq.system_)) == (
        "documents",
        1e-4,
        0.99,
        64,
        "lm",
    )
    explicit = PSQ(
        translate="documents", scoring="lm", min_prob=1e-4, cumulative=0.99, max_options=64, source_lang="en"
    ).fit(Resources(index=index, reverse_table=REVERSE))
    topics = {"q1": "light and darkness", "q2": "the light of god"}
    assert psq.search(topics).scores.tolist() == explicit.search(topics).scores.tolist()
    psq = PSQ().fit(
        Resources(index=index, table=forward)
    )  # a table into the index's language: the queries, PSQ's own pruning
    assert type(psq.system_).__name__ == "QueryPSQ"
    assert (psq.translate_, *settings(psq.system_)) == (
        "queries",
        0.1,
        0.95,
        None,
        "bm25",
    )
    second = TranslationTable.from_triples(["light"], ["luz"], [1.0], params=forward.params)
    assert (
        PSQ().fit(Resources(index=index, table=forward, table2=second)).translate_ == "queries"
    )  # a second table: the query side's
    assert (
        PSQ(target_stopwords_top=5).fit(Resources(index=index, table=forward)).translate_ == "queries"
    )  # a query-side-only parameter
    with pytest.raises(
        ClirkitError,
        match=r"translates into 'en' but .*: .* target_stopwords_top .* applies to translating the queries",
    ):
        PSQ(target_stopwords_top=5, source_lang="en").fit(
            Resources(index=index, table=REVERSE)
        )  # ... chooses the queries' side
    with pytest.raises(
        ClirkitError, match=r"target_stopwords_top \(--target-stopwords-top\): for translate = queries only"
    ):
        PSQ(translate="documents", target_stopwords_top=5, source_lang="en").fit(
            Resources(index=index, reverse_table=REVERSE)
        )
    # a value given is kept on either side
    assert (
        PSQ(min_prob=0.3, scoring="bm25", source_lang="en")
        .fit(Resources(index=index, reverse_table=REVERSE))
        .system_.min_prob
        == 0.3
    )


def settings(system) -> tuple:
    """The pruning and scoring of a fitted PSQ's side system."""
    return system.min_prob, system.cumulative, system.max_options, system.scoring


def test_a_second_reverse_table_is_interpolated_with_the_first_and_the_documents_translated_through_both(
    index, tmp_path
):
    """Resources(reverse_table=reverse, reverse_table2=reverse2): the documents translated through lam * reverse +
    (1 - lam) * reverse2 (a
    corpus's table and a dictionary read the other way), as through that table made first; the translated index
    saved is searched again only with the same weight; a second table in the queries' direction is named as the
    second."""
    from clirkit.tablefit import SecondTableMismatch

    second = TranslationTable.from_triples(
        ["luz", "luz", "tierra", "aguas"],
        ["light", "day", "earth", "waters"],
        [0.5, 0.5, 1.0, 1.0],
        params={"source_lang": "es", "target_lang": "en"},
    )
    topics = {"q1": "light and darkness", "q2": "the day of god", "q3": "earth and waters"}
    for lam in (0.5, 0.3):
        both = PSQ(source_lang="en", lam=lam).fit(Resources(index=index, reverse_table=REVERSE, reverse_table2=second))
        assert both.translate_ == "documents"
        made = PSQ(source_lang="en").fit(Resources(index=index, reverse_table=interpolate(REVERSE, second, lam)))
        a, b = both.search(topics), made.search(topics)
        assert a.docids.tolist() == b.docids.tolist() and a.scores.tolist() == b.scores.tolist()
    both.index_.save(tmp_path / "tix.npz")  # translated with lam .3: searched again only with lam .3
    again = (
        PSQ(source_lang="en", lam=0.3).fit(Resources(index=ProjectedIndex.load(tmp_path / "tix.npz"))).search(topics)
    )
    assert again.docids.tolist() == a.docids.tolist() and again.scores.tolist() == a.scores.tolist()
    with pytest.raises(ClirkitError, match=r"other settings: lambda 0.3 \(asked: 0.9\)"):
        PSQ(source_lang="en", lam=0.9).fit(Resources(index=ProjectedIndex.load(tmp_path / "tix.npz")))
    alone = PSQ(source_lang="en").fit(Resources(index=index, reverse_table=REVERSE)).search(topics)
    assert (alone.qids.tolist(), alone.scores.tolist()) != (a.qids.tolist(), a.scores.tolist())
    forward = TranslationTable.from_triples(
        ["light"], ["luz"], [1.0], params={"source_lang": "en", "target_lang": "es"}
    )
    with pytest.raises(SecondTableMismatch, match="this one translates 'en' -> 'es' .the queries' direction"):
        PSQ(translate="documents", source_lang="en").fit(
            Resources(index=index, reverse_table=REVERSE, reverse_table2=forward)
        )
    unstemmed = TranslationTable.from_triples(
        ["luz"],
        ["Light"],
        [1.0],
        params={
            "source_lang": "es",
            "target_lang": "en",
            "target_analyzer": {**Analyzer("en").to_dict(), "stemmer": None, "lowercase": False},
        },
    )
    with pytest.raises(SecondTableMismatch, match="query-language words were analyzed as en, no stemming, case kept"):
        PSQ(translate="documents", source_lang="en").fit(
            Resources(index=index, reverse_table=REVERSE, reverse_table2=unstemmed)
        )
    # the resources' second table is the query side's: translating the documents with it is an error, not a
    # silent drop
    with pytest.raises(ClirkitError, match="table2: the resources' second table is the query side's"):
        PSQ(source_lang="en").fit(Resources(index=index, reverse_table=REVERSE, table2=second))


def test_a_table_without_languages_is_placed_by_its_words_and_a_wrong_direction_is_an_error(index):
    # Moses or plain-pair files say no language: their words say which side is the index's (clirkit psq --table)
    from clirkit.tablefit import side_of

    reverse = TranslationTable.from_triples(["luz", "dios", "tinieblas"], ["light", "god", "darkness"], [1.0] * 3)
    forward = TranslationTable.from_triples(["light", "god", "darkness"], ["luz", "dios", "tinieblas"], [1.0] * 3)
    assert side_of(index, reverse, None) == "documents" and side_of(index, forward, None) == "queries"
    assert PSQ(source_lang="en").fit(Resources(index=index, reverse_table=reverse)).translate_ == "documents"
    assert PSQ(source_lang="en").fit(Resources(index=index, table=forward)).translate_ == "queries"
    topics = {"q": "light"}
    assert PSQ(source_lang="en").fit(Resources(index=index, reverse_table=reverse)).search(topics).docids.size > 0
    with pytest.raises(ClirkitError, match="translates into the documents' language .the queries' direction."):
        PSQ(translate="documents", source_lang="en").fit(Resources(index=index, reverse_table=forward))
    with pytest.raises(ClirkitError, match="it translates from the documents' language; translate the documents"):
        PSQ(translate="queries", source_lang="en").fit(Resources(index=index, table=reverse))
    with pytest.raises(ClirkitError, match="it translates from the documents' language"):
        DT(source_lang="en").fit(Resources(index=index, table=reverse))
    with pytest.raises(ClirkitError, match="it translates from the documents' language; translate the documents"):
        PSQ(source_lang="en").fit(Resources(index=index, table=reverse))  # in Python, a table's role is its keyword
    shared = TranslationTable.from_triples(["luz", "god"], ["light", "dios"], [1.0, 1.0])  # one word each: no sign
    assert side_of(index, shared, None) == "queries"
    assert PSQ(source_lang="en").fit(Resources(index=index, table=shared)).translate_ == "queries"


def test_resources_translate_the_documents_when_given_a_reverse_table(index):
    """Resources hold data only: the documents are translated when a reverse table is given (the experiment
    runner's resources train one on the collection's parallel corpus: the next tests); a parallel corpus alone
    trains nothing."""
    parallel = (["the light"], ["la luz"])
    assert Resources(index=index, reverse_table=REVERSE).translates_documents()
    assert not Resources(index=index, parallel=parallel).translates_documents()
    assert not Resources(index=index, table=REVERSE).translates_documents()  # a table given: the queries'
    assert not Resources(index=index, table2=REVERSE, parallel=parallel).translates_documents()  # interpolated
    assert not Resources(index=index).translates_documents()
    given = Resources(index=index, reverse_table=REVERSE, parallel=parallel)
    assert PSQ().side(given) == "documents"
    assert PSQ(translate="queries").side(given) == "queries"
    assert PSQ(mode="pirkola").side(given) == "queries"
    with pytest.raises(ClirkitError, match="the resources have no reverse table .give reverse_table="):
        PSQ(translate="documents").fit(Resources(index=index, parallel=parallel))


def test_a_count_file_background_is_the_references_add_one_estimate(index, tmp_path):
    path = tmp_path / "en.cnt"
    path.write_text("6 light\n3 Lights\n1 god\n", encoding="utf-8")
    projected = project(index, prepare_table(REVERSE, min_prob=0.2))
    p_bg = background(str(path), projected)
    assert p_bg[projected.vocabulary["light"]] == pytest.approx((1 + 6) / (1 + 10))  # Lights is not light unstemmed
    assert p_bg[projected.vocabulary["lamp"]] == pytest.approx(1 / 11)
    assert read_counts(path, Analyzer("en"))[0]["light"] == 9  # stemmed: light and Lights share the count
    path.write_text("6 light\nmany lights\n", encoding="utf-8")
    with pytest.raises(ClirkitError, match=r"en.cnt:2: expected COUNT TOKEN"):
        background(str(path), projected)


def test_the_resources_reverse_table_and_parallel_background(index, verses_es):
    from clirkit.translation import train_table

    ids = sorted(verses_es)
    english, spanish = [GENESIS_EN[d] for d in ids], [verses_es[d] for d in ids]
    en, es = Analyzer("en"), index.analyzer
    reverse = train_table(es.tokenize_many(spanish), en.tokenize_many(english), es, en)
    resources = Resources(index=index, reverse_table=reverse, parallel=(english, spanish), source_lang="en")
    system = PSQ(translate="documents", scoring="lm", background="parallel").fit(resources)
    assert resources.reverse_table() is system.table_ is reverse
    assert system.index_.analyzer.lang == "en" and system.search({"q": "the light"}).docids.size > 0
    assert system.inputs(resources) == {"index": {}, "reverse_table": {}}


EXPERIMENT = """collection = "{mini}"
measures = ["AP"]
[systems.PSQ-docs]
kind = "psq"
translate = "documents"
[systems.PSQ-docs-lm]
kind = "psq"
translate = "documents"
scoring = "lm"
background = "parallel"
[systems.Boost-docs]
kind = "boost"
base = "PSQ-docs"
rounds = 10
eval_every = 5
[fusions."docs+lm"]
systems = ["PSQ-docs", "PSQ-docs-lm"]
weights = [0.5, 0.5]
"""


def test_the_runner_trains_the_reverse_table_and_the_command_gives_the_same_run(mini, tmp_path):
    """The runner trains the reverse table on the collection's parallel corpus; a boosted ranker and a fusion
    take document-side systems as their base and members; the command gives the runner's run."""
    from clirkit import datasets
    from clirkit.experiment import Experiment, run_experiment
    from clirkit.formats import read_run, write_run
    from clirkit.translation import train_table

    path = tmp_path / "docs.toml"
    path.write_text(EXPERIMENT.format(mini=mini), encoding="utf-8")
    run_experiment(Experiment.read(path), tmp_path / "out", quiet=True)
    runs = sorted((tmp_path / "out").rglob("psq-docs.test.run.gz"))
    made = sorted(p.name for p in (tmp_path / "out").rglob("*.test.run.gz"))
    assert runs and {"boost-docs.test.run.gz", "docs_lm.test.run.gz"} <= set(made), made
    kept = (tmp_path / "out" / "table.reverse.npz").read_bytes()
    import clirkit.translation

    def trained_again(*args, **kwargs):
        raise AssertionError("a table was trained again")

    original, clirkit.translation.train_table = clirkit.translation.train_table, trained_again
    try:  # a rerun reads the kept tables back, and gives the same runs
        run_experiment(Experiment.read(path), tmp_path / "out", quiet=True)
    finally:
        clirkit.translation.train_table = original
    assert (tmp_path / "out" / "table.reverse.npz").read_bytes() == kept
    c = datasets.load(str(mini))
    source, target = c.parallel()
    en, es = Analyzer("en"), Analyzer("es")
    save_table(train_table(es.tokenize_many(target), en.tokenize_many(source), es, en), tmp_path / "rev.npz")
    docs = tmp_path / "docs.tsv"
    docs.write_text("".join(f"{d}\t{t}\n" for d, t in zip(*c.documents())), encoding="utf-8")
    queries = tmp_path / "q.tsv"
    queries.write_text("".join(f"{q}\t{t}\n" for q, t in c.queries("test").items()), encoding="utf-8")
    assert main(["index", str(docs), "--lang", "es", "-o", str(tmp_path / "ix.npz"), "-q"]) == 0
    assert (
        main(
            [
                "psq",
                "--translate",
                "documents",
                "--table",
                str(tmp_path / "rev.npz"),
                "--index",
                str(tmp_path / "ix.npz"),
                "--queries",
                str(queries),
                "--tag",
                "PSQ-docs",
                "-o",
                str(tmp_path / "cli.run"),
                "-q",
            ]
        )
        == 0
    )
    write_run(read_run(str(runs[0])), tmp_path / "runner.run")
    assert (tmp_path / "cli.run").read_bytes() == (tmp_path / "runner.run").read_bytes()


def test_command_round_trip_through_a_saved_translated_index(indexed_dir, verses_es, capsys):
    d = indexed_dir
    ids = sorted(verses_es)
    (d / "en.txt").write_text("".join(GENESIS_EN[i] + "\n" for i in ids), encoding="utf-8")
    (d / "es.txt").write_text("".join(verses_es[i] + "\n" for i in ids), encoding="utf-8")
    (d / "q.tsv").write_text("q1\tlight and darkness\nq2\tthe waters\n", encoding="utf-8")
    for src, tgt, out in (("es", "en", "rev.npz"), ("en", "es", "fwd.npz")):
        assert (
            main(
                [
                    "ttable",
                    "train",
                    "--source",
                    str(d / f"{src}.txt"),
                    "--target",
                    str(d / f"{tgt}.txt"),
                    "--source-lang",
                    src,
                    "--target-lang",
                    tgt,
                    "-o",
                    str(d / out),
                    "-q",
                ]
            )
            == 0
        )
    common = ["psq", "--translate", "documents", "--queries", str(d / "q.tsv"), "-q"]
    assert (
        main(
            common
            + [
                "--table",
                str(d / "rev.npz"),
                "--index",
                str(d / "ix.npz"),
                "--save-index",
                str(d / "tix.npz"),
                "-o",
                str(d / "a.run"),
            ]
        )
        == 0
    )
    assert main(common + ["--index", str(d / "tix.npz"), "--mmap", "-o", str(d / "b.run")]) == 0
    assert (d / "a.run").read_bytes() == (d / "b.run").read_bytes() and (d / "a.run").stat().st_size > 0
    # the translated index alone: no queries, no run
    assert (
        main(
            [
                "psq",
                "--table",
                str(d / "rev.npz"),
                "--index",
                str(d / "ix.npz"),
                "--save-index",
                str(d / "only.npz"),
                "-q",
            ]
        )
        == 0
    )
    assert (d / "only.npz").read_bytes() == (d / "tix.npz").read_bytes()
    for missing in (["--queries", str(d / "q.tsv")], ["-o", str(d / "y.run")], []):
        assert main(["psq", "--table", str(d / "rev.npz"), "--index", str(d / "ix.npz"), "-q", *missing]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "required" in err and not (d / "y.run").exists()
    auto = ["psq", "--queries", str(d / "q.tsv"), "-q", "--index", str(d / "ix.npz")]  # --translate auto
    assert main(auto + ["--table", str(d / "rev.npz"), "-o", str(d / "auto.run")]) == 0
    assert (d / "auto.run").read_bytes() == (d / "a.run").read_bytes()
    assert main(auto + ["--table", str(d / "fwd.npz"), "-o", str(d / "q.run")]) == 0  # the queries' table
    assert main(auto + ["--table", str(d / "fwd.npz"), "--translate", "queries", "-o", str(d / "q2.run")]) == 0
    assert (d / "q.run").read_bytes() == (d / "q2.run").read_bytes() != (d / "a.run").read_bytes()
    assert main(common + ["--scoring", "lm", "--index", str(d / "tix.npz"), "-o", str(d / "c.run")]) == 0
    # a second reverse table (here IBM Model 1 after one iteration): the documents translated through both, as
    # through the interpolated table made first
    assert (
        main(
            [
                "ttable",
                "train",
                "--source",
                str(d / "es.txt"),
                "--target",
                str(d / "en.txt"),
                "--source-lang",
                "es",
                "--target-lang",
                "en",
                "--iterations",
                "1",
                "-o",
                str(d / "rev1.npz"),
                "-q",
            ]
        )
        == 0
    )
    save_table(interpolate(load_table(str(d / "rev.npz")), load_table(str(d / "rev1.npz")), 0.3), str(d / "i.npz"))
    assert (
        main(
            auto
            + [
                "--table",
                str(d / "rev.npz"),
                "--table2",
                str(d / "rev1.npz"),
                "--lambda",
                "0.3",
                "-o",
                str(d / "two.run"),
            ]
        )
        == 0
    )
    assert main(auto + ["--table", str(d / "i.npz"), "-o", str(d / "made.run")]) == 0
    assert (d / "two.run").read_bytes() == (d / "made.run").read_bytes() != (d / "auto.run").read_bytes()
    capsys.readouterr()
    assert main(auto + ["--table", str(d / "rev.npz"), "--table2", str(d / "fwd.npz"), "-o", str(d / "x.run")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"error: {d / 'fwd.npz'}: " in err and "the queries' direction" in err
    capsys.readouterr()
    assert main(common + ["--table", str(d / "fwd.npz"), "--index", str(d / "ix.npz"), "-o", str(d / "x.run")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the queries' direction" in err and f"error: {d / 'fwd.npz'}: " in err
    assert (
        main(
            [
                "dt",
                "--queries",
                str(d / "q.tsv"),
                "--table",
                str(d / "rev.npz"),
                "--index",
                str(d / "ix.npz"),
                "-o",
                str(d / "x.run"),
                "-q",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"error: {d / 'rev.npz'}: the table translates into 'en'" in err
    assert main(common + ["--index", str(d / "tix.npz"), "--min-prob", "0.2", "-o", str(d / "x.run")]) == 2
    assert "translated with other settings" in capsys.readouterr().err


def test_the_reference_implementations_table_format_translates_the_documents(tmp_path, verses_es, capsys):
    docs = tmp_path / "docs.tsv"
    docs.write_text("".join(f"{d}\t{t}\n" for d, t in verses_es.items()), encoding="utf-8")
    assert main(["index", str(docs), "--lang", "es", "--stemmer", "none", "-o", str(tmp_path / "ix.npz"), "-q"]) == 0
    # fast-psq's .json(.gz): document word -> query word -> p
    (tmp_path / "t.json").write_text(
        '{"luz": {"light": 0.75, "lamp": 0.25}, "tinieblas": {"darkness": 1.0}}', encoding="utf-8"
    )
    (tmp_path / "q.tsv").write_text("q1\tlamp\n", encoding="utf-8")
    assert (
        main(
            [
                "psq",
                "--translate",
                "documents",
                "--table",
                str(tmp_path / "t.json"),
                "--source-lang",
                "en",
                "--index",
                str(tmp_path / "ix.npz"),
                "--queries",
                str(tmp_path / "q.tsv"),
                "--min-prob",
                "0.2",
                "-o",
                str(tmp_path / "r.run"),
                "-q",
            ]
        )
        == 0
    )
    found = {line.split()[2] for line in (tmp_path / "r.run").read_text().splitlines()}
    assert found == {d for d, t in verses_es.items() if " luz" in t.lower()}


def test_load_index_opens_a_translated_index_in_one_file(index, tmp_path):
    from clirkit.docpsq import ProjectedIndex
    from clirkit.retrieval.shards import load_index

    table = TranslationTable.from_triples(
        ["luz", "dios"], ["light", "god"], [1.0, 1.0], params={"source_lang": "es", "target_lang": "en"}
    )
    projected = project(index, prepare_table(table, min_prob=0.0, cumulative=1.0), unknown="drop")
    projected.save(tmp_path / "t.npz")
    loaded = load_index(tmp_path / "t.npz")  # was: "it holds a 'projected-index'"
    assert type(loaded) is ProjectedIndex and loaded.terms.tolist() == projected.terms.tolist()
    assert np.array_equal(loaded.source_lengths, projected.source_lengths)
