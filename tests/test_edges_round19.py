"""Edge cases of the nineteenth round of independent testing, and leftovers of the seventeenth and eighteenth:
each a one-line error or notice that names the problem, or outputs that are the same bytes when made alike."""

from __future__ import annotations

import os

from test_edges_round17 import _files

from clirkit.cli import main


def _folder_bytes(folder) -> dict[str, bytes]:
    """Every file under ``folder`` by its relative path, with its bytes."""
    return {
        os.path.relpath(os.path.join(root, name), folder): open(os.path.join(root, name), "rb").read()
        for root, _, names in os.walk(folder)
        for name in names
    }


def test_two_fresh_runs_of_a_collection_of_files_write_the_same_bytes(tmp_path, capsys):
    f = _files(tmp_path)
    (tmp_path / "e.toml").write_text(
        'measures = ["AP"]\nfigures = false\n[collection]\n'
        f'documents = "{f["docs"]}"\nqueries = "{f["queries"]}"\nqrels = "{f["qrels"]}"\n'
        'source_lang = "en"\ntarget_lang = "es"\nsplit = {dev = 0.5, test = 0.5}\n'
        f'[table]\nfile = "{f["dict"]}"\nformat = "muse"\n[systems.DT]\nkind = "dt"\n',
        encoding="utf-8",
    )
    for out in ("a", "b"):
        assert main(["run", str(tmp_path / "e.toml"), "-o", str(tmp_path / out), "-q"]) == 0
    first, second = _folder_bytes(tmp_path / "a"), _folder_bytes(tmp_path / "b")
    assert sorted(first) == sorted(second)
    assert [name for name in first if first[name] != second[name]] == []
    capsys.readouterr()


def test_a_damaged_shard_is_named_as_given_with_the_sharded_remedy_by_every_backend(tmp_path, monkeypatch, capsys):
    (tmp_path / "docs.tsv").write_text("d1\tel perro come\nd2\tel gato bebe\nd3\tla casa\nd4\tperro gato\n")
    (tmp_path / "q.tsv").write_text("q1\tperro\nq2\tgato\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["index", "docs.tsv", "-o", "ix.npz", "--lang", "es", "--shards", "2", "-q"]) == 0
    shard = sorted(tmp_path.glob("ix.shard-001.*.npz"))[0]
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0xFF  # a member's bytes, not the zip directory the manifest's contents code reads
    shard.write_bytes(bytes(data))
    for backend in ("loky", "threading"):
        argv = ["search", "--index", "ix.npz", "--queries", "q.tsv", "-o", "run.txt", "--jobs", "2"]
        assert main([*argv, "--backend", backend, "-q"]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"clirkit: error: ix.npz: shard 1 ({shard.name}): "), (backend, err)
        assert err.rstrip().endswith("rebuild the index with `clirkit index --shards N`"), (backend, err)
        assert str(tmp_path) not in err and err.count("\n") == 1


def test_an_error_names_a_file_with_an_undecodable_byte_as_xNN(tmp_path, capsys):
    from test_edges_round17 import _undecodable

    assert main(["search", "--index", _undecodable(tmp_path, "ix", ".npz"), "--queries", "q.tsv", "-o", "-"]) == 2
    err = capsys.readouterr().err
    assert "ix\\xff.npz: no such file" in err and "\\udc" not in err


def test_a_table_recording_its_target_analyzer_without_its_source_analyzer_is_refused(tmp_path, tamper, capsys):
    import pytest

    from clirkit.errors import ClirkitError
    from clirkit.translation import load_table

    f = _files(tmp_path)
    argv = ["ttable", "convert", f["dict"], "--format", "muse", "--source-lang", "en", "--target-lang", "es"]
    assert main([*argv, "-o", str(tmp_path / "t.npz"), "-q"]) == 0
    table = load_table(tmp_path / "t.npz")
    assert table.params["source_analyzer"] and table.params["target_analyzer"]
    bad = tamper(tmp_path / "t.npz", tmp_path / "bad.npz", header={"params.source_analyzer": None})
    with pytest.raises(ClirkitError, match=r"bad.npz: corrupt .*params.target_analyzer is recorded without a source"):
        load_table(bad)
    source = tamper(tmp_path / "t.npz", tmp_path / "source.npz", header={"params.target_analyzer": None})
    assert load_table(source).params["source_analyzer"] == table.params["source_analyzer"]  # (made so in Python)
    tamper(source, source, header={"params.source_analyzer": None})  # neither: a table of words as written
    assert load_table(source).params.get("source_analyzer") is None
    capsys.readouterr()


def _boost_files(tmp_path, queries=None) -> list[str]:
    """boost-train's arguments on the round-17 collection (``queries``: other queries' lines)."""
    f = _files(tmp_path)
    if queries is not None:
        (tmp_path / "bq.tsv").write_text("".join(f"{line}\n" for line in queries), encoding="utf-8")
        f["queries"] = str(tmp_path / "bq.tsv")
    return ["boost-train", "--queries", f["queries"], "--qrels", f["qrels"], "--documents", f["docs"]] + [
        "--source-lang", "en", "--target-lang", "es", "--max-df", "1", "-q"
    ]  # fmt: skip


def test_a_boost_model_whose_bag_rounds_disagree_with_its_history_is_refused(tmp_path, tamper, capsys):
    import pytest

    from clirkit.boost.model import BoostModel
    from clirkit.errors import ClirkitError

    assert main([*_boost_files(tmp_path), "--rounds", "5", "-o", str(tmp_path / "b.npz")]) == 0
    model = BoostModel.load(tmp_path / "b.npz")
    kept = model.params["bag_rounds"]
    assert kept == [int((model.history["bag"] == 0).sum())] and kept[0] > 0
    for edited in ([0], [kept[0] + 94]):
        bad = tamper(tmp_path / "b.npz", tmp_path / "bad.npz", {"params.bag_rounds": edited})
        with pytest.raises(ClirkitError, match=rf"bag_rounds is \{edited}\ but the history holds \{kept}\ rounds"):
            BoostModel.load(bad)
    capsys.readouterr()


def test_boost_training_whose_queries_hold_no_term_after_analysis_is_refused(tmp_path, capsys):
    argv = [*_boost_files(tmp_path, ["q1\tthe of and", "q2\tfor with"]), "--stopwords", "snowball", "--rounds", "5"]
    assert main([*argv, "-o", str(tmp_path / "b.npz")]) == 2
    err = capsys.readouterr().err
    assert "clirkit: error: no query text holds a term after analysis (2 query texts)" in err
    assert err.count("\n") == 1 and not (tmp_path / "b.npz").exists()


def test_a_shard_of_one_document_is_said_in_the_singular(tmp_path, capsys):
    (tmp_path / "docs.tsv").write_text("d1\tel perro\nd2\tel gato\n", encoding="utf-8")
    argv = ["index", str(tmp_path / "docs.tsv"), "-o", str(tmp_path / "ix.npz"), "--lang", "es", "--shards", "2"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "shard 1 of 2: 1 document -> ix.shard-000." in err and "1 documents" not in err


def test_frames_with_columns_of_two_levels_are_one_line_errors():
    import pandas as pd
    import pytest

    from clirkit.analysis import Analyzer
    from clirkit.errors import ClirkitError
    from clirkit.estimator import Resources
    from clirkit.pyterrier import retriever
    from clirkit.retrieval.index import Index
    from clirkit.run import Run
    from clirkit.systems import BM25Search

    system = BM25Search().fit(Resources(index=Index.build([("d1", "el perro"), ("d2", "el gato")], Analyzer("es"))))
    topics = pd.DataFrame([["1", "perro"]], columns=pd.MultiIndex.from_tuples([("qid", ""), ("query", "")]))
    levels = pd.MultiIndex.from_tuples([("qid", ""), ("docno", ""), ("score", "")])
    run = pd.DataFrame([["1", "d1", 1.0]], columns=levels)
    for call in (lambda: retriever(system)(topics), lambda: system.search(topics), lambda: Run.from_frame(run)):
        with pytest.raises(ClirkitError, match=r"its columns have 2 levels \(a MultiIndex: \[\('qid', ''\)"):
            call()
