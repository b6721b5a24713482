"""Issue 40, edge test 11: the command line. ``--source-lang``/``--target-lang`` that contradict ``--collection`` are
refused, and scs-score / boost-rank refuse a model of other languages than the collection's (3); boost-train refuses
its training split or queries file as its dev set and says how many dev queries it also trains on (6);
``--query-fields`` on a ``qid TAB text`` file says it has no header line, and ``--split-seed``/``split_seed``
without a split are refused (7); a fusion's weights are not tuned on a measure the order cannot change (8).

The texts are the verses and queries of tests/test_boost_cli.py.
"""

from __future__ import annotations

import shutil

import pytest
from test_boost_cli import write_files

from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.systems import Fusion


def one_line_error(capsys, prefix: str) -> str:
    captured = capsys.readouterr()
    assert captured.err.startswith(f"clirkit: error: {prefix}") and captured.err.count("\n") == 1, captured.err
    return captured.err


# ------------------------------------------------------------------ 3. languages against the collection's


@pytest.mark.parametrize("verb", ["boost-train", "scs-train"])
def test_a_language_other_than_the_collections_is_refused(verb, tmp_path, capsys):
    out = tmp_path / "m.npz"
    common = [verb, "--collection", "nave-en-es", "-o", str(out), "-q"]
    assert main([*common, "--source-lang", "fr", "--target-lang", "es"]) == 2
    one_line_error(capsys, "--source-lang fr: collection nave-en-es has en queries")
    assert main([*common, "--source-lang", "en", "--target-lang", "de"]) == 2
    one_line_error(capsys, "--target-lang de: collection nave-en-es has es documents")
    assert not out.exists()


def test_scs_score_and_boost_rank_refuse_a_model_of_other_languages_than_the_collections(tmp_path, capsys):
    q, qrels, docs = write_files(tmp_path)
    files = ["--queries", q, "--qrels", qrels, "--documents", docs, "--source-lang", "es", "--target-lang", "en"]
    scs, boost = str(tmp_path / "scs.npz"), str(tmp_path / "boost.npz")
    assert main(["scs-train", *files, "--dim", "2", "--epochs", "1", "-o", scs, "-q"]) == 0
    assert main(["boost-train", *files, "--rounds", "2", "-o", boost, "-q"]) == 0
    run = tmp_path / "x.run"
    assert main(["scs-score", scs, "--collection", "nave-en-es", "-o", str(run), "-q"]) == 2
    one_line_error(
        capsys, f"{scs}: a SCS model of es queries and en documents; collection nave-en-es has en queries and es"
    )
    assert main(["boost-rank", boost, "--collection", "nave-en-es", "-o", str(run), "-q"]) == 2
    one_line_error(capsys, f"{boost}: a BoostCLIR model of es queries and en documents; collection nave-en-es")
    assert not run.exists()


# ------------------------------------------------------------------ 6. the dev set is not the training set


def test_boost_train_refuses_its_training_split_as_dev(tmp_path, capsys):
    out = tmp_path / "m.npz"
    argv = ["boost-train", "--collection", "nave-en-es", "--split", "train", "--dev-split", "train"]
    assert main([*argv, "-o", str(out), "-q"]) == 2
    one_line_error(capsys, "--dev-split train is the training split (--split train): give another split")
    assert not out.exists()


def test_boost_train_refuses_its_queries_file_as_dev_and_counts_shared_ids(tmp_path, capsys):
    q, qrels, docs = write_files(tmp_path)
    out = tmp_path / "m.npz"
    common = ["boost-train", "--queries", q, "--qrels", qrels, "--documents", docs, "--rounds", "2"]
    common += ["--source-lang", "en", "--target-lang", "es", "-o", str(out)]
    same = str(tmp_path / "." / "q.tsv")  # the same file by another path
    assert main([*common, "--dev-queries", same, "--dev-qrels", qrels]) == 2
    one_line_error(capsys, f"--dev-queries {same} is the training queries file (--queries {q})")
    assert not out.exists()
    copy = str(shutil.copy(q, tmp_path / "dev.tsv"))
    assert main([*common, "--dev-queries", copy, "--dev-qrels", qrels]) == 0
    err = capsys.readouterr().err
    assert "note: 4 of the 4 dev queries are training queries too (same ids)" in err, err


# ------------------------------------------------------------------ 7. query fields without a header; a lone seed


def test_query_fields_on_a_qid_tab_text_file_say_it_has_no_header_line(tmp_path, capsys):
    q, qrels, docs = write_files(tmp_path)
    argv = ["collection", "--documents", docs, "--queries", q, "--qrels", qrels]
    argv += ["--source-lang", "en", "--target-lang", "es", "--query-fields", "title,desc"]
    assert main(argv) == 2
    err = one_line_error(capsys, f"{q}:1: line 1 is not a header line naming columns (the file reads as qid TAB")
    assert "so --query-fields has no column to pick" in err and "header line)" not in err


def test_split_seed_without_a_split_is_refused(tmp_path, capsys):
    q, qrels, docs = write_files(tmp_path)
    argv = ["collection", "--documents", docs, "--queries", q, "--qrels", qrels]
    argv += ["--source-lang", "en", "--target-lang", "es"]
    assert main([*argv, "--split-seed", "5"]) == 2
    one_line_error(capsys, "--split-seed is read only with --split")
    assert main([*argv, "--split-seed", "5", "--split", "dev=0.5,test=0.5"]) == 0


# ------------------------------------------------------------------ 8. a tuning measure the order cannot change


def test_the_counts_do_not_depend_on_the_ranking_and_the_others_do():
    from clirkit.measures import depends_on_ranking, parse_measure

    free = {"NumRet", "NumRel", "NumRelRet", "num_rel_ret"}
    assert not any(depends_on_ranking(parse_measure(m)) for m in free)
    assert all(depends_on_ranking(parse_measure(m)) for m in ("AP", "P@10", "nDCG@10", "RR", "R@100", "Success@5"))


@pytest.mark.parametrize("measure", ["NumRel", "NumRet", "num_rel_ret"])
def test_fusion_refuses_to_tune_weights_on_a_count(measure):
    with pytest.raises(ClirkitError, match=f"{measure} does not depend on the order of the documents"):
        Fusion(measure=measure).check_runs(2)
    Fusion(measure="AP").check_runs(2)


def test_aggregate_tune_refuses_a_count_measure(tmp_path, capsys):
    runs = []
    for name in ("a", "b"):
        path = tmp_path / f"{name}.run"
        path.write_text("LIGHT.1 Q0 Gen.1.3 1 2.0 x\nLIGHT.1 Q0 Gen.1.4 2 1.0 x\n", encoding="utf-8")
        runs.append(str(path))
    qrels = tmp_path / "q.qrels"
    qrels.write_text("LIGHT.1 0 Gen.1.3 1\n", encoding="utf-8")
    out = tmp_path / "f.run"
    argv = ["aggregate", *runs, "--tune", "--dev-runs", *runs, "--dev-qrels", str(qrels), "-o", str(out)]
    assert main([*argv, "--measure", "NumRel"]) == 2
    one_line_error(capsys, "--measure (Fusion's measure) must be a measure of the ranking: NumRel does not depend")
    assert not out.exists()
