"""Edge cases of round 15c (PyTerrier frames, scs-score, datasets build): a qrels frame (or ir_datasets records) with a
grade that is not a whole number names the row (record) and the value; complex scores in a run frame, a re-ranker's
input or ``Run(...)`` are refused instead of being ranked by their real part in silence; a boosted ranker fitted on no
training queries (an empty topics frame) says so instead of an IndexError; an experiment folder's run of a split it has
no run of (train, a misspelt split) names the splits it has instead of a KeyError; building multi30k-de-en from a clone
with an empty split file names that file (not the caption file after it), and a short caption file names the split
file its lines are counted against."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pandas as pd
import pytest

from clirkit.errors import ClirkitError
from clirkit.run import Qrels, Run

# 1. a qrels frame's bad grade names its row and value ---------------------------------------------------------------


def _qrels_frame(labels) -> pd.DataFrame:
    return pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "b", "a"], "label": labels})


@pytest.mark.parametrize(
    "labels, message",
    [
        (["1", "x", "2"], "a qrels frame's label is not a number, got 'x' at row 1"),
        ([1, None, 2], "a qrels frame's label must be whole numbers (grades), got nan at row 1"),
        ([1.0, 0.0, 2.5], "a qrels frame's label must be whole numbers (grades), got 2.5 at row 2"),
    ],
)
def test_a_qrels_frame_with_a_bad_grade_names_the_row_and_the_value(labels, message):
    with pytest.raises(ClirkitError) as caught:
        Qrels.from_frame(_qrels_frame(labels))
    assert str(caught.value) == message


def test_pyterrier_qrels_frame_names_the_row_of_a_text_grade_by_the_frame_index():
    cpt = pytest.importorskip("clirkit.pyterrier")
    frame = _qrels_frame(["2", "1", "relevant"]).set_axis(["r1", "r2", "r3"])
    with pytest.raises(ClirkitError, match=r"^a qrels frame's label is not a number, got 'relevant' at row 'r3'$"):
        cpt.qrels_frame(frame)


def test_qrels_records_with_a_text_relevance_name_the_record():
    Record = namedtuple("Record", ["query_id", "doc_id", "relevance"])
    records = [Record("1", "a", 1), Record("1", "b", 0), Record("2", "a", "high")]
    with pytest.raises(ClirkitError) as caught:
        Qrels.from_records(records)
    assert str(caught.value) == "a qrels record's relevance is not a number, got 'high' at record number 3"


# 2. complex scores are refused, not ranked by their real part -----------------------------------------------------------


def test_a_run_frame_with_complex_scores_is_refused_naming_the_row():
    frame = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [2.0, 1j]})
    with pytest.raises(ClirkitError, match=r"^a run frame: row 0 has score \(2\+0j\), not a finite number"):
        Run.from_frame(frame)


def test_a_run_of_complex_scores_is_refused():
    with pytest.raises(ClirkitError, match=r"^Run scores must be numbers, got array\(\[0\.\+1\.j"):
        Run(["1", "1"], ["a", "b"], np.array([1j, 2 + 0j]))


# 3 and 4. an experiment folder's systems through PyTerrier --------------------------------------------------------

EXPERIMENT = """
collection = "{folder}"
measures = ["AP"]
baseline = "PSQ"
seed = 3

[systems.PSQ]
kind = "psq"

[systems.Boost]
kind = "boost"
base = "PSQ"
rounds = 20
eval_every = 10
beta_grid = [2.0, 5.0]
"""


@pytest.fixture(scope="module")
def folder(mini, tmp_path_factory):
    """A PSQ and a boosted ranker run by the experiment runner on a slice of nave-en-es, read back."""
    cpt = pytest.importorskip("clirkit.pyterrier")
    from clirkit.experiment import Experiment, run_experiment

    work = tmp_path_factory.mktemp("pt15c")
    path = work / "mini.toml"
    path.write_text(EXPERIMENT.format(folder=mini), encoding="utf-8")
    run_experiment(Experiment.read(path), work / "out", quiet=True)
    return cpt.from_experiment(path, work / "out")


def test_a_boosted_ranker_fitted_on_an_empty_topics_frame_says_there_are_no_training_queries(folder):
    boost = folder.retriever("Boost")
    empty = folder.topics("train").iloc[:0]
    with pytest.raises(ClirkitError) as caught:
        boost.fit(empty, folder.qrels("train"), folder.topics("dev"), folder.qrels("dev"))
    assert str(caught.value) == "no training queries (the train topics are empty): give the queries to learn from"


@pytest.mark.parametrize("split", ["train", "tset"])
def test_the_run_of_a_split_the_folder_has_no_run_of_is_a_one_line_error_naming_the_splits_it_has(folder, split):
    assert len(folder.run("PSQ", "test").qids)  # (a split it has runs of)
    with pytest.raises(ClirkitError) as caught:
        folder.run("PSQ", split)
    assert str(caught.value) == (
        f"{folder.folder}: the experiment makes no {split!r} run of PSQ (it has runs of dev, test)"
    )


# 5. datasets build multi30k-de-en: an empty split file is named, not the caption file after it -----------------


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CLIRKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("CLIRKIT_SHARED", str(tmp_path / "no-shared"))
    return tmp_path / "cache"


def test_building_multi30k_with_an_empty_split_file_names_that_file(tmp_path, own_cache, capsys):
    from test_cli_datasets import fake_multi30k

    from clirkit.cli import main

    clone = fake_multi30k(tmp_path / "dataset")
    (clone / "data/task2/image_splits/val_images.txt").write_text("", encoding="utf-8")
    assert main(["datasets", "build", "multi30k-de-en", "--from", str(clone), "-q"]) == 2
    err = capsys.readouterr().err
    split = clone / "data/task2/image_splits/val_images.txt"
    assert err == f"clirkit: error: {split}: empty: a split file names one image a line\n"
    assert not list(own_cache.rglob("done"))


def test_building_multi30k_with_a_short_caption_file_names_the_split_file_it_is_counted_against(
    tmp_path, own_cache, capsys
):
    import gzip

    from test_cli_datasets import fake_multi30k

    from clirkit.cli import main

    clone = fake_multi30k(tmp_path / "dataset")
    (clone / "data/task1/raw/train.en.gz").write_bytes(gzip.compress(b"A dog.\nTwo dogs.\n"))
    assert main(["datasets", "build", "multi30k-de-en", "--from", str(clone), "-q"]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"clirkit: error: {clone}/data/task1/raw/train.en.gz:2: expected 3 lines, one per image of "
        f"{clone}/data/task1/image_splits/train.txt, found 2\n"
    )
