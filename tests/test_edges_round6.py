"""The sixth independent edge test's findings that are not about text tables (those: test_written_tables.py, the
--jobs cap: test_parallel_processes.py, psq's table file in experiments: test_psq_table_file_side.py)."""

from __future__ import annotations

import json
import warnings

import pytest
from test_edges_experiment import _PAIR, _refused

from clirkit.boost import BoostRanker
from clirkit.cli import main
from clirkit.formats import read_run


@pytest.mark.parametrize("name", [".", "..", "+", "", ".a", "..b"])
def test_a_name_without_a_letter_or_digit_is_refused(mini, tmp_path, capsys, name):
    more = f'[systems."{name}"]\nkind = "bm25"\n'
    said = f"{name!r}: a system or fusion name needs a letter or digit and does not start with a dot (it names its runs and files)"
    _refused(tmp_path, capsys, _PAIR.format(mini=mini, more=more), said)


def test_finite_scores_near_the_float_limit_are_read_without_a_warning(tmp_path):
    path = tmp_path / "r.run"
    path.write_text("q1 Q0 a 1 1e308 t\nq1 Q0 b 2 -1e308 t\nq1 Q0 c 3 1e308 t\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run = read_run(path)
    assert run.docids.tolist() == ["a", "c", "b"]


def test_the_betas_tried_are_noted_in_numeric_order_also_from_a_saved_model():
    ranker = BoostRanker.__new__(BoostRanker)
    header = json.loads(
        json.dumps({"beta_dev_map": {"2": 0.2, "10": 0.1, "5": 0.3}, "bag_rounds": [3]}, sort_keys=True)
    )
    ranker.model_ = type("M", (), {"params": header, "from_base": True, "beta": 5.0, "__len__": lambda s: 7})()
    assert ranker.notes("B") == [
        "B: beta 5 (dev MAP by beta: 2 0.2000, 5 0.3000, 10 0.1000), 3 rounds, 7 phrase-table entries"
    ]


def test_scs_train_refuses_qrels_that_judge_nothing_relevant(tmp_path, capsys):
    (tmp_path / "q.tsv").write_text("q1\tlight of the world\nq2\tthe waters\n", encoding="utf-8")
    (tmp_path / "d.tsv").write_text("d1\tla luz del mundo\nd2\tlas aguas\n", encoding="utf-8")
    (tmp_path / "z.qrels").write_text("q1 0 d1 0\nq2 0 d2 -1\n", encoding="utf-8")
    argv = ["scs-train", "--queries", str(tmp_path / "q.tsv"), "--qrels", str(tmp_path / "z.qrels")]
    argv += ["--documents", str(tmp_path / "d.tsv"), "--source-lang", "en", "--target-lang", "es", "--epochs", "1"]
    assert main([*argv, "-o", str(tmp_path / "m.npz"), "-q"]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == f"clirkit: error: {tmp_path / 'z.qrels'}: no judgment of the training queries is relevant (the highest grade is 0): SCS learns from relevant (query, document) pairs\n"
    )
    assert not (tmp_path / "m.npz").exists()
