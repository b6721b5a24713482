"""Issue 40, items 3, 4, 5 and 12: qrels naming documents the collection lacks are refused (`clirkit collection`
and an experiment's [collection]), a split named twice in `--split` is refused, a boosted model of a given beta
without dev queries is valid (boost-show and boost-rank read it), and `aggregate --tune` checks its output paths
before printing the sweep. Small real verses (the Reina-Valera 1909 slice of conftest)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from clirkit.cli import main
from clirkit.formats import read_run

TOPICS = {
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


def _files(folder: Path, verses: dict[str, str], qrels=QRELS) -> tuple[str, str, str]:
    """``(documents, topics, qrels)`` written in ``folder``: the verses, the topics as TSV, TREC qrels."""
    (folder / "docs.tsv").write_text("".join(f"{d}\t{t}\n" for d, t in verses.items()), encoding="utf-8")
    (folder / "q.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in TOPICS.items()), encoding="utf-8")
    (folder / "qrels.txt").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels), encoding="utf-8")
    return str(folder / "docs.tsv"), str(folder / "q.tsv"), str(folder / "qrels.txt")


# unknown documents in the judgments: Exod.1.1 and Rev.22.21 are verses, not of these documents
STRAY = [QRELS[0], ("LIGHT.1", "Exod.1.1", 1), *QRELS[1:4], ("WORD.1", "Rev.22.21", 2), *QRELS[4:]]


def _one_line_error(capsys, prefix: str) -> str:
    captured = capsys.readouterr()
    assert captured.err.startswith(f"clirkit: error: {prefix}") and captured.err.count("\n") == 1, captured.err
    assert captured.out == ""
    return captured.err


# 3 ------------------------------------------------------------------------------------------------------


def test_collection_verb_refuses_qrels_naming_documents_not_in_the_documents(tmp_path, capsys, verses_es):
    # was "checked: documents 10; ... grade 2: 5" and exit 0: every measure then counts 2 relevant verses no
    # run can find
    docs, topics, qrels = _files(tmp_path, verses_es, STRAY)
    common = [
        "collection",
        "--documents",
        docs,
        "--queries",
        topics,
        "--qrels",
        qrels,
        "--source-lang",
        "en",
        "--target-lang",
        "es",
    ]
    assert main([*common, "-o", str(tmp_path / "out")]) == 2
    err = _one_line_error(capsys, f"{qrels}:2: ")
    assert err == (
        f"clirkit: error: {qrels}:2: 2 of the 8 judgments name documents not in {docs} (the first: "
        f"query LIGHT.1, document Exod.1.1): are these the qrels of these documents?\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs.tsv", "q.tsv", "qrels.txt"]  # nothing written
    # one file per split: the same check, the line of the file that judges them
    assert (
        main(
            [
                "collection",
                "--documents",
                docs,
                "--queries",
                f"test={topics}",
                "--qrels",
                f"test={qrels}",
                "--source-lang",
                "en",
                "--target-lang",
                "es",
                "-q",
            ]
        )
        == 2
    )
    assert "2 of the 8 judgments name documents not in" in _one_line_error(capsys, f"{qrels}:2: ")
    # one unknown document after a blank line: the line number counts every line of the file
    Path(qrels).write_text(
        "".join(f"{q} 0 {d} {r}\n" for q, d, r in QRELS) + "\nWATER.1 0 Gen.50.26 1\n", encoding="utf-8"
    )
    assert main([*common, "-q"]) == 2
    assert "1 of the 7 judgments names a document not in" in _one_line_error(capsys, f"{qrels}:8: ")
    _files(tmp_path, verses_es)  # the right qrels: checked as before
    assert main([*common, "-q"]) == 0
    assert capsys.readouterr().out.startswith("checked: documents 10; parallel pairs 0\n  test 4 queries")


def test_judgments_of_queries_left_out_are_not_checked_against_the_documents(tmp_path, capsys, verses_es):
    # a qrels file of a larger track: its other topics' judgments are left out (said), not refused
    docs, topics, qrels = _files(tmp_path, verses_es, [*QRELS, ("OTHER.1", "Exod.1.1", 1)])
    assert (
        main(
            [
                "collection",
                "--documents",
                docs,
                "--queries",
                topics,
                "--qrels",
                qrels,
                "--source-lang",
                "en",
                "--target-lang",
                "es",
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert "1 judged query is not in the queries (e.g. OTHER.1): left out" in captured.err


def test_an_experiment_collection_table_refuses_qrels_naming_unknown_documents(tmp_path, capsys, verses_es):
    # was a report of AP 0.0000 for every system with no word when no judged document was in the documents
    docs, topics, qrels = _files(tmp_path, verses_es, STRAY)
    (tmp_path / "muse.txt").write_text("light luz\ndarkness tinieblas\nword verbo\nwater aguas\n", encoding="utf-8")
    path = tmp_path / "e.toml"
    path.write_text(
        'measures = ["AP"]\n[table]\nfile = "muse.txt"\nformat = "muse"\n[collection]\n'
        'documents = "docs.tsv"\nqueries = "q.tsv"\nqrels = "qrels.txt"\nsource_lang = "en"\n'
        'target_lang = "es"\n[systems.DT]\nkind = "dt"\n',
        encoding="utf-8",
    )
    assert main(["run", str(path), "-o", str(tmp_path / "out"), "-q"]) == 2
    assert "2 of the 8 judgments name documents not in" in _one_line_error(capsys, f"{qrels}:2: ")
    assert not (tmp_path / "out").exists() and not (tmp_path / ".out.partial" / "runs").exists()
    _files(tmp_path, verses_es)
    assert main(["run", str(path), "-o", str(tmp_path / "out"), "-q"]) == 0  # the same experiment, right qrels
    assert (tmp_path / "out" / "collection" / "qrels.test.txt").read_text().count("\n") == len(QRELS)


# 4 ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rule, split",
    [("dev=0.3,test=0.5,dev=0.5", "dev"), ("test=0.5,test=0.5", "test"), ("dev=0.5, test=0.3,test =0.2", "test")],
)
def test_a_split_named_twice_in_the_split_option_is_refused(tmp_path, capsys, verses_es, rule, split):
    # was read as dev 0.5 / test 0.5: a repeated name replaced the first, the fractions as written summing to 1.3
    docs, topics, qrels = _files(tmp_path, verses_es)
    assert (
        main(
            [
                "collection",
                "--documents",
                docs,
                "--queries",
                topics,
                "--qrels",
                qrels,
                "--source-lang",
                "en",
                "--target-lang",
                "es",
                "--split",
                rule,
                "-o",
                str(tmp_path / "out"),
                "-q",
            ]
        )
        == 2
    )
    assert capsys.readouterr().err == (
        f"clirkit: error: --split {rule}: names the split {split!r} twice; give each "
        f"split once, e.g. dev=0.5,test=0.5\n"
    )
    assert not (tmp_path / "out").exists()


# 5 ------------------------------------------------------------------------------------------------------


def _base_run(tmp_path: Path, verses: dict[str, str]) -> str:
    """A base run over the topics: a relevant verse first, then three others."""
    from clirkit.formats import write_run
    from clirkit.run import Run

    judged = {(q, d) for q, d, _ in QRELS}
    rows = []
    for q in TOPICS:
        ranked = [d for qq, d, _ in QRELS if qq == q][:1] + [d for d in verses if (q, d) not in judged][:3]
        rows += [(q, d, 10.0 - i) for i, d in enumerate(ranked)]
    write_run(Run(*zip(*rows), tag="PSQ"), tmp_path / "base.run")
    return str(tmp_path / "base.run")


@pytest.mark.parametrize("beta", ["1", "0"])
def test_a_given_beta_without_dev_queries_writes_a_model_boost_show_and_boost_rank_read(
    tmp_path, capsys, verses_es, beta
):
    # was exit 0 and a model whose header (beta_dev_map {"1": null}) every reader refused as corrupt
    from clirkit.boost import BoostModel, BoostRanker

    docs, topics, qrels = _files(tmp_path, verses_es)
    base = _base_run(tmp_path, verses_es)
    model = tmp_path / "m.npz"
    train = [
        "boost-train",
        "--queries",
        topics,
        "--qrels",
        qrels,
        "--documents",
        docs,
        "--base-run",
        base,
        "--beta",
        beta,
        "--rounds",
        "4",
        "--negatives",
        "2",
        "--bits",
        "20",
        "-q",
    ]
    assert main([*train, "-o", str(model)]) == 0
    m = BoostModel.load(model)
    assert m.from_base and m.beta == float(beta) and not m.params.get("beta_dev_map")
    assert main(["boost-show", str(model), "-n", "2"]) == 0
    assert capsys.readouterr().out.startswith("t\th_t\tw_t\n1\t")
    out = tmp_path / "rerank.run"
    assert (
        main(
            [
                "boost-rank",
                str(model),
                "--queries",
                topics,
                "--documents",
                docs,
                "--candidates",
                base,
                "-o",
                str(out),
                "-q",
            ]
        )
        == 0
    )
    assert len(read_run(out)) == len(read_run(base))
    ranker = BoostRanker.load(model)
    assert ranker.notes("B") == [
        f"B: beta {float(beta):g} (given, no dev queries), {m.params['bag_rounds'][0]} "
        f"rounds, {len(m)} phrase-table entries"
    ]
    assert main([*train, "-o", str(tmp_path / "again.npz")]) == 0  # training again: the same valid model
    assert (tmp_path / "again.npz").read_bytes() == model.read_bytes()


# 12 -----------------------------------------------------------------------------------------------------


def _aggregate_files(tmp_path: Path) -> tuple[str, str, str, str, str]:
    def lines(name: str, rows: list[str]) -> str:
        (tmp_path / name).write_text("".join(r + "\n" for r in rows), encoding="utf-8")
        return str(tmp_path / name)

    return (
        lines("t1.run", ["WORD.1 Q0 John.1.1 1 5 X"]),
        lines("t2.run", ["WORD.1 Q0 Gen.1.1 1 5 Y"]),
        lines("d1.run", ["LIGHT.1 Q0 Gen.1.1 1 3 X", "LIGHT.1 Q0 Gen.1.3 2 1 X"]),
        lines("d2.run", ["LIGHT.1 Q0 Gen.1.3 1 3 Y", "LIGHT.1 Q0 Gen.1.1 2 1 Y"]),
        lines("dev.qrels", ["LIGHT.1 0 Gen.1.3 1"]),
    )


def test_aggregate_tune_refuses_a_sweep_csv_in_a_missing_folder_before_printing_the_sweep(tmp_path, capsys):
    # was the summary and the whole sweep printed, then the error about the missing folder
    t1, t2, d1, d2, qrels = _aggregate_files(tmp_path)
    out = tmp_path / "test.run"
    tune = [
        "aggregate",
        t1,
        t2,
        "-o",
        str(out),
        "--tune",
        "--dev-qrels",
        qrels,
        "--dev-runs",
        d1,
        d2,
        "--step",
        "0.25",
        "-q",
    ]
    missing = tmp_path / "no" / "dir" / "s.csv"
    assert main([*tune, "--sweep-csv", str(missing)]) == 2
    err = _one_line_error(capsys, f"{missing}: the folder {missing.parent} does not exist")
    assert "best weights" not in err and not out.exists()
    (tmp_path / "sweep.csv").mkdir()
    assert main([*tune, "--sweep-csv", str(tmp_path / "sweep.csv")]) == 2  # a folder, not a file
    _one_line_error(capsys, f"{tmp_path / 'sweep.csv'}: is a folder; give a file name to write")
    (tmp_path / "fused").mkdir()
    assert main([*tune[:4], str(tmp_path / "fused"), *tune[5:]]) == 2  # -o a folder: said before the sweep too
    _one_line_error(capsys, f"{tmp_path / 'fused'}: is a folder; give a file name to write")
    assert main([*tune[:-1], "--sweep-csv", str(tmp_path / "s.csv")]) == 0  # as before with a writable path (no -q)
    assert "best weights" in capsys.readouterr().out and (tmp_path / "s.csv").read_text().startswith("w1,w2,AP\n")


def test_aggregate_refuses_an_output_folder_it_cannot_write_before_the_work(tmp_path, capsys, monkeypatch):
    t1, t2, d1, d2, qrels = _aggregate_files(tmp_path)
    locked = tmp_path / "locked"
    locked.mkdir()
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p) == locked else real(p, mode, **kw))
    assert (
        main(
            [
                "aggregate",
                t1,
                t2,
                "-o",
                str(tmp_path / "test.run"),
                "--tune",
                "--dev-qrels",
                qrels,
                "--dev-runs",
                d1,
                d2,
                "--sweep-csv",
                str(locked / "s.csv"),
                "-q",
            ]
        )
        == 2
    )
    _one_line_error(capsys, f"{locked / 's.csv'}: cannot write in {locked} (permission denied)")
    assert main(["aggregate", t1, t2, "-o", str(locked / "fused.run"), "-q"]) == 2
    _one_line_error(capsys, f"{locked / 'fused.run'}: cannot write in {locked}")
    assert not (tmp_path / "test.run").exists()


def test_aggregate_refuses_a_sweep_csv_without_tune(tmp_path, capsys):
    # was ignored: no sweep without --tune, and no word that the file asked for is not written
    t1, t2, *_ = _aggregate_files(tmp_path)
    assert (
        main(["aggregate", t1, t2, "-o", str(tmp_path / "fused.run"), "--sweep-csv", str(tmp_path / "s.csv"), "-q"])
        == 2
    )
    _one_line_error(capsys, "--sweep-csv writes the sweep of --tune")
    assert not (tmp_path / "fused.run").exists() and not (tmp_path / "s.csv").exists()
