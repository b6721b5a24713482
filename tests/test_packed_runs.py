"""Runs made and kept as codes (clirkit.packedrun): the experiment runner makes a split's run a block of queries at a
time and keeps it packed, fuses and re-ranks packed runs into packed runs, and evaluates them without unpacking. Each
gives the same rows, scores and files as the unpacked way, byte for byte."""

from __future__ import annotations

import gzip
import re

import numpy as np
import pytest
from test_experiment import _api_resources

from clirkit import packedrun
from clirkit.errors import ClirkitError
from clirkit.experiment import Experiment, run_experiment
from clirkit.metrics import evaluate
from clirkit.packedrun import PackedRun, packed_in_blocks
from clirkit.run import Qrels, Run

EXPERIMENT = """
collection = "{folder}"
measures = ["AP", "P@10", "nDCG@10"]
baseline = "PSQ"
seed = 3
report_splits = ["dev", "test"]

[systems.DT]
kind = "dt"

[systems.PSQ]
kind = "psq"

[systems.Boost]
kind = "boost"
base = "DT+PSQ"
rounds = 20
eval_every = 10
beta_grid = [2.0, 5.0]

[systems.SCS]
kind = "scs"
epochs = 1
dim = 16

[systems.BM25]
kind = "bm25"

[systems.QueryPSQ]
kind = "querypsq"

[systems.Boost-1g]
kind = "boost"
rounds = 20
eval_every = 10

[fusions."DT+PSQ"]
systems = ["DT", "PSQ"]
step = 0.25

[fusions.Borda]
systems = ["DT", "PSQ", "Boost", "SCS"]
method = "borda"
"""


def _random_run(seed: int, queries: int = 30, tag: str = "T") -> Run:
    rng = np.random.default_rng(seed)
    docids = np.array([f"doc-{i}" + "x" * (i % 7) for i in range(50)])
    sizes = rng.integers(1, 20, queries)
    scores = np.concatenate([np.sort(rng.integers(0, 5, s).astype(float))[::-1] for s in sizes])  # (ties)
    rows = np.concatenate([rng.choice(50, s, replace=False) for s in sizes])
    return Run.ranked(np.repeat([f"q{i}" for i in range(queries)], sizes), docids[rows], scores, tag=tag)


def _subset(run: Run, qids) -> Run:
    keep = np.isin(run.qids, list(qids))
    return Run(run.qids[keep], run.docids[keep], run.scores[keep], tag=run.tag)


def _same(a: Run, b: Run) -> None:
    assert a.tag == b.tag and a.query_ids == b.query_ids
    for name in ("qids", "docids", "scores"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_packed_blocks_put_together_are_the_packed_run_of_them_all():
    run = _random_run(0)
    blocks = [_subset(run, run.query_ids[a : a + 7]) for a in range(0, 30, 7)]
    _same(PackedRun.concat([PackedRun(b) for b in blocks], tag="T").unpack(), run)
    shared = PackedRun(run)  # blocks coding into one array of documents (an index's) keep it
    parts = [
        PackedRun.from_codes(
            shared.query_order[:10],
            shared.sizes[:10],
            shared.documents,
            shared.codes[: shared.sizes[:10].sum()],
            shared.scores[: shared.sizes[:10].sum()],
            tag="T",
        ),
        PackedRun.from_codes(
            shared.query_order[10:],
            shared.sizes[10:],
            shared.documents,
            shared.codes[shared.sizes[:10].sum() :],
            shared.scores[shared.sizes[:10].sum() :],
            tag="T",
        ),
    ]
    joined = PackedRun.concat(parts, tag="T")
    assert joined.documents is shared.documents
    _same(joined.unpack(), run)
    with pytest.raises(ClirkitError, match="query 'q0' is in two of them"):
        PackedRun.concat([PackedRun(blocks[0]), PackedRun(run)], tag="T")
    assert len(PackedRun.concat([], tag="E").unpack()) == 0


@pytest.mark.parametrize("queries", [1, 4, 30, 100])
def test_a_packed_run_written_a_block_at_a_time_is_the_file_of_its_run(tmp_path, queries):
    from clirkit.formats import write_run
    from clirkit.formats.runs import write_run_blocks

    run = _random_run(3)
    write_run(run, tmp_path / "whole.run")
    write_run_blocks(PackedRun(run).blocks(queries), tmp_path / "blocks.run")
    assert (tmp_path / "blocks.run").read_bytes() == (tmp_path / "whole.run").read_bytes()
    assert len(list(PackedRun(run).blocks(queries))) == -(-30 // queries)


def test_a_packed_run_made_from_codes_leaves_out_empty_queries_and_refuses_what_a_run_refuses():
    made = PackedRun.from_codes(["a", "b", "c"], [2, 0, 1], np.array(["d1", "d2"]), [1, 0, 0], [3.0, 2.0, 1.0], tag="X")
    _same(made.unpack(), Run(["a", "a", "c"], ["d2", "d1", "d1"], [3.0, 2.0, 1.0], tag="X"))
    with pytest.raises(ClirkitError, match="not a finite number"):
        PackedRun.from_codes(["a"], [1], np.array(["d1"]), [0], [np.nan], tag="X")
    with pytest.raises(ClirkitError, match="sizes summing to 2 for 1 codes"):
        PackedRun.from_codes(["a"], [2], np.array(["d1"]), [0], [1.0], tag="X")


@pytest.mark.parametrize("depth", [1, 3, 19, 100])
def test_the_top_of_a_packed_run_is_the_top_of_its_run_and_stays_packed(depth):
    run = _random_run(1)
    top = PackedRun(run).top(depth)
    assert isinstance(top, PackedRun)
    _same(top.unpack(), run.top(depth))


@pytest.mark.parametrize("ties", ["trec_eval", "run"])
def test_a_packed_run_is_evaluated_as_its_run(ties):
    run = _random_run(2)
    rng = np.random.default_rng(5)
    judged = [
        (q, f"doc-{d}" + "x" * (d % 7), int(rng.integers(-1, 4)))
        for q in run.query_ids[3:] + ["q-unrun"]
        for d in rng.choice(50, 12, replace=False)
    ]
    qrels = Qrels(*map(np.array, zip(*judged)))
    measures = ["AP", "P@5", "nDCG@10", "RR", "R@10", "PRES@15"]
    for average in ("qrels", "run"):
        want = evaluate(run, qrels, measures, ties=ties, average=average, depth=15)
        got = evaluate(PackedRun(run), qrels, measures, ties=ties, average=average, depth=15)
        assert np.array_equal(got.qids, want.qids) and np.array_equal(got.values, want.values)
        assert got.missing_queries == want.missing_queries and got.ignored_queries == want.ignored_queries
        assert got.tag == want.tag and len(want.missing_queries) == 1


def test_a_systems_run_searched_in_blocks_is_its_run_searched_at_once(mini):
    from clirkit.systems import PSQ, Resources

    c, table, index, _ = _api_resources(mini)
    psq = PSQ().fit(Resources(index=index, table=table))
    topics = c.queries("train")
    run = psq.search(topics)
    excluded = {q: set(_subset(run, [q]).docids[:3].tolist()) for q in list(topics)[::3]}  # (their best ones)
    for left_out in (None, excluded):
        whole = psq.search(topics, excluded=left_out, tag="P")
        for block in (1, 7, 1000):
            _same(
                packed_in_blocks(psq.search, topics, excluded=left_out, tag="P", quiet=True, block=block).unpack(),
                whole,
            )


def _files(folder):
    runs = {p.name: gzip.decompress(p.read_bytes()) for p in sorted((folder / "runs").glob("*.run.gz"))}
    return runs, (folder / "results.txt").read_text(encoding="utf-8")


def test_an_experiment_searching_in_blocks_writes_the_same_runs_and_report(mini, tmp_path, monkeypatch):
    path = tmp_path / "e.toml"
    path.write_text(EXPERIMENT.format(folder=mini), encoding="utf-8")
    run_experiment(Experiment.read(path), tmp_path / "whole", quiet=True)
    monkeypatch.setattr(packedrun, "SPLIT_BLOCK", 5)  # the 12 test and dev queries in 3 blocks
    run_experiment(Experiment.read(path), tmp_path / "blocks", quiet=True)
    whole, blocks = _files(tmp_path / "whole"), _files(tmp_path / "blocks")
    assert sorted(whole[0]) == sorted(blocks[0]) and len(whole[0]) >= 10
    assert whole == blocks


def test_asking_whether_the_runner_holds_a_run_does_not_unpack_it(monkeypatch):
    from clirkit.experiment.packedruns import PackedRuns

    runs = PackedRuns()
    runs["A"] = Run(["q1"], ["d1"], [1.0], tag="A")
    monkeypatch.setattr(PackedRun, "unpack", lambda self: pytest.fail("unpacked"))
    assert "A" in runs and "B" not in runs and isinstance(runs.packed("A"), PackedRun)


def test_a_fusion_keeps_the_dev_runs_it_was_tuned_on_packed_and_tunes_again_from_them():
    from clirkit.fusion.system import Fusion

    a, b = _random_run(1, tag="A"), _random_run(2, tag="B")
    qrels = Qrels(a.qids[::5], a.docids[::5], np.ones(len(a.qids[::5]), dtype=np.int64))
    fused = Fusion(step=0.25).fit_runs([a, b], qrels)
    assert all(isinstance(run, PackedRun) for run in fused.dev_runs_)  # (a run of strings is 4 bytes a character)
    _same(fused.dev_runs_[0].unpack(), a)
    _same(fused.dev_runs_[1].unpack(), b)
    assert fused.weights_at(3) == Fusion(step=0.25).fit_runs([a, b], qrels, depth=3).weights_


def test_the_notes_of_a_split_searched_in_blocks_are_said_once_for_the_split(capsys):
    from clirkit.progress import merged_notes, say

    def search(topics, *, excluded, tag, quiet):
        missing = [q for q in topics if q.startswith("x")]
        if missing:
            say(f"Ext: the run has no row for {len(missing)} of {len(topics)} queries", quiet=quiet)
        say("a note said by every block", quiet=quiet)
        kept = [q for q in topics if not q.startswith("x")]
        return Run(kept, ["d1"] * len(kept), [1.0] * len(kept), tag="T")

    topics = {q: "text" for q in ["a", "x1", "b", "c", "x2", "d", "e", "f", "x3", "g"]}
    whole = packed_in_blocks(search, topics, tag=None, quiet=False, block=100)
    said_whole = capsys.readouterr().err
    blocks = packed_in_blocks(search, topics, tag=None, quiet=False, block=3)
    said_blocks = capsys.readouterr().err.rsplit("\r", 1)[-1].lstrip()  # (after the blocks' progress bar)
    assert said_blocks == said_whole == "Ext: the run has no row for 3 of 10 queries\na note said by every block\n"
    _same(blocks.unpack(), whole.unpack())
    packed_in_blocks(search, topics, tag=None, quiet=True, block=3)
    assert capsys.readouterr().err == ""
    # counts of the whole kept as written; a count of something else than the part's queries summed as it is
    assert merged_notes([["1,200 of the 2,000 rows"], ["300 of the 1,000 rows"]], [5, 5]) == ["1,500 of the 3,000 rows"]


@pytest.mark.parametrize(
    "query_ids, sizes, codes, scores, says",
    [
        (["q1"], [2], [0, 0], [2.0, 1.0], "a query lists a document twice"),
        (["q1"], [2], [0, -1], [2.0, 1.0], "a document code outside the 2 documents"),
        (["q1"], [2], [0, 9], [2.0, 1.0], "a document code outside the 2 documents"),
        (["q1", "q1"], [1, 1], [0, 1], [2.0, 1.0], "a query has two groups of rows"),
        (["q1"], [2], [0, 1], [1.0, 2.0], "scores rise within a query"),
        (["q1", "q2"], [2], [0, 1], [2.0, 1.0], "packed run: row counts [2] for 2 queries: give one count per query"),
        (["q1"], [-1], [], [], "row counts [-1] for 1 query: give one count per query, an integer >= 0"),
        (["q1"], [1.5], [0], [1.0], "row counts [1.5] for 1 query"),
    ],
)
def test_a_packed_run_from_codes_refuses_what_a_run_refuses_and_codes_that_do_not_fit(
    query_ids, sizes, codes, scores, says
):
    with pytest.raises(ClirkitError, match=re.escape(says)):
        PackedRun.from_codes(query_ids, sizes, np.array(["x", "y"]), codes, scores, tag="d")


def test_the_packed_api_refuses_what_is_not_a_run_in_one_line():
    packed = PackedRun(_random_run(4))
    for call, says in (
        (lambda: PackedRun(None), "PackedRun: expected a clirkit Run, got NoneType"),
        (lambda: PackedRun.of({"q": {"d": 1.0}}), "PackedRun: expected a clirkit Run, got dict"),
        (
            lambda: PackedRun.concat([packed, _random_run(5)], tag="T"),
            "expected PackedRuns (PackedRun.of(run)), got a Run",
        ),
        (lambda: list(packed.blocks(0)), "blocks: queries must be an integer >= 1 (or None: 500), got 0"),
        (lambda: list(packed.blocks(1.5)), "got 1.5"),
    ):
        with pytest.raises(ClirkitError, match=re.escape(says)):
            call()


def test_a_fusion_given_what_is_not_a_list_of_runs_says_so_in_one_line():
    from clirkit.fusion import borda, interpolate

    packed = PackedRun(_random_run(6))
    for fuse in (interpolate, borda):
        with pytest.raises(ClirkitError, match=r"aggregation takes a list of runs, got a PackedRun"):
            fuse(packed, [1.0])
        for other, name in ((None, "NoneType"), ({"q": {"d": 1.0}}, "dict"), ("x.run", "str")):
            with pytest.raises(ClirkitError, match=rf"aggregation: run 2 is a {name}, not a run"):
                fuse([packed, other], [0.5, 0.5])


def test_notes_of_blocks_alike_but_for_their_examples_are_one_and_a_count_of_the_whole_is_said_as_it_is():
    from clirkit.progress import merged_notes

    no_row = "boost: the base run has no row for {} of {} queries (the first: {!r})"
    parts = [[no_row.format(3, 500, "A")], [no_row.format(2, 501, "B")]]
    assert merged_notes(parts, [500, 501]) == [no_row.format(5, 1001, "A")]
    phrases = "1,234 of 5,000 table words are phrases"  # (of the table, said by every block)
    assert merged_notes([[phrases], [phrases]], [500, 501]) == [phrases]
