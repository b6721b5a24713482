"""The boosted ranker's defaults are the settings chosen across the dev collections (issue 37,
results/2026-11-29-boost-settings.md): 6,000 rounds at most, the dev MAP every 100 rounds (early stopping keeps the
best), every n-gram kept. The command line has the same defaults, and the demo's Boost is the defaults from its
base."""

from __future__ import annotations

import inspect

import tomllib
from test_cli_tour import SHIPPED

from clirkit.boost import Boosting, BoostRanker, PairFeatures
from clirkit.boost.bagging import BoostParams
from clirkit.cli import build_parser


def test_the_defaults_are_the_chosen_settings():
    defaults = {k: p.default for k, p in inspect.signature(Boosting.__init__).parameters.items()}
    assert (defaults["rounds"], defaults["eval_every"], PairFeatures().max_df) == (6000, 100, 1.0)
    ranker = BoostRanker()  # each group at its defaults
    assert (ranker.boosting.rounds, ranker.boosting.eval_every, ranker.features.max_df) == (6000, 100, 1.0)
    assert (BoostParams().rounds, BoostParams().eval_every) == (6000, 100)


def test_boost_train_has_the_librarys_defaults():
    args = build_parser(["boost-train"]).parse_args(["boost-train", "--queries", "q", "--qrels", "r", "-o", "m"])
    assert (args.param__rounds, args.param__eval_every, args.param__max_df) == (6000, 100, 1.0)


def test_the_demos_boost_sets_nothing_but_its_base():
    demo = tomllib.loads(SHIPPED.read_text(encoding="utf-8"))
    assert demo["systems"]["Boost"] == {"kind": "boost", "base": "DT+PSQ"}
