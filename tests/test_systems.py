"""The system contract (clirkit.systems, clirkit.estimator): defaults in one place, parameter checks,
fusion tuned on dev, and the command line giving the library's runs byte for byte."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
from sklearn.base import clone

from clirkit.analysis import Analyzer
from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.estimator import drop_excluded
from clirkit.formats import read_run, write_run
from clirkit.fusion import interpolate
from clirkit.run import Qrels, Run
from clirkit.systems import DT, PSQ, BM25Search, Fusion, Resources, corpus_stopterms, query_analyzer
from clirkit.translation import TranslationTable, save_table

TABLE = TranslationTable.from_triples(
    ["light", "light", "god", "waters", "the", "the", "beginning"],
    ["luz", "la", "dios", "aguas", "la", "el", "principio"],
    [0.8, 0.2, 1.0, 1.0, 0.6, 0.4, 1.0],
    params={
        "source_analyzer": {"lang": "en", "lowercase": True, "strip_punctuation": True, "stopwords": []},
        "source_frequent": ["the", "of", "god"],
    },
)
TOPICS = {"q1": "the light of God", "q2": "God and the waters", "q3": "in the beginning"}


def kept_run(path) -> bytes:
    """The text of a run the experiment runner kept (``runs/NAME.SPLIT.run.gz``)."""
    return gzip.decompress(path.read_bytes())


def _run(rows, tag):
    q, d, s = zip(*rows)
    return Run(list(q), list(d), list(s), tag=tag)


def test_drop_excluded_removes_only_the_listed_pairs():
    run = _run([("q1", "Gen.1.1", 3.0), ("q1", "Gen.1.2", 2.0), ("q2", "Gen.1.1", 1.0)], "x")
    kept = drop_excluded(run, {"q1": {"Gen.1.1"}})
    assert list(zip(kept.qids, kept.docids)) == [("q1", "Gen.1.2"), ("q2", "Gen.1.1")]
    assert drop_excluded(run, {}) is run


def test_the_source_stoplist_drops_the_tables_most_frequent_source_words_when_asked(index):
    assert corpus_stopterms(TABLE, 2) == {"the", "of"} and corpus_stopterms(TABLE, 0) == frozenset()
    assert query_analyzer(TABLE).tokenize("The light of God") == ["the", "light", "of", "god"]
    assert query_analyzer(TABLE, stopwords=["light"]).tokenize("The light of God") == ["the", "of", "god"]

    def tokens(**params):
        return DT(**params).fit(Resources(index=index, table=TABLE)).query_tokens({"q": "The light of God"})

    assert tokens() == [["the", "light", "of", "god"]]  # off by default
    assert tokens(source_stopwords_top=2) == [["light", "god"]]
    assert tokens(source_stopwords_top=2, source_stopwords=["light"]) == [["god"]]


def test_the_source_stoplist_drops_analyzed_terms_after_the_tables_stemming_analyzer(index):
    # the table's corpus was analyzed with English Snowball stems, so its frequent list holds stems ("water")
    stemmed = TranslationTable.from_triples(
        ["light", "water"],
        ["luz", "aguas"],
        [1.0, 1.0],
        params={"source_analyzer": Analyzer("en").to_dict(), "source_frequent": ["water", "the"]},
    )
    dt = DT(source_stopwords_top=1).fit(Resources(index=index, table=stemmed))
    assert dt.query_tokens({"q": "the lights upon the waters"}) == [["the", "light", "upon", "the"]]


def test_systems_are_scikit_learn_estimators_with_one_set_of_defaults():
    psq = PSQ(k1=0.9)
    assert psq.get_params()["k1"] == 0.9 and psq.get_params()["target_stopwords_top"] == 0
    assert psq.get_params()["source_stopwords_top"] == DT().get_params()["source_stopwords_top"] == 0
    copy = clone(psq)
    assert copy is not psq and copy.get_params() == psq.get_params()
    assert DT().set_params(b=0.5).b == 0.5


@pytest.mark.parametrize(
    "params, message",
    [
        ({"k1": float("nan")}, "The 'k1' parameter of PSQ must be a float in the range [0.0, inf). Got nan instead."),
        ({"lam": 1.5}, "The 'lam' parameter of PSQ must be a float in the range [0.0, 1.0]. Got 1.5 instead."),
        ({"unknown": "keep"}, "The 'unknown' parameter of PSQ must be a str among"),
        (
            {"source_stopwords_top": -1},
            "The 'source_stopwords_top' parameter of PSQ must be an int in the range [0, inf)",
        ),
    ],
)
def test_fit_checks_every_parameter_naming_it_its_range_and_the_value(index, params, message):
    with pytest.raises(ClirkitError) as err:
        PSQ(**params).fit(Resources(index=index, table=TABLE))
    assert message in str(err.value)


def test_the_cli_option_is_named_in_a_parameter_error(indexed_dir, capsys):
    save_table(TABLE, indexed_dir / "t.npz")
    (indexed_dir / "q.tsv").write_text("q1\tlight\n", encoding="utf-8")
    assert (
        main(
            [
                "psq",
                "--index",
                str(indexed_dir / "ix.npz"),
                "--queries",
                str(indexed_dir / "q.tsv"),
                "--table",
                str(indexed_dir / "t.npz"),
                "-o",
                str(indexed_dir / "x.run"),
                "--k1",
                "-1",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.startswith("clirkit: error: --k1 (PSQ's k1) must be a float in the range [0.0, inf). Got -1.0")
    assert not (indexed_dir / "x.run").exists()


@pytest.mark.parametrize("verb, cls", [("dt", DT), ("psq", PSQ)])
def test_the_verb_writes_the_systems_run_byte_for_byte(indexed_dir, index, verb, cls, tmp_path):
    from clirkit.retrieval.index import Index

    save_table(TABLE, indexed_dir / "t.npz")
    (indexed_dir / "q.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in TOPICS.items()), encoding="utf-8")
    options = ["--target-stopwords-top", "3"] if verb == "psq" else []
    assert (
        main(
            [
                verb,
                "--index",
                str(indexed_dir / "ix.npz"),
                "--queries",
                str(indexed_dir / "q.tsv"),
                "--table",
                str(indexed_dir / "t.npz"),
                "-o",
                str(tmp_path / "cli.run"),
                "-q",
                "--source-stopwords-top",
                "2",
                *options,
            ]
        )
        == 0
    )
    params = {"target_stopwords_top": 3} if verb == "psq" else {}
    system = cls(source_stopwords_top=2, **params).fit(Resources(index=Index.load(indexed_dir / "ix.npz"), table=TABLE))
    write_run(system.search(TOPICS), tmp_path / "api.run")
    assert (tmp_path / "cli.run").read_bytes() == (tmp_path / "api.run").read_bytes()
    assert read_run(tmp_path / "cli.run").tag == verb.upper() and len(read_run(tmp_path / "cli.run")) > 0


def test_bm25search_scores_the_index_analyzers_terms_of_the_untranslated_query_by_the_bm25_formula(index):
    import math

    run = (
        BM25Search().fit(Resources(index=index)).search({"q": "La LUZ"})
    )  # "la": in every verse but Gen.1.6 and John.1.1 (df 8)
    lengths = dict(zip(index.docids.tolist(), np.asarray(index.doc_lengths, dtype=float).tolist()))
    n, avgdl = len(lengths), sum(lengths.values()) / len(lengths)

    def term(tf, df, dl):  # lucene idf, k1 = 1.2, b = 0.75, raw query tf
        return math.log(1 + (n - df + 0.5) / (df + 0.5)) * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * dl / avgdl))

    expected = term(2, 8, lengths["Gen.1.3"]) + term(2, 4, lengths["Gen.1.3"])  # "Sea la luz: y fué la luz."
    assert run.docids[0] == "Gen.1.3" and run.scores[0] == pytest.approx(expected, rel=1e-12)
    assert run.tag == "BM25" and sorted(run.docids) == sorted(set(lengths) - {"Gen.1.6", "John.1.1"})


def test_bm25search_has_the_engines_defaults_checks_them_and_fits_on_resources(index):
    from clirkit.retrieval import bm25

    assert BM25Search().get_params() == {
        "k1": bm25.K1,
        "b": bm25.B,
        "k3": bm25.K3,
        "idf": bm25.IDF,
        "precision": bm25.PRECISION,
    }
    with pytest.raises(
        ClirkitError,
        match=r"The 'b' parameter of BM25Search must be a float in the range "
        r"\[0.0, 1.0\]. Got 2 instead",
    ):
        BM25Search(b=2).fit(Resources(index=index))
    with pytest.raises(ClirkitError, match=r"^BM25Search is not fitted: call fit\(Resources\(index=...\)\) first$"):
        BM25Search().search("luz")
    with pytest.raises(ClirkitError, match=r"^DT is not fitted: call fit\(Resources\(index=..., table=...\)\) first$"):
        DT().search("luz")
    resources = Resources(index=index, topics={"test": {"q1": "la luz", "q2": "las aguas"}})
    fitted = BM25Search(k1=0.9).fit(resources)
    made, own = (
        fitted.search_split(resources, "test"),
        BM25Search(k1=0.9).fit(Resources(index=index)).search(resources.topics("test")),
    )
    assert made.docids.tolist() == own.docids.tolist() and np.array_equal(made.scores, own.scores)
    assert fitted.inputs(resources) == {"index": {}} and BM25Search().inputs(Resources()) == {}


def test_bm25search_is_the_search_verb_and_the_bm25_kind_byte_for_byte(mini, tmp_path):
    from clirkit import datasets
    from clirkit.experiment import Experiment, run_experiment
    from clirkit.retrieval.index import Index

    path = tmp_path / "bm25.toml"
    path.write_text(
        f'collection = "{mini}"\nmeasures = ["AP"]\n[systems.BM25]\nkind = "bm25"\nk1 = 0.9\n', encoding="utf-8"
    )
    run_experiment(Experiment.read(path), tmp_path / "out", quiet=True)
    topics = datasets.load(str(mini)).queries("test")
    (tmp_path / "q.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in topics.items()), encoding="utf-8")
    assert (
        main(
            [
                "search",
                "--index",
                str(tmp_path / "out" / "index.npz"),
                "--queries",
                str(tmp_path / "q.tsv"),
                "--k1",
                "0.9",
                "-o",
                str(tmp_path / "cli.run"),
                "-q",
            ]
        )
        == 0
    )
    write_run(
        BM25Search(k1=0.9).fit(Resources(index=Index.load(tmp_path / "out" / "index.npz"))).search(topics),
        tmp_path / "api.run",
    )
    made = kept_run(tmp_path / "out" / "runs" / "bm25.test.run.gz")
    assert made == (tmp_path / "cli.run").read_bytes() == (tmp_path / "api.run").read_bytes()
    assert len(read_run(tmp_path / "cli.run")) > 0 and read_run(tmp_path / "cli.run").tag == "BM25"


def test_search_leaves_out_the_excluded_documents(index):
    psq = PSQ(target_stopwords_top=0).fit(Resources(index=index, table=TABLE))
    whole = psq.search(TOPICS)
    first = whole.docids[whole.qids == "q1"][0]
    cut = psq.search(TOPICS, excluded={"q1": {first}})
    assert first not in cut.docids[cut.qids == "q1"] and len(cut) == len(whole) - 1


def test_fusion_tunes_weights_on_dev_and_shifts_a_negative_run():
    # dev: only the second (negative-scored) system finds the relevant document first
    dev_a = _run([("q1", "Gen.1.1", 2.0), ("q1", "Gen.1.2", 1.0)], "a")
    dev_b = _run([("q1", "Gen.1.2", -0.1), ("q1", "Gen.1.1", -0.9)], "b")
    test_a = _run([("q2", "John.1.1", 2.0), ("q2", "John.1.5", 1.0)], "a")
    test_b = _run([("q2", "John.1.5", -0.2), ("q2", "John.1.1", -0.5)], "b")
    fusion = Fusion([DT(), DT()], transform="auto").fit_runs([dev_a, dev_b], Qrels(["q1"], ["Gen.1.2"], [1]))
    assert fusion.dev_score_ == 1.0 and fusion.transforms_ == ["none", "shift"]
    assert fusion.weights_[0] < 0.5 and sum(fusion.weights_) == pytest.approx(1.0)
    fused = fusion.fuse([test_a, test_b], tag="a+b")
    expected = interpolate([test_a, test_b], fusion.weights_, transform=["none", "shift"], tag="a+b")
    assert fused.docids.tolist() == expected.docids.tolist() and np.array_equal(fused.scores, expected.scores)
    assert len(fusion.sweep_.scores) == 11 and fused.tag == "a+b"


def test_fusion_with_given_weights_does_not_tune():
    a = _run([("q1", "Gen.1.1", 2.0), ("q1", "Gen.1.2", 1.0)], "a")
    fusion = Fusion([DT(), DT()], weights=[0.3, 0.7]).fit_runs([a, a], Qrels(["q1"], ["Gen.1.2"], [1]))
    assert fusion.weights_ == [0.3, 0.7] and fusion.sweep_ is None and fusion.dev_score_ is None
    with pytest.raises(ClirkitError, match=r"one weight per run, got 2 weights for 3 runs"):
        Fusion([DT()] * 3, weights=[0.5, 0.5]).fit_runs([a, a, a], Qrels(["q1"], ["Gen.1.2"], [1]))


def test_a_table_in_other_languages_than_the_index_or_the_queries_is_an_error(index):
    german = TranslationTable.from_triples(["light"], ["licht"], [1.0], params={"target_lang": "de"})
    with pytest.raises(ClirkitError, match="the table translates into 'de' but the index is in 'es'"):
        PSQ().fit(Resources(index=index, table=german))
    with pytest.raises(ClirkitError, match="the queries are in 'fr' .* but the table translates from 'en'"):
        DT(source_lang="fr").fit(Resources(index=index, table=TABLE))


def test_systems_save_and_load_their_parameters_and_learned_state(tmp_path, index):
    psq = PSQ(k1=0.9, target_stopwords_top=3)
    psq.save(tmp_path / "psq.npz")
    loaded = PSQ.load(tmp_path / "psq.npz").fit(Resources(index=index, table=TABLE))
    assert loaded.get_params() == psq.get_params()
    np.testing.assert_array_equal(
        loaded.search(TOPICS).scores, psq.fit(Resources(index=index, table=TABLE)).search(TOPICS).scores
    )
    a = _run([("q1", "Gen.1.1", 2.0), ("q1", "Gen.1.2", 1.0)], "a")
    b = _run([("q1", "Gen.1.2", 2.0), ("q1", "Gen.1.1", 1.0)], "b")
    fusion = Fusion([psq, DT()], step=0.5).fit_runs([a, b], Qrels(["q1"], ["Gen.1.2"], [1]))
    fusion.save(tmp_path / "fusion.npz")
    back = Fusion.load(tmp_path / "fusion.npz")
    assert back.weights_ == fusion.weights_ and back.step == 0.5 and back.systems == ()
    assert np.array_equal(back.fuse([a, b]).scores, fusion.fuse([a, b]).scores)
    with pytest.raises(ClirkitError, match="holds a 'Fusion' system, not a DT"):
        DT.load(tmp_path / "fusion.npz")


def test_a_system_fitted_on_shared_resources_searches_as_on_resources_of_its_own(index):
    second = TranslationTable.from_triples(
        ["light", "waters"], ["luz", "aguas"], [1.0, 1.0], params={"source_lang": "en", "target_lang": "es"}
    )
    resources = Resources(index=index, table=TABLE, table2=second, topics={"test": TOPICS})
    for system, own in (
        (DT(), DT().fit(Resources(index=index, table=TABLE))),
        (PSQ(lam=0.7), PSQ(lam=0.7).fit(Resources(index=index, table=TABLE, table2=second))),
    ):
        assert system.fit(resources) is system
        run, expected = system.search(TOPICS), own.search(TOPICS)
        assert run.docids.tolist() == expected.docids.tolist() and np.array_equal(run.scores, expected.scores)
        made = system.search_split(resources, "test", tag="x")
        assert made.tag == "x" and np.array_equal(made.scores, expected.scores)
    with pytest.raises(
        ClirkitError,
        match=r"the resources have no translation table \(give table=..., or reverse_table=... to translate the documents\)",
    ):
        DT().fit(Resources(index=index))


def test_a_fusion_fits_on_the_dev_runs_of_resources_and_needs_no_dev_with_given_weights(index):
    dev = {"q1": "the light of God", "q2": "God and the waters"}
    qrels = Qrels(["q1", "q2"], ["Gen.1.3", "Gen.1.6"], [1, 1])
    dt, psq = DT().fit(Resources(index=index, table=TABLE)), PSQ().fit(Resources(index=index, table=TABLE))
    resources = Resources(index=index, table=TABLE, topics={"dev": dev, "test": TOPICS}, qrels={"dev": qrels})
    tuned = Fusion([dt, psq], step=0.5).fit(resources)
    same = Fusion([dt, psq], step=0.5).fit_runs([dt.search(dev), psq.search(dev)], qrels)
    assert tuned.weights_ == same.weights_ and tuned.dev_score_ == same.dev_score_
    assert tuned.notes("F") == [
        f"F: weights {', '.join(f'{w:g}' for w in same.weights_)} (dev AP "
        f"{same.dev_score_:.4f} over the 2 judged dev queries its systems' runs cover)"
    ]
    fused = tuned.search_split(resources, "test", tag="F")
    expected = same.fuse([dt.search(TOPICS), psq.search(TOPICS)], tag="F")
    assert fused.docids.tolist() == expected.docids.tolist() and np.array_equal(fused.scores, expected.scores)
    no_dev = Resources(topics={"test": TOPICS})
    fixed = Fusion([dt, psq], weights=[0.5, 0.5]).fit(no_dev)
    assert fixed.weights_ == [0.5, 0.5] and fixed.transforms_ == ["none", "none"] and fixed.inputs(no_dev) == {}
    unjudged = Fusion([dt, psq], weights=[0.5, 0.5]).fit(Resources(topics={"dev": dev}))  # dev topics, no qrels
    assert unjudged.weights_ == [0.5, 0.5] and unjudged.transforms_ == ["none", "none"]
    with pytest.raises(ClirkitError, match=r"the resources have no dev qrels \(give qrels="):
        Fusion([dt, psq]).fit(Resources(topics={"dev": dev}))  # weights to tune: the dev qrels are needed
    with pytest.raises(ClirkitError, match="its weights are tuned on dev, and there is no dev split: give the weights"):
        Fusion([dt, psq]).inputs(no_dev)
