"""Sharded indexes (clirkit.retrieval.shards): the merged run of the shards is the unsharded index's run byte for byte,
whatever the split, the system, the backend and the number of workers; damaged shards are clean errors."""

from __future__ import annotations

import re

import numpy as np
import pytest

from clirkit import datasets
from clirkit.analysis import Analyzer
from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.fileio import file_digest
from clirkit.formats import write_run
from clirkit.npzio import HEADER_KEY, encode_header
from clirkit.retrieval.bm25 import BM25
from clirkit.retrieval.index import Index, most_frequent_terms
from clirkit.retrieval.query import StructuredQueries
from clirkit.retrieval.shards import ShardedIndex, load_index, shard_name
from clirkit.systems import DT, PSQ
from clirkit.translation import save_table, train_table


@pytest.fixture(scope="module")
def nave(mini):
    """The test slice of nave-en-es: its Spanish verses indexed, an IBM Model 1 table trained on its verse
    pairs, its English queries (every split) and Spanish queries (the first 40 verse pairs' Spanish side)."""
    c = datasets.load(str(mini))
    src, tgt = Analyzer("en"), Analyzer("es")
    docids, texts = c.documents()
    order = np.argsort(docids, kind="stable")
    index = Index.from_tokens([docids[i] for i in order], tgt.tokenize_many([texts[i] for i in order]), tgt)
    sources, targets = c.parallel()
    table = train_table(src.tokenize_many(sources), tgt.tokenize_many(targets), src, tgt, iterations=3)
    topics = {q: t for split in ("train", "dev", "test") for q, t in c.queries(split).items()}
    spanish = {f"v{i}": t for i, t in enumerate(targets[:40])}
    return index, table, topics, spanish, dict(zip(docids, texts))


def run_bytes(run, tmp_path, name="run.txt") -> bytes:
    write_run(run, tmp_path / name)
    return (tmp_path / name).read_bytes()


def bm25_run(index, topics, **params):
    tokens = index.analyzer.tokenize_many(list(topics.values()))
    queries = StructuredQueries.from_tokens(list(topics), tokens, index.vocabulary)
    return index.bm25(**params).search(queries, depth=50, tag="BM25")


SPLITS = [{"shards": 1}, {"shards": 2}, {"shards": 3}, {"starts": [0, 5, 300]}]


@pytest.mark.parametrize("split", SPLITS, ids=["1", "2", "3", "uneven"])
def test_a_sharded_index_offers_what_the_systems_read_of_an_index_with_its_values(nave, split):
    index = nave[0]
    sharded = ShardedIndex.split(index, **split)
    for name in ("terms", "df"):
        assert np.array_equal(getattr(sharded, name), getattr(index, name)), name
    assert (sharded.n_docs, sharded.n_terms, sharded.avgdl, sharded.analyzer) == (
        index.n_docs,
        index.n_terms,
        index.avgdl,
        index.analyzer,
    )
    assert sharded.vocabulary == index.vocabulary and sharded.stats() == index.stats()
    assert sharded.most_frequent_terms(25) == index.most_frequent_terms(25) == most_frequent_terms(index, 25)
    assert isinstance(index.bm25(), BM25) and type(sharded.bm25()).__name__ == "ShardedBM25"


@pytest.mark.parametrize("split", SPLITS, ids=["1", "2", "3", "uneven"])
@pytest.mark.parametrize("idf", ["lucene", "rsj", "bm25okapi"])
def test_sharded_bm25_gives_the_unsharded_run_byte_for_byte(nave, tmp_path, split, idf):
    index, _, _, spanish, _ = nave
    sharded = ShardedIndex.split(index, **split)
    assert sharded.n_shards == split.get("shards", 3) and sharded.n_docs == index.n_docs
    expected = run_bytes(bm25_run(index, spanish, idf=idf, k1=1.5), tmp_path, "a")
    assert expected and run_bytes(bm25_run(sharded, spanish, idf=idf, k1=1.5), tmp_path, "b") == expected


SYSTEMS = [
    (DT, {}),
    (PSQ, {}),
    (PSQ, {"mode": "pirkola"}),
    (PSQ, {"mode": "all", "idf": "rsj"}),
    (PSQ, {"renormalize_in_vocabulary": True, "k3": 7.0}),
]


@pytest.mark.parametrize("cls, params", SYSTEMS, ids=["DT", "PSQ", "pirkola", "all-rsj", "renormalized-k3"])
def test_dt_and_psq_over_shards_give_the_unsharded_run_byte_for_byte(nave, tmp_path, cls, params):
    index, table, topics, _, _ = nave
    expected = run_bytes(
        cls(**params).fit(Resources(index=index, table=table)).search(topics, depth=100), tmp_path, "a"
    )
    for split in ({"shards": 3}, {"starts": [0, 1, 250, 251]}):
        system = cls(**params).fit(Resources(index=ShardedIndex.split(index, **split), table=table))
        assert run_bytes(system.search(topics, depth=100), tmp_path, "b") == expected


def test_shards_indexed_apart_rank_as_one_index(nave, tmp_path):
    index, table, topics, _, _ = nave
    cuts = [0, 100, 180, index.n_docs]
    parts = [
        Index(index.docids[lo:hi], index.terms, index.tf[:, lo:hi].tocsr(), index.doc_lengths[lo:hi], index.analyzer)
        for lo, hi in zip(cuts[:-1], cuts[1:])
    ]
    joined = ShardedIndex.from_shards(parts[::-1])  # taken in docid order, whatever order given
    assert np.array_equal(joined.terms, index.terms) and np.array_equal(joined.df, index.df)
    assert joined.avgdl == index.avgdl
    assert joined.most_frequent_terms(30) == most_frequent_terms(index, 30)
    expected = run_bytes(PSQ().fit(Resources(index=index, table=table)).search(topics), tmp_path, "a")
    assert run_bytes(PSQ().fit(Resources(index=joined, table=table)).search(topics), tmp_path, "b") == expected
    with pytest.raises(ClirkitError, match="docid ranges overlap"):
        ShardedIndex.from_shards([parts[0], parts[0]])


def test_workers_and_backends_give_the_single_process_run(nave, tmp_path):
    index, table, topics, _, _ = nave
    ShardedIndex.split(index, 3).save(tmp_path / "ix.npz")
    expected = run_bytes(DT().fit(Resources(index=index, table=table)).search(topics), tmp_path, "a")
    for jobs, backend in ((1, "loky"), (2, "loky"), (2, "threading")):
        sharded = ShardedIndex.load(tmp_path / "ix.npz", jobs=jobs, backend=backend)
        for _ in range(2):  # the second search reuses the shards the workers opened
            assert run_bytes(DT().fit(Resources(index=sharded, table=table)).search(topics), tmp_path, "b") == expected
    in_memory = ShardedIndex.split(index, 2)
    in_memory.jobs = 2
    assert run_bytes(DT().fit(Resources(index=in_memory, table=table)).search(topics), tmp_path, "c") == expected


def test_a_dask_local_cluster_gives_the_single_process_run(nave, tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    index, table, topics, _, _ = nave
    ShardedIndex.split(index, 5).save(tmp_path / "ix.npz")  # searched as one group of consecutive shards a worker
    expected = run_bytes(PSQ(mode="pirkola").fit(Resources(index=index, table=table)).search(topics), tmp_path, "a")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    with cluster, distributed.Client(cluster) as client:
        sharded = ShardedIndex.load(tmp_path / "ix.npz", backend="dask", scheduler=client)
        assert (
            run_bytes(PSQ(mode="pirkola").fit(Resources(index=sharded, table=table)).search(topics), tmp_path, "b")
            == expected
        )
    with pytest.raises(ClirkitError, match="needs --scheduler"):
        ShardedIndex.load(tmp_path / "ix.npz", backend="dask").bm25().search(
            StructuredQueries.from_tokens(["q"], [["luz"]], sharded.vocabulary)
        )


def test_missing_damaged_or_replaced_shards_are_clean_errors(nave, tmp_path, tamper):
    index, table, topics, _, _ = nave
    ShardedIndex.split(index, 3).save(tmp_path / "ix.npz")
    shard = tmp_path / ShardedIndex.load(tmp_path / "ix.npz").records[1]["file"]
    assert re.fullmatch(r"ix\.shard-001\.[0-9a-f]{12}\.npz", shard.name) and Index.load(shard).n_docs > 0
    assert shard.name == shard_name(tmp_path / "ix.npz", 1, file_digest(shard)[:12])
    good = shard.read_bytes()

    shard.unlink()
    with pytest.raises(ClirkitError, match=rf"ix.npz: shard 1 \({shard.name}\) is missing"):
        load_index(tmp_path / "ix.npz")
    shard.write_bytes(good[:-100])
    with pytest.raises(ClirkitError, match=rf"shard 1 \({shard.name}\) has \d+ bytes, the manifest records"):
        load_index(tmp_path / "ix.npz")
    damaged = bytearray(good)  # the same size, bytes changed inside an array
    damaged[len(good) // 2 : len(good) // 2 + 64] = b"\xff" * 64
    shard.write_bytes(bytes(damaged))
    sharded = load_index(tmp_path / "ix.npz", jobs=2)
    with pytest.raises(ClirkitError, match=shard.name):
        DT().fit(Resources(index=sharded, table=table)).search(topics)
    ShardedIndex.split(index, 2).shard(0).save(shard)  # another index in its place, its size recorded
    header, arrays = _read_npz(tmp_path / "ix.npz")
    header["shards"][1]["bytes"] = shard.stat().st_size
    np.savez(tmp_path / "ix.npz", **{HEADER_KEY: encode_header(header)}, **arrays)
    for jobs in (1, 2):  # found from the zip's directory (its members' CRCs), before the shard is read
        replaced = rf"shard 1 \({shard.name}\) holds other contents than the manifest records: it was replaced"
        with pytest.raises(ClirkitError, match=replaced):
            DT().fit(Resources(index=load_index(tmp_path / "ix.npz", jobs=jobs), table=table)).search(topics)
    del header["shards"][1]["contents"]  # a manifest from before the contents were recorded: the name's digest
    np.savez(tmp_path / "ix.npz", **{HEADER_KEY: encode_header(header)}, **arrays)
    with pytest.raises(ClirkitError, match=rf"shard 1 \({shard.name}\) holds other contents than the manifest"):
        DT().fit(Resources(index=load_index(tmp_path / "ix.npz"), table=table)).search(topics)
    renamed = shard.with_name(shard_name(tmp_path / "ix.npz", 1, file_digest(shard)[:12]))  # its own digest
    shard.rename(renamed)
    header["shards"][1]["file"] = renamed.name
    np.savez(tmp_path / "ix.npz", **{HEADER_KEY: encode_header(header)}, **arrays)
    with pytest.raises(ClirkitError, match=rf"shard 1 \({renamed.name}\) has n_docs \d+, the manifest records"):
        DT().fit(Resources(index=load_index(tmp_path / "ix.npz"), table=table)).search(topics)

    ShardedIndex.split(index, 3).save(tmp_path / "ix.npz")
    bad = tamper(tmp_path / "ix.npz", tmp_path / "bad.npz", df=np.full(index.n_terms, -1))
    with pytest.raises(ClirkitError, match=r"bad.npz: corrupt sharded-index: df has -1 at 0, below the minimum 0"):
        load_index(bad)
    outside = tamper(tmp_path / "ix.npz", tmp_path / "out.npz", header={"shards": [{"file": "../ix.npz"}]})
    with pytest.raises(ClirkitError, match="out.npz: corrupt sharded-index: header shards"):
        load_index(outside)


def test_a_manifest_whose_df_cf_or_avgdl_disagree_with_its_totals_is_refused(nave, tmp_path, tamper):
    index, table, topics, _, _ = nave
    ShardedIndex.split(index, 3).save(tmp_path / "ix.npz")
    whole = load_index(tmp_path / "ix.npz")
    assert whole.avgdl == index.avgdl and whole.stats()["n_tokens"] == int(index.doc_lengths.sum())
    t = int(np.argmax(index.df < index.n_docs))
    df, cf = whole.df.copy(), whole.cf.copy()
    df[t] += 1
    cf[t] += 1
    for edit, problem in (
        ({"header": {"stats.avgdl": 1.0}}, r"header stats.avgdl is 1.0 but the \d+ documents hold \d+ tokens"),
        ({"df": df}, r"df sums to \d+ but the shards hold \d+ postings"),
        ({"cf": cf}, r"cf sums to \d+ but header stats.n_tokens is \d+"),
        ({"df": df, "cf": cf, "header": {"stats.n_postings": int(df.sum())}}, r"header stats.n_postings is \d+"),
    ):
        bad = tamper(tmp_path / "ix.npz", tmp_path / "bad.npz", **edit)
        with pytest.raises(ClirkitError, match=rf"bad.npz: corrupt sharded-index: {problem}.*clirkit index --shards"):
            load_index(bad)


def _read_npz(path):
    import json

    with np.load(path, allow_pickle=False) as npz:
        return (
            json.loads(npz[HEADER_KEY].tobytes().decode("utf-8")),
            {k: npz[k] for k in npz.files if k != HEADER_KEY},
        )


def test_index_shards_then_search_dt_psq_write_the_unsharded_runs(nave, tmp_path):
    index, table, topics, spanish, texts = nave
    docs, queries, en = tmp_path / "docs.tsv", tmp_path / "q.tsv", tmp_path / "en.tsv"
    docs.write_text("".join(f"{d}\t{t}\n" for d, t in texts.items()), encoding="utf-8")
    queries.write_text("".join(f"{q}\t{t}\n" for q, t in spanish.items()), encoding="utf-8")
    en.write_text("".join(f"{q}\t{t}\n" for q, t in topics.items()), encoding="utf-8")
    save_table(table, tmp_path / "t.npz")
    for shards in ("1", "3"):
        assert (
            main(
                ["index", str(docs), "-o", str(tmp_path / f"ix{shards}.npz"), "--lang", "es", "-q", "--shards", shards]
            )
            == 0
        )
    assert main(["index", str(docs), "-o", str(tmp_path / "plain.npz"), "--lang", "es", "-q"]) == 0
    assert (tmp_path / "ix1.npz").read_bytes() == (tmp_path / "plain.npz").read_bytes()
    assert isinstance(load_index(tmp_path / "ix3.npz"), ShardedIndex)
    for verb, extra in (
        ("search", ["--queries", str(queries)]),
        ("dt", ["--queries", str(en), "--table", str(tmp_path / "t.npz")]),
        ("psq", ["--queries", str(en), "--table", str(tmp_path / "t.npz")]),
    ):
        outputs = []
        for ix, jobs in (("plain", "1"), ("ix3", "1"), ("ix3", "2")):
            out = tmp_path / f"{verb}-{ix}-{jobs}.run"
            assert (
                main([verb, "--index", str(tmp_path / f"{ix}.npz"), *extra, "-o", str(out), "-q", "--jobs", jobs]) == 0
            )
            outputs.append(out.read_bytes())
        assert outputs[0] and outputs[1] == outputs[0] and outputs[2] == outputs[0], verb


def test_jobs_on_an_unsharded_index_are_said_not_silently_ignored(nave, tmp_path, capsys):
    index, table, topics, spanish, texts = nave
    index.save(tmp_path / "plain.npz")
    queries = tmp_path / "q.tsv"
    queries.write_text("".join(f"{q}\t{t}\n" for q, t in spanish.items()), encoding="utf-8")
    runs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"{jobs}.run"
        assert (
            main(
                [
                    "search",
                    "--index",
                    str(tmp_path / "plain.npz"),
                    "--queries",
                    str(queries),
                    "-o",
                    str(out),
                    "--jobs",
                    jobs,
                ]
            )
            == 0
        )
        runs.append(out.read_bytes())
        err = capsys.readouterr().err
        assert ("is not sharded" in err) == (jobs == "2")
        assert ("--jobs here sets only the threads writing the run" in err) == (jobs == "2")
    assert runs[0] == runs[1]
    ShardedIndex.split(index, 2).save(tmp_path / "sharded.npz")  # --mmap over shards: said, the same run
    out = tmp_path / "mmap.run"
    assert main(["search", "--index", str(tmp_path / "sharded.npz"), "--queries", str(queries), "-o", str(out),
                 "--mmap"]) == 0  # fmt: skip
    assert "is sharded: its shards are read whole" in capsys.readouterr().err and out.read_bytes() == runs[0]


def test_search_dt_psq_over_a_memory_mapped_index_write_the_same_runs(nave, tmp_path):
    index, table, topics, spanish, texts = nave
    index.save(tmp_path / "plain.npz")
    save_table(table, tmp_path / "t.npz")
    queries, en = tmp_path / "q.tsv", tmp_path / "en.tsv"
    queries.write_text("".join(f"{q}\t{t}\n" for q, t in spanish.items()), encoding="utf-8")
    en.write_text("".join(f"{q}\t{t}\n" for q, t in topics.items()), encoding="utf-8")
    for verb, extra in (
        ("search", ["--queries", str(queries)]),
        ("dt", ["--queries", str(en), "--table", str(tmp_path / "t.npz")]),
        ("psq", ["--queries", str(en), "--table", str(tmp_path / "t.npz")]),
    ):
        runs = []
        for mmap in ([], ["--mmap"]):
            out = tmp_path / f"{verb}{len(mmap)}.run"
            assert main([verb, "--index", str(tmp_path / "plain.npz"), *extra, "-o", str(out), "-q", *mmap]) == 0
            runs.append(out.read_bytes())
        assert runs[0] and runs[1] == runs[0], verb


@pytest.mark.parametrize("order,jobs", [("reversed", 1), ("by docid", 1), ("by docid", 2)])
def test_shards_built_one_at_a_time_are_the_split_index_byte_for_byte(nave, tmp_path, order, jobs):
    # a file by increasing docid is read once for the shards (one after the other), any other once per shard
    from clirkit.formats import iter_located_documents

    index, table, topics, spanish, texts = nave
    docs = tmp_path / "docs.tsv"
    rows = sorted(texts.items()) if order == "by docid" else list(reversed(list(texts.items())))
    docs.write_text("".join(f"{d}\t{t}\n" for d, t in rows), encoding="utf-8")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    built = ShardedIndex.build(
        lambda: iter_located_documents(docs), 3, index.analyzer, tmp_path / "a" / "ix.npz", jobs=jobs
    )
    whole = Index.build(iter_located_documents(docs), index.analyzer, source=str(docs))
    ShardedIndex.split(whole, 3).save(tmp_path / "b" / "ix.npz")
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert [re.sub(r"\.[0-9a-f]{12}\.npz$", ".DIGEST.npz", n) for n in names] == [
        "ix.npz",
        "ix.shard-000.DIGEST.npz",
        "ix.shard-001.DIGEST.npz",
        "ix.shard-002.DIGEST.npz",
    ]
    assert names == sorted(p.name for p in (tmp_path / "b").iterdir())
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    assert built.stats() == ShardedIndex.load(tmp_path / "b" / "ix.npz").stats()


def test_a_duplicate_docid_in_a_sharded_build_names_its_line_and_leaves_no_shard(nave, tmp_path, capsys):
    index, table, topics, spanish, texts = nave
    rows = [f"{d}\t{t}\n" for d, t in texts.items()]
    rows.append(rows[-1])  # the last document again: it falls in the last shard
    docs = tmp_path / "docs.tsv"
    docs.write_text("".join(rows), encoding="utf-8")
    assert main(["index", str(docs), "-o", str(tmp_path / "ix.npz"), "--lang", "es", "-q", "--shards", "3"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"clirkit: error: {docs}:{len(rows)}:") and "duplicate" in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs.tsv"]


def _interrupted_rebuilds_setup(nave, tmp_path):
    """An index of the slice's documents in 2 shards at ix.npz, its search run, and a second documents file
    (a third of the documents dropped, the rest reversed) whose index ranks otherwise."""
    index, table, topics, spanish, texts = nave
    old, new, queries = tmp_path / "old.tsv", tmp_path / "new.tsv", tmp_path / "q.tsv"
    old.write_text("".join(f"{d}\t{t}\n" for d, t in texts.items()), encoding="utf-8")
    new.write_text(
        "".join(f"{d}\t{t}\n" for i, (d, t) in enumerate(reversed(list(texts.items()))) if i % 3), encoding="utf-8"
    )
    queries.write_text("".join(f"{q}\t{t}\n" for q, t in spanish.items()), encoding="utf-8")
    return old, new, queries


def _search(folder, queries, name="ix.npz") -> bytes:
    out = folder / "out.run"
    assert main(["search", "--index", str(folder / name), "--queries", str(queries), "-o", str(out), "-q"]) == 0
    return out.read_bytes()


@pytest.mark.slow
@pytest.mark.parametrize("extra", [[], ["--stopwords-top", "2"]], ids=["one-shard-at-a-time", "split-in-memory"])
def test_a_rebuild_killed_or_interrupted_anywhere_leaves_the_old_index_searching_byte_for_byte(nave, tmp_path, extra):
    import os
    import signal
    import subprocess
    import sys

    old, new, queries = _interrupted_rebuilds_setup(nave, tmp_path)
    ix = tmp_path / "ix"
    ix.mkdir()
    index_argv = ["index", "--lang", "es", "-q", "--shards", "2", *extra, "-o", str(ix / "ix.npz")]
    assert main([*index_argv, str(old)]) == 0
    before, files = _search(ix, queries), sorted(p.name for p in ix.iterdir())
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    assert main([*index_argv[:-1], str(fresh / "ix.npz"), str(new)]) == 0
    after = _search(fresh, queries)
    assert before and after and after != before

    def rebuild(point, sig):
        env = {**os.environ, "CLIRKIT_TEST_SIGNAL": f"{point} {sig}"}
        done = subprocess.run(
            [sys.executable, "-m", "clirkit", *index_argv, str(new)],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if sig == "SIGKILL":
            assert done.returncode == -signal.SIGKILL, done.stderr
        else:
            assert (done.returncode, done.stderr) == (130, "clirkit: interrupted\n")

    for point in ("part-0", "shard-0", "part-1", "shard-1", "shards"):
        rebuild(point, "SIGINT")  # the old index, and nothing else
        assert sorted(p.name for p in ix.iterdir()) == files, point
        assert _search(ix, queries) == before, point
        rebuild(point, "SIGKILL")  # the old index (and what the next write removes)
        assert _search(ix, queries) == before, point
    assert main([*index_argv, str(old)]) == 0  # the strays of killed rebuilds are removed by the next write
    assert sorted(p.name for p in ix.iterdir()) == files and _search(ix, queries) == before
    for sig in ("SIGKILL", "SIGINT"):  # after the switch: the new index, whole; the old shards left are removed next
        rebuild("manifest", sig)
        assert _search(ix, queries) == after
        assert main([*index_argv, str(old)]) == 0
        assert sorted(p.name for p in ix.iterdir()) == files and _search(ix, queries) == before
    # a rebuild to the same index writes the same files and changes nothing
    assert main([*index_argv, str(old)]) == 0
    assert sorted(p.name for p in ix.iterdir()) == files and _search(ix, queries) == before


def test_saving_over_the_index_it_was_loaded_from_rewrites_it_whole(nave, tmp_path):
    index, table, topics, spanish, texts = nave
    ShardedIndex.split(index, 3).save(tmp_path / "ix.npz")
    files = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    ShardedIndex.load(tmp_path / "ix.npz").save(tmp_path / "ix.npz")
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == files
    ShardedIndex.split(index, 2).save(tmp_path / "ix.npz")  # fewer shards: the third is removed with the others
    assert len(list(tmp_path.iterdir())) == 3 and load_index(tmp_path / "ix.npz").n_shards == 2


def _npz_files(folder):
    return sorted(p.name for p in folder.iterdir() if p.suffix == ".npz")


def test_a_plain_index_written_over_a_sharded_one_replaces_it_whole_and_back(nave, tmp_path):
    import os
    import signal
    import subprocess
    import sys

    old, new, queries = _interrupted_rebuilds_setup(nave, tmp_path)
    ix = tmp_path / "ix"
    ix.mkdir()
    sharded = ["index", "--lang", "es", "-q", "--shards", "2", "-o", str(ix / "ix.npz")]
    plain = ["index", "--lang", "es", "-q", "-o", str(ix / "ix.npz")]
    assert main([*sharded, str(old)]) == 0
    before, files = _search(ix, queries), _npz_files(ix)
    assert len(files) == 3
    for sig in ("SIGINT", "SIGKILL"):  # the plain file in place, the old shards not yet removed
        env = {**os.environ, "CLIRKIT_TEST_SIGNAL": f"plain {sig}"}
        done = subprocess.run(
            [sys.executable, "-m", "clirkit", *plain, str(new)], env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode in (130, -signal.SIGKILL), done.stderr
        assert len(_npz_files(ix)) == 3  # the plain index is searched; its strays are removed by the next write
        after = _search(ix, queries)
        assert main([*sharded, str(old)]) == 0
        assert _npz_files(ix) == files and _search(ix, queries) == before
    assert main([*plain, str(new)]) == 0  # a plain index over the manifest: its shards go with it
    assert _npz_files(ix) == ["ix.npz"] and _search(ix, queries) == after
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    assert main([*plain[:-1], str(fresh / "ix.npz"), str(new)]) == 0
    assert (ix / "ix.npz").read_bytes() == (fresh / "ix.npz").read_bytes()
    assert main([*sharded, str(old)]) == 0  # and back: the manifest over the plain file, nothing else left
    assert _npz_files(ix) == files and _search(ix, queries) == before


def test_a_plain_index_saved_over_a_manifest_removes_only_its_own_shards(nave, tmp_path):
    index = nave[0]
    ShardedIndex.split(index, 2).save(tmp_path / "ix.npz")
    ShardedIndex.split(index, 3).save(tmp_path / "other.npz")
    (tmp_path / "ix.shard-000.notes.txt").write_text("mine\n", encoding="utf-8")
    index.save(tmp_path / "ix.npz")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("ix")) == ["ix.npz", "ix.shard-000.notes.txt"]
    assert load_index(tmp_path / "other.npz").n_shards == 3 and isinstance(load_index(tmp_path / "ix.npz"), Index)
