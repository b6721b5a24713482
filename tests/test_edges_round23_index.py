"""Edge round 23 (an independent tester's findings on a frozen copy of 57cb709): a sharded index written to a
device, or through a symbolic link."""

from __future__ import annotations

import os

import pytest

from clirkit.cli import main

DOCS = "d1\tel perro come\nd2\tla casa blanca\nd3\tel gato\nd4\tun libro\n"


@pytest.fixture
def docs(tmp_path):
    path = tmp_path / "docs.tsv"
    path.write_text(DOCS, encoding="utf-8")
    (tmp_path / "q.tsv").write_text("q1\tperro\nq2\tcasa\n", encoding="utf-8")
    return path


def test_a_sharded_index_to_a_device_is_one_line_before_the_work_not_a_traceback(docs, capsys):
    assert main(["index", str(docs), "-o", os.devnull, "--lang", "es", "-q", "--shards", "2"]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"clirkit: error: {os.devnull}: is not a regular file: a sharded index is a manifest with its shard files "
        "beside it; give a file name to write (or leave out --shards)\n"
    )
    assert main(["index", str(docs), "-o", os.devnull, "--lang", "es", "-q"]) == 0  # one file: written in place


def test_a_sharded_index_through_a_link_puts_its_shards_beside_the_file_read_either_way(docs, tmp_path, capsys):
    (tmp_path / "sub").mkdir()
    link = tmp_path / "link.npz"
    link.symlink_to(tmp_path / "sub" / "target.npz")
    assert main(["index", str(docs), "-o", str(link), "--lang", "es", "-q", "--shards", "2"]) == 0
    assert sorted(p.name.split(".")[0] for p in (tmp_path / "sub").iterdir()) == ["target"] * 3
    assert not list(tmp_path.glob("link.shard-*"))
    runs = []
    for index in (link, tmp_path / "sub" / "target.npz"):
        out = tmp_path / f"{index.stem}.run"
        assert main(["search", "--index", str(index), "--queries", str(tmp_path / "q.tsv"), "-o", str(out), "-q"]) == 0
        runs.append(out.read_bytes())
    assert runs[0] == runs[1] and runs[0].startswith(b"q1 Q0 d1 1 ")
    assert main(["index", str(docs), "-o", str(link), "--lang", "es", "-q", "--shards", "3"]) == 0  # rebuilt
    assert len(list((tmp_path / "sub").glob("target.shard-*"))) == 3 and link.is_symlink()
    capsys.readouterr()


def test_a_run_files_unknown_document_reaching_a_boost_through_a_fusion_is_refused_at_its_line(mini, tmp_path, capsys):
    """(Round 21's leftover: refused after the work started, without a line.)"""
    from test_edges_round21_runner import RUN_BASE, _file, _refused, _run_file

    first = _run_file(mini, tmp_path / "nope.run", score=50.0, unknown_in="train")
    via = (
        '[fusions.F]\nsystems = ["R", "BM25"]\n'
        '[systems.B]\nkind = "boost"\nbase = "F"\nrounds = 10\neval_every = 5\nsignificance = 0\n'
    )
    exp = _file(tmp_path / "v.toml", RUN_BASE.format(mini=mini, file="nope.run", reader=via))
    err = _refused(exp, tmp_path / "out", capsys)
    assert err == (
        f"clirkit: error: {exp}: system 'R': {tmp_path / 'nope.run'}:{first['train'] + 2}: document 'NOPE.1.1' is not "
        "among the documents: system 'B' boosts from fusion 'F' of this run and re-ranks its rows over the "
        "collection's documents; give a run of these queries over these documents\n"
    )
    _run_file(mini, tmp_path / "neg.run", score=-50.0)  # negative scores through a fusion that shifts them: taken
    exp = _file(tmp_path / "n.toml", RUN_BASE.format(mini=mini, file="neg.run", reader=via))
    capsys.readouterr()
    assert main(["run", str(exp), "-o", str(tmp_path / "nout"), "-q"]) == 0, capsys.readouterr().err


def test_a_plain_index_rebuilt_through_a_link_removes_the_shards_beside_its_file(docs, tmp_path, capsys):
    (tmp_path / "real").mkdir()
    link = tmp_path / "l.npz"
    link.symlink_to(tmp_path / "real" / "m.npz")
    assert main(["index", str(docs), "-o", str(link), "--lang", "es", "-q", "--shards", "2"]) == 0
    assert main(["index", str(docs), "-o", str(link), "--lang", "es", "-q"]) == 0
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["m.npz"] and link.is_symlink()


def test_a_missing_shard_is_said_with_the_folder_looked_in(docs, tmp_path, capsys):
    assert main(["index", str(docs), "-o", str(tmp_path / "ix.npz"), "--lang", "es", "-q", "--shards", "2"]) == 0
    shard = sorted(tmp_path.glob("ix.shard-001.*.npz"))[0]
    shard.unlink()
    capsys.readouterr()
    assert main(["search", "--index", str(tmp_path / "ix.npz"), "--queries", str(tmp_path / "q.tsv"), "-o", "-"]) == 2
    assert f"shard 1 ({shard.name}) is missing from {os.path.realpath(tmp_path)}: " in capsys.readouterr().err
