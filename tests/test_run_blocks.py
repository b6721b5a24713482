"""A run searched and written by blocks of queries: clirkit.parallel.ordered_threads (results in order, items read
lazily, errors at their turn), clirkit.formats.runs.write_run_blocks (the file of the joined run, byte for byte;
a query in two blocks refused, nothing written) and ShardedBM25.search_blocks (threads searching the next blocks
while the caller writes one): the run of the unsharded index byte for byte, from Python and the command line."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from clirkit import datasets
from clirkit.analysis import Analyzer
from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.formats import read_run, write_run
from clirkit.formats.runs import write_run_blocks
from clirkit.parallel import ordered_threads
from clirkit.retrieval import shardsearch
from clirkit.retrieval.index import Index
from clirkit.retrieval.shards import ShardedIndex
from clirkit.run import Run
from clirkit.systems import PSQ, BM25Search
from clirkit.translation import train_table


def test_ordered_threads_give_every_result_in_the_order_of_the_items():
    def slow_square(x):
        time.sleep(0.002 * (7 - x % 7))  # later items often finish first
        return x * x

    for workers in (1, 2, 3):
        assert list(ordered_threads(slow_square, range(30), workers=workers)) == [x * x for x in range(30)]
    assert list(ordered_threads(slow_square, [], workers=2)) == []


def test_ordered_threads_read_the_items_lazily_a_bounded_number_ahead():
    read = []

    def items():
        for x in range(50):
            read.append(x)
            yield x

    for k, _ in enumerate(ordered_threads(lambda x: x, items(), workers=2, ahead=2)):
        assert len(read) <= k + 1 + 2 * 2 + 1  # the one given, the ones ahead, the one being submitted
    assert len(read) == 50


def test_ordered_threads_raise_a_tasks_error_at_its_turn_after_the_results_before_it():
    def task(x):
        if x == 5:
            raise ValueError("five")
        return x

    got = []
    with pytest.raises(ValueError, match="five"):
        for value in ordered_threads(task, range(20), workers=2):
            got.append(value)
    assert got == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="five"):
        list(ordered_threads(task, range(20), workers=1))


def test_ordered_threads_with_one_worker_run_everything_here():
    assert set(ordered_threads(lambda _: threading.get_ident(), range(5), workers=1)) == {threading.get_ident()}


def _run(qids, n, tag="t"):
    qid_rows = np.repeat(np.array(qids), n)
    docids = np.array([f"d{i % n}" for i in range(len(qid_rows))])
    scores = np.tile(np.linspace(10.5, 0.25, n), len(qids))
    return Run(qid_rows, docids, scores, tag=tag)


@pytest.mark.parametrize("jobs", [1, 2])
def test_blocks_written_together_are_the_file_of_their_joined_run(tmp_path, jobs, monkeypatch):
    import clirkit.formats.runs as runs

    monkeypatch.setattr(runs, "WRITE_CHUNK", 7)  # pieces across and within blocks
    blocks = [_run(["q1", "q2"], 9), _run([], 0), _run(["q3"], 4), _run(["qé", "q5"], 5)]  # one non-ASCII
    joined = Run(*(np.concatenate([getattr(b, f) for b in blocks]) for f in ("qids", "docids", "scores")), tag="t")
    write_run(joined, tmp_path / "one.run")
    write_run_blocks(blocks, tmp_path / "blocks.run", jobs=jobs)
    assert (tmp_path / "blocks.run").read_bytes() == (tmp_path / "one.run").read_bytes()
    assert len(read_run(tmp_path / "blocks.run")) == 9 * 2 + 4 + 5 * 2
    write_run_blocks(blocks, tmp_path / "tagged.run", tag="other", jobs=jobs)
    assert read_run(tmp_path / "tagged.run").tag == "other"
    write_run_blocks([], tmp_path / "empty.run", jobs=jobs)
    assert (tmp_path / "empty.run").read_bytes() == b""


def test_blocks_holding_a_query_twice_or_a_bad_block_late_write_nothing(tmp_path):
    out = tmp_path / "r.run"
    with pytest.raises(ClirkitError, match="cannot write query q2 twice"):
        write_run_blocks([_run(["q1", "q2"], 3), _run(["q2"], 3)], out)
    assert not out.exists() and not list(tmp_path.iterdir())
    bad = _run(["q9"], 2)
    object.__setattr__(bad, "scores", np.array([1.0, np.nan]))
    with pytest.raises(ClirkitError, match="a run file holds finite numbers"):
        write_run_blocks([_run(["q1"], 3), bad], out)
    assert not list(tmp_path.iterdir())


@pytest.fixture(scope="module")
def nave(mini):
    """The test slice of nave-en-es: its Spanish verses indexed, p(es|en) trained on its verse pairs, its English
    queries (every split) and the Spanish side of its first 40 verse pairs as queries."""
    c = datasets.load(str(mini))
    en, es = Analyzer("en"), Analyzer("es")
    sources, targets = c.parallel()
    table = train_table(en.tokenize_many(sources), es.tokenize_many(targets), en, es, iterations=3)
    topics = {q: t for split in ("train", "dev", "test") for q, t in c.queries(split).items()}
    spanish = {f"v{i}": t for i, t in enumerate(targets[:40])}
    return Index.build(dict(zip(*c.documents())).items(), es), table, topics, spanish


@pytest.mark.parametrize("jobs", [2, 3])
def test_a_sharded_search_by_threads_gives_blocks_of_consecutive_queries_that_join_into_the_run(
    nave, tmp_path, monkeypatch, jobs
):
    index, table, topics, _ = nave
    monkeypatch.setattr(shardsearch, "BLOCK_QUERIES", 5)
    one = PSQ().fit(Resources(index=index, table=table))
    write_run(one.search(topics, depth=40), tmp_path / "one.run")
    sharded = ShardedIndex.split(index, 3)
    sharded.jobs, sharded.backend = jobs, "threading"
    psq = PSQ().fit(Resources(index=sharded, table=table))
    queries = psq.structured_queries(topics)
    blocks = list(psq.search_structured_blocks(queries, depth=40))
    assert len(blocks) == -(-len(topics) // 5)
    matched = [q for q in topics if q in set(read_run(tmp_path / "one.run").query_ids)]
    assert [q for b in blocks for q in b.query_ids] == matched  # consecutive queries, in order
    write_run_blocks(blocks, tmp_path / "blocks.run")
    assert (tmp_path / "blocks.run").read_bytes() == (tmp_path / "one.run").read_bytes()
    write_run(psq.search(topics, depth=40), tmp_path / "joined.run")  # search joins the blocks
    assert (tmp_path / "joined.run").read_bytes() == (tmp_path / "one.run").read_bytes()


def test_one_worker_or_an_unsharded_index_gives_one_block(nave):
    index, _, _, spanish = nave
    for searched in (index, ShardedIndex.split(index, 3)):
        system = BM25Search().fit(Resources(index=searched))
        assert len(list(system.search_structured_blocks(system.structured_queries(spanish)))) == 1


@pytest.mark.parametrize("verb", ["search", "psq"])
def test_the_command_line_writes_the_blocks_of_threads_as_the_one_file_index_run(nave, tmp_path, monkeypatch, verb):
    from clirkit.translation import save_table

    index, table, topics, spanish = nave
    monkeypatch.setattr(shardsearch, "BLOCK_QUERIES", 3)
    index.save(tmp_path / "one.npz")
    ShardedIndex.split(index, 4).save(tmp_path / "sh.npz")
    save_table(table, tmp_path / "t.npz")
    given = spanish if verb == "search" else topics
    (tmp_path / "q.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in given.items()) + "none\tzzzz\n", "utf-8")
    extra = ["--table", str(tmp_path / "t.npz")] if verb == "psq" else []
    runs = []
    for ix, jobs in (("one", "1"), ("sh", "2")):
        out = tmp_path / f"{ix}.run"
        argv = [verb, "--index", str(tmp_path / f"{ix}.npz"), "--queries", str(tmp_path / "q.tsv"), "-o", str(out)]
        assert main([*argv, *extra, "--jobs", jobs, "-q"]) == 0
        runs.append(out.read_bytes())
    assert runs[0] and runs[1] == runs[0]


@pytest.mark.parametrize("backend", ["loky", "dask"])
def test_worker_processes_leave_blocks_that_join_into_the_one_file_run(nave, tmp_path, monkeypatch, backend):
    """loky and dask workers search their groups of shards block by block, leaving each block in a folder that
    this process reads in order: the blocks are consecutive queries, the run that of the one-file index (BM25
    and Pirkola, whose counts come first), and the folder is gone after."""
    import glob
    import tempfile

    index, table, topics, spanish = nave
    monkeypatch.setattr(shardsearch, "BLOCK_QUERIES", 7)
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))  # where loky's folder is made
    ShardedIndex.split(index, 3).save(tmp_path / "sh.npz")
    cluster = client = None
    if backend == "dask":
        distributed = pytest.importorskip("dask.distributed")
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
        client = distributed.Client(cluster)
    try:
        sharded = ShardedIndex.load(tmp_path / "sh.npz", jobs=2, backend=backend, scheduler=client)
        for system, given in ((BM25Search(), spanish), (PSQ(mode="pirkola"), topics)):
            one = system.fit(Resources(index=index, table=table))
            write_run(one.search(given, depth=30), tmp_path / "one.run")
            fitted = system.fit(Resources(index=sharded, table=table))
            blocks = list(fitted.search_structured_blocks(fitted.structured_queries(given), depth=30))
            assert len(blocks) == -(-len(given) // 7) > 2
            write_run_blocks(blocks, tmp_path / "blocks.run")
            assert (tmp_path / "blocks.run").read_bytes() == (tmp_path / "one.run").read_bytes()
    finally:
        if client is not None:
            client.close()
            cluster.close()
    left = glob.glob(str(tmp_path / ".clirkit-claims-*")) + glob.glob(str(tmp_path / "tmp" / ".clirkit-claims-*"))
    assert left == []


def test_a_workers_error_ends_the_blocks_with_that_error(nave, tmp_path, monkeypatch):
    index, _, _, spanish = nave
    monkeypatch.setattr(shardsearch, "BLOCK_QUERIES", 7)
    ShardedIndex.split(index, 3).save(tmp_path / "sh.npz")
    sharded = ShardedIndex.load(tmp_path / "sh.npz", jobs=2, backend="loky")
    shard = tmp_path / sharded.records[2]["file"]
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0xFF
    shard.write_bytes(bytes(data))
    system = BM25Search().fit(Resources(index=sharded))
    with pytest.raises(ClirkitError, match=rf"sh.npz: shard 2 \({shard.name}\)"):
        list(system.search_structured_blocks(system.structured_queries(spanish)))
