"""Issue 40, edge test 12A: settings refused when an experiment file or a command line is read, as their like are:
stopword lists of either side (5), SCS options the loss leaves unused (13), a measure listed twice in two spellings
(14); and what docs/evaluate.md and docs/fuse.md say of an empty run and of dev runs out of order (15)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_edges_experiment import _refused

from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.experiment import Experiment
from clirkit.run import Qrels
from clirkit.scs import SCSModel

ROOT = Path(__file__).resolve().parent.parent
_ONE = 'collection = "{mini}"\nmeasures = ["AP"]\n[systems.DT]\nkind = "dt"\n{more}'


# --------------------------------------------------------------------------- finding 5: stopword lists of both sides


@pytest.mark.parametrize("kind", ["psq", "querypsq", "docpsq"])
@pytest.mark.parametrize(
    "key, words, problem",
    [
        ("target_stopwords", "[1]", "expected words (str), got 1"),
        ("target_stopwords", '["de", 2]', "expected words (str), got 2"),
        ("target_stopwords", '["de la"]', "'de la' holds a space: a stopword is one token"),
        ("target_stopwords", '[""]', "'' is empty: a stopword is one token"),
        ("target_stopwords", '["  "]', "'  ' is empty: a stopword is one token"),
        ("target_stopwords", "[]", 'an empty list: list the words, or give "none" for no list'),
        ("source_stopwords", "[1]", "expected words (str), got 1"),
        ("source_stopwords", '["the way"]', "'the way' holds a space: a stopword is one token"),
        ("source_stopwords", '[""]', "'' is empty: a stopword is one token"),
    ],
)
def test_a_stopword_list_the_analyzer_would_refuse_is_refused_when_the_file_is_read_naming_its_key(
    mini, tmp_path, capsys, kind, key, words, problem
):
    # target_stopwords = [1] was a TypeError traceback at fit, after the index and the tables were built; "de la",
    # "" and "  " were accepted (the command line's FILE and source_stopwords refuse them); source_stopwords = [1]
    # was refused at fit only, as "stopwords: ..."
    more = f'[systems.P]\nkind = "{kind}"\n{key} = {words}\n'
    _refused(tmp_path, capsys, _ONE.format(mini=mini, more=more), f"system 'P': {key}: {problem}")


# --------------------------------------------------------------------------- finding 13: SCS options a loss leaves unused

_HINGE = "the margin of the 'hinge' loss, unused by the {loss!r} loss: leave it out, or train with the 'hinge' loss"
_PAIRWISE = "{what}, unused by the 'sosl' loss: leave it out, or train with a pairwise loss (hinge, logistic, exp)"
_POINTWISE = (
    "the grade thresholds of the pointwise losses, unused by the {loss!r} loss: leave them out, or train with a "
    "pointwise loss (sosl, mse)"
)
_UNUSED = [
    pytest.param("margin", "1.5", "", _HINGE.format(loss="sosl"), id="margin sosl"),
    pytest.param("margin", "0.2", "", _HINGE.format(loss="sosl"), id="margin at its default"),
    pytest.param("margin", "0.3", "logistic", _HINGE.format(loss="logistic"), id="margin logistic"),
    pytest.param(
        "pair_weight", '"grade"', "", _PAIRWISE.format(what="the weight of a pair in the pairwise losses"), id="pair"
    ),
    pytest.param(
        "max_pairs_per_query",
        "10",
        "",
        _PAIRWISE.format(what="the pairs sampled per query by the pairwise losses"),
        id="max pairs",
    ),
    pytest.param("thresholds", "[0.1, 0.5]", "hinge", _POINTWISE.format(loss="hinge"), id="thresholds hinge"),
    pytest.param("thresholds", "[0.2, 0.7]", "exp", _POINTWISE.format(loss="exp"), id="thresholds at default"),
]


@pytest.mark.parametrize("key, value, loss, why", _UNUSED)
def test_an_scs_key_its_loss_leaves_unused_is_refused_when_the_file_is_read_even_at_its_default(
    mini, tmp_path, capsys, key, value, loss, why
):
    # margin, pair_weight (sosl) and thresholds (hinge) changed nothing but the model's header, while mse_targets
    # with sosl was refused
    more = '[systems.S]\nkind = "scs"\nepochs = 1\n' + (f'loss = "{loss}"\n' if loss else "") + f"{key} = {value}\n"
    _refused(tmp_path, capsys, _ONE.format(mini=mini, more=more), f"system 'S': {key}: {why}")


@pytest.mark.parametrize("key, value, loss, why", _UNUSED)
def test_scs_train_refuses_an_option_its_loss_leaves_unused_even_at_its_default(
    tmp_path, capsys, key, value, loss, why
):
    (tmp_path / "q.tsv").write_text("q1\tred house\nq2\tthe dog\n", encoding="utf-8")
    (tmp_path / "d.tsv").write_text("d1\tla casa roja\nd2\tel perro\n", encoding="utf-8")
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq2 0 d2 1\n", encoding="utf-8")
    files = [f"--{what}={tmp_path / name}" for what, name in (("queries", "q.tsv"), ("documents", "d.tsv"))]
    option = "--" + key.replace("_", "-")
    values = value.strip('"[]').replace(",", "").split()
    model = tmp_path / "m.npz"
    loss_option = ["--loss", loss] if loss else []
    argv = ["scs-train", *files, f"--qrels={tmp_path / 'qrels'}", "--source-lang=en", "--target-lang=es"]
    argv += ["--epochs=1", "--dim=2", "-o", str(model), "-q", *loss_option, option, *values]
    assert main(argv) == 2
    assert capsys.readouterr().err == f"clirkit: error: {option}: {why}\n"
    assert not model.exists()


@pytest.mark.parametrize("key, value, loss, why", [p for p in _UNUSED if "default" not in p.id])
def test_scs_check_params_refuses_a_value_its_loss_leaves_unused(key, value, loss, why):
    given = {"thresholds": (0.1, 0.5), "margin": float(value) if key == "margin" else 0.2}.get(key, value.strip('"'))
    params = {key: int(given) if key == "max_pairs_per_query" else given, **({"loss": loss} if loss else {})}
    with pytest.raises(ClirkitError) as err:
        SCSModel.from_flat(**params).check_params()
    assert str(err.value) == f"{key}: {why}"


def test_scs_check_params_accepts_the_defaults_under_every_loss_and_what_each_loss_reads():
    for loss in ("sosl", "mse", "hinge", "logistic", "exp"):
        SCSModel.from_flat(loss=loss).check_params()
    SCSModel.from_flat(loss="hinge", margin=0.5, pair_weight="grade", max_pairs_per_query=None).check_params()
    SCSModel.from_flat(loss="mse", thresholds=[0.1], mse_targets=(0.0, 1.0)).check_params()
    SCSModel.from_flat(thresholds=[0.2, 0.7]).check_params()  # a list equal to the default tuple


def test_a_pairwise_loss_trains_on_grades_beyond_the_thresholds_it_does_not_read():
    # before, the thresholds a pairwise loss does not read capped its grades: a grade 3 asked for a third threshold
    qids, qtok = ["q1", "q2"], [["red", "house"], ["dog"]]
    dids, dtok = ["d1", "d2", "d3"], [["casa", "roja"], ["perro"], ["gato"]]
    qrels = Qrels(["q1", "q1", "q2"], ["d1", "d3", "d2"], [3, 1, 2])
    model = SCSModel.from_flat(loss="hinge", dim=4, epochs=1, negatives=1, random_state=0)
    assert len(model.prepare(qids, qtok, dids, dtok, qrels)) > 0
    with pytest.raises(ClirkitError, match="grade 3 but the model has 3 grades"):
        SCSModel.from_flat(dim=4, epochs=1, negatives=1).prepare(qids, qtok, dids, dtok, qrels)


# --------------------------------------------------------------------------- finding 14: measures by measure, not spelling


@pytest.mark.parametrize(
    "lists, said",
    [
        ('measures = ["AP", "ap"]', "measures lists AP twice (as 'AP' and 'ap')"),
        ('measures = ["AP", "MAP", "P@10", "P_10"]', "measures lists AP twice (as 'AP' and 'MAP')"),
        ('measures = ["P@10", "P_10"]', "measures lists P@10 twice (as 'P@10' and 'P_10')"),
        ('measures = ["AP", "P@10"]\ngains = ["MAP", "AP"]', "gains lists AP twice (as 'MAP' and 'AP')"),
        ('measures = ["AP", "P@10"]\ngains = ["AP", "AP"]', "gains lists 'AP' twice"),
    ],
)
def test_a_measure_listed_twice_in_two_spellings_is_refused_naming_both(mini, tmp_path, capsys, lists, said):
    # ["AP", "MAP"] was accepted and one column silently dropped
    text = _ONE.format(mini=mini, more="").replace('measures = ["AP"]', lists)
    _refused(tmp_path, capsys, text, f"{said}: list each once")


def test_gains_name_a_measure_in_another_spelling_than_the_measures(mini, tmp_path):
    # gains = ["MAP"] with measures ["AP", ...] was "not one of the measures (AP, P@10)", though MAP is AP
    path = tmp_path / "x.toml"
    text = _ONE.format(mini=mini, more="").replace('measures = ["AP"]', 'measures = ["AP", "P_10"]')
    path.write_text('gains = ["MAP", "P@10"]\n' + text, encoding="utf-8")
    assert Experiment.read(path).gains == ("AP", "P_10")  # the report's columns, headed as the measures are written


# --------------------------------------------------------------------------- finding 15: the guides' common errors


def _guide(name: str) -> str:
    return " ".join((ROOT / "docs" / name).read_text(encoding="utf-8").split())


def test_the_evaluate_guide_says_an_empty_run_scores_0_with_the_note_eval_gives(tmp_path, capsys):
    guide = _guide("evaluate.md")
    assert "a NaN score, an empty run: one line" not in guide  # an empty run has been no error since round 11
    (tmp_path / "test.qrels").write_text("q7 0 d1 1\nq8 0 d2 1\n", encoding="utf-8")
    (tmp_path / "empty.run").write_text("", encoding="utf-8")
    assert main(["eval", "--qrels", str(tmp_path / "test.qrels"), str(tmp_path / "empty.run"), "-m", "AP"]) == 0
    note = capsys.readouterr().err.strip().replace(str(tmp_path / "empty.run"), "empty.run")
    assert note == "empty.run: holds no results: each of the 2 judged queries scores 0"
    assert f"An empty run is no error: each judged query scores 0, and stderr says so (`{note}`)" in guide


def test_the_fusion_guide_says_dev_runs_whose_tags_show_another_order_are_refused(tmp_path, capsys, monkeypatch):
    guide = _guide("fuse.md")
    assert "in another order than the RUNs: nothing can tell" not in guide  # refused since round 9
    monkeypatch.chdir(tmp_path)
    for name, tag, rows in (
        ("dt.run", "DT", "q7 Q0 d1 1 2.0 {t}\nq7 Q0 d3 2 1.0 {t}\n"),
        ("psq.run", "PSQ", "q7 Q0 d3 1 2.0 {t}\nq7 Q0 d1 2 1.0 {t}\n"),
        ("dt.dev.run", "DT", "q5 Q0 d5 1 2.0 {t}\n"),
        ("psq.dev.run", "PSQ", "q5 Q0 d1 1 2.0 {t}\n"),
    ):
        (tmp_path / name).write_text(rows.format(t=tag), encoding="utf-8")
    (tmp_path / "dev.qrels").write_text("q5 0 d5 1\n", encoding="utf-8")
    argv = ["aggregate", "dt.run", "psq.run", "--tune", "--dev-runs", "psq.dev.run", "dt.dev.run"]
    assert main([*argv, "--dev-qrels", "dev.qrels", "-o", "x.run", "-q"]) == 2
    said = capsys.readouterr().err.strip()
    assert said.startswith("clirkit: error: psq.dev.run: the 1st of --dev-runs (tag PSQ)") and f"`{said}`" in guide
    assert "Only runs whose tags cannot tell them apart" in guide
