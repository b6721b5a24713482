"""``clirkit boost-train``, ``boost-rank`` and ``boost-show`` end to end on small real verses."""

from __future__ import annotations

import pytest

from clirkit.cli import main
from clirkit.formats import read_run

DOCS = {
    "Gen.1.1": "EN el principio crió Dios los cielos y la tierra.",
    "Gen.1.3": "Y dijo Dios: Sea la luz: y fué la luz.",
    "Gen.1.4": "Y vió Dios que la luz era buena: y apartó Dios la luz de las tinieblas.",
    "John.1.1": "EN el principio era el Verbo, y el Verbo era con Dios, y el Verbo era Dios.",
    "John.1.5": "Y la luz en las tinieblas resplandece; mas las tinieblas no la comprendieron.",
    "Gen.1.6": "Y dijo Dios: Haya expansión en medio de las aguas, y separe las aguas de las aguas.",
}
QUERIES = {
    "LIGHT.1": "Light: created",
    "DARK.1": "Darkness: separated from light",
    "WORD.1": "Word: in the beginning",
    "WATER.1": "Water: divided",
}
QRELS = [
    ("LIGHT.1", "Gen.1.3", 2),
    ("LIGHT.1", "Gen.1.4", 1),
    ("DARK.1", "John.1.5", 2),
    ("DARK.1", "Gen.1.4", 2),
    ("WORD.1", "John.1.1", 2),
    ("WATER.1", "Gen.1.6", 2),
]


def write_files(tmp_path):
    (tmp_path / "docs.tsv").write_text("".join(f"{d}\t{t}\n" for d, t in DOCS.items()), encoding="utf-8")
    (tmp_path / "q.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in QUERIES.items()), encoding="utf-8")
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in QRELS))
    return [str(tmp_path / n) for n in ("q.tsv", "qrels.txt", "docs.tsv")]


def dev_copy(path: str) -> str:
    """A copy of the queries file ``path`` beside it, given as the dev queries (the training file itself is
    refused as --dev-queries)."""
    import shutil

    return shutil.copy(path, path + ".dev.tsv")


def test_train_show_rank_round_trip(tmp_path, capsys):
    q, qrels, docs = write_files(tmp_path)
    model = str(tmp_path / "m.npz")
    assert (
        main(
            [
                "boost-train",
                "--queries",
                q,
                "--qrels",
                qrels,
                "--documents",
                docs,
                "--dev-queries",
                dev_copy(q),
                "--dev-qrels",
                qrels,
                "--rounds",
                "8",
                "--eval-every",
                "2",
                "--negatives",
                "3",
                "--bits",
                "20",
                "-o",
                model,
                "--quiet",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["boost-show", model, "-n", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "t\th_t\tw_t" and out[1].startswith("1\t") and " - " in out[1]
    run_path = str(tmp_path / "run.txt")
    assert main(["boost-rank", model, "--queries", q, "--documents", docs, "-o", run_path, "--quiet"]) == 0
    run = read_run(run_path)
    assert set(run.query_ids) <= set(QUERIES) and len(run) > 0
    assert (
        main(
            [
                "boost-rank",
                model,
                "--queries",
                q,
                "--documents",
                docs,
                "--candidates",
                run_path,
                "-o",
                str(tmp_path / "rerank.txt"),
                "--quiet",
            ]
        )
        == 0
    )
    again = read_run(str(tmp_path / "rerank.txt"))
    assert sorted(zip(again.qids, again.docids, again.scores)) == sorted(zip(run.qids, run.docids, run.scores))


def test_missing_inputs_and_bad_model_exit_2(tmp_path, capsys):
    q, qrels, docs = write_files(tmp_path)
    assert main(["boost-train", "--queries", q, "--documents", docs, "-o", str(tmp_path / "m.npz")]) == 2
    assert "--qrels" in capsys.readouterr().err
    bad = tmp_path / "bad.npz"
    bad.write_text("nope")
    assert main(["boost-show", str(bad)]) == 2
    assert "bad.npz" in capsys.readouterr().err
    assert (
        main(
            [
                "boost-train",
                "--queries",
                q,
                "--qrels",
                qrels,
                "--documents",
                docs,
                "--backend",
                "dask",
                "-o",
                str(tmp_path / "m.npz"),
            ]
        )
        == 2
    )
    assert "--scheduler" in capsys.readouterr().err
    assert not (tmp_path / "m.npz").exists()


def test_content_ngrams_keeps_no_bigram_with_a_max_df_word(tmp_path):
    from clirkit.boost import BoostModel

    q, qrels, docs = write_files(tmp_path)
    common = [
        "--queries",
        q,
        "--qrels",
        qrels,
        "--documents",
        docs,
        "--ngram",
        "2",
        "--rounds",
        "40",
        "--negatives",
        "3",
        "--max-df",
        "0.5",
        "--quiet",
    ]
    assert main(["boost-train", *common, "-o", str(tmp_path / "all.npz")]) == 0
    assert main(["boost-train", *common, "--content-ngrams", "-o", str(tmp_path / "content.npz")]) == 0
    full, content = BoostModel.load(tmp_path / "all.npz"), BoostModel.load(tmp_path / "content.npz")
    frequent = {"y", "dios", "en", "la"}  # in more than half of the six verses (6, 5, 4, 4)
    bigrams = [t for t in full.tgt_terms.tolist() if " " in t]
    assert any(frequent & set(t.split()) for t in bigrams)  # the plain model does use such bigrams
    assert not any(frequent & set(t.split()) for t in content.tgt_terms.tolist())
    assert content.params["frequent_word_ngrams"] is False and full.params["frequent_word_ngrams"] is True


def write_base_run(tmp_path, name="base.run"):
    """A BM25-like base run over all queries: a relevant verse first, then the others."""
    from clirkit.formats import write_run
    from clirkit.run import Run

    rows = []
    for q in QUERIES:
        ranked = [d for qq, d, _ in QRELS if qq == q][:1] + [
            d for d in DOCS if (q, d) not in {(qq, dd) for qq, dd, _ in QRELS}
        ][:3]
        rows += [(q, d, 10.0 - i) for i, d in enumerate(ranked)]
    path = tmp_path / name
    write_run(Run(*zip(*rows), tag="PSQ"), path)
    return str(path)


def test_boost_from_a_base_run_reranks_it_with_beta_times_normalized_scores(tmp_path, capsys):
    import numpy as np

    from clirkit.boost import BoostModel
    from clirkit.boost.base import normalized_scores

    q, qrels, docs = write_files(tmp_path)
    base = write_base_run(tmp_path)
    model = str(tmp_path / "m.npz")
    assert (
        main(
            [
                "boost-train",
                "--queries",
                q,
                "--qrels",
                qrels,
                "--documents",
                docs,
                "--dev-queries",
                dev_copy(q),
                "--dev-qrels",
                qrels,
                "--base-run",
                base,
                "--beta-grid",
                "1",
                "3",
                "--rounds",
                "6",
                "--eval-every",
                "2",
                "--negatives",
                "2",
                "--bits",
                "20",
                "-o",
                model,
                "--quiet",
            ]
        )
        == 0
    )
    m = BoostModel.load(model)
    assert m.from_base and m.beta in (1.0, 3.0) and m.base["made_by"]["runs"] == [base]
    assert set(m.params["beta_dev_map"]) == {"1", "3"}
    assert main(["boost-rank", model, "--queries", q, "--documents", docs, "-o", str(tmp_path / "x.run")]) == 2
    out = str(tmp_path / "rerank.run")
    assert (
        main(["boost-rank", model, "--queries", q, "--documents", docs, "--candidates", base, "-o", out, "--quiet"])
        == 0
    )
    cand, got = read_run(base), read_run(out)
    first = cand.query_ids[0]  # candidates without the first query: said as such, not as "no n-gram"
    lines = [line for line in open(base, encoding="utf-8") if line.split()[0] != first]
    (tmp_path / "fewer.run").write_text("".join(lines), encoding="utf-8")
    fewer = ["boost-rank", model, "--queries", q, "--documents", docs, "--candidates", str(tmp_path / "fewer.run")]
    capsys.readouterr()
    assert main([*fewer, "-o", str(tmp_path / "fewer.out"), "-q"]) == 0  # said under -q too
    assert capsys.readouterr().err == (
        f"{tmp_path / 'fewer.run'}: no row for 1 of the {len(QUERIES)} queries (the first: {first}): they get no result\n"
    )
    assert m.doc_weighting == "length"  # the default when boosting from a base ranker
    plain = BoostModel(
        m.src_terms,
        m.tgt_terms,
        m.W,
        ngram=m.ngram,
        source_analyzer=m.source_analyzer,
        target_analyzer=m.target_analyzer,
        history=m.history,
        doc_weighting=m.doc_weighting,
        tgt_idf=m.tgt_idf,
    )
    q_tok = {k: m.source_analyzer.tokenize(v) for k, v in QUERIES.items()}
    d_tok = [m.target_analyzer.tokenize(t) for t in DOCS.values()]
    table = plain.rerank(cand, q_tok, list(DOCS), d_tok)
    table_score = {(a, b): s for a, b, s in zip(table.qids, table.docids, table.scores)}
    expected = {
        (a, b): m.beta * f + table_score[(a, b)] for a, b, f in zip(cand.qids, cand.docids, normalized_scores(cand))
    }
    assert len(got) == len(cand)
    for a, b, s in zip(got.qids, got.docids, got.scores):
        assert s == expected[(a, b)]
    assert np.all(np.diff(got.scores[got.qids == "LIGHT.1"]) <= 0)


def test_extra_tuples_file_and_base_run_errors(tmp_path, capsys):
    from clirkit.boost import BoostModel

    q, qrels, docs = write_files(tmp_path)
    extra = tmp_path / "extra.tsv"
    extra.write_text("the light is good\tGen.1.4\t1\nlet there be light\tGen.1.3\t1\n", encoding="utf-8")
    model = str(tmp_path / "m.npz")
    common = [
        "--queries",
        q,
        "--qrels",
        qrels,
        "--documents",
        docs,
        "--rounds",
        "5",
        "--negatives",
        "2",
        "--bits",
        "20",
        "--quiet",
    ]
    assert main(["boost-train", *common, "--extra-tuples", str(extra), "--parallel-weight", "0.5", "-o", model]) == 0
    params = BoostModel.load(model).params
    assert params["n_extra_tuples"] == 4 and params["parallel_weight"] == 0.5
    extra.write_text("the light is good\tGen.1.4\n", encoding="utf-8")
    assert main(["boost-train", *common, "--extra-tuples", str(extra), "-o", str(tmp_path / "n.npz")]) == 2
    assert f"{extra}:1: expected 3" in capsys.readouterr().err
    base = write_base_run(tmp_path)
    assert main(["boost-train", *common, "--base-run", base, "-o", str(tmp_path / "n.npz")]) == 2
    assert "tuning beta needs dev queries" in capsys.readouterr().err
    assert main(["boost-train", *common, "--base-run", base, "--beta", "-1", "-o", str(tmp_path / "n.npz")]) == 2
    assert (
        "--beta (BoostRanker's beta) must be none or a float in the range [0.0, 100.0]. Got -1.0"
        in capsys.readouterr().err
    )
    assert main(["boost-train", *common, "--parallel-tuples", "-o", str(tmp_path / "n.npz")]) == 2
    assert "--parallel-tuples needs --collection" in capsys.readouterr().err
    assert main(["boost-train", *common, "--beta", "5", "-o", str(tmp_path / "n.npz")]) == 2
    assert "--beta weighs a base ranker's scores: give --base-run too" in capsys.readouterr().err
    assert main(["boost-train", *common, "--parallel-weight", "2", "-o", str(tmp_path / "n.npz")]) == 2
    assert "--parallel-weight weighs" in capsys.readouterr().err
    assert not (tmp_path / "n.npz").exists()


LAYOUT = "give one tuple a line: query text TAB document id TAB grade"
GRADES = "; give an integer grade (0: not relevant; 1, 2, ...: relevant)"


@pytest.mark.parametrize(
    "lines, problem",
    [
        (["light\tGen.1.4"], ":1: expected 3 tab-separated fields 'query text, document id, grade', got 2; " + LAYOUT),
        (["\tGen.1.4\t1"], ":1: empty query text or document id; " + LAYOUT),
        (
            ["light\tNowhere.1.1\t1"],
            ":1: document id 'Nowhere.1.1' is not among the documents; give the id of one of the "
            "training documents (are these tuples of another collection?)",
        ),
        (["light\tGen.1.4\ttwo"], ":1: grade 'two' is not an integer" + GRADES),
        (["light\tGen.1.4\t5000"], ":1: grade 5000 is out of range (-1000..1000)" + GRADES),
        (
            ["light\tGen.1.4\t1", "darkness\tGen.1.3\t1", "light\tGen.1.4\t2"],
            ":3: query and document 'Gen.1.4' already judged on line 1; keep one of the two lines",
        ),
        ([], ": no (query text, document id, grade) line: check the path (" + LAYOUT + ")"),
    ],
)
def test_a_bad_extra_tuples_file_says_where_what_and_what_to_do(tmp_path, capsys, lines, problem):
    # said no fix before: the fields, an empty field, an unknown document, the grade, a repeat, an empty file
    q, qrels, docs = write_files(tmp_path)
    extra = tmp_path / "extra.tsv"
    extra.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    assert (
        main(
            [
                "boost-train",
                "--queries",
                q,
                "--qrels",
                qrels,
                "--documents",
                docs,
                "--extra-tuples",
                str(extra),
                "--rounds",
                "2",
                "--bits",
                "12",
                "-o",
                str(tmp_path / "m.npz"),
                "-q",
            ]
        )
        == 2
    )
    assert capsys.readouterr().err == f"clirkit: error: {extra}{problem}\n"
    assert not (tmp_path / "m.npz").exists()


def test_parallel_tuples_on_a_collection_whose_documents_are_no_corpus_side_say_to_leave_them_out():
    from clirkit.boost.parallel import known_item_queries
    from clirkit.errors import ClirkitError

    with pytest.raises(ClirkitError) as err:  # said no fix
        known_item_queries(["light"], ["p1"], list(DOCS))
    assert str(err.value) == (
        "no parallel pair is aligned to a document of the collection (known-item tuples need "
        "documents that are the corpus's target side); leave out --parallel-tuples for this "
        "collection"
    )


def test_files_without_languages_are_analyzed_as_english_and_spanish_and_it_is_said(tmp_path, capsys):
    q, qrels, docs = write_files(tmp_path)
    args = ["boost-train", "--queries", q, "--qrels", qrels, "--documents", docs, "--rounds", "2"]
    assert main([*args, "-o", str(tmp_path / "m.npz"), "-q"]) == 0  # said under --quiet too
    assert "no --source-lang/--target-lang: the queries are analyzed as en and the documents as es" in (
        capsys.readouterr().err
    )
    assert main([*args, "--source-lang", "en", "--target-lang", "es", "-o", str(tmp_path / "n.npz")]) == 0
    assert "no --source-lang" not in capsys.readouterr().err
    assert (tmp_path / "m.npz").read_bytes() == (tmp_path / "n.npz").read_bytes()


_NO_DEV = "give --dev-queries and --dev-qrels (or --collection with a dev split)"


@pytest.mark.parametrize(
    "options, says",
    [
        (["--patience", "2", "--eval-every", "5"], "--patience stops boosting early on the dev queries: " + _NO_DEV),
        (["--eval-every", "100"], "--eval-every scores the dev queries every N rounds for early stopping: " + _NO_DEV),
        (
            ["--candidate-depth", "10"],
            "--candidate-depth gives the ranks of a candidate or base run that hard negatives come from: give "
            "--candidates or --base-run too",
        ),
        (
            ["--parallel-weight", "1"],
            "--parallel-weight weighs the extra tuples (parallel or known-item ones): give --parallel-tuples or "
            "--extra-tuples too",
        ),
    ],
)
def test_an_option_the_training_leaves_unused_is_refused_even_at_its_default(tmp_path, capsys, options, says):
    # issue 40, edge round 13, 13A-6 and 13A-7: said no fix before (the model was byte-identical)
    q, qrels, docs = write_files(tmp_path)
    out = tmp_path / "m.npz"
    common = ["boost-train", "--queries", q, "--qrels", qrels, "--documents", docs, "--rounds", "2", "--bits", "20"]
    assert main([*common, "-q", *options, "-o", str(out)]) == 2
    assert capsys.readouterr().err == f"clirkit: error: {says}\n"
    assert not out.exists()


def test_early_stopping_and_the_candidate_depth_are_taken_with_what_they_need(tmp_path):
    q, qrels, docs = write_files(tmp_path)
    common = ["boost-train", "--queries", q, "--qrels", qrels, "--documents", docs, "--rounds", "2", "--bits", "20"]
    dev = ["--dev-queries", dev_copy(q), "--dev-qrels", qrels, "--patience", "2", "--eval-every", "1"]
    assert main([*common, "-q", *dev, "-o", str(tmp_path / "m.npz")]) == 0
    candidates = ["--candidates", write_base_run(tmp_path), "--candidate-depth", "2"]
    assert main([*common, "-q", *candidates, "-o", str(tmp_path / "n.npz")]) == 0


def test_boost_show_refuses_a_bag_with_the_averaged_entries(tmp_path, capsys):
    # issue 40, edge round 13, 13A-14: said no fix before (--bag was ignored with --entries)
    q, qrels, docs = write_files(tmp_path)
    model = str(tmp_path / "m.npz")
    common = ["--queries", q, "--qrels", qrels, "--documents", docs, "--rounds", "3", "--bits", "20", "-q"]
    common += ["--source-lang", "en", "--target-lang", "es"]  # (else the analysis assumed is said, under -q too)
    assert main(["boost-train", *common, "--bags", "2", "--bootstrap", "-o", model]) == 0
    assert main(["boost-show", model, "--entries", "--bag", "1", "-n", "2"]) == 2
    assert capsys.readouterr() == (
        "",
        "clirkit: error: --bag picks the bag whose rounds are printed, and --entries prints the bags' averaged "
        "table instead: give one of them\n",
    )
    assert main(["boost-show", model, "--bag", "2", "-n", "2"]) == 0
    assert main(["boost-show", model, "--entries", "-n", "2"]) == 0


def test_extra_tuples_that_reach_no_relevant_grade_are_said_with_their_file(tmp_path, capsys):
    # issue 40, edge round 13, 13A-15: said "extra tuples: ..." before, without the file
    q, qrels, docs = write_files(tmp_path)
    extra = tmp_path / "extra.tsv"
    extra.write_text("the light is good\tGen.1.4\t0\n", encoding="utf-8")
    common = ["--queries", q, "--qrels", qrels, "--documents", docs, "--rounds", "3", "--bits", "20", "-q"]
    common += ["--source-lang", "en", "--target-lang", "es"]  # (else the analysis assumed is said, under -q too)
    assert main(["boost-train", *common, "--extra-tuples", str(extra), "-o", str(tmp_path / "m.npz")]) == 2
    assert capsys.readouterr().err == (
        f"clirkit: error: {extra}: no judgment reaches the minimum grade of a relevant document (1): the highest "
        "grade is 0\n"
    )
    assert not (tmp_path / "m.npz").exists()
