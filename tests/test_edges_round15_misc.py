"""Edge cases of round 15b (miscellaneous): a dev run of ``aggregate --tune`` / ``Fusion.fit_runs`` that shares no
query with the dev qrels is refused, naming it; a bad ``--split`` (or [collection] ``split``) names its problem (a
zero fraction, an unknown split, a fraction that is not a number); a model file of another kind says its kind
without a wrong article; one field is "1 field"; ``aggregate --tune -q`` prints no sweep; SCS word vectors are said
to match analyzed (stemmed) terms."""

from __future__ import annotations

import pytest

from clirkit.cli import main
from clirkit.errors import ClirkitError


def _write(path, lines) -> str:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return str(path)


def _tune_files(tmp_path):
    """Two test runs, two dev runs of q1/q2 and dev qrels judging q1/q2, and a test run of q9 (no dev query)."""
    qrels = _write(tmp_path / "dev.qrels", ["q1 0 good 1", "q2 0 rel 1"])
    d1 = _write(tmp_path / "d1.run", ["q1 Q0 good 1 2 A", "q1 Q0 bad 2 1 A", "q2 Q0 rel 1 2 A"])
    d2 = _write(tmp_path / "d2.run", ["q1 Q0 bad 1 2 B", "q1 Q0 good 2 1 B", "q2 Q0 rel 1 2 B"])
    t1 = _write(tmp_path / "t1.run", ["q9 Q0 x 1 2 A", "q9 Q0 y 2 1 A"])
    t2 = _write(tmp_path / "t2.run", ["q9 Q0 y 1 2 B", "q9 Q0 x 2 1 B"])
    return qrels, d1, d2, t1, t2


# 1. a dev run that shares no query with the dev qrels ------------------------------------------------------------


def test_aggregate_tune_refuses_one_dev_run_that_covers_no_dev_query_naming_its_file(tmp_path, capsys):
    qrels, d1, d2, t1, t2 = _tune_files(tmp_path)
    out = tmp_path / "x.run"
    argv = ["aggregate", t1, t2, "--tune", "--dev-qrels", qrels, "-o", str(out)]
    assert main([*argv, "--dev-runs", t1, d2]) == 2  # the test run given as the first dev run
    err = capsys.readouterr().err
    assert err.startswith(
        f"clirkit: error: {t1}: dev run 1 ('A'): none of its 1 queries (e.g. 'q9') is in the dev qrels"
    )
    assert err.count("\n") == 1 and "best weights" not in err and not out.exists()
    assert main([*argv, "--dev-runs", d1, t2, "-q"]) == 2  # the second one
    assert capsys.readouterr().err.startswith(f"clirkit: error: {t2}: dev run 2 ('B'): none of its 1 queries")
    assert main([*argv, "--dev-runs", d1, d2, "-q"]) == 0 and out.exists()  # both cover dev queries: tuned


def test_fusion_fit_runs_refuses_one_dev_run_that_covers_no_dev_query_naming_its_position(tmp_path):
    from clirkit.formats import read_qrels, read_run
    from clirkit.systems import Fusion

    qrels, d1, d2, t1, _ = _tune_files(tmp_path)
    with pytest.raises(ClirkitError, match=r"^dev run 2 \('A'\): none of its 1 queries \(e\.g\. 'q9'\) is in the dev"):
        Fusion().fit_runs([read_run(d2), read_run(t1)], read_qrels(qrels))
    assert Fusion().fit_runs([read_run(d1), read_run(d2)], read_qrels(qrels)).weights_ is not None


# 7. --split: the problem named -------------------------------------------------------------------------------------


def _collection_args(tmp_path) -> list[str]:
    docs = _write(tmp_path / "d.tsv", ["d1\tuno", "d2\tdos"])
    queries = _write(tmp_path / "q.tsv", ["q1\tone", "q2\ttwo"])
    qrels = _write(tmp_path / "qrels", ["q1 0 d1 1", "q2 0 d2 1"])
    args = ["collection", "--documents", docs, "--queries", queries, "--qrels", qrels]
    return [*args, "--source-lang", "en", "--target-lang", "es", "-q", "-o", str(tmp_path / "out")]


@pytest.mark.parametrize(
    "rule, problem",
    [
        ("dev=0,test=1", "the fraction of 'dev' is 0: give each split a fraction > 0, or leave it out"),
        ("dev=-0.5,test=1.5", "the fraction of 'dev' is -0.5: give each split a fraction > 0, or leave it out"),
        ("Dev=0.5,test=0.5", "'Dev' is not a split (the splits: train, dev, test, in lower case)"),
        ("dev=nan,test=1", "the fraction of 'dev', nan, is not a number"),
        ("dev=0.5,test=0.6", "the fractions sum to 1.1, not 1"),
        ("dev=0.5,train=0.5", "there is no test split"),
        ("dev=1.5,test=-0.5", "the fraction of 'dev' is 1.5, over 1"),
    ],
)
def test_collection_split_names_the_problem_of_the_rule(tmp_path, capsys, rule, problem):
    assert main([*_collection_args(tmp_path), "--split", rule]) == 2
    err = capsys.readouterr().err
    assert err.startswith("clirkit: error: --split must be fractions") and err.count("\n") == 1
    assert err.rstrip("\n").endswith(f": {problem}")
    assert not (tmp_path / "out").exists()


def test_collection_split_names_a_fraction_that_is_not_a_number(tmp_path, capsys):
    assert main([*_collection_args(tmp_path), "--split", "dev=half,test=0.5"]) == 2
    err = capsys.readouterr().err
    assert "the fraction 'half' of 'dev' is not a number" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "rule, problem",
    [
        ("{dev = 0, test = 1}", "the fraction of 'dev' is 0"),
        ("{Dev = 0.5, test = 0.5}", "'Dev' is not a split"),
        ('{dev = "half", test = 0.5}', "the fraction of 'dev', 'half', is not a number"),
        ("{dev = nan, test = 1}", "the fraction of 'dev', nan, is not a number"),
    ],
)
def test_an_experiment_split_key_names_the_problem_of_the_rule(tmp_path, capsys, rule, problem):
    _collection_args(tmp_path)  # the files
    path = tmp_path / "e.toml"
    path.write_text(
        f'measures = ["AP"]\n[collection]\ndocuments = "d.tsv"\nqueries = "q.tsv"\nqrels = "qrels"\n'
        f'source_lang = "en"\ntarget_lang = "es"\nsplit = {rule}\n[systems.S]\nkind = "bm25"\n',
        encoding="utf-8",
    )
    assert main(["run", str(path), "-o", str(tmp_path / "res"), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"clirkit: error: {path}: [collection] split must be fractions") and f": {problem}" in err
    assert err.count("\n") == 1 and not (tmp_path / "res").exists()


# 8. wording ----------------------------------------------------------------------------------------------------


def test_a_model_file_of_another_kind_says_its_kind_without_a_wrong_article(tmp_path, capsys):
    index = tmp_path / "i.npz"
    docs = _write(tmp_path / "d.tsv", ["d1\tuno dos", "d2\tdos tres"])
    assert main(["index", docs, "-o", str(index), "--lang", "es", "-q"]) == 0
    assert main(["boost-show", str(index)]) == 2
    err = capsys.readouterr().err
    assert "not a clirkit boost-model file (its kind is 'index'): check the path" in err and "a 'index'" not in err


def test_a_word_vector_line_of_one_field_says_field(tmp_path):
    from clirkit.scs import read_word_vectors

    path = _write(tmp_path / "v.txt", ["love 0.1 0.2", "alone"])
    with pytest.raises(ClirkitError, match=r"v\.txt:2: expected a word and 2 numbers, got 1 field \(the model"):
        read_word_vectors(path, 2)
    path = _write(tmp_path / "w.txt", ["love 0.1"])
    with pytest.raises(ClirkitError, match=r"got 2 fields \("):
        read_word_vectors(path, 2)


def test_aggregate_tune_quiet_prints_no_sweep_and_the_run_alone_on_stdout(tmp_path, capsys):
    qrels, d1, d2, t1, t2 = _tune_files(tmp_path)
    tune = ["aggregate", t1, t2, "--tune", "--dev-runs", d1, d2, "--dev-qrels", qrels, "--step", "0.5"]
    out, sweep = tmp_path / "x.run", tmp_path / "s.csv"
    assert main([*tune, "-o", str(out), "--sweep-csv", str(sweep), "-q"]) == 0
    assert capsys.readouterr() == ("", "") and out.exists() and sweep.read_text().startswith("w1,w2,AP\n")
    assert main([*tune, "-o", "-", "-q"]) == 0
    printed = capsys.readouterr()
    assert printed.err == "" and printed.out == out.read_text()  # the run only
    assert main([*tune, "-o", str(out)]) == 0  # without -q: the sweep and the best weights
    printed = capsys.readouterr()
    assert "best weights" in printed.out and "0.5\t0.5\t" in printed.out


# 9. SCS word vectors match analyzed terms: said ------------------------------------------------------------------


def test_scs_train_help_says_the_word_vectors_match_analyzed_terms(capsys):
    with pytest.raises(SystemExit):
        main(["scs-train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "matched to the analyzed (stemmed) query terms" in text
    assert "matched to the analyzed (stemmed) document terms" in text


def test_the_docs_say_scs_word_vectors_match_analyzed_terms():
    from pathlib import Path

    text = " ".join((Path(__file__).parent.parent / "docs" / "README.md").read_text(encoding="utf-8").split())
    assert "are matched to the analyzed terms as they are written" in text
