"""clirkit.boost.unused: a BoostRanker's parameters that a training leaves unused (those of a base ranker without
one, the weight of extra tuples without any, early stopping without dev queries, a candidate depth without a
ranked run) are refused the same way by the library and by an experiment file (issue 40, edge round 13, 13A-5 and
13A-6)."""

from __future__ import annotations

import pytest
from test_boost_base import DEV_QRELS, DEV_QUERIES, DOCIDS, DOCS, QRELS, QUERIES
from test_edges_experiment import _refused

from clirkit.boost import BoostRanker
from clirkit.boost.unused import NEEDS, set_away_from_defaults, unused_params
from clirkit.cli import main
from clirkit.errors import ClirkitError

_ONE = 'collection = "{mini}"\nmeasures = ["AP"]\n[systems.DT]\nkind = "dt"\n[systems.B]\nkind = "boost"\n{more}'


def test_each_parameter_is_unused_without_what_it_needs_and_used_with_it():
    names = list(NEEDS)
    assert [u.name for u in unused_params(names, base=False, extra=False, dev=False)] == names
    assert unused_params(names, base=True, extra=True, dev=True) == []
    assert [u.name for u in unused_params(names, base=False, extra=True, dev=True, candidates=True)] == [
        "beta",
        "beta_grid",
        "significance",
        "hard_negatives",
    ]
    assert [u.name for u in unused_params(names, base=True, extra=True, dev=None)] == []  # dev not known yet
    assert [(u.name, u.needs) for u in unused_params(["beta_grid"], base=True, extra=False, dev=True, beta=True)] == [
        ("beta_grid", "no beta")
    ]
    # the test against the base is made on the dev queries: with a base and no dev queries it is unused too
    assert [(u.name, u.needs) for u in unused_params(names, base=True, extra=True, dev=False)] == [
        ("significance", "dev"),
        ("patience", "dev"),
        ("eval_every", "dev"),
        ("eval_depth", "dev"),
    ]


def test_only_values_away_from_the_defaults_are_set():
    params = BoostRanker.from_flat(rounds=3, patience=2, beta_grid=(2.0, 5.0, 10.0, 20.0)).flat_params()
    assert set_away_from_defaults(params) == ["patience"]
    assert set_away_from_defaults(BoostRanker.from_flat(significance=None).flat_params()) == ["significance"]


@pytest.mark.parametrize(
    "params, says",
    [
        ({"patience": 2}, "patience stops boosting early on the dev queries: give dev queries and qrels too"),
        ({"eval_every": 5}, "eval_every scores the dev queries every N rounds for early stopping: give dev queries"),
        ({"candidate_depth": 10}, "candidate_depth gives the ranks of a candidate or base run that hard negatives"),
        ({"hard_negatives": 9}, "hard_negatives draws negatives from a base ranker's run: give a base run too"),
        ({"significance": 0.5}, "significance tests the boosted model against a base ranker: give a base run too"),
        ({"parallel_weight": 2.0}, "parallel_weight weighs the extra tuples (parallel or known-item ones): give extra"),
    ],
)
def test_fit_refuses_a_parameter_the_training_leaves_unused(params, says):
    ranker = BoostRanker.from_flat(rounds=2, bits=20, quiet=True, **params)
    with pytest.raises(ClirkitError) as caught:
        ranker.fit_tokens(QUERIES, QRELS, DOCIDS, DOCS)
    assert str(caught.value).startswith(says)


def test_fit_takes_early_stopping_with_dev_queries():
    ranker = BoostRanker.from_flat(rounds=2, bits=20, quiet=True, patience=2, eval_every=1)
    ranker.fit_tokens(QUERIES, QRELS, DOCIDS, DOCS, dev_queries=DEV_QUERIES, dev_qrels=DEV_QRELS)
    assert ranker.model_ is not None


_EXTRA = "parallel_weight weighs the extra tuples (parallel or known-item ones): add parallel_tuples = true, or remove "


@pytest.mark.parametrize(
    "more, message",
    [
        ("parallel_weight = 2.0", _EXTRA + "parallel_weight"),
        ("parallel_weight = 1.0", _EXTRA + "parallel_weight"),  # written at its default: unused all the same
        (
            "significance = 0.5",
            'significance tests the boosted model against a base ranker: add base = "SYSTEM", or remove significance',
        ),
        (
            "hard_negatives = 9",
            'hard_negatives draws negatives from a base ranker\'s run: add base = "SYSTEM", or remove hard_negatives',
        ),
        (
            "beta_grid = [1.0, 3.0]",
            'beta_grid gives the weights of a base ranker\'s scores tried on dev: add base = "SYSTEM", or remove '
            "beta_grid",
        ),
        (
            "candidate_depth = 5",
            "candidate_depth gives the ranks of a candidate or base run that hard negatives come from: add base = "
            '"SYSTEM", or remove candidate_depth',
        ),
        (
            'base = "DT"\nbeta = 2.0\nbeta_grid = [1.0]',
            "beta_grid gives the betas tried on dev without a beta: remove beta, or remove beta_grid",
        ),
    ],
)
def test_an_experiment_file_refuses_a_boost_key_its_other_keys_leave_unused(mini, tmp_path, capsys, more, message):
    _refused(tmp_path, capsys, _ONE.format(mini=mini, more=f"rounds = 3\n{more}\n"), f"system 'B': {message}")


def test_an_experiment_without_a_dev_split_refuses_early_stopping_before_anything_runs(tmp_path, capsys):
    _no_dev_experiment(tmp_path, "patience = 2")
    assert main(["run", str(tmp_path / "x.toml"), "-o", str(tmp_path / "out"), "-q"]) == 2
    assert capsys.readouterr().err == (
        f"clirkit: error: {tmp_path / 'x.toml'}: system 'B': patience stops boosting early on the dev queries: give "
        "the collection a dev split, or remove patience\n"
    )
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("written", ["patience = 0", "eval_every = 100", "eval_depth = 1000"])
def test_an_experiment_without_a_dev_split_refuses_early_stopping_written_at_its_default(tmp_path, capsys, written):
    # issue 40, edge round 14 (leftovers): the file writes the key, so it says early stopping is read, whatever
    # the value; the same key away from its default is refused above
    _no_dev_experiment(tmp_path, written)
    key = written.split()[0]
    assert main(["run", str(tmp_path / "x.toml"), "-o", str(tmp_path / "out"), "-q"]) == 2
    assert capsys.readouterr().err == (
        f"clirkit: error: {tmp_path / 'x.toml'}: system 'B': {key} {NEEDS[key][0]}: give the collection a dev split, "
        f"or remove {key}\n"
    )
    assert not (tmp_path / "out").exists()


def _no_dev_experiment(tmp_path, key: str) -> None:
    """``tmp_path/x.toml``: a boost system writing ``key`` (a TOML line) over a collection of train and test splits
    only, its files beside it."""
    (tmp_path / "docs.tsv").write_text("".join(f"D{i}\tcasa perro {i}\n" for i in range(8)), encoding="utf-8")
    (tmp_path / "q.tsv").write_text("".join(f"Q{i}\thouse dog\n" for i in range(6)), encoding="utf-8")
    (tmp_path / "q.qrels").write_text("".join(f"Q{i} 0 D{i} 1\n" for i in range(6)), encoding="utf-8")
    (tmp_path / "x.toml").write_text(
        'measures = ["AP"]\nfigures = false\n[collection]\ndocuments = "docs.tsv"\nqueries = "q.tsv"\n'
        'qrels = "q.qrels"\nsource_lang = "en"\ntarget_lang = "es"\nsplit = {train = 0.5, test = 0.5}\n'
        f'[systems.B]\nkind = "boost"\nrounds = 3\n{key}\n',
        encoding="utf-8",
    )
