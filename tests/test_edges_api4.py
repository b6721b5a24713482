"""The Python API at its edges (independent testing, round 4): ``PSQ().side`` takes paths as ``fit`` does and says
what it takes otherwise; a ``depth`` that is not an integer >= 1 is one clear error from every system's search
(before any ranking, no numba noise); an empty run frame is refused as an empty run file is."""

from __future__ import annotations

import re

import numpy as np
import pytest

from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.retrieval.shards import ShardedIndex
from clirkit.systems import DT, PSQ, BM25Search, DocPSQ, QueryPSQ
from clirkit.translation import TranslationTable, save_table

FORWARD = TranslationTable.from_triples(
    ["light", "god"], ["luz", "dios"], [1.0, 1.0], params={"source_lang": "en", "target_lang": "es"}
)
REVERSE = TranslationTable.from_triples(
    ["luz", "dios"], ["light", "god"], [1.0, 1.0], params={"source_lang": "es", "target_lang": "en"}
)


def test_psq_side_and_fit_take_resources_of_paths_and_say_what_they_take_otherwise(index, tmp_path):
    index.save(tmp_path / "ix.npz")
    save_table(FORWARD, tmp_path / "en-es.npz")
    save_table(REVERSE, tmp_path / "es-en.npz")
    ix, forward, reverse = (str(tmp_path / n) for n in ("ix.npz", "en-es.npz", "es-en.npz"))
    by_path = Resources(index=ix, reverse_table=reverse)
    assert PSQ().side(by_path) == PSQ().side(Resources(index=index, reverse_table=REVERSE)) == "documents"
    assert (
        PSQ().fit(by_path).search("light").docids.tolist()
        == PSQ().fit(Resources(index=index, reverse_table=REVERSE)).search("light").docids.tolist()
    )
    assert PSQ().side(Resources(index=tmp_path / "ix.npz", table=forward)) == "queries"
    with pytest.raises(ClirkitError, match="index: expected an index .* or an index file's path, got int"):
        PSQ().fit(Resources(index=1, table=2))
    with pytest.raises(ClirkitError, match="table: expected a translation table .* or a table file's path, got int"):
        PSQ().fit(Resources(index=ix, table=2))
    with pytest.raises(ClirkitError, match=r"^PSQ.fit takes Resources: .*, got int$"):
        PSQ(translate="queries").side(3)  # the side is given, the argument is still what fit takes


@pytest.fixture
def systems(index, tmp_path):
    sharded = tmp_path / "sh.npz"
    ShardedIndex.split(index, 2).save(sharded)
    return {
        "BM25Search": (BM25Search().fit(Resources(index=index)), "luz"),
        "DT": (DT().fit(Resources(index=index, table=FORWARD)), "light"),
        "QueryPSQ": (QueryPSQ().fit(Resources(index=index, table=FORWARD)), "light"),
        "DocPSQ": (DocPSQ().fit(Resources(index=index, reverse_table=REVERSE)), "light"),
        "PSQ": (PSQ().fit(Resources(index=index, reverse_table=REVERSE)), "light"),
        "sharded": (BM25Search().fit(Resources(index=sharded)), "luz"),
    }


@pytest.mark.parametrize("depth", [1.5, "5", True, np.float64(2.0), 0, -1])
def test_a_depth_that_is_not_an_integer_from_1_is_one_clear_error_of_every_search(systems, depth, capsys):
    for name, (system, text) in systems.items():
        with pytest.raises(ClirkitError, match=rf"^depth must be an integer >= 1, got {re.escape(repr(depth))}$"):
            system.search(text, depth=depth)
    assert "numba" not in capsys.readouterr().err


def test_an_integer_depth_numpy_or_not_is_taken(systems):
    for name, (system, text) in systems.items():
        assert len(system.search(text, depth=np.int64(1))) == len(system.search(text, depth=1)) == 1, name


def test_an_empty_run_or_qrels_frame_is_refused_as_an_empty_file_is():
    import pandas as pd

    from clirkit.run import Qrels, Run
    from clirkit.runsystem import RunFile

    empty = pd.DataFrame({"qid": [], "docno": [], "score": []})
    for make in (lambda: Run.from_frame(empty), lambda: RunFile(run=empty).fit()):
        with pytest.raises(
            ClirkitError, match=r"^a run frame: empty: no results found \(it has the columns but no row\)$"
        ):
            make()
    with pytest.raises(ClirkitError, match="^a qrels frame: empty: no judgments found"):
        Qrels.from_frame(pd.DataFrame({"qid": [], "docno": [], "label": []}))


def test_resources_say_what_topics_and_qrels_they_take():
    from clirkit.estimator import Resources

    with pytest.raises(TypeError, match="topics must map each split"):
        Resources(topics=5)
    with pytest.raises(TypeError, match="qrels must map each split"):
        Resources(qrels=[1, 2])


@pytest.mark.parametrize("depth", [-1, 0, 2.5, "3", True])
def test_a_run_systems_search_takes_an_integer_depth_only(depth):
    from clirkit.run import Run
    from clirkit.runsystem import RunFile

    system = RunFile(run=Run(["q1", "q1"], ["d1", "d2"], [2.0, 1.0])).fit()
    assert system.search({"q1": "x"}, depth=1).docids.tolist() == ["d1"]
    with pytest.raises(ClirkitError, match="depth must be an integer >= 1"):
        system.search({"q1": "x"}, depth=depth)
