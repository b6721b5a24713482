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
