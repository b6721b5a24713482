"""Edge round 15b, boosting (findings 2 to 6): a base run that lacks dev queries is said, a base run naming an
unknown document is refused with its file and line, a model whose recorded hyper-parameters are bad is corrupt
for the command line as for Python, an ``--eval-every`` beyond ``--rounds`` with dev queries is refused, and a
``--max-df`` or ``--bag-fraction`` that leaves nothing to train on is refused before anything is written. Each
through the command line (``clirkit.cli.main``) and the library (``BoostRanker``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from test_boost_base import BASE, BASE_DEV, DEV_QRELS, DEV_QUERIES, DOCIDS, DOCS, QRELS, QUERIES
from test_boost_cli import write_base_run, write_files

from clirkit.boost import BoostRanker
from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.run import Run

SMALL = ["--negatives", "3", "--bits", "20"]


def train_args(tmp_path: Path, *more: str, dev: bool = True) -> list[str]:
    """boost-train's arguments on test_boost_cli's verses, with two dev queries of their own ids (DEV.LIGHT,
    DEV.WORD) when ``dev``, then ``more``; the model at tmp_path/m.npz."""
    q, qrels, docs = write_files(tmp_path)
    args = ["boost-train", "--queries", q, "--qrels", qrels, "--documents", docs, *SMALL]
    if dev:
        (tmp_path / "dev.tsv").write_text("DEV.LIGHT\tLight: created\nDEV.WORD\tWord: in the beginning\n")
        (tmp_path / "dev.qrels").write_text("DEV.LIGHT 0 Gen.1.3 2\nDEV.WORD 0 John.1.1 2\n")
        args += ["--dev-queries", str(tmp_path / "dev.tsv"), "--dev-qrels", str(tmp_path / "dev.qrels")]
    return args + [*more, "-o", str(tmp_path / "m.npz")]


def dev_run(tmp_path: Path, queries=("DEV.LIGHT",), docid: str = "Gen.1.3") -> str:
    """A base run over the dev queries ``queries`` (two rows each, the first at ``docid``)."""
    rows = "".join(f"{q} Q0 {d} {r} {3 - r} b\n" for q in queries for r, d in enumerate((docid, "Gen.1.1"), 1))
    (tmp_path / "dev.run").write_text(rows)
    return str(tmp_path / "dev.run")


def one_error_line(capsys) -> str:
    """The error line of stderr (the last line, after the notes and progress bars), which must be the only one."""
    err = capsys.readouterr().err
    assert err.count("clirkit: error:") == 1 and err.endswith("\n"), err
    return err.strip().splitlines()[-1]


# -- finding 2: a dev run that lacks some dev queries ------------------------------------------------------------


def test_a_base_run_lacking_a_dev_query_is_said_with_the_count_and_the_first_and_quiet_silences_it(tmp_path, capsys):
    args = train_args(tmp_path, "--base-run", write_base_run(tmp_path), dev_run(tmp_path), "--rounds", "4")
    args += ["--eval-every", "2"]
    assert main(args) == 0
    said = "the base run has no row for 1 of the 2 dev queries (the first: 'DEV.WORD'"
    assert said in capsys.readouterr().err
    assert main(args + ["--quiet"]) == 0
    assert said not in capsys.readouterr().err


def test_a_base_run_lacking_a_dev_query_is_said_from_python_too(capsys):
    base = Run(
        np.concatenate([BASE.qids, ["dev1"] * 3]),
        np.concatenate([BASE.docids, BASE_DEV.docids[:3]]),
        np.concatenate([BASE.scores, BASE_DEV.scores[:3]]),
        tag="bm25",
    )
    ranker = BoostRanker.from_flat(base=base, beta=1.0, rounds=4, eval_every=2, significance=None, bits=20)
    ranker.fit_tokens(QUERIES, QRELS, DOCIDS, DOCS, dev_queries=DEV_QUERIES, dev_qrels=DEV_QRELS)
    assert "the base run has no row for 1 of the 2 dev queries (the first: 'dev2'" in capsys.readouterr().err


def test_a_base_run_covering_no_dev_query_is_the_error_the_docs_give(tmp_path, capsys):
    args = train_args(tmp_path, "--base-run", write_base_run(tmp_path), "--rounds", "4", "--eval-every", "2")
    assert main(args) == 2
    assert "the base run has no row for any dev query" in one_error_line(capsys)
    docs = (Path(__file__).parent.parent / "docs" / "boost.md").read_text(encoding="utf-8")
    assert "the base run has no row for any dev query" in docs


# -- finding 3: base-run rows at a document not among the documents --------------------------------------------


def test_a_base_run_row_at_an_unknown_document_is_refused_with_its_file_and_line(tmp_path, capsys):
    bad = dev_run(tmp_path, docid="NOPE.1.1")
    args = train_args(tmp_path, "--base-run", write_base_run(tmp_path), bad, "--rounds", "4", "--eval-every", "2")
    assert main(args) == 2
    assert one_error_line(capsys) == (
        f"clirkit: error: {bad}:1: document 'NOPE.1.1' is not among the documents: give a run of these queries over "
        "these documents"
    )
    assert not (tmp_path / "m.npz").exists()


def test_a_base_run_at_an_unknown_document_is_refused_from_python():
    at = 2  # after q1's two rows: a query's rows stay together
    base = Run(
        np.insert(BASE.qids, at, "q1"),
        np.insert(BASE.docids, at, "NOPE.1.1"),
        np.insert(BASE.scores, at, 0.5),
        tag="bm25",
    )
    ranker = BoostRanker.from_flat(base=base, beta=1.0, rounds=4, bits=20, quiet=True)
    with pytest.raises(ClirkitError, match="the base run names document 'NOPE.1.1', which is not among the documents"):
        ranker.fit_tokens(QUERIES, QRELS, DOCIDS, DOCS)


# -- finding 4: a model whose recorded hyper-parameters are bad ------------------------------------------------


def tampered(tmp_path: Path, change) -> str:
    """A standalone model trained on the verses, its header changed by ``change`` (a function of the header)."""
    assert main(train_args(tmp_path, "--rounds", "4", "--quiet", dev=False)) == 0
    arrays = dict(np.load(tmp_path / "m.npz"))
    header = json.loads(bytes(arrays["__header__"]).decode())
    change(header)
    arrays["__header__"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    np.savez(tmp_path / "bad.npz", **arrays)
    return str(tmp_path / "bad.npz")


@pytest.mark.parametrize(
    "change, says",
    [
        (lambda h: h["params"]["hyper_params"].update(rounds="abc"), "params.hyper_params: The 'rounds' parameter"),
        (lambda h: h["params"]["hyper_params"].update(zzz=1), "params.hyper_params: "),
        (lambda h: h.update(ngram=2), "header ngram 2 but params.hyper_params.ngram 1"),
    ],
    ids=["bad-value", "unknown-key", "ngram-disagrees"],
)
def test_a_model_with_bad_recorded_hyper_parameters_is_corrupt_for_the_cli_and_python_alike(
    tmp_path, capsys, change, says
):
    bad = tampered(tmp_path, change)
    with pytest.raises(ClirkitError) as python:
        BoostRanker.load(bad)
    message = str(python.value)
    assert message.startswith(f"{bad}: corrupt boost model: ") and says in message and "\n" not in message
    q, _, docs = (str(tmp_path / n) for n in ("q.tsv", "qrels.txt", "docs.tsv"))
    for verb in (
        ["boost-show", bad],
        ["boost-rank", bad, "--queries", q, "--documents", docs, "-o", str(tmp_path / "r.run")],
    ):
        assert main(verb) == 2
        assert one_error_line(capsys) == f"clirkit: error: {message}"
    assert not (tmp_path / "r.run").exists()


# -- finding 5: --eval-every beyond --rounds with dev queries --------------------------------------------------


def test_eval_every_beyond_rounds_with_dev_queries_is_refused_before_any_work(tmp_path, capsys):
    assert main(train_args(tmp_path, "--rounds", "4", "--eval-every", "10")) == 2
    assert one_error_line(capsys) == (
        "clirkit: error: --eval-every 10 is more than --rounds 4: the dev queries would be scored only after the "
        "last round (no early stopping); give --eval-every <= --rounds, or leave it out"
    )
    assert not (tmp_path / "m.npz").exists()
    ranker = BoostRanker.from_flat(rounds=4, eval_every=10, bits=20, quiet=True)
    with pytest.raises(
        ClirkitError, match=r"^eval_every 10 is more than rounds 4: the dev queries would be scored only after"
    ):
        ranker.fit_tokens(QUERIES, QRELS, DOCIDS, DOCS, dev_queries=DEV_QUERIES, dev_qrels=DEV_QRELS)
    for eval_every in (4, 100):  # as many as the rounds, or left at its default: scored after the last round
        ranker = BoostRanker.from_flat(rounds=4, eval_every=eval_every, bits=20, quiet=True)
        ranker.fit_tokens(QUERIES, QRELS, DOCIDS, DOCS, dev_queries=DEV_QUERIES, dev_qrels=DEV_QRELS)
        assert ranker.model_.params["dev_curves"][0]["rounds"] == [len(ranker.model_.history["round"])]


# -- finding 6: --max-df or --bag-fraction leaving nothing to train on -----------------------------------------


@pytest.mark.parametrize(
    "options, says",
    [
        (["--max-df", "1e-9"], "max_df 1e-09 drops every query n-gram (the smallest fraction of the 4 query texts"),
        (["--bags", "2", "--bag-fraction", "1e-9"], "bag_fraction 1e-09 of the "),
    ],
    ids=["max-df", "bag-fraction"],
)
def test_options_that_leave_nothing_to_train_on_are_refused_and_no_model_is_written(tmp_path, capsys, options, says):
    assert main(train_args(tmp_path, "--rounds", "4", *options, dev=False)) == 2
    line = one_error_line(capsys)
    assert says in line and ("--max-df" in line or "--bag-fraction" in line)
    assert not (tmp_path / "m.npz").exists()
    ranker = BoostRanker.from_flat(rounds=4, bits=20, bags=2, bag_fraction=1e-9, quiet=True)
    with pytest.raises(ClirkitError, match=r"bag_fraction 1e-09 of the \d+ tuples is less than one tuple a bag"):
        ranker.fit_tokens(QUERIES, QRELS, DOCIDS, DOCS)
