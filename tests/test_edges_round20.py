"""Edge cases of the twentieth round of independent testing: the folder where worker processes leave a sharded
search's blocks (an absolute path, a full disk a one-line error, the folders of killed searches removed, at most a
few blocks ahead of the reader), frames with a repeated column, a Boost model header that lost a setting."""

from __future__ import annotations

import os
import socket
import threading
import time

import numpy as np
import pytest

from clirkit.analysis import Analyzer
from clirkit.errors import ClirkitError
from clirkit.retrieval import shardtasks
from clirkit.retrieval.index import Index
from clirkit.retrieval.shards import ShardedIndex

DOCS = [(f"d{i:03d}", f"el perro {i % 7} y el gato {i % 5} come carne {i % 3}") for i in range(60)]


@pytest.fixture
def sharded(tmp_path):
    ShardedIndex.split(Index.build(DOCS, Analyzer("es")), 3).save(tmp_path / "sh.npz")
    return tmp_path / "sh.npz"


def test_the_folder_beside_a_manifest_named_relatively_is_an_absolute_path(sharded, monkeypatch):
    monkeypatch.chdir(sharded.parent)
    folder = shardtasks.claims_folder(ShardedIndex.load("sh.npz", backend="dask"))
    try:
        assert folder is not None and os.path.isabs(folder) and os.path.dirname(folder) == str(sharded.parent)
    finally:
        os.rmdir(folder)


def test_the_folders_of_searches_whose_process_is_gone_are_removed(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    mine = f"{shardtasks.CLAIMS}{socket.gethostname()}-"
    gone, alive, other = tmp_path / f"{mine}999999999-ab", tmp_path / f"{mine}{os.getpid()}-cd", tmp_path / "x"
    for folder in (gone, alive, other):
        folder.mkdir()
        (folder / "0.3.npz").write_bytes(b"left")
    made = shardtasks.claims_folder(ShardedIndex.split(Index.build(DOCS, Analyzer("es")), 2))
    assert not gone.exists() and alive.exists() and other.exists()
    assert made is not None and os.path.basename(made).startswith(f"{mine}{os.getpid()}-")


def test_a_task_leaves_at_most_a_few_blocks_the_search_has_not_read(tmp_path):
    (tmp_path / "0.0.npz").write_bytes(b"unread")
    done = []
    waiting = threading.Thread(target=lambda: done.append(shardtasks._room_for(str(tmp_path), 0, shardtasks.AHEAD)))
    waiting.start()
    time.sleep(0.1)
    assert not done  # block 0 unread: block AHEAD waits
    (tmp_path / "0.0.npz").unlink()
    waiting.join(5)
    assert done == [True]
    assert shardtasks._room_for(str(tmp_path / "gone"), 0, 1) is False  # the search stopped: its folder is gone


def test_a_full_disk_where_workers_leave_their_blocks_is_a_one_line_error(sharded, monkeypatch):
    distributed = pytest.importorskip("dask.distributed")
    from clirkit.estimator import Resources
    from clirkit.retrieval import shardsearch
    from clirkit.systems import BM25Search

    def full(path, **arrays):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(shardtasks.np, "savez", full)
    monkeypatch.setattr(shardsearch, "BLOCK_QUERIES", 2)
    topics = {f"q{i}": f"perro {i}" for i in range(7)}
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    with cluster, distributed.Client(cluster) as client:
        index = ShardedIndex.load(sharded, backend="dask", scheduler=client)
        system = BM25Search().fit(Resources(index=index))
        with pytest.raises(ClirkitError, match=r"cannot write the rows of a block of queries there: No space left"):
            system.search(topics)
    assert not [name for name in os.listdir(sharded.parent) if name.startswith(shardtasks.CLAIMS)]


def test_frames_with_a_column_given_twice_are_one_line_errors():
    import pandas as pd

    from clirkit.estimator import Resources
    from clirkit.pyterrier import retriever
    from clirkit.run import Qrels, Run
    from clirkit.systems import BM25Search

    system = BM25Search().fit(Resources(index=Index.build(DOCS, Analyzer("es"))))
    for columns in (["qid", "query", "qid"], ["qid", "query", "query"]):
        topics = pd.DataFrame([["1", "perro", "x"]], columns=columns)
        for call in (lambda: system.search(topics), lambda: retriever(system)(topics)):
            with pytest.raises(ClirkitError, match=rf"its column {columns[2]} appears 2 times; give each column once"):
                call()
    run = pd.DataFrame([["1", "d1", 1.0, 2.0]], columns=["qid", "docno", "score", "score"])
    with pytest.raises(ClirkitError, match="its column score appears 2 times"):
        Run.from_frame(run)
    qrels = pd.DataFrame([["1", "d1", 1, 0]], columns=["qid", "docno", "label", "label"])
    with pytest.raises(ClirkitError, match="its column label appears 2 times"):
        Qrels.from_frame(qrels)


def test_a_boost_model_whose_header_lost_a_recorded_setting_is_refused(tmp_path, capsys):
    import json

    from test_edges_round19 import _boost_files

    from clirkit.boost.ranker import BoostRanker
    from clirkit.cli import main
    from clirkit.npzio import HEADER_KEY, encode_header

    assert main([*_boost_files(tmp_path), "--rounds", "5", "-o", str(tmp_path / "b.npz")]) == 0
    assert BoostRanker.load(tmp_path / "b.npz").flat_params()["rounds"] == 5
    with np.load(tmp_path / "b.npz", allow_pickle=False) as npz:
        meta = json.loads(npz[HEADER_KEY].tobytes().decode("utf-8"))
        arrays = {k: npz[k] for k in npz.files if k != HEADER_KEY}
    del meta["params"]["hyper_params"]["rounds"]
    np.savez(tmp_path / "bad.npz", **{HEADER_KEY: encode_header(meta)}, **arrays)
    with pytest.raises(ClirkitError, match=r"bad.npz: corrupt boost model: header params.hyper_params.rounds is miss"):
        BoostRanker.load(tmp_path / "bad.npz")
    capsys.readouterr()


def test_an_index_of_documents_holding_only_stopwords_says_no_query_can_find_any(tmp_path, capsys):
    from clirkit.cli import main

    (tmp_path / "d.tsv").write_text("d1\tel la\nd2\tde\n", encoding="utf-8")
    argv = ["index", str(tmp_path / "d.tsv"), "-o", str(tmp_path / "i.npz"), "--lang", "es", "--stopwords", "snowball"]
    assert main(argv) == 0
    assert "note: none of the 2 documents holds a term after the analysis (empty, stopwords," in capsys.readouterr().err
    (tmp_path / "d.tsv").write_text("d1\tel la\nd2\tperro\n", encoding="utf-8")
    assert main(argv) == 0
    assert "note: 1 of 2 documents holds no term after the analysis" in capsys.readouterr().err


def test_blocks_left_unread_by_a_caller_that_stops_end_the_dask_tasks_at_once(sharded, monkeypatch):
    distributed = pytest.importorskip("dask.distributed")
    from clirkit.estimator import Resources
    from clirkit.retrieval import shardsearch
    from clirkit.systems import BM25Search

    monkeypatch.setattr(shardsearch, "BLOCK_QUERIES", 1)
    topics = {f"q{i}": f"perro {i % 7}" for i in range(40)}  # 40 blocks: the tasks wait for the reader
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    with cluster, distributed.Client(cluster) as client:
        system = BM25Search().fit(Resources(index=ShardedIndex.load(sharded, backend="dask", scheduler=client)))
        blocks = system.search_structured_blocks(system.structured_queries(topics))
        assert next(blocks).query_ids == ["q0"]
        start = time.perf_counter()
        blocks.close()  # the caller stops: the tasks still waiting must end, not hold it
        assert time.perf_counter() - start < 20
    assert not [name for name in os.listdir(sharded.parent) if name.startswith(shardtasks.CLAIMS)]
